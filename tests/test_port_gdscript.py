"""The GDScript port (wander3d/port/gdscript): `bash DIR/conformance.sh [--compose] SECONDS
SAMPLE_RATE` runs the core in godot3-server (Godot 3.2's headless build) and prints what
`wander3d run --out .csv` writes, byte for byte, through the hosted flock and through the
composable call, over 60 simulated seconds of every bundled scene, the scenes port_support
writes (every method x steering mode, level and flattened agents, heavy agents at the walls, no
margin, dt 1/20 to 1/120) and a scene of odd values written here. GDScript steps a few ten
thousand agents a second, so these runs keep a few agents a group (identity needs every branch,
not size), and the full-size scenes run two simulated seconds (swarm's 30,000 agents three
steps, marked slow): their starts read whole and every agent stepped. The two modes of a scene
run at once (two godot3-server processes). Also checked, through tests/port_probes/probe.gd:
detmath against the engine's on random inputs, the CSV digits against pyarrow's, frame-rate
independence, the shared spawn, method switches, edits, agents added and removed by id, the
Godot 4 adapter's arithmetic; and every .gd file a port writes parses and lints as Godot 4's
GDScript (gdtoolkit), with no name of Godot's global scope."""

from __future__ import annotations

import dataclasses
import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from port_support import (
    BUNDLED,
    FULL_SIZE_RUN,
    PROBES,
    SECONDS,
    WRITTEN,
    assert_same_csv,
    check_both_modes,
    check_checked_in_core,
    check_crlf_start,
    check_edit,
    check_edits_repeat_the_engines,
    check_frame_rate,
    check_set_method,
    check_spawn,
    check_spawned_as_documented,
    conformance,
    conformance_sh,
    need,
    reference,
    scene_file,
)
from scene_support import REPO

from wander3d.engine import detmath, kernel
from wander3d.port import language, plan_port, write_port
from wander3d.port.gdscript import double_literal, snake
from wander3d.port.plan import GROUP_NUMBERS, group_numbers
from wander3d.scene import Scene, load_scene

GODOT = "godot3-server"
PACKAGE = REPO / "wander3d" / "port" / "gdscript"
MODES = ("flock", "compose")
#: Agents per group in the conformance runs: GDScript steps about 40,000 agents a second in
#: godot3-server; a few agents a group meet every branch in 60 s (the written scenes have ten
#: groups, one per method and steering mode).
AGENTS = {"bundled": 6, "written": 3}
#: Samples a second in the CSVs (each number is formatted in GDScript).
RATE = 2.0

#: A scene no other test writes: the largest seed, a flat slab of a box far from the origin, a
#: fine dt, a noise group turning fast at vertical 0.05, an angle group with no distance and a
#: tiny radius, a sphere group whose jitter crosses the sphere's centre and starts still, a
#: seek group picking a point every 50 ms, a level random group; group names with quotes,
#: commas and letters beyond ASCII.
ODD = """
[scene]
name = "odd slab"
seed = 4294967295
dt = 0.0125

[enclosure]
min = [-7.25, 1000.5, -3.0]
max = [61.0, 1012.0, 0.5]
margin = 1.3

[[groups]]
name = 'Ünï "slab" noise, fast'
count = 3
max_speed = 7.3
max_force = 2.2
mass = 0.45
[groups.wander]
method = "noise"
steering = "desired"
frequency = 2.75
vertical = 0.05
distance = 0.9
radius = 3.1

[[groups]]
name = "angle, nearly isotropic"
count = 3
max_speed = 19.0
max_force = 140.0
mass = 3.3
[groups.wander]
method = "angle"
rate = 3.9
vertical = 0.99
distance = 0.0
radius = 0.001

[[groups]]
name = "sphere: jitter beyond the radius"
count = 3
initial_speed = 0.0
[groups.wander]
method = "sphere"
jitter = 55.0
radius = 0.25
distance = 2.0
vertical = 0.5

[[groups]]
name = "seek every 50 ms"
count = 3
max_speed = 123.0
[groups.wander]
method = "seek"
interval = 0.05
steering = "desired"

[[groups]]
name = "random, level"
count = 3
[groups.wander]
method = "random"
vertical = 0.0
steering = "desired"
"""

#: Numbers Godot's float parser would misread as plain decimals (17 significant digits, tiny
#: and huge ones), one method's key per group: the scene block must carry each exactly.
AWKWARD = """
[scene]
seed = 3000000000
dt = 0.016666666666666666
[enclosure]
min = [-100.12345678901234, -0.1, -3e-5]
max = [0.30000000000000004, 61.000000000000014, 700000.1]
margin = 0.010000000000000002
[[groups]]
name = "noise"
count = 1
max_speed = 33.333333333333336
max_force = 142.85714285714286
mass = 0.30000000000000004
initial_speed = 1e-300
[groups.wander]
method = "noise"
frequency = 0.001
vertical = 0.3333333333333333
distance = 987654.3210987654
radius = 2.5e-3
[[groups]]
name = "sphere"
count = 1
[groups.wander]
method = "sphere"
jitter = 1e-7
[[groups]]
name = "angle"
count = 1
[groups.wander]
method = "angle"
rate = 0.6666666666666666
[[groups]]
name = "seek"
count = 1
[groups.wander]
method = "seek"
interval = 1234.5678901234567
"""


def fewer_agents(scene: Scene, count: int) -> Scene:
    return scene.replace(
        groups=tuple(dataclasses.replace(g, count=min(g.count, count)) for g in scene.groups)
    )


def port_of(scene: Scene, out: Path) -> Path:
    """`wander3d port` of `scene` in GDScript into `out`."""
    write_port(plan_port(scene), language("gdscript"), out)
    return out


def run(port: Path, mode: str, *args: object) -> subprocess.CompletedProcess[bytes]:
    """`bash DIR/conformance.sh [--compose] ARGS...` from another folder."""
    need(GODOT)
    return conformance_sh(port, *args, compose=mode == "compose")


def check_identical(port: Path, seconds: float = SECONDS, rate: float = RATE) -> None:
    """Both drivers (conformance.sh and conformance.sh --compose) print `wander3d run`'s CSV;
    the two godot3-server runs at once."""
    need(GODOT)
    check_both_modes(port, seconds, rate)


@pytest.mark.parametrize("name", [*BUNDLED, *WRITTEN])
def test_the_gdscript_port_repeats_wander3d_run(tmp_path, name):
    count = AGENTS["written" if name in WRITTEN else "bundled"]
    scene = fewer_agents(load_scene(scene_file(tmp_path, name)), count)
    check_identical(port_of(scene, tmp_path / "port"))


@pytest.fixture(scope="module")
def odd_port(tmp_path_factory) -> Path:
    """The port of ODD, written once for the tests that read it (none changes its files)."""
    folder = tmp_path_factory.mktemp("odd")
    path = folder / "odd.toml"
    path.write_text(ODD)
    return port_of(load_scene(path), folder / "port")


def test_a_scene_of_odd_values_no_test_wrote_before_is_identical(odd_port):
    check_identical(odd_port, rate=3.0)


#: The full-size runs' simulated seconds and samples a second: port_support's FULL_SIZE_RUN,
#: but swarm's 30,000 agents three steps (GDScript reads and formats its 30,000 rows of a
#: sample in seconds).
FULL_SIZE = {"swarm": (0.05, 20.0)}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.slow, pytest.mark.timeout(600)]) if n == "swarm" else n
     for n in BUNDLED],
)  # fmt: skip
def test_the_full_size_bundled_scenes_are_identical(tmp_path, name):
    port = port_of(load_scene(scene_file(tmp_path, name)), tmp_path / "port")
    check_identical(port, *FULL_SIZE.get(name, FULL_SIZE_RUN))


def test_the_readme_command_checks_a_port_of_a_group_subset(tmp_path):
    """`--group noise --group angle` ports the smaller scene (port_support's check, with fewer
    agents), checked with the command the port's README gives."""
    need(GODOT)
    scene = fewer_agents(load_scene(scene_file(tmp_path, "compare")), 8)
    out = tmp_path / "port"
    write_port(plan_port(scene, ["noise", "angle"]), language("gdscript"), out)
    ours = conformance("gdscript", out, SECONDS, RATE, tmp_path)
    assert_same_csv(ours, reference(out, SECONDS, RATE))
    assert {row.split(b",")[1] for row in ours.splitlines()[1:]} == {b'"angle"', b'"noise"'}


@pytest.fixture(scope="module")
def small_port(tmp_path_factory) -> Path:
    """The default scene's port with two agents, for the tests of conformance.sh itself."""
    folder = tmp_path_factory.mktemp("small")
    return port_of(fewer_agents(load_scene(scene_file(folder, "default")), 2), folder / "port")


@pytest.mark.parametrize("mode", MODES)
def test_bad_arguments_exit_2_with_the_usage_on_stderr_only(small_port, mode):
    for args in [("-1", "10"), ("60", "x"), ("60",), ()]:
        done = run(small_port, mode, *args)
        assert done.returncode == 2, args
        assert done.stdout == b"", args
        assert done.stderr.decode().startswith("usage: bash conformance.sh "), args


def test_a_script_error_fails_the_command_with_godots_words_and_nothing_on_stdout(
    small_port, tmp_path
):
    """Godot 3 carries on after a script error (the function returns null, its caller goes
    on), and would print a wrong CSV and exit 0: the command fails instead."""
    port = tmp_path / "port"
    shutil.copytree(small_port, port, ignore=shutil.ignore_patterns("build"))
    core = port / "wander.gd"
    core.write_text(core.read_text().replace("func steer(", "func steer_renamed("))
    done = run(port, "flock", 1, 1)
    assert done.returncode != 0
    assert done.stdout == b""
    assert b"steer" in done.stderr


# ------------------------------------------------------------------ probes of the core


class GodotProbe:
    """tests/port_probes/probe.gd in `folder` beside a port; called with arguments, it runs in
    godot3-server and gives what the probe wrote (to `out`: Godot prints its banner on stdout)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.out = folder / "probe.out"

    def __call__(self, *args: str) -> str:
        self.out.unlink(missing_ok=True)
        command = [GODOT, "--no-window", "--path", str(self.folder), "-s", "probe.gd", *args]
        done = subprocess.run([*command, str(self.out)], capture_output=True, timeout=300)
        log = done.stdout + done.stderr  # Godot 3 carries on after a script error
        assert done.returncode == 0 and self.out.exists(), log.decode(errors="replace")
        assert b"SCRIPT ERROR" not in log, log.decode(errors="replace")
        return self.out.read_text(errors="replace")


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> GodotProbe:
    """The probe beside the checked-in core, adapter and CSV writer (the default scene's port)."""
    need(GODOT)
    folder = tmp_path_factory.mktemp("probe")
    port = language("gdscript")
    for name in (port.core, *port.sources):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(port.source(name))
    shutil.copy(PROBES / "probe.gd", folder)
    return GodotProbe(folder)


def test_detmath_and_the_noise_offsets_are_the_engines_bit_for_bit(probe, tmp_path):
    rng = np.random.default_rng(11)
    a = np.concatenate([rng.uniform(-4, 4, 6000), rng.uniform(-40, 40, 2000), [0.0, -0.0]])
    b = np.concatenate([rng.uniform(-4, 4, 6000), rng.uniform(-400, 400, 2000), [-0.0, 0.0]])
    np.stack([a, b], axis=1).tofile(tmp_path / "in.bin")
    probe("detmath", str(tmp_path / "in.bin"))
    ours = np.fromfile(probe.out, dtype=np.float64).reshape(-1, 8)
    rows = []
    for x, y in zip(a, b, strict=True):
        s, c = detmath.sincos(y)
        rows.append([detmath.atan2(x, y), detmath.asin(x / 4.0), detmath.exp(x), s, c,
                     x % (2.0 * np.pi), *kernel.shift_offsets(x, y, y * 0.3, x * 0.2)])  # fmt: skip
    theirs = np.array(rows)
    names = ("atan2", "asin", "exp", "sin", "cos", "floor mod", "offset yaw", "offset pitch")
    for k, name in enumerate(names):
        same = (ours[:, k].view(np.uint64) == theirs[:, k].view(np.uint64)) | (
            np.isnan(ours[:, k]) & np.isnan(theirs[:, k])
        )
        assert same.all(), (name, a[~same][:3], b[~same][:3])


def test_numbers_are_formatted_as_arrow_writes_them(probe, tmp_path):
    rng = np.random.default_rng(3)
    f32 = np.concatenate([
        rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        rng.uniform(-300, 300, 12000).astype(np.float32),
        rng.uniform(-1e-3, 1e-3, 1000).astype(np.float32),
        np.array([0.0, -0.0, 1e-7, 1e-6, 1e9, 1e10, 1048576.25, 1048576.75, 3.4028235e38,
                  1e-45, 1.17549435e-38, 16777216.0, 2.0**-20, 0.1], dtype=np.float32),
    ])  # fmt: skip
    f32 = f32[np.isfinite(f32)]
    f64 = np.concatenate([
        rng.uniform(-1e3, 1e3, 2000), np.arange(2000) * (7 / 60), np.arange(500) * 0.0125,
        rng.integers(0, 2**63, 1000, dtype=np.uint64).view(np.float64),
        [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16, 1e15, 0.1, -0.0],
    ])  # fmt: skip
    f64 = f64[np.isfinite(f64)]
    f32.tofile(tmp_path / "f32.bin")
    f64.tofile(tmp_path / "f64.bin")
    ours = probe("format", str(tmp_path / "f32.bin"), str(tmp_path / "f64.bin")).split("\n")[:-1]
    theirs = []
    for values in (f32, f64):
        buffer = io.BytesIO()
        pacsv.write_csv(pa.table({"v": pa.array(values)}), buffer)
        theirs += buffer.getvalue().decode().splitlines()[1:]
    values = [*f32.tolist(), *f64.tolist()]
    bad = [(v, o, t) for v, o, t in zip(values, ours, theirs, strict=True) if o != t]
    assert not bad, bad[:5]


def test_the_run_does_not_depend_on_the_frame_rate(probe):
    check_frame_rate(probe)


def test_spawned_agents_start_inside_the_margin_and_stay_in_the_box(probe):
    check_spawn(probe)


def test_the_spawn_is_the_one_every_port_shares(probe):
    check_spawned_as_documented(probe)


def test_switching_method_keeps_each_target_where_it_is(probe):
    check_set_method(probe)


def test_edited_parameters_act_from_the_next_step(probe):
    check_edit(probe)


def test_a_start_with_windows_line_ends_is_read_alike(probe, tmp_path):
    check_crlf_start(probe, tmp_path)


def test_agents_come_and_go_by_id_without_changing_the_others(probe):
    """Per method: removing an agent leaves the others' runs unchanged, a re-added id repeats
    its run, agent() faces the velocity, no box means containment -0, edits act at once."""
    assert probe("agents").split() == ["removed", "readded", "placed", "idle", "edited"]


#: probe.gd run in a port's folder with its answer on stdout, as port_support's probe protocol
#: reads it: Godot prints its banner there, so the probe writes its file OUT, printed after;
#: a script error (Godot 3 carries on after one) fails the run with Godot's log on stderr.
PROBE_TO_STDOUT = [
    "bash",
    "-c",
    f'{GODOT} --no-window --path . -s probe.gd "$@" probe.out > probe.log 2>&1'
    ' && ! grep -q "SCRIPT ERROR" probe.log && cat probe.out || { cat probe.log >&2; exit 1; }',
    "probe.gd",
]


def test_run_time_edits_repeat_the_engines(tmp_path):
    """port_support's EDITS in the hosted flock, edited as the Godot 4 node applies its
    settings (WanderView.apply), and through the composable call: the engine's edited run."""
    need(GODOT)
    check_edits_repeat_the_engines("gdscript", tmp_path, "probe.gd", [], PROBE_TO_STDOUT)


def test_the_adapters_arithmetic_runs_in_godot_3(probe):
    """adapter/wander_view.gd, the Godot 4 node's engine-free part, in Godot 3.2 as a stand-in:
    model frames, debug lines, settings applied live to a running flock."""
    assert probe("adapter").split() == ["frames", "lines", "applied"]


def test_the_scene_blocks_numbers_are_read_exactly(tmp_path):
    """Godot's float parser misreads long decimals; the scene block writes them exactly."""
    need(GODOT)
    path = tmp_path / "awkward.toml"
    path.write_text(AWKWARD)
    scene = load_scene(path)
    port = port_of(scene, tmp_path / "port")
    shutil.copy(PROBES / "probe.gd", port)
    answer = GodotProbe(port)("scene", *(snake(name) for name, _, _ in GROUP_NUMBERS))
    box = scene.enclosure
    numbers = [scene.dt, *box.min, *box.max, box.margin]
    for g in plan_port(scene).groups:
        numbers += [value for _, value, _ in group_numbers(g.params)]
    assert answer.split() == [f"{np.float64(x).view(np.uint64):016x}" for x in numbers]
    assert "(1.0 / " in (port / "wander.gd").read_text()  # some were written as exact products


def test_double_literals_are_plain_where_godot_reads_them_exactly():
    assert double_literal(0.0166667) == "0.0166667"
    assert double_literal(-100.0) == "-100.0"
    assert double_literal(1 / 60) == "4803839602528529 * (1.0 / 288230376151711744)"
    assert double_literal(-0.0) == "0.0 * -1.0"
    assert double_literal(1e20) == "95367431640625 * 1.0 * 1048576"
    for x in (1 / 3, 1e-300, 123456.789, 2.0**70, 5e-324, -987654.3210987654):
        assert eval(double_literal(x)) == x  # the same arithmetic in Python


# ------------------------------------------------------------------ Godot 4 syntax and names


def _gd_files(port: Path) -> list[Path]:
    files = sorted(port.rglob("*.gd"))
    assert {f.relative_to(port).as_posix() for f in files} == {
        p for p in (language("gdscript").core, *language("gdscript").sources) if p.endswith(".gd")
    }
    return files


def test_every_gd_file_a_port_writes_parses_and_lints_as_godot_4(odd_port, tmp_path):
    """gdtoolkit's Godot 4 grammar (gdparse) and linter (gdlint, with the port's gdlintrc)."""
    files = _gd_files(odd_port)
    bin_dir = Path(shutil.which("gdparse") or REPO / ".venv" / "bin" / "gdparse").parent
    for tool in ("gdparse", "gdlint"):
        assert (bin_dir / tool).exists(), f"{tool} missing: pip install -e '.[test-core]'"
    # The lines the READMEs give a game (the port's and wander3d's) parse too.
    readmes = [(odd_port / "README.md").read_text(), (REPO / "README.md").read_text()]
    snippets = [b for text in readmes for b in re.findall(r"```gdscript\n(.*?)```", text, re.S)]
    assert len(snippets) == 2
    for k, snippet in enumerate(snippets):
        (tmp_path / f"readme_{k}.gd").write_text(snippet)
    readme_files = [tmp_path / f"readme_{k}.gd" for k in range(len(snippets))]
    done = subprocess.run(
        [bin_dir / "gdparse", *files, *readme_files], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lint = [bin_dir / "gdlint", *files, readme_files[0]]  # the port README's script too
    done = subprocess.run(lint, cwd=PACKAGE, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


#: Godot 4's global names beyond Godot 3.2's (renamed classes and new @GlobalScope functions)
#: that a port's names are checked against too (Godot 3.2's come from its own --doctool).
GODOT4_NAMES = {
    "Node3D",
    "CharacterBody3D",
    "RigidBody3D",
    "StaticBody3D",
    "Area3D",
    "Camera3D",
    "MeshInstance3D",
    "MultiMeshInstance3D",
    "ImmediateMesh",
    "RefCounted",
    "Time",
    "FileAccess",
    "DirAccess",
    "Callable",
    "Signal",
    "StringName",
    "NodePath",
    "Transform3D",
    "PackedFloat32Array",
    "PackedFloat64Array",
    "PackedVector3Array",
    "PackedStringArray",
    "Vector3i",
    "Vector2i",
    "Projection",
    "Quaternion",
    "Tween",
    "Marker3D",
    "Sprite3D",
    "Label3D",
    "Decal",
    "FogVolume",
    "NavigationAgent3D",
    "Skeleton3D",
    "Path3D",
    "absf",
    "absi",
    "ceilf",
    "ceili",
    "clampf",
    "clampi",
    "floorf",
    "floori",
    "lerpf",
    "maxf",
    "maxi",
    "minf",
    "mini",
    "roundf",
    "roundi",
    "signf",
    "signi",
    "snappedf",
    "snappedi",
    "bytes_to_var",
    "var_to_bytes",
    "str_to_var",
    "var_to_str",
    "type_convert",
    "error_string",
    "is_same",
    "is_finite",
    "rid_allocate_id",
    "randi_range",
    "randf_range",
    "pingpong",
    "bezier_derivative",
    "remap",
    "rotate_toward",
    "print_rich",
    "push_warning",
}


def test_no_name_of_the_port_is_one_of_godots(odd_port, tmp_path):
    """No class, class_name, constant or function the port's .gd files declare is a name of
    Godot's global scope (classes, singletons, @GlobalScope and @GDScript members)."""
    need(GODOT)
    doc = tmp_path / "doc"
    doc.mkdir()
    # Godot writes its logs under its working folder: the test's, not the repository.
    subprocess.run([GODOT, "--doctool", str(doc)], cwd=doc, capture_output=True, timeout=300)
    godot = set(GODOT4_NAMES)
    for xml in doc.rglob("*.xml"):
        root = ElementTree.parse(xml).getroot()
        godot.add(root.get("name", ""))
        if root.get("name", "").startswith("@"):
            tags = ("method", "constant", "member")
            godot |= {m.get("name", "") for m in root.iter() if m.tag in tags}
    assert {"Vector3", "Node", "PI", "TAU", "sin", "seed", "range", "VERTICAL"} <= godot
    declared = set()
    for f in _gd_files(odd_port):
        text = f.read_text()
        declared |= set(re.findall(r"^\s*(?:class_name|class|const|(?:static )?func)\s+(\w+)",
                                   text, re.M))  # fmt: skip
    declared -= {"_init", "_ready", "_process", "_physics_process"}  # Godot's own callbacks
    assert declared & godot == set()
    assert {"Wander", "WanderParams", "WanderFlock3D", "steer", "SCENE"} <= declared


def test_the_checked_in_core_is_the_default_scenes_port():
    check_checked_in_core("gdscript")
