"""Helpers for the port tests (tests/test_port_*.py): the scenes every port is checked on and
the check itself, that a port's conformance driver prints what `wander3d run --out .csv` writes,
byte for byte.

A toolchain that is missing skips a port's tests on a developer's machine, naming what to
install; in CI (the CI environment variable set) it fails them, so a port is never silently
unchecked there.
"""

from __future__ import annotations

import io
import math
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from wander3d.cli import main as wander3d_main
from wander3d.engine import Simulation, kernel
from wander3d.port import language, plan_port, write_port
from wander3d.scene import load_scene
from wander3d.scene.bundled import bundled_scenes

#: Simulated seconds of every check (the issue asks for at least 60).
SECONDS = 60.0

#: Samples per simulated second, per bundled scene: 10, but the 30,000 agents of `swarm`
#: every 5 s, so that its two CSVs stay about 35 MB.
SAMPLE_RATES = {"swarm": 0.2}
SAMPLE_RATE = 10.0

BUNDLED = sorted(bundled_scenes())

#: Simulated seconds and samples a second of a port's full-size run of a bundled scene: its
#: start read whole (sample 0) and every agent stepped through its branches (sample 1, at 2 s;
#: the minute-long identity runs are the same scenes with fewer agents, where a port's speed
#: needs it).
FULL_SIZE_RUN = (2.0, 0.5)

_METHODS = ("sphere", "angle", "noise", "seek", "random")
_GOLDEN = 0x9E3779B97F4A7C15


def _group(name: str, method: str, steering: str, vertical: float, **keys: float) -> str:
    lines = [f"[[groups]]\nname = '{name}'\ncount = 6"]
    lines += [f"{k} = {v!r}" for k, v in keys.items()]
    lines.append(f'[groups.wander]\nmethod = "{method}"\nsteering = "{steering}"')
    lines.append(f"vertical = {vertical!r}")
    return "\n".join(lines) + "\n"


def _every_method(header: str, vertical: float, **keys: float) -> str:
    groups = [(m, s) for m in _METHODS for s in ("force", "desired")]
    return header + "".join(
        _group(f'{m} "{s}", vertical {vertical} (≤ 1)', m, s, vertical, **keys) for m, s in groups
    )


#: Scenes the tests write: every method x steering mode (vertical 0.35, and 0: level), heavy
#: agents in a small box (they reach the walls and are reflected), no margin (only the
#: reflection keeps agents in), dt 1/30, 1/120 and 1/20 (longer than the random hold). Group
#: names hold a quote and a comma, which the CSV quotes, and a character beyond ASCII.
WRITTEN = {
    "methods": _every_method("[scene]\nseed = 11\n", 0.35),
    "level": _every_method("[scene]\nseed = 12\n", 0.0),
    "heavy-walls": _every_method(
        "[scene]\nseed = 13\n[enclosure]\nmin = [-30.0, -20.0, -30.0]\n"
        "max = [30.0, 20.0, 30.0]\nmargin = 4.0\n",
        0.8,
        mass=7.5,
        max_force=25.0,
        max_speed=55.0,
    ),
    "no-margin": _every_method("[scene]\nseed = 16\n[enclosure]\nmargin = 0.0\n", 1.0),
    "dt-30": _every_method("[scene]\nseed = 14\ndt = 0.0333333\n", 0.6),
    "dt-120": _every_method("[scene]\nseed = 15\ndt = 0.0083333\n", 1.0),
    "dt-20": _every_method("[scene]\nseed = 17\ndt = 0.05\n", 0.5),
}


def need(*programs: str) -> None:
    """Skip (fail in CI) unless every program is on the PATH."""
    missing = [p for p in programs if shutil.which(p) is None]
    if not missing:
        return
    what = f"{', '.join(missing)} not found (scripts/bootstrap.sh installs it)"
    if os.environ.get("CI"):
        pytest.fail(f"the port toolchain is missing in CI: {what}")
    pytest.skip(what)


def scene_file(tmp: Path, name: str) -> Path:
    """The scene to port: a bundled one by name, or one of WRITTEN written into tmp."""
    if name in WRITTEN:
        path = tmp / f"{name}.toml"
        path.write_text(WRITTEN[name])
        return path
    return bundled_scenes()[name]


def write_port_of(scene: Path, lang: str, out: Path) -> Path:
    """`wander3d port SCENE --lang LANG --out OUT`, in process; returns OUT."""
    write_port(plan_port(load_scene(scene)), language(lang), out)
    return out


def reference(port: Path, seconds: float, rate: float) -> bytes:
    """`wander3d run DIR/scene.toml --seconds S --sample-rate R --out ref.csv`'s file."""
    out = port / "ref.csv"
    status = wander3d_main(
        ["run", str(port / "scene.toml"), "--seconds", str(seconds), "--sample-rate", str(rate),
         "--out", str(out)]
    )  # fmt: skip
    assert status == 0
    return out.read_bytes()


def conformance(lang: str, port: Path, seconds: object, rate: object, cwd: Path) -> bytes:
    """The port README's conformance command, run as a user types it (in a shell, from
    another folder than the port's); the out.csv it writes. Its stderr in the failure."""
    command = (
        language(lang)
        .conformance.replace("DIR", str(port))
        .replace("SECONDS", str(seconds))
        .replace("SAMPLE_RATE", str(rate))
    )
    done = subprocess.run(
        command, shell=True, cwd=cwd, capture_output=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return (cwd / "out.csv").read_bytes()


def conformance_sh(
    port: Path,
    *args: object,
    compose: bool = False,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`bash DIR/conformance.sh [--compose] ARGS...` as a user runs it (from another folder);
    `env` adds to the environment (CXX, CXXFLAGS). Its exit status, stdout (the CSV alone) and
    stderr."""
    command = ["bash", str(port / "conformance.sh"), *(["--compose"] if compose else [])]
    return subprocess.run(
        [*command, *map(str, args)],
        cwd=port.parent,
        env={**os.environ, **(env or {})},
        capture_output=True,
        timeout=600,
        check=False,
    )


def composed(lang: str, port: Path, seconds: object, rate: object, cwd: Path) -> bytes:
    """As conformance(), through the composable call: the Language's command line with
    `conformance.sh --compose` (docs/ports.md, "DIR/conformance.sh")."""
    command = language(lang).conformance
    assert "conformance.sh " in command, f"{lang}: its conformance command runs no conformance.sh"
    command = command.replace("conformance.sh ", "conformance.sh --compose ")
    command = command.replace("DIR", str(port)).replace("SECONDS", str(seconds))
    done = subprocess.run(
        command.replace("SAMPLE_RATE", str(rate)),
        shell=True,
        cwd=cwd,
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return (cwd / "out.csv").read_bytes()


def assert_same_csv(ours: bytes, engine: bytes) -> None:
    """Byte-identical CSVs; else the first differing line of each (the agent, the sample)."""
    if ours == engine:
        return
    a, b = ours.split(b"\n"), engine.split(b"\n")
    line = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    if line is None:
        pytest.fail(f"the port wrote {len(a)} lines, the engine {len(b)}")
    pytest.fail(f"line {line + 1} differs:\n  port:   {a[line]!r}\n  engine: {b[line]!r}")


def reflected(scene: Path, seconds: float) -> int:
    """How many wall reflections the engine counts in `seconds` of `scene`."""
    spec = load_scene(scene).run_spec
    sim = Simulation(spec, threads=1)
    sim.step(round(seconds / spec.dt))
    return int(sim.wall_reflections.sum())


# ------------------------------------------------------------------ probes of a core's API
#: Programs that exercise a core beyond its CSV (tests/port_probes/): number formatting, frame
#: rates, spawning, edits, one question per run (see each file's header).
PROBES = Path(__file__).resolve().parent / "port_probes"


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


def build_probe(
    lang: str, folder: Path, probe: str, build: list[str], run: list[str]
) -> Callable[..., str]:
    """Build `lang`'s checked-in core and driver (the default scene's port) with the probe
    file `probe` in `folder`; a function running the probe with arguments, giving its stdout."""
    port = language(lang)
    for name in (port.core, *port.sources):
        if "/" not in name:  # the adapters need their engines
            (folder / name).write_text(port.source(name))
    shutil.copy(PROBES / probe, folder)
    _run(build, folder)
    return lambda *args: _run([*run, *args], folder)


def check_formatting(probe: Callable[..., str], tmp: Path) -> None:
    """The probe's numbers are Arrow's CSV writer's, for random float32 bits (subnormals and
    extremes included), positions and velocities as runs have them, and doubles."""
    rng = np.random.default_rng(3)
    f32 = np.concatenate([
        rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        rng.uniform(-300, 300, 100_000).astype(np.float32),
        np.array([0.0, -0.0, 1e-7, 1e-6, 1e9, 1e10, 1048576.25, 1048576.75, 3.4028235e38,
                  1e-45, 1.17549435e-38, 16777216.0, 2.0**-20, 0.1], np.float32),
    ])  # fmt: skip
    f32 = f32[np.isfinite(f32)]
    f64 = np.concatenate([
        rng.uniform(-1e3, 1e3, 50_000), np.arange(3000) * (7 / 60),
        rng.integers(0, 2**63, 20_000, dtype=np.uint64).view(np.float64),
        [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16, 1e15, 0.1, -0.0],
    ])  # fmt: skip
    f64 = f64[np.isfinite(f64)]
    f32.tofile(tmp / "f32.bin")
    f64.tofile(tmp / "f64.bin")
    ours = probe("format", str(tmp / "f32.bin"), str(tmp / "f64.bin")).split("\n")[:-1]
    theirs = []
    for values in (f32, f64):
        buffer = io.BytesIO()
        pacsv.write_csv(pa.table({"v": pa.array(values)}), buffer)
        theirs += buffer.getvalue().decode().splitlines()[1:]
    values = [*f32.tolist(), *f64.tolist()]
    bad = [(v, o, t) for v, o, t in zip(values, ours, theirs, strict=True) if o != t]
    assert not bad, bad[:5]


def check_frame_rate(probe: Callable[..., str]) -> None:
    """Runs at 144 fps, 24 fps and jittery frames with stalls meet at equal positions; alpha
    stays in [0, 1) and interpolates between the last two steps."""
    words = probe("framerate").split()
    assert words[:2] == ["compared", words[1]] and int(words[1]) > 200, words
    assert words[2:4] == ["alpha", "OK"], words
    assert words[4] == "mid" and abs(float(words[5])) < 1e-9, words


def check_spawn(probe: Callable[..., str]) -> None:
    """The port's own spawn: inside the margin, unit headings, the same for the same seed and
    not for another, and in the box after 60 s."""
    assert probe("spawn").split() == ["inside", "unit", "same", "differs", "stays"]


def spawned_reference() -> list[str]:
    """The ports' own spawn of the probes' scene (the default box and seed, 30 agents of each
    method at vertical 0.4), computed as docs/ports.md ("Start") describes it with the engine's
    hash, draws and angle functions: per agent, position, velocity, heading and target as the
    hex of their doubles. Every port spawns exactly this."""
    low, high, margin, seed = (-100.0, -60.0, -100.0), (100.0, 60.0, 100.0), 15.0, 7
    distance, radius, speed, vertical = 30.0, 12.0, 20.0, 0.4

    def mix(x: int) -> np.uint64:  # the engine's hash, on uint64 in and out
        return np.uint64(kernel.mix(np.uint64(x % 2**64)))

    seed_key = int(mix(seed ^ 0x5DEECE66D))
    rows = []
    for i, method in enumerate(m for m in _METHODS for _ in range(30)):
        k = mix(int(mix(seed_key ^ (i * _GOLDEN % 2**64))) ^ 0x2545F4914F6CDD1D)
        a0 = [lo + margin for lo in low]
        a1 = [(hi - margin) - a for hi, a in zip(high, a0, strict=True)]
        position = [a0[a] + kernel.uniform(k, a) * a1[a] for a in range(3)]
        seek = [a0[a] + kernel.uniform(k, 3 + a) * a1[a] for a in range(3)]
        hx, hy, hz = kernel.in_unit_ball(k)
        hy *= vertical
        h = math.sqrt(hx * hx + hy * hy + hz * hz)
        hx, hy, hz = hx / h, hy / h, hz / h
        sx, sy, sz = -hz, 0.0, hx
        level = math.sqrt(sx * sx + sz * sz)
        sx, sz = sx / level, sz / level
        yaw = (2.0 * kernel.uniform(k, 6) - 1.0) * math.pi
        pitch = (2.0 * kernel.uniform(k, 7) - 1.0) * (math.pi / 2) * vertical
        top = np.uint64(0x7FFFFFFFFFFFFFFF)
        keys = np.array([mix(int(k) + (9 + j) * _GOLDEN) & top for j in (0, 1)])
        phases = np.array([kernel.uniform(k, 11 + j) * 1024.0 for j in (0, 1)])
        w = (hx, hy, hz)
        if method == "angle":
            w = kernel.direction_from_angles(yaw, pitch, hx, hy, hz, sx, sy, sz)
        elif method == "noise":
            angles = kernel.noise_angles(keys, phases, 0.0, vertical, 0.0, 0.0)
            w = kernel.direction_from_angles(*angles, hx, hy, hz, sx, sy, sz)
        heading = (hx, hy, hz)
        target = seek if method == "seek" else [
            position[a] + heading[a] * distance + w[a] * radius for a in range(3)
        ]  # fmt: skip
        values = [*position, *(x * speed for x in heading), *heading, *target]
        rows.append(" ".join(f"{np.float64(v).view(np.uint64):016x}" for v in values))
    return rows


def check_spawned_as_documented(probe: Callable[..., str]) -> None:
    """The port's spawn is docs/ports.md's, bit for bit: the same seed starts every port's
    agents alike without start.txt."""
    assert [row.strip() for row in probe("spawned").splitlines()] == spawned_reference()


def check_set_method(probe: Callable[..., str]) -> None:
    """Switching a group's method (to angle, noise, random, seek, sphere, noise, angle) keeps
    each target where it is between the sphere methods; to seek, the point sought is the
    target clipped into the margin; from seek, the target is the sphere's point nearest it."""
    words = probe("switch").split()
    found = dict(zip(words[::2], words[1::2], strict=True))
    assert found["inside"] == "yes" and found["method"] == "angle", found
    for method in ("angle", "noise", "random"):
        assert float(found[method]) < 1e-9, found
    assert float(found["seek"]) < 30.0, found
    assert float(found["aligned"]) > 1 - 1e-9, found


def check_edit(probe: Callable[..., str]) -> None:
    """A parameter edited between steps (max speed 40 -> 5) acts from the next step."""
    assert float(probe("edit")) <= 5.0 + 1e-9


def check_crlf_start(probe: Callable[..., str], tmp: Path) -> None:
    """start.txt with Windows line ends (a git checkout may make them) starts the same run."""
    start = tmp / "start.txt"
    start.write_text(plan_port(load_scene(bundled_scenes()["default"])).start)
    assert probe("crlf", str(start)) == "same"


def check_checked_in_core(lang: str) -> None:
    """The checked-in core's scene block is the default scene's port: the file the tests
    build is the file users get."""
    port = language(lang)
    plan = plan_port(load_scene(bundled_scenes()["default"]))
    assert port.files(plan)[port.core] == port.source(port.core)


def check_group_subset(lang: str, tmp: Path) -> None:
    """`--group noise --group angle` ports the smaller scene, identical to its run."""
    out = tmp / "port"
    scene = load_scene(bundled_scenes()["compare"])
    write_port(plan_port(scene, ["noise", "angle"]), language(lang), out)
    ours = conformance(lang, out, SECONDS, 2.0, tmp)
    assert_same_csv(ours, reference(out, SECONDS, 2.0))
    assert {row.split(b",")[1] for row in ours.splitlines()[1:]} == {b'"angle"', b'"noise"'}


# ------------------------------------------------------------------ DIR/conformance.sh
def check_both_modes(
    port: Path, seconds: float, rate: float, env: dict[str, str] | None = None
) -> None:
    """`conformance.sh` (the hosted flock) and `conformance.sh --compose` (the composable call)
    each print what `wander3d run DIR/scene.toml` writes, byte for byte; `env` adds to their
    environment (CXX, CXXFLAGS). Each mode builds and runs its own driver, so the two run at
    once (a build of each on its own core), beside the engine's run."""
    runs = {}
    try:
        for mode, flag in (("hosted", []), ("composed", ["--compose"])):
            runs[mode] = subprocess.Popen(
                ["bash", str(port / "conformance.sh"), *flag, str(seconds), str(rate)],
                cwd=port.parent,
                env={**os.environ, **(env or {})},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        engine = reference(port, seconds, rate)
        done = {mode: run.communicate(timeout=600) for mode, run in runs.items()}
    finally:
        for run in runs.values():
            run.kill()
    for mode, (out, err) in done.items():
        assert runs[mode].returncode == 0, f"{mode}: {err.decode(errors='replace')}"
        try:
            assert_same_csv(out, engine)
        except pytest.fail.Exception as failure:
            pytest.fail(f"{mode}: {failure}")


def check_usage(port: Path) -> None:
    """Bad arguments to conformance.sh, in either mode: a usage line on stderr, nothing on
    stdout, exit status 2."""
    for args in ([], ["60"], ["60", "10", "5"], ["-1", "10"], ["60", "x"], ["--compose", "60"],
                 ["--compose", "0", "10"]):  # fmt: skip
        done = conformance_sh(port, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == b"" and b"usage: " in done.stderr, (args, done.stderr)


def engine_with_edits(
    scene: Path, edits: Sequence[tuple[int, int, str, Any]], steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """The engine's positions and velocities after `steps` steps of `scene` with run-time
    edits (step, group, scene key, value): before step `step`, group `group`'s key takes
    the value (Simulation.update_group, as the app's sliders do)."""
    import dataclasses

    sim = Simulation(load_scene(scene).run_spec, threads=1)
    wander_keys = {f.name for f in dataclasses.fields(type(sim.groups[0].wander))}
    for step, group, key, value in sorted(edits):
        sim.step(step - sim.step_count)
        if key in wander_keys:
            sim.update_wander(group, **{key: value})
        else:
            sim.update_group(group, dataclasses.replace(sim.groups[group], **{key: value}))
    sim.step(steps - sim.step_count)
    return sim.positions.copy(), sim.velocities.copy()


#: Run-time edits (step, group, scene key, value) of WRITTEN's "methods" scene (groups: sphere,
#: angle, noise, seek, random, each with force and desired steering): every numeric parameter
#: and the steering mode, noise's frequency (its curves kept in place: up, and down to where
#: the phase shift is large) and seek's interval (a shorter one applies at once, a longer one
#: waits for the countdown) included. check_edits_repeat_the_engines runs them.
EDITS: list[tuple[int, int, str, float | str]] = [
    (90, 0, "jitter", 25.0),
    (90, 1, "max_speed", 14.0),
    (150, 2, "rate", 2.5),
    (150, 3, "max_force", 140.0),
    (200, 4, "frequency", 1.7),
    (200, 5, "frequency", 0.05),
    (260, 6, "interval", 0.5),
    (260, 7, "interval", 9.0),
    (300, 8, "vertical", 0.1),
    (300, 9, "mass", 3.5),
    (340, 0, "radius", 4.0),
    (340, 1, "distance", 55.0),
    (380, 2, "steering", "desired"),
    (380, 5, "steering", "force"),
]

#: Steps of the edited run (the last edit at 380; seek's 0.5 s interval draws twice after it).
EDIT_STEPS = 600


def check_edits_repeat_the_engines(
    lang: str, tmp: Path, probe: str, build: list[str], run: list[str]
) -> None:
    """EDITS at their steps, in the hosted flock and through the composable call, give the
    engine's positions and velocities (Simulation.update_group, as wander3d's app edits) bit
    for bit.

    The probe protocol every language follows: the probe file `probe` (tests/port_probes/) is
    copied into `lang`'s port of the "methods" scene, built there with `build` (none: nothing
    to build) and run there as `RUN... edits EDITS_FILE start.txt STEPS`. EDITS_FILE has a
    line "STEP GROUP KEY VALUE" per edit in step order (KEY the scene file's word, VALUE a
    number as Python writes it or a steering word: before step STEP, group GROUP's KEY
    becomes VALUE). It prints "hosted", then a line per agent of the scene's flock after
    STEPS steps (the hex bits of position x y z and velocity x y z, 16 digits each, space
    separated), then "composed" and the same for a loop of the composable call over
    characters read from start.txt, one Wander per group."""
    scene = scene_file(tmp, "methods")
    port = write_port_of(scene, lang, tmp / "port")
    shutil.copy(PROBES / probe, port)
    if build:
        _run(build, port)
    edits = tmp / "edits.txt"
    edits.write_text("".join(f"{s} {g} {k} {v}\n" for s, g, k, v in EDITS))
    text = _run([*run, "edits", str(edits), "start.txt", str(EDIT_STEPS)], port)
    assert text.startswith("hosted\n") and "\ncomposed\n" in text, text[:200]
    hosted, composed = (
        [[int(f, 16) for f in line.split()] for line in block.strip().splitlines()]
        for block in text.removeprefix("hosted\n").split("composed\n")
    )
    positions, velocities = engine_with_edits(scene, EDITS, EDIT_STEPS)
    engine = np.concatenate([positions, velocities], axis=1).view(np.uint64).tolist()
    groups = load_scene(scene).run_spec.groups
    group_of = [g.name for g in groups for _ in range(g.count)]
    faults = []
    for way, ours in (("hosted", hosted), ("composed", composed)):
        assert len(ours) == len(engine), f"{way}: {len(ours)} agents, the engine {len(engine)}"
        wrong = [i for i, (a, b) in enumerate(zip(ours, engine, strict=True)) if a != b]
        if wrong:
            faults.append(f"{way}: agents {wrong} differ (the first of {group_of[wrong[0]]!r})")
    assert not faults, "\n".join(faults)
    unedited = engine_with_edits(scene, [], EDIT_STEPS)[0]
    assert not np.array_equal(unedited, positions)  # the edits changed the run


# ------------------------------------------------------------------ the composable call
def check_agents_come_and_go(probe: Callable[..., str]) -> None:
    """`probe agents`: game characters driven through the composable call (docs/ports.md, "The
    composable call"), one line each: `others-unchanged yes` if dropping an agent and adding a
    newcomer mid-run leaves every other agent's run as it was, `repeats yes` if an id added
    again at its first start repeats its first run, `same-as-flock yes` if that loop over the
    ports' spawned agents gives the hosted flock's run bit for bit."""
    found = dict(line.split() for line in probe("agents").splitlines())
    assert found == {"others-unchanged": "yes", "repeats": "yes", "same-as-flock": "yes"}, found


def check_composable_edits(probe: Callable[..., str]) -> None:
    """`probe params`: after maxSpeed 40 -> 5 between ticks, `fastest S` (the fastest speed one
    tick on); after jitter, rate, vertical, mass, maxForce and frequency edits and a steer at
    another dt, `rederived yes` if every agent's forces equal a freshly made behaviour's with
    those values (what is derived from them was recomputed)."""
    found = dict(line.split() for line in probe("params").splitlines())
    assert float(found["fastest"]) <= 5.0 + 1e-9, found
    assert found["rederived"] == "yes", found
