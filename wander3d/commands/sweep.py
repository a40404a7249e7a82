"""`wander3d sweep SWEEP.toml --out atlas.parquet`: measure a grid of scenes on Dask."""

from __future__ import annotations

import argparse
import contextlib
import sys
import textwrap
from pathlib import Path

from wander3d.analysis.plot import plot_format
from wander3d.analysis.sampling import BYTES_PER_AGENT_SAMPLE, plan_samples
from wander3d.analysis.stats import working_bytes
from wander3d.arguments import positive_int
from wander3d.files import OutputError
from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from .common import PROG, CliError, output_option
from .progress import CellProgress

NAME = "sweep"
HELP = "measure the wander over a grid of parameters (a parameter atlas), on Dask"

DESCRIPTION = textwrap.fill(
    "Run every cell of SWEEP (a base scene, the keys to vary and their values, seeds per "
    "cell) headless and write one row per cell, seed and group with the varied values and "
    "every `wander3d stats` metric to --out (.parquet, or .csv with a .json sidecar). Cells "
    "run on a local Dask cluster of one worker per core, or on an existing cluster "
    "(--scheduler). Finished cells are kept in OUT.parts/ as they come: run the same command "
    "again after an interruption and only the missing cells run.",
    width=88,
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
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
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


def check_memory(sweep, workers: int) -> None:
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
    """Run the sweep as `args` say; return the exit status (0)."""
    from wander3d.sweep import execute, load_sweep, run_sweep, store

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
        check_memory(sweep, args.workers or execute.default_workers())
    # The parts folder is made now, so a bad --out fails before the cluster starts.
    if out.is_dir():
        raise CliError(f"--out {out}: is a directory")
    try:
        store.parts_folder(out).mkdir(exist_ok=True)
    except FileNotFoundError:
        raise CliError(f"--out {out}: folder {out.parent} does not exist") from None
    except OSError as e:
        raise CliError(f"--out {out}: cannot write beside it: {e.strerror or e}") from None
    # Entered first, so a bad --plot path fails before the sweep runs.
    with output_option("--plot", plot_path) if plot_path else contextlib.nullcontext() as plot_file:
        try:
            with execute.open_client(args.workers, args.scheduler) as client:
                workers = execute.worker_count(client)
                progress: CellProgress | None = None

                def started(to_run: int, reused: int) -> None:
                    nonlocal progress
                    where = f"on {workers} worker{'s' if workers != 1 else ''}"
                    kept = (
                        f" ({reused} already measured in {out.name} or its parts)" if reused else ""
                    )
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
                    result = run_sweep(sweep, out, client, finished, started)
                finally:
                    if progress is not None:
                        progress.finish()
        except execute.ClusterError as e:
            with contextlib.suppress(OSError):
                store.parts_folder(out).rmdir()  # only if no cell finished
            option = "--scheduler " if isinstance(e, execute.SchedulerError) else ""
            raise CliError(f"{option}{e}") from None
        except OutputError as e:  # the table, written at the end
            raise CliError(f"--out {e}") from None
        except KeyboardInterrupt:
            print(
                f"{PROG}: finished cells are kept in {store.parts_folder(out)}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise
        if plot_file is not None:
            from wander3d.sweep.plot import write_atlas

            with open(plot_file, "wb") as f:
                keys = [a.key.text for a in sweep.axes]
                write_atlas(f, result.table, keys, plot_format(plot_file))
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
