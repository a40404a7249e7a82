"""`wander3d tune SCENE --group NAME --target turn_rate=20 --out tuned.toml`: search parameters."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from wander3d.analysis import DEFAULT_SAMPLE_RATE, plan_samples
from wander3d.arguments import finite_float, positive_float, positive_int

from .common import EXIT_INTERRUPTED, PROG, CliError, load_scene_arg, output_option
from .sweep import add_timeout_option

NAME = "tune"
HELP = "find parameter values whose measured metrics match targets"

DEFAULT_SECONDS = 30.0
DEFAULT_SEEDS = 2
DEFAULT_TRIALS = 64
DEFAULT_TOLERANCE = 0.05

DESCRIPTION = textwrap.fill(
    "Search the values of the --vary keys of one group of SCENE (default: the wander keys its "
    "method reads, each from a quarter to four times its value) until the group's metrics, "
    "measured as `wander3d stats` does and averaged over --seeds runs, are within --tolerance "
    "of every --target. Optuna's TPE sampler (seeded: the same command finds the same values) "
    "proposes batches of trials that run on a local Dask cluster or on --scheduler. Writes the "
    "scene with the tuned values (every other key kept) to --out and prints achieved against "
    "target.",
    width=88,
)


def _target(text: str) -> tuple[str, float]:
    name, eq, value = text.partition("=")
    if not eq:
        raise argparse.ArgumentTypeError(f"expected METRIC=VALUE, e.g. turn_rate=20, got {text!r}")
    number = finite_float(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"a target must be 0 or more, got {text!r}")
    return name.strip(), number


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `tune`'s arguments to `parser`."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = DESCRIPTION
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument("--group", required=True, metavar="NAME", help="the group to tune")
    parser.add_argument(
        "--target",
        type=_target,
        action="append",
        required=True,
        metavar="METRIC=VALUE",
        help="a metric to reach, e.g. turn_rate=20 or persistence=3 (repeatable)",
    )
    parser.add_argument(
        "--vary",
        action="append",
        metavar="KEY[=LO:HI]",
        help="a group key to tune, e.g. wander.jitter or wander.radius=2:40 (repeatable)",
    )
    parser.add_argument("--out", required=True, metavar="TOML", help="tuned scene to write")
    parser.add_argument(
        "--seconds",
        type=positive_float,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"simulated seconds per run (default: {DEFAULT_SECONDS:g})",
    )
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=DEFAULT_SEEDS,
        metavar="N",
        help=f"runs per trial, averaged (default: {DEFAULT_SEEDS})",
    )
    parser.add_argument(
        "--agents",
        type=positive_int,
        metavar="N",
        help="agents measured per run (default: the group's count; the written scene keeps it)",
    )
    parser.add_argument(
        "--trials",
        type=positive_int,
        default=DEFAULT_TRIALS,
        metavar="N",
        help=f"at most this many trials (default: {DEFAULT_TRIALS})",
    )
    parser.add_argument(
        "--tolerance",
        type=positive_float,
        default=DEFAULT_TOLERANCE,
        metavar="F",
        help=f"stop when every metric is this close, relatively (default: {DEFAULT_TOLERANCE})",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, metavar="N", help="local worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask cluster")
    add_timeout_option(parser)


def main(args: argparse.Namespace) -> int:
    """Tune as `args` say; return the exit status (0, or 130 when interrupted)."""
    from wander3d.sweep import tune

    scene = load_scene_arg(args.scene)
    try:
        index = tune.group_index(scene, args.group)
        targets = {tune.metric_name(name): value for name, value in args.target}
        specs = args.vary or tune.default_keys(scene, index)
    except tune.TuneError as e:
        raise CliError(str(e)) from None
    try:
        knobs = [tune.make_knob(scene, index, spec) for spec in specs]
    except tune.TuneError as e:
        raise CliError(f"--vary {e}") from None
    names = [k.name for k in knobs]
    if len(set(names)) < len(names):
        raise CliError("--vary names a key twice")
    if plan_samples(scene.dt, args.seconds, DEFAULT_SAMPLE_RATE).samples < 3:
        raise CliError(f"--seconds {args.seconds:g} is too short to measure")
    done = [0]  # trials finished, for the interrupt's line
    try:
        with output_option("--out", Path(args.out)) as temporary:
            result = _tune(args, scene, index, targets, knobs, done)
            temporary.write_text(
                tune.tuned_toml(result, knobs, args.group, args.scene), encoding="utf-8"
            )
    except KeyboardInterrupt:
        print(
            f"{PROG}: interrupted after {done[0]} trials; nothing written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"{'key':<24} {'from':>10} {'to':>10}")
    for k in knobs:
        print(f"{k.name:<24} {k.start:>10.4g} {result.values[k.name]:>10.4g}")
    print(f"\n{'metric':<24} {'target':>10} {'achieved':>10} {'off':>7}")
    for metric, goal in result.targets.items():
        print(
            f"{metric:<24} {goal:>10.4g} {result.achieved[metric]:>10.4g} "
            f"{result.errors[metric]:>7.1%}"
        )
    worst = max(result.errors.values())
    met = "within" if worst <= args.tolerance else "NOT within"
    print(
        f"{PROG}: {met} {args.tolerance:.0%} after {result.trials} trials; tuned scene written "
        f"to {args.out}",
        file=sys.stderr,
    )
    return 0


def _tune(args: argparse.Namespace, scene, index: int, targets, knobs, done: list[int]):
    """Run the search on the cluster; `done[0]` counts the trials finished."""
    from wander3d.sweep import execute, tune

    def report(trials: int, errors: dict[str, float]) -> None:
        done[0] = trials
        print(
            f"{PROG}: {trials} trials, best is {max(errors.values()):.1%} off",
            file=sys.stderr,
            flush=True,
        )

    try:
        with execute.open_client(args.workers, args.scheduler, timeout=args.timeout) as client:
            return tune.tune(
                scene,
                index,
                targets,
                knobs,
                client,
                seconds=args.seconds,
                sample_rate=DEFAULT_SAMPLE_RATE,
                seeds=args.seeds,
                agents=args.agents,
                trials=args.trials,
                tolerance=args.tolerance,
                on_batch=report,
                timeout=args.timeout,
            )
    except execute.ClusterError as e:
        option = "--scheduler " if isinstance(e, execute.SchedulerError) else ""
        raise CliError(f"{option}{e}") from None
