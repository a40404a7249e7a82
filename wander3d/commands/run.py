"""`wander3d run SCENE --seconds S [--out FILE]`: simulate without a window, save a trajectory.

The engine's recorder (wander3d.engine.recording) steps the run and hands its samples to the
writer of --out's format (wander3d.export) in chunks as the run goes.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from wander3d.arguments import positive_float, positive_int
from wander3d.engine.recording import (
    SamplePlan,
    record_run,
    steps_for_seconds,
    steps_per_sample,
)
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.export import (
    CHUNK_ROWS,
    FORMATS,
    ExportError,
    Provenance,
    TrajectoryWriter,
    check_format,
    memory_bytes,
    read_provenance,
    sidecar_path,
    writer_class,
)
from wander3d.files import OutputError
from wander3d.scene import Scene, check_fits, memory_budget
from wander3d.scene.memory import format_bytes

from .common import EXIT_OK, CliError, help_paragraph, load_scene_arg, output_option
from .progress import Progress

NAME = "run"
HELP = "simulate without a window and optionally save the trajectory"

_FORMAT_LINES = "\n".join(f"  {suffix:9} {what}" for suffix, what in FORMATS.items())
DESCRIPTION = (
    help_paragraph(
        "Simulate SCENE for --seconds of simulated time without a window, with a progress bar "
        "on stderr. With --out, save the agents' positions and velocities, sampled every "
        "--sample-every steps or at --sample-rate, in the format the extension names:",
    )
    + "\n\n"
    + _FORMAT_LINES
    + "\n\n"
    + help_paragraph(
        "Parquet and CSV are long tables, one row per agent per sample, with the columns "
        "particle, group, frame, t, x, y, z, vx, vy, vz (+y up), written as the run goes, so "
        "any run length fits in memory. Every file records the scene's TOML, seed, dt and "
        "sample interval (Parquet: its metadata; CSV: FILE.json beside it), and --replay FILE "
        "repeats that run exactly. A .glb holds one animated cone per agent (keyframes at "
        "every sample) and the box, for Blender or three.js; it and .npz keep the whole run "
        "in memory until written.",
    )
)
EPILOG = (
    "examples:\n"
    "  wander3d run compare --seconds 60 --sample-rate 10 --out compare.parquet\n"
    "  wander3d run compare --seconds 20 --sample-rate 30 --out compare.glb\n"
    "  wander3d run --replay compare.parquet --out again.csv"
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("scene", nargs="?", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        metavar="S",
        help="simulated seconds to run (steps = S / dt); required unless --replay",
    )
    parser.add_argument(
        "--out", metavar="FILE", help=f"write the trajectory here ({', '.join(FORMATS)})"
    )
    sampling = parser.add_mutually_exclusive_group()
    sampling.add_argument(
        "--sample-every",
        type=positive_int,
        metavar="K",
        help="with --out, keep every K-th step (default: 1, every step)",
    )
    sampling.add_argument(
        "--sample-rate",
        type=positive_float,
        metavar="HZ",
        help="with --out, samples per simulated second instead, rounded to a whole number of "
        "steps as `wander3d stats` does",
    )
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help="repeat the run a trajectory file records (scene, seed, dt, sampling, length) "
        "instead of SCENE",
    )


def _plan(args: argparse.Namespace) -> tuple[Scene, SamplePlan]:
    """The scene and how its run is sampled, from SCENE or --replay."""
    if args.replay is None:
        if args.scene is None:
            raise CliError("give a SCENE to run, or --replay FILE")
        if args.seconds is None:
            raise CliError("--seconds is required (or --replay FILE)")
        scene = load_scene_arg(args.scene)
        if args.sample_rate is not None:
            every = steps_per_sample(scene.dt, args.sample_rate)
        else:
            every = args.sample_every or 1
        steps = steps_for_seconds(scene.dt, args.seconds)
        return scene, SamplePlan.over_steps(scene.dt, steps, every)
    given = [name for name in ("scene", "seconds", "sample_every", "sample_rate")
             if getattr(args, name) is not None]  # fmt: skip
    if given:
        options = ", ".join("SCENE" if g == "scene" else "--" + g.replace("_", "-") for g in given)
        raise CliError(f"--replay repeats the recorded run; leave out {options}")
    try:
        record = read_provenance(Path(args.replay))
    except ExportError as e:
        raise CliError(f"--replay {e}") from None
    if record is None:
        replay = Path(args.replay)
        if replay.suffix.lower() == ".csv":
            raise CliError(
                f"--replay {replay}: a CSV's run record is beside it, in "
                f"{sidecar_path(replay)}, which does not exist"
            )
        raise CliError(f"--replay {args.replay}: no wander3d run record in it")
    scene = record.scene(args.replay)
    _check_replay_rows(Path(args.replay), record.samples * scene.agent_count)
    return scene, SamplePlan.over_steps(scene.dt, record.steps, record.steps_per_sample)


def _check_replay_rows(path: Path, rows: int) -> None:
    """CliError unless a long table (.parquet, .csv) holds the `rows` its record describes:
    a record edited or copied from another run would repeat a different run, perhaps one
    of years."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            held = pq.ParquetFile(path).metadata.num_rows
        except (OSError, ValueError) as e:
            raise CliError(f"--replay {path}: not a Parquet file ({e})") from None
    elif suffix == ".csv":
        with open(path, "rb") as f:
            held = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1
    else:
        return
    if held != rows:
        raise CliError(
            f"--replay {path}: its run record describes {rows:,} rows, the file holds "
            f"{held:,}: the file or its record was changed"
        )


def main(args: argparse.Namespace) -> int:
    """Simulate headless, streaming sampled states to --out's writer if there is one."""
    scene, plan = _plan(args)
    check_fits(scene)
    n, samples = scene.agent_count, plan.samples
    if args.out is None:
        _simulate(scene, plan, None)
        return EXIT_OK
    out = Path(args.out)
    try:
        suffix = check_format(out)
    except ExportError as e:
        raise CliError(f"--out {e}") from None
    chunk = _chunk_samples(n, samples)
    need = memory_bytes(out, samples, n, chunk)
    budget, why = memory_budget()
    if need > budget:
        raise CliError(
            f"the trajectory would need {format_bytes(need)} as {suffix} ({samples:,} samples "
            f"of {n:,} agents), more than the {format_bytes(budget)} allowed ({why}); use a larger "
            "--sample-every, fewer --seconds"
            + (", or .parquet or .csv, which stream to disk" if suffix in (".glb", ".npz") else "")
        )
    record = Provenance.of_run(scene, plan.steps_per_sample, samples, plan.steps)
    sidecar = sidecar_path(out) if suffix == ".csv" else None
    # Entered before the run, so a bad path fails at once; written whole or not at all.
    with (
        output_option("--out", out) as temporary,
        output_option("--out", sidecar) if sidecar else contextlib.nullcontext() as side,
    ):
        try:
            writer = writer_class(out)(temporary, scene, record)
            try:
                _simulate(scene, plan, writer)
                writer.finish()
            finally:
                writer.close()
        except OSError as e:  # the trajectory's error, not the sidecar's (whose block this is)
            raise OutputError(out, f"cannot write: {e.strerror or e}") from None
        if side is not None:
            side.write_text(record.to_json() + "\n", encoding="utf-8")
        size = format_bytes(temporary.stat().st_size)
    extra = f" and its record {sidecar}" if sidecar else ""
    print(f"{args.out}: {samples:,} samples of {n:,} agents ({size}){extra}")
    return EXIT_OK


def _chunk_samples(agents: int, samples: int) -> int:
    """Samples per chunk handed to the writer: about CHUNK_ROWS rows, at least one sample."""
    return max(1, min(samples, CHUNK_ROWS // max(agents, 1)))


def _simulate(scene: Scene, plan: SamplePlan, writer: TrajectoryWriter | None) -> None:
    """Run the plan's steps, handing its samples to `writer` in chunks (the engine's recorder)."""
    compile_kernel(on_slow=compiling_notice)
    progress = Progress(sys.stderr, plan.steps, scene.agent_count, scene.dt)
    consume = writer.write if writer is not None else None
    chunk = _chunk_samples(scene.agent_count, plan.samples)
    record_run(scene.run_spec, plan, consume, chunk=chunk, progress=progress.update)
    progress.finish(plan.steps)
