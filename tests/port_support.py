"""Helpers for the port tests (tests/test_port_*.py): the scenes every port is checked on and
the check itself, that a port's conformance driver prints what `wander3d run --out .csv` writes,
byte for byte.

A toolchain that is missing skips a port's tests on a developer's machine, naming what to
install; in CI (the CI environment variable set) it fails them, so a port is never silently
unchecked there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from wander3d.cli import main as wander3d_main
from wander3d.engine import Simulation
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

_METHODS = ("sphere", "angle", "noise", "seek", "random")


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
#: agents in a small box (they reach the walls and are reflected), dt 1/30 and 1/120. Group
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
    "dt-30": _every_method("[scene]\nseed = 14\ndt = 0.0333333\n", 0.6),
    "dt-120": _every_method("[scene]\nseed = 15\ndt = 0.0083333\n", 1.0),
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
