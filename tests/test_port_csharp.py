"""The C# port (wander3d/port/csharp): `bash DIR/conformance.sh` (the hosted flock) and
`bash DIR/conformance.sh --compose` (the composable call, DIR/Compose.cs), built with Mono's
`mcs` and run with `mono`, print what `wander3d run --out .csv` writes, byte for byte, over 60
simulated seconds of every bundled scene (swarm with 800 agents a group; its 30,000 for 2 s),
the scenes port_support writes (every method x steering mode, level and flattened agents, heavy
agents at the walls, no margin, dt 1/30, 1/120 and 1/20) and a scene of odd values written
here. Also: agents added and removed at run
time, run-time edits against the engine's, the core's method list and its names."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import pytest
from port_support import (
    BUNDLED,
    FULL_SIZE_RUN,
    PROBES,
    SAMPLE_RATE,
    SAMPLE_RATES,
    SECONDS,
    WRITTEN,
    assert_same_csv,
    build_probe,
    check_both_modes,
    check_checked_in_core,
    check_crlf_start,
    check_edit,
    check_edits_repeat_the_engines,
    check_formatting,
    check_frame_rate,
    check_group_subset,
    check_set_method,
    check_spawn,
    check_spawned_as_documented,
    check_usage,
    conformance,
    need,
    reference,
    reflected,
    scene_file,
    write_port_of,
)

from wander3d.engine import WanderParams
from wander3d.port import language
from wander3d.port.csharp import SPELLING
from wander3d.scene import load_scene, schema
from wander3d.scene.tunables import PARAMS

WANDER_KEYS = {f.name for f in dataclasses.fields(WanderParams)}

TOOLS = ("mcs", "mono")

#: A scene no other test wrote: a thin, tall, offset box with a tiny margin, the largest seed,
#: dt 1/47, and each method at an extreme (a light sprinter drawing a fresh direction every
#: step, heavy drifters on fast noise around a sphere at their own position, jitter that can
#: reach the sphere's centre, a fast angle walk, seek points every 0.35 s), starting at rest.
ODD = """
[scene]
name = 'Odd "one", ünïcode'
seed = 4294967295
dt = 0.0212765957446809
[enclosure]
min = [-7.5, -300.0, 12.0]
max = [9.25, 40.0, 512.0]
margin = 3.3
[[groups]]
name = "sprinters"
count = 9
max_speed = 260.0
max_force = 900.0
mass = 0.3
initial_speed = 0.0
[groups.wander]
method = "random"
steering = "desired"
vertical = 0.05
[[groups]]
name = "drifters"
count = 7
max_speed = 2.5
max_force = 0.8
mass = 40.0
[groups.wander]
method = "noise"
frequency = 2.9
distance = 0.0
radius = 48.0
vertical = 0.93
[[groups]]
name = "jittery"
count = 8
[groups.wander]
method = "sphere"
steering = "desired"
jitter = 55.0
radius = 0.4
distance = 90.0
vertical = 0.5
[[groups]]
name = "spinners"
count = 6
[groups.wander]
method = "angle"
rate = 4.8
distance = 2.0
radius = 15.0
[[groups]]
name = "hoppers"
count = 5
max_speed = 120.0
[groups.wander]
method = "seek"
steering = "desired"
interval = 0.35
vertical = 0.2
"""


#: Agents per group of swarm in the minute-long run (its 30,000 at full size: a run of their
#: own, under the slow mark).
SWARM_AGENTS = 800


def scene_of(tmp_path, name):
    if name == "odd":
        path = tmp_path / "odd.toml"
        path.write_text(ODD)
        return path
    path = scene_file(tmp_path, name)
    if name != "swarm":
        return path
    scene = load_scene(path)
    fewer = tuple(dataclasses.replace(g, count=SWARM_AGENTS) for g in scene.groups)
    path = tmp_path / "swarm-fewer.toml"
    path.write_text(scene.replace(groups=fewer).to_toml())
    return path


@pytest.mark.parametrize("name", [*BUNDLED, *WRITTEN, "odd"])
def test_both_drivers_repeat_wander3d_run(tmp_path, name):
    need(*TOOLS)
    port = write_port_of(scene_of(tmp_path, name), "csharp", tmp_path / "port")
    check_both_modes(port, SECONDS, SAMPLE_RATES.get(name, SAMPLE_RATE))


@pytest.mark.slow
def test_the_whole_swarm_is_identical(tmp_path):
    """Its 30,000 agents' start read whole and every agent stepped (the minute of identity is
    the run above, with fewer agents)."""
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "swarm"), "csharp", tmp_path / "port")
    check_both_modes(port, *FULL_SIZE_RUN)


def test_the_readme_command_checks_the_port(tmp_path):
    # The port README's line, run in a shell as a user types it, writes out.csv.
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "csharp", tmp_path / "port")
    ours = conformance("csharp", port, SECONDS, 2.0, tmp_path)
    assert_same_csv(ours, reference(port, SECONDS, 2.0))


def test_conformance_sh_refuses_bad_arguments(tmp_path):
    need(*TOOLS)
    check_usage(write_port_of(scene_file(tmp_path, "default"), "csharp", tmp_path / "port"))


def test_conformance_sh_builds_into_its_own_folder_and_again_only_when_a_source_changed(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "csharp", tmp_path / "port")
    shipped = sorted(p.name for p in port.iterdir())
    check_both_modes(port, 1.0, 1.0)
    built = {p.name: p.stat().st_mtime_ns for p in (port / "build").iterdir()}
    assert sorted(built) == ["Compose.exe", "Conformance.exe"]
    made = {p.name for p in port.iterdir()} - set(shipped) - {"ref.csv", "ref.csv.json"}
    assert made == {"build"}  # nothing beside the sources a game copies
    check_both_modes(port, 1.0, 1.0)
    assert {p.name: p.stat().st_mtime_ns for p in (port / "build").iterdir()} == built
    (port / "Wander.cs").touch()
    check_both_modes(port, 1.0, 1.0)
    assert all(p.stat().st_mtime_ns > built[p.name] for p in (port / "build").iterdir())


def test_the_walls_are_met_in_the_scenes_named_for_them(tmp_path):
    # Else the wall-reflection path would go unchecked.
    assert reflected(scene_file(tmp_path, "heavy-walls"), SECONDS) > 0
    assert reflected(scene_of(tmp_path, "odd"), SECONDS) > 0


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    need(*TOOLS)
    folder = tmp_path_factory.mktemp("probe")
    build = [
        "mcs",
        "-main:Wander3d.Probe",
        "-out:probe.exe",
        "Wander.cs",
        "Conformance.cs",
        "Probe.cs",
    ]
    return build_probe("csharp", folder, "Probe.cs", build, ["mono", "probe.exe"])


def test_numbers_are_formatted_as_arrow_writes_them(probe, tmp_path):
    check_formatting(probe, tmp_path)


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


def test_agents_come_and_go_at_run_time_without_changing_the_others(probe):
    """Composable agents (30 of each method): the loop equals the hosted flock; dropping two
    and adding two (new ids, one spawned, one placed by the game) leaves every other agent's
    run as it was, bit for bit; an id re-added at the same place repeats its path whenever it
    comes back; placed agents face along their velocity (+x at rest); bad ids are refused."""
    assert probe("churn").split() == ["hosted", "dropped", "added", "repeats", "placed", "ids"]


def test_run_time_edits_repeat_the_engines(tmp_path):
    need(*TOOLS)
    build = ["mcs", "-main:Wander3d.Probe", "-out:probe.exe", "Wander.cs", "Conformance.cs"]
    check_edits_repeat_the_engines(
        "csharp", tmp_path, "Probe.cs", [*build, "Probe.cs"], ["mono", "probe.exe"]
    )


def test_the_checked_in_core_is_the_default_scenes_port():
    check_checked_in_core("csharp")


def test_a_group_subset_ports_the_smaller_scene(tmp_path):
    need(*TOOLS)
    check_group_subset("csharp", tmp_path)


# ------------------------------------------------------------------ Unity
UNITY = PROBES / "unity"

#: The adapter's scene: more agents than one instanced call draws (1,023), a seek group
#: (no wander sphere), a box off the origin in z (its centre's sign shows the conversion).
ADAPTER_SCENE = """
[scene]
seed = 21
[enclosure]
min = [-100.0, -60.0, 10.0]
max = [100.0, 60.0, 210.0]
margin = 15.0
[[groups]]
name = "shoal"
count = 2500
[groups.wander]
method = "sphere"
vertical = 0.3
[[groups]]
name = "seekers"
count = 30
[groups.wander]
method = "seek"
"""


def mcs(*args: object, cwd=None) -> subprocess.CompletedProcess[str]:
    """Mono's C# compiler at C# 7.2 (the stand-in's `in` parameters), its output kept."""
    command = ["mcs", "-langversion:7.2", *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def compiled(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def unity(tmp_path_factory):
    """The stand-in UnityEngine.dll (tests/port_probes/unity/UnityEngine.cs), built once."""
    need(*TOOLS)
    dll = tmp_path_factory.mktemp("unity") / "UnityEngine.dll"
    compiled(mcs("-target:library", f"-out:{dll}", UNITY / "UnityEngine.cs"))
    return dll


def checked_in(name: str, folder) -> str:
    """A checked-in source of the C# port, written into folder; its path."""
    path = folder / name.replace("/", "-")
    path.write_text(language("csharp").source(name))
    return str(path)


def test_the_unity_adapter_compiles_against_unitys_signatures(unity, tmp_path):
    core, adapter = (
        checked_in("Wander.cs", tmp_path),
        checked_in("adapter/WanderFlock.cs", tmp_path),
    )
    compiled(mcs("-target:library", f"-r:{unity}", f"-out:{tmp_path / 'a.dll'}", core, adapter))


def test_a_script_using_scene_management_beside_the_core_compiles(unity, tmp_path):
    core, script = checked_in("Wander.cs", tmp_path), UNITY / "UserScript.cs"
    compiled(mcs("-target:library", f"-r:{unity}", f"-out:{tmp_path / 'u.dll'}", core, script))
    # The check sees a clash: with the core's old `Scene` back, Unity's CS0104.
    old = tmp_path / "Old.cs"
    old.write_text("namespace Wander3d { public static class Scene { } }\n")
    clash = mcs("-target:library", f"-r:{unity}", f"-out:{tmp_path / 'c.dll'}", core, old, script)
    assert clash.returncode != 0 and "CS0104" in clash.stdout + clash.stderr


def test_the_readme_scripts_compile(unity, tmp_path):
    """The port README's C# scripts (the hosted flock from code, a character composing the
    wander with its own seek) compile beside the port's core, as pasted into a project."""
    scene = tmp_path / "scene.toml"
    scene.write_text(ADAPTER_SCENE)
    port = write_port_of(scene, "csharp", tmp_path / "port")
    text = (port / "README.md").read_text()
    scripts = [b for b in re.findall(r"```csharp\n(.*?)```", text, re.S) if b.startswith("using ")]
    assert len(scripts) == 2
    files = []
    for i, script in enumerate(scripts):
        files.append(tmp_path / f"Script{i}.cs")
        files[-1].write_text(script)
    out = tmp_path / "scripts.dll"
    compiled(mcs("-target:library", f"-r:{unity}", f"-out:{out}", port / "Wander.cs", *files))


def unity_names() -> set[str]:
    lines = (UNITY / "type-names.txt").read_text().splitlines()
    return {line.rsplit(".", 1)[1] for line in lines if line and not line.startswith("#")}


def test_no_public_type_of_the_core_or_the_adapter_is_named_as_unitys_or_systems(unity, tmp_path):
    """A script imports UnityEngine, UnityEngine.SceneManagement and System beside Wander3d:
    a type of the same simple name in two of them is ambiguous (CS0104)."""
    core, adapter = (
        checked_in("Wander.cs", tmp_path),
        checked_in("adapter/WanderFlock.cs", tmp_path),
    )
    compiled(mcs("-target:library", f"-out:{tmp_path / 'core.dll'}", core))
    compiled(mcs("-target:library", f"-r:{unity}", f"-r:{tmp_path / 'core.dll'}",
                 f"-out:{tmp_path / 'adapter.dll'}", adapter))  # fmt: skip
    shutil.copy(unity, tmp_path)
    references = [f"-r:{tmp_path / name}" for name in ("core.dll", "adapter.dll")]
    probe = UNITY / "AdapterProbe.cs"
    compiled(mcs(f"-r:{unity}", *references, f"-out:{tmp_path / 'probe.exe'}", probe))
    listed = subprocess.run(
        ["mono", "probe.exe", "names", "core.dll", "adapter.dll"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    ours = {line.split()[1] for line in listed if line.startswith("type ")}
    system = {line.split()[1] for line in listed if line.startswith("system ")}
    assert {"Wander3d.Wander", "Wander3d.WanderAgent", "Wander3d.Flock", "WanderFlock"} <= ours
    assert len(unity_names()) > 800 and {"Scene", "Random", "Object", "Time"} <= unity_names()
    assert "Random" in system and "Math" in system
    clashes = {name for name in ours if name.rsplit(".", 1)[-1] in unity_names() | system}
    assert not clashes


def probe_lines(text: str) -> dict[str, list[str]]:
    """The adapter probe's "name value..." lines; a name said twice keeps each (name#2...)."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        name, *values = line.split(" ")
        key, n = name, 2
        while key in found:
            key, n = f"{name}#{n}", n + 1
        found[key] = values
    return found


def test_the_unity_adapter_runs_on_the_stand_in(unity, tmp_path):
    """WanderFlock driven as Unity drives it (Awake, Update at varying frame rates,
    OnValidate, OnDrawGizmosSelected) on the stand-in engine."""
    scene = tmp_path / "scene.toml"
    scene.write_text(ADAPTER_SCENE)
    port = write_port_of(scene, "csharp", tmp_path / "port")
    shutil.copy(unity, port)
    sources = [port / "Wander.cs", port / "adapter" / "WanderFlock.cs", UNITY / "AdapterProbe.cs"]
    compiled(mcs(f"-r:{unity}", f"-out:{port / 'adapter-probe.exe'}", *sources))
    said = probe_lines(
        subprocess.run(
            ["mono", "adapter-probe.exe", "start.txt"],
            cwd=port, capture_output=True, text=True, check=True, timeout=120,
        ).stdout
    )  # fmt: skip
    # With start.txt, the hosted flock's run is wander3d's start stepped at any frame rate.
    assert said["identical"][0] == "True" and int(said["identical"][1]) > 60
    # One GameObject per agent, at wander3d's (x, y, -z) * Units, facing (hx, hy, -hz), upright.
    assert said["objects"] == ["2530", "2530", "shoal", "0"] and said["errors"] == ["0"]
    assert float(said["placed"][0]) < 1e-6
    assert float(said["facing"][0]) < 1e-5 and float(said["upright"][0]) >= 0.0
    # Instanced: batches of at most 1,023 per group, each agent once, at the same place.
    assert said["batches"] == ["1023,1023,454,30"]
    assert said["drawn"] == ["2530", "2530", "True"]
    assert float(said["instances"][0]) < 1e-4 and float(said["instance-facing"][0]) < 1e-5
    # The Inspector's values act on the running flock; a method switch keeps the targets.
    assert said["applied"] == ["31.5", "17", "True"] and float(said["target-moved"][0]) < 1e-9
    assert said["refused"] == ["1", "0", "True"]  # a bad value: a warning, the old value kept
    assert said["no-instancing"] == ["2", "0", "True"]
    # Bad start files: one error logged each, nothing thrown, the agents spawned instead.
    for key in ("bad-start", "bad-start#2", "bad-start#3"):
        assert said[key][:2] == ["1", "True"] and "is not a start of this scene" in " ".join(
            said[key]
        )
    # Gizmos: a wander sphere per sphere agent, a target and a line per agent; the box's
    # centre is converted (z negated), its size is not.
    wire, spheres, dots, lines, count = map(int, said["gizmos"])
    assert wire == spheres == 2500 and dots == lines == count == 2530
    assert said["box"][1:4] == said["box-expected"] and said["box"][4:] == ["20", "12", "20"]
    assert float(said["box-expected"][2]) == -14.0  # (-3) + (-(10 + 210) / 2 * 0.1)


def test_the_inspector_speaks_the_scene_files_words():
    """Each group setting's tooltip is the scene reference's text (with its unit), and its
    slider the app's range (wander3d.scene.tunables)."""
    source = language("csharp").source("adapter/WanderFlock.cs")
    settings = source[source.index("class WanderGroupSettings") : source.index("public static")]
    fields = re.findall(
        r'\[Tooltip\("((?:[^"\\]|\\.)*)"\)\]\s*(?:\[(Range|Min)\(([^)]*)\)\]\s*)?'
        r"public \w+ (\w+);",
        settings,
    )
    found = {name: (tip, kind, args) for tip, kind, args, name in fields}
    keys = {"Count": "count", "Method": "method", "Steering": "steering", **{
        name: key for key, name in SPELLING.items()}, "InitialSpeed": "initial_speed"}  # fmt: skip
    assert set(keys) <= set(found)
    for name, key in keys.items():
        tip, kind, args = found[name]
        entry = schema.key("groups.wander" if key in WANDER_KEYS else "groups", key)
        assert tip.startswith(entry.doc + (f" [{entry.unit}]" if entry.unit else "")), name
        if key in PARAMS:
            low, high = (float(a.rstrip("f")) for a in args.split(","))
            assert kind == "Range" and (low, high) == (PARAMS[key].lo, PARAMS[key].hi), name
