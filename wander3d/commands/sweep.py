"""`wander3d sweep SWEEP.toml --out atlas.parquet`: measure a grid of scenes on Dask."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wander3d.analysis.plot import plot_format
from wander3d.analysis.sampling import BYTES_PER_AGENT_SAMPLE, plan_samples
from wander3d.analysis.stats import working_bytes
from wander3d.arguments import positive_float, positive_int
from wander3d.files import OutputError, remove_stale_temporaries
from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from .common import EXIT_DECLINED, EXIT_INTERRUPTED, PROG, CliError, help_paragraph, output_option
from .progress import CellProgress

if TYPE_CHECKING:  # the sweep package is imported when a sweep runs, not with the CLI
    from wander3d.sweep.run import SweepRun
    from wander3d.sweep.spec import Sweep

NAME = "sweep"
HELP = "measure the wander over a grid of parameters (a parameter atlas), on Dask"
#: Seconds to wait for a cluster to answer or to get a worker back (--timeout's default).
CLUSTER_TIMEOUT_S = 30.0
#: What one worker measures, for the estimate of a sweep's time: a cell keeps about 70% of the
#: engine's single-thread speed (README, "Throughput"), some 14M agent-steps/s on one core of
#: the project's two-core machine (docs/performance.md).
AGENT_STEPS_PER_WORKER_S = 10e6
#: A sweep estimated to take longer than this (s) asks before it starts.
ASK_ABOVE_S = 3600.0

DESCRIPTION = help_paragraph(
    "Run every cell of SWEEP (a base scene, the keys to vary and their values, seeds per "
    "cell) headless and write one row per cell, seed and group with the varied values and "
    "every `wander3d stats` metric to --out (.parquet, or .csv with a .json sidecar). Cells "
    "run on a local Dask cluster of one worker per core, or on an existing cluster "
    "(--scheduler). Finished cells are kept in OUT.parts/ as they come: run the same command "
    "again after an interruption and only the missing cells run. One sweep at a time writes "
    "an output (OUT.lock names it while it runs). A sweep estimated to take more than an "
    "hour says so and asks first (--yes starts it without asking).",
)

EPILOG = """\
Sweep file:
  [sweep]
  scene = "default"            # scene file (relative to the sweep file) or bundled name
  seeds = 3                    # runs per cell: seeds 0..2 added to the scene's seed
  seconds = 60                 # simulated seconds measured per run
  [sweep.set]                  # optional fixed changes, e.g. fewer agents
  groups.count = 100
  [[sweep.vary]]
  key = "groups.wander.jitter" # every group; "groups[0].wander.jitter" for one
  values = [2, 5, 10, 20, 40]
  [[sweep.vary]]
  key = "groups.wander.radius"
  range = [2, 30]
  count = 8
  scale = "log"                # or "linear"
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `sweep`'s arguments to `parser`."""
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("sweep", metavar="SWEEP", help="sweep file (TOML)")
    parser.add_argument(
        "--out", required=True, metavar="FILE", help="table to write: .parquet or .csv"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="local worker processes (default: one per core)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on an existing Dask cluster, e.g. tcp://host:8786 (its workers need wander3d)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the atlas (one or two varied keys) to this .png, .svg or .pdf file",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="start a sweep estimated to take more than an hour without asking",
    )
    add_timeout_option(parser)


def add_timeout_option(parser: argparse.ArgumentParser) -> None:
    """--timeout, for the commands that run on a Dask cluster."""
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=CLUSTER_TIMEOUT_S,
        metavar="S",
        help="give up when the cluster does not answer, or has had no workers, for this long "
        f"(default: {CLUSTER_TIMEOUT_S:g} s)",
    )


def check_memory(sweep: Sweep, workers: int) -> None:
    """CliError if `workers` cells at once would not fit in the memory budget."""
    plan = plan_samples(sweep.base.dt, sweep.seconds, sweep.sample_rate)
    largest = max(sweep.cells, key=lambda c: c.scene.agent_count).scene
    need = plan.samples * largest.agent_count * BYTES_PER_AGENT_SAMPLE + working_bytes(
        plan.samples, max(g.count for g in largest.groups)
    )
    budget, why = memory_budget()
    if need * workers > budget:
        raise CliError(
            f"{workers} cells at once would need {format_bytes(need * workers)}, more than the "
            f"{format_bytes(budget)} allowed ({why}); use fewer --workers, seconds or agents"
        )


def main(args: argparse.Namespace) -> int:
    """Run the sweep as `args` say; return the exit status (0, or 130 when interrupted)."""
    from wander3d.sweep import load_sweep, store
    from wander3d.sweep.lock import LockedError, output_lock

    sweep = load_sweep(args.sweep)
    out = Path(args.out)
    try:
        store.table_format(out)
    except ValueError as e:
        raise CliError(f"--out {e}") from None
    plot_path = Path(args.plot) if args.plot is not None else None
    if plot_path is not None:
        try:
            if not plot_path.is_dir():  # a folder is told as one when the output is opened
                plot_format(plot_path)
        except ValueError as e:
            raise CliError(f"--plot {e}") from None
    if plot_path is not None and not 1 <= len(sweep.axes) <= 2:
        raise CliError(
            f"--plot draws one or two varied keys; {args.sweep} varies {len(sweep.axes)}"
        )
    if args.scheduler is None:
        from wander3d.sweep import execute

        check_memory(sweep, args.workers or execute.default_workers())
    # Checked now, so a bad --out fails before the cluster starts.
    if out.is_dir():
        raise CliError(f"--out {out}: is a directory")
    if not out.parent.is_dir():
        raise CliError(f"--out {out}: folder {out.parent} does not exist")
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(output_lock(out))
        except LockedError as e:
            raise CliError(f"--out {out}: {e}") from None
        except OSError as e:
            raise CliError(f"--out {out}: cannot write beside it: {e.strerror or e}") from None
        remove_stale_temporaries(out)
        if not args.yes and not _confirmed(sweep, out, args.workers, args.scheduler):
            print(f"{PROG}: nothing started", file=sys.stderr)
            return EXIT_DECLINED
        return _run(args, sweep, out, plot_path)


def estimate(sweep: Sweep, out: Path, workers: int) -> tuple[int, int, float]:
    """(cells to run, their agent-steps, estimated seconds on `workers` workers): the cells
    neither `out`'s table nor its parts already hold."""
    from wander3d.sweep import store

    todo = store.missing(sweep, _measured(sweep, out))
    steps = sweep.agent_steps(todo)
    return len(todo), steps, steps / AGENT_STEPS_PER_WORKER_S / workers


def _confirmed(sweep: Sweep, out: Path, workers: int | None, scheduler: str | None) -> bool:
    """Whether to start: yes for a sweep estimated under ASK_ABOVE_S; else ask on a terminal
    (a CliError without one, naming --yes)."""
    from wander3d.sweep import execute

    count = 1 if scheduler is not None else workers or execute.default_workers()
    cells, steps, seconds = estimate(sweep, out, count)
    if seconds <= ASK_ABOVE_S:
        return True
    where = (
        "worker-hours on the cluster (divide by its workers)"
        if scheduler is not None
        else f"hours on {count} worker{'s' if count != 1 else ''}"
    )
    work = (
        f"{cells:,} runs of {sweep.seconds:g} s, {steps:.2g} agent-steps: about "
        f"{seconds / 3600:,.1f} {where}, at {AGENT_STEPS_PER_WORKER_S / 1e6:g}M agent-steps/s "
        "per worker"
    )
    if not sys.stdin.isatty():
        raise CliError(f"{sweep.source}: {work}; nothing started (--yes starts it)")
    print(f"{PROG}: {sweep.source}: {work}. Start it? [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _measured(sweep: Sweep, out: Path) -> set[str]:
    """Ids of the cells of `sweep` a rerun would not run again: in `out`'s table or parts."""
    from wander3d.sweep import store

    groups = store.cell_groups(sweep)
    parts = store.read_parts(store.parts_folder(out), groups)
    return {*store.read_table_cells(out, groups), *parts}


def _run(args: argparse.Namespace, sweep: Sweep, out: Path, plot_path: Path | None) -> int:
    """Run the sweep holding `out`'s lock; its failures as CliError, an interrupt as 130."""
    from wander3d.sweep import execute, store

    folder = store.parts_folder(out)
    try:
        result = _measure(args, sweep, out, plot_path)
    except KeyboardInterrupt:
        store.remove_empty_parts(folder)
        print(
            f"{PROG}: interrupted; {len(_measured(sweep, out))} cells kept, rerun to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except execute.ClusterError as e:
        store.remove_empty_parts(folder)
        option = "--scheduler " if isinstance(e, execute.SchedulerError) else ""
        kept = len(_measured(sweep, out))
        resume = f"; {kept} cells kept, rerun to resume" if kept else ""
        raise CliError(f"{option}{e}{resume}") from None
    except OutputError as e:  # the table or the parts folder
        store.remove_empty_parts(folder)
        raise CliError(f"--out {e}") from None
    seconds = max(result.seconds, 1e-9)
    ran = (
        f"ran {result.ran} cells in {result.seconds:.1f} s ({result.ran / seconds:.2f} "
        f"cells/s, {result.agent_steps / seconds / 1e6:.2f}M agent-steps/s)"
        if result.ran
        else "every cell was measured before"
    )
    print(f"{PROG}: {ran}; {result.table.num_rows} rows written to {out}", file=sys.stderr)
    if plot_path is not None:
        print(f"{PROG}: atlas written to {plot_path}", file=sys.stderr)
    return 0


def _measure(args: argparse.Namespace, sweep: Sweep, out: Path, plot_path: Path | None) -> SweepRun:
    """Start the cluster, run the missing cells, write the table (and the --plot picture)."""
    from wander3d.sweep import execute, run_sweep

    # Entered first, so a bad --plot path fails before the sweep runs.
    with output_option("--plot", plot_path) if plot_path else contextlib.nullcontext() as plot_file:
        with execute.open_client(args.workers, args.scheduler, timeout=args.timeout) as client:
            workers = execute.worker_count(client)
            progress: CellProgress | None = None

            def started(to_run: int, reused: int) -> None:
                nonlocal progress
                where = f"on {workers} worker{'s' if workers != 1 else ''}"
                kept = f" ({reused} already measured in {out.name} or its parts)" if reused else ""
                print(
                    f"{PROG}: {len(sweep.cells)} cells{kept}, running {to_run} {where}",
                    file=sys.stderr,
                    flush=True,
                )
                progress = CellProgress(sys.stderr, to_run)

            def finished(done: int) -> None:
                if progress is not None:  # made by `started`, before any cell runs
                    progress.update(done)

            try:
                result = run_sweep(sweep, out, client, finished, started, timeout=args.timeout)
            finally:
                if progress is not None:
                    progress.finish()
        if plot_file is not None:
            from wander3d.sweep.plot import write_atlas

            with open(plot_file, "wb") as f:
                keys = [a.key.text for a in sweep.axes]
                write_atlas(f, result.table, keys, plot_format(plot_file))
    return result
