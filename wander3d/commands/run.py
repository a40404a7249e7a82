"""`wander3d run SCENE --seconds S [--out FILE]`: simulate without a window, save a trajectory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

from wander3d.arguments import positive_float, positive_int
from wander3d.engine import Simulation
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.files import output_file
from wander3d.scene import Scene, memory_budget
from wander3d.scene.memory import format_bytes

from .common import EXIT_OK, CliError, load_scene_arg
from .progress import Progress

NAME = "run"
HELP = "simulate without a window and optionally save the trajectory"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Simulate SCENE for --seconds of simulated time without a window, with a progress bar "
        "on stderr. With --out, save sampled positions and velocities to an .npz file (load it "
        "with numpy.load)."
    )
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        required=True,
        metavar="S",
        help="simulated seconds to run (steps = S / dt)",
    )
    parser.add_argument("--out", metavar="PATH", help="write the trajectory to this .npz file")
    parser.add_argument(
        "--sample-every",
        type=positive_int,
        default=1,
        metavar="K",
        help="with --out, keep every K-th step (default: 1, every step)",
    )


def main(args: argparse.Namespace) -> int:
    """Simulate headless for --seconds, optionally saving sampled states to an .npz file."""
    scene = load_scene_arg(args.scene)
    steps = max(1, round(args.seconds / scene.dt))
    every: int = args.sample_every
    n = scene.agent_count
    samples = steps // every + 1  # the start, then every `every` steps
    if args.out is None:
        _simulate(scene, steps, every, samples, keep=False)
        return EXIT_OK
    need = samples * n * 3 * 4 * 2  # float32 positions and velocities
    budget, why = memory_budget()
    if need > budget:
        raise CliError(
            f"the trajectory would need {format_bytes(need)} ({samples:,} samples of "
            f"{n:,} agents), more than the {format_bytes(budget)} allowed ({why}); "
            "use a larger --sample-every or fewer --seconds"
        )
    # Entered before the run, so a bad path fails at once; written whole or not at all.
    with output_file(Path(args.out), "--out") as temporary:
        record = _simulate(scene, steps, every, samples, keep=True)
        with open(temporary, "wb") as out:
            _write_npz(out, scene, record)
        size = format_bytes(temporary.stat().st_size)
    print(f"{args.out}: {samples:,} samples of {n:,} agents ({size})")
    return EXIT_OK


def _simulate(
    scene: Scene, steps: int, every: int, samples: int, keep: bool
) -> dict[str, np.ndarray]:
    compile_kernel(on_slow=compiling_notice)
    sim = Simulation(scene)
    n = scene.agent_count
    shape = (samples, n, 3) if keep else (0, n, 3)
    positions = np.empty(shape, dtype=np.float32)
    velocities = np.empty(shape, dtype=np.float32)
    sample_steps = np.arange(samples, dtype=np.int64) * every
    # Many steps per call let the kernel keep each agent in registers (several times faster
    # than one step per call for big scenes); ~5 M agent-steps a chunk still moves the
    # progress bar a few times a second.
    chunk = min(600, max(1, 5_000_000 // max(n, 1)))
    progress = Progress(sys.stderr, steps, n, scene.dt)
    done = 0
    taken = 0
    while True:
        if keep and taken < samples and done == sample_steps[taken]:
            positions[taken] = sim.positions
            velocities[taken] = sim.velocities
            taken += 1
        if done >= steps:
            break
        stop = min(steps, done + chunk)
        if keep and taken < samples:
            stop = min(stop, int(sample_steps[taken]))
        sim.step(stop - done)
        done = stop
        progress.update(done)
    progress.finish(done)
    return {
        "positions": positions,
        "velocities": velocities,
        "steps": sample_steps,
        "times": sample_steps * scene.dt,
        "group_index": np.asarray(sim.group_index, dtype=np.int64),
    }


def _write_npz(out: IO[bytes], scene: Scene, record: dict[str, np.ndarray]) -> None:
    """The trajectory file: arrays only (no pickles), readable with np.load(allow_pickle=False).

    positions, velocities: (T, N, 3) float32, units and units/s; times: (T,) s;
    steps: (T,) step numbers; group_index: (N,); group_names, group_colors: (G,) str;
    bounds: (2, 3) box min and max; dt: s per step; seed; scene_name; scene_text: the TOML.
    """
    text = scene.text if scene.text is not None else scene.to_toml()
    arrays: dict[str, Any] = {
        **record,
        "group_names": np.array([g.name for g in scene.groups], dtype=str),
        "group_colors": np.array([g.color for g in scene.groups], dtype=str),
        "bounds": np.array([scene.enclosure.min, scene.enclosure.max], dtype=np.float64),
        "dt": np.float64(scene.dt),
        "seed": np.int64(scene.seed),
        "scene_name": np.array(scene.name),
        "scene_text": np.array(text),
    }
    np.savez(out, **arrays)
