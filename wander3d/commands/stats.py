"""`wander3d stats SCENE`: measure a scene's wander, headless (metrics: wander3d.analysis)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
import textwrap
from pathlib import Path
from typing import IO

from wander3d.analysis.report import METRICS_HELP, StatsReport, format_table, to_json
from wander3d.analysis.sampling import (
    BYTES_PER_AGENT_SAMPLE,
    DEFAULT_SAMPLE_RATE,
    plan_samples,
    sample_simulation,
)
from wander3d.analysis.stats import compute_stats, working_bytes
from wander3d.arguments import positive_float
from wander3d.engine import Simulation
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.files import output_file
from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from .common import CliError, load_scene_arg
from .progress import Progress

NAME = "stats"
HELP = "measure the wander: path statistics per group"

DEFAULT_SECONDS = 60.0
#: Above this many agent-samples, say on a terminal that the metrics are being computed.
_NOTICE_AGENT_SAMPLES = 2_000_000

DESCRIPTION = textwrap.fill(
    "Run SCENE without a window for --seconds of simulated time (progress on stderr) and print "
    "one row of path metrics per group. With --json, print the same numbers as JSON instead "
    "(nothing else goes to stdout). With --plot, also write a PNG of each group's turn-rate "
    "distribution, heading autocorrelation and turning-axis autocorrelation.",
    width=88,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `stats`'s arguments and help (metric definitions in the epilog) to `parser`."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = DESCRIPTION
    parser.epilog = "Metrics:\n" + METRICS_HELP
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"simulated seconds to measure (default: {DEFAULT_SECONDS:g})",
    )
    parser.add_argument(
        "--sample-rate",
        type=positive_float,
        default=DEFAULT_SAMPLE_RATE,
        metavar="HZ",
        help=f"samples per simulated second (default: {DEFAULT_SAMPLE_RATE:g}); rounded to a "
        "whole number of steps, at most one sample per step",
    )
    parser.add_argument(
        "--json", action="store_true", help="write the numbers to stdout as JSON, no table"
    )
    parser.add_argument("--plot", metavar="PNG", help="also write the plots to this PNG file")


def _check_plotting() -> None:
    if importlib.util.find_spec("matplotlib") is None:
        raise CliError("--plot needs matplotlib: pip install matplotlib")


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def main(args: argparse.Namespace) -> int:
    """Measure the scene as `args` (from `configure`) say; return the exit status (0)."""
    scene = load_scene_arg(args.scene)
    plan = plan_samples(scene.dt, args.seconds, args.sample_rate)
    if plan.samples < 3:
        raise CliError(
            f"--seconds {args.seconds:g} is too short: the metrics need at least 2 sample "
            f"intervals ({2 * plan.interval:g} s at {plan.rate:g} Hz)"
        )
    need = plan.samples * scene.agent_count * BYTES_PER_AGENT_SAMPLE + working_bytes(
        plan.samples, max(g.count for g in scene.groups)
    )
    budget, why = memory_budget()
    if need > budget:
        raise CliError(
            f"the samples would need {format_bytes(need)} ({plan.samples:,} samples of "
            f"{scene.agent_count:,} agents), more than the {format_bytes(budget)} allowed "
            f"({why}); use fewer --seconds or a lower --sample-rate"
        )
    plot_path = Path(args.plot) if args.plot is not None else None
    if plot_path is not None:
        _check_plotting()
    # Entered before the run, so a bad --plot path fails at once; written whole or not at all.
    with output_file(plot_path, "--plot") if plot_path else contextlib.nullcontext() as plot_file:
        # The first run ever compiles the engine's kernel: say why nothing moves for a while.
        compile_kernel(on_slow=compiling_notice)
        sim = Simulation(scene)
        progress = Progress(sys.stderr, plan.steps, scene.agent_count, scene.dt)
        samples = sample_simulation(sim, plan, progress.update)
        progress.finish(plan.steps)
        if plan.samples * scene.agent_count > _NOTICE_AGENT_SAMPLES and _is_tty(sys.stderr):
            # Big runs take a while to analyse too (about a second per million agent-samples).
            print("wander3d: computing path metrics...", file=sys.stderr, flush=True)
        stats, curves = compute_stats(samples, scene.groups)
        report = StatsReport(
            scene=scene.name,
            source=None if scene.source is None else str(scene.source),
            seed=scene.seed,
            dt=scene.dt,
            plan=plan,
            groups=stats,
        )
        if plot_file is not None:
            from wander3d.analysis.plot import write_plot

            with open(plot_file, "wb") as out:
                write_plot(out, report, curves, [g.color for g in scene.groups])
    if args.json:
        json.dump(to_json(report), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(format_table(report))
        if plot_path is not None:
            print(f"wander3d: plots written to {plot_path}", file=sys.stderr)
    sys.stdout.flush()
    return 0
