"""`wander3d tune SCENE --group NAME --target turn_rate=20 --out tuned.toml`: search parameters;
`--like TRACKS` takes the targets from recorded tracks."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from wander3d.analysis import DEFAULT_SAMPLE_RATE, plan_samples
from wander3d.analysis.tracks import GAP_INTERVALS
from wander3d.arguments import finite_float, positive_float, positive_int

from .common import EXIT_INTERRUPTED, PROG, CliError, load_scene_arg, output_option
from .stats import read_tracks_option
from .sweep import add_timeout_option

if TYPE_CHECKING:
    from wander3d.scene import Scene
    from wander3d.sweep.like import TrackTargets
    from wander3d.sweep.tune import Knob, TuneResult

NAME = "tune"
HELP = "find parameter values whose measured metrics match targets"

DEFAULT_SECONDS = 30.0
DEFAULT_SEEDS = 2
DEFAULT_TRIALS = 64
DEFAULT_TOLERANCE = 0.05
#: The exit status when the best trial is not within --tolerance of every target (the tuned
#: scene is written all the same); 2 stays bad input.
EXIT_NOT_REACHED = 3
#: With --like, max_speed is searched from the tracks' mean speed to this many times it (a
#: group's mean speed never exceeds its max_speed).
SPEED_SPAN = 2.5

DESCRIPTION = (
    textwrap.fill(
        "Search the values of the --vary keys of one group of SCENE (default: the wander keys "
        "its method reads, each from a quarter to four times its value) until the group's "
        "metrics, measured as `wander3d stats` does and averaged over --seeds runs, are within "
        "--tolerance of every --target. Optuna's TPE sampler (seeded: the same command finds "
        "the same values) proposes batches of trials that run on a local Dask cluster or on "
        "--scheduler. Writes the scene with the tuned values (every other key kept) to --out "
        "and prints achieved against target; exits with status 3 when some target was not "
        "reached (the best values found are written all the same).",
        width=88,
    )
    + "\n\n"
    + textwrap.fill(
        "With --like TRACKS (a file `wander3d stats --tracks` reads; --columns, --fps, --dt and "
        "--max-gap as there), the targets are the tracks' own measures (all their tracks as one "
        "group) at --sample-rate: mean_speed, mean_turn_rate, twitchiness, persistence, "
        "msd_slope and turn_angles, the distance between the tracks' and the group's turn-angle "
        "distributions (target 0); the default keys are then the wander keys plus max_speed "
        "(from the tracks' speed to 2.5 times it) and max_force (scaled with it). --plot draws "
        "both turn-angle distributions and MSD curves side by side.",
        width=88,
    )
)


def _epilog() -> str:
    from wander3d.sweep.like import TURN_DISTANCE
    from wander3d.sweep.tune import OLD_NAMES, metric_names

    names = textwrap.fill(
        ", ".join(metric_names()), width=84, initial_indent="  ", subsequent_indent="  "
    )
    old = ", ".join(sorted(OLD_NAMES)[:2])
    lines = [
        textwrap.fill(
            "Metrics (--target NAME=VALUE): the names of `stats --json` and of sweep tables; "
            f"'mean_' may be left out, and the older JSON names ({old}, ...) are accepted:",
            width=88,
        ),
        names,
        textwrap.fill(
            f"With --like also: {TURN_DISTANCE}, the distance between the turn-angle "
            "distributions (Wasserstein distance / the tracks' mean |turn angle|).",
            width=88,
        ),
        f"Exit status: 0 every target met, {EXIT_NOT_REACHED} some not met (the scene is "
        "written all the same), 2 bad input.",
    ]
    return "\n".join(lines)


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
    parser.description = DESCRIPTION
    parser.epilog = _epilog()
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument("--group", required=True, metavar="NAME", help="the group to tune")
    parser.add_argument(
        "--target",
        type=_target,
        action="append",
        metavar="METRIC=VALUE",
        help="a metric to reach, e.g. turn_rate=20 or persistence=3 (repeatable; with --like, "
        "replaces that measure's target)",
    )
    parser.add_argument(
        "--like", metavar="TRACKS", help="take the targets from these tracks (.csv, .parquet)"
    )
    parser.add_argument(
        "--columns", metavar="ROLE=NAME,...", help="with --like: as `stats --columns`"
    )
    timing = parser.add_mutually_exclusive_group()
    timing.add_argument(
        "--dt", type=positive_float, metavar="S", help="with --like: seconds per frame"
    )
    timing.add_argument(
        "--fps", type=positive_float, metavar="HZ", help="with --like: frames per second"
    )
    parser.add_argument(
        "--max-gap",
        type=positive_float,
        metavar="S",
        help=f"with --like: split tracks at gaps longer than S seconds (default: "
        f"{GAP_INTERVALS:g} sample or fix intervals)",
    )
    parser.add_argument(
        "--sample-rate",
        type=positive_float,
        default=DEFAULT_SAMPLE_RATE,
        metavar="HZ",
        help=f"samples per second the metrics are measured at (default: "
        f"{DEFAULT_SAMPLE_RATE:g}); with --like, lower it to the tracks' fix rate if slower",
    )
    parser.add_argument(
        "--plot",
        metavar="PNG",
        help="with --like: draw the tracks' and the fitted group's turn-angle distributions "
        "and MSD curves to this PNG",
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
    """Tune as `args` say; return the exit status (0, EXIT_NOT_REACHED, or 130 when
    interrupted)."""
    from wander3d.sweep import like, tune

    if args.like is None:
        if not args.target:
            raise CliError("give a --target METRIC=VALUE, or --like TRACKS")
        for option in ("columns", "dt", "fps", "max_gap", "plot"):
            if getattr(args, option) is not None:
                raise CliError(f"--{option.replace('_', '-')} applies to --like only")
    tolerance = args.tolerance
    scene = load_scene_arg(args.scene)
    try:
        index = tune.group_index(scene, args.group)
        targets = {tune.metric_name(name): value for name, value in args.target or []}
        specs = args.vary or tune.default_keys(scene, index)
    except tune.TuneError as e:
        raise CliError(str(e)) from None
    found = _read_like(args) if args.like is not None else None
    if found is not None:
        targets = {**found.targets, **targets}
    try:
        knobs = [tune.make_knob(scene, index, spec) for spec in specs]
    except tune.TuneError as e:
        raise CliError(f"--vary {e}") from None
    if found is not None and not args.vary:
        knobs += _speed_knobs(scene, index, found.stats.mean_speed)
    names = [k.name for k in knobs]
    if len(set(names)) < len(names):
        raise CliError("--vary names a key twice")
    if Path(args.out).suffix.lower() != ".toml":
        raise CliError(f"--out {args.out}: the tuned scene is TOML; name a .toml file")
    if plan_samples(scene.dt, args.seconds, args.sample_rate).samples < 3:
        raise CliError(f"--seconds {args.seconds:g} is too short to measure")
    plot_path = Path(args.plot) if args.plot is not None else None
    done = [0]  # trials finished, for the interrupt's line
    try:
        with contextlib.ExitStack() as outputs:
            temporary = outputs.enter_context(output_option("--out", Path(args.out)))
            plot_file = (
                outputs.enter_context(output_option("--plot", plot_path)) if plot_path else None
            )
            result = _tune(args, scene, index, targets, knobs, found, tolerance, done)
            temporary.write_text(
                tune.tuned_toml(result, knobs, args.group, args.scene), encoding="utf-8"
            )
            if plot_file is not None and found is not None and result.profile is not None:
                with open(plot_file, "wb") as out:
                    like.write_plot(out, found.profile, result.profile, f"fitted {args.group!r}")
    except KeyboardInterrupt:
        print(
            f"{PROG}: interrupted after {done[0]} trials; nothing written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"{'key':<24} {'from':>10} {'to':>10}")
    for k in knobs:
        print(f"{k.name:<24} {k.start:>10.4g} {result.values[k.name]:>10.4g}")
    # "checked": the tuned values measured again, new seeds, at the scene's own agent count.
    print(f"\n{'metric':<24} {'target':>10} {'achieved':>10} {'off':>7} {'checked':>10} {'off':>7}")
    for metric, goal in result.targets.items():
        met = "" if result.errors[metric] <= tolerance else "  not matched"
        print(
            f"{metric:<24} {goal:>10.4g} {result.achieved[metric]:>10.4g} "
            f"{result.errors[metric]:>7.1%} {result.checked[metric]:>10.4g} "
            f"{result.checked_errors[metric]:>7.1%}{met}"
        )
    for metric, why in (found.skipped if found is not None else {}).items():
        print(f"{metric:<24} {'':>10} {'':>10} {'':>7}  not targeted: {why}")
    measured = args.agents or result.checked_agents
    print(
        f"{PROG}: achieved with {args.seeds} seed(s) of {measured:,} agents; checked with "
        f"{args.seeds} new seed(s) of the scene's {result.checked_agents:,}",
        file=sys.stderr,
    )
    worst = max(result.errors, key=lambda m: result.errors[m])
    if result.errors[worst] <= tolerance:
        print(
            f"{PROG}: within {tolerance:.0%} of every target after {result.trials} trials; "
            f"tuned scene written to {args.out}",
            file=sys.stderr,
        )
        return 0
    print(
        f"{PROG}: not within {tolerance:.0%} of every target after {result.trials} trials "
        f"(worst: {worst}, {result.errors[worst]:.1%} off); the best values found are written "
        f"to {args.out}",
        file=sys.stderr,
    )
    return EXIT_NOT_REACHED


def _read_like(args: argparse.Namespace) -> TrackTargets:
    """The targets of --like's tracks (like.TrackTargets); notes on stderr as `stats`."""
    from wander3d.sweep import like

    tracks = read_tracks_option(Path(args.like), "--like", args)
    if tracks.samples.high[1] <= tracks.samples.low[1]:
        # Flat tracks beside a group that climbs and dives: the turns and the MSD differ.
        print(
            f"{PROG}: the tracks are 2D; the group moves in 3D unless its scene keeps it "
            "level (wander.vertical = 0 and a box one margin high, say)",
            file=sys.stderr,
        )
    return like.track_targets(tracks)


def _speed_knobs(scene: Scene, index: int, speed: float) -> list[Knob]:
    """max_speed from the tracks' mean speed to SPEED_SPAN times it, and max_force around its
    value scaled as max_speed is (turning as sharply at the new speed needs force * ratio)."""
    from wander3d.sweep import tune

    group = scene.groups[index]
    if not (speed > 0 and math.isfinite(speed)):
        raise CliError("--like: the tracks do not move (mean speed 0): nothing to fit")
    low, high = speed, SPEED_SPAN * speed
    start = min(max(float(group.max_speed), low * 1.05), high)
    ratio = start / float(group.max_speed)
    force = float(group.max_force) * ratio
    try:
        knobs = [
            tune.make_knob(scene, index, f"max_speed={low:.6g}:{high:.6g}"),
            tune.make_knob(
                scene, index, f"max_force={force / tune.SPAN:.6g}:{force * tune.SPAN:.6g}"
            ),
        ]
    except tune.TuneError as e:
        raise CliError(f"--like: {e}") from None
    starts = (start, min(max(force, knobs[1].low), knobs[1].high))
    return [dataclasses.replace(k, start=v) for k, v in zip(knobs, starts, strict=True)]


def _tune(
    args: argparse.Namespace,
    scene: Scene,
    index: int,
    targets: dict[str, float],
    knobs: list[Knob],
    found: TrackTargets | None,
    tolerance: float,
    done: list[int],
) -> TuneResult:
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
                sample_rate=args.sample_rate,
                seeds=args.seeds,
                agents=args.agents,
                trials=args.trials,
                tolerance=tolerance,
                profile=found.profile if found is not None else None,
                from_positions=found.from_positions if found is not None else False,
                on_batch=report,
                timeout=args.timeout,
            )
    except execute.ClusterError as e:
        option = "--scheduler " if isinstance(e, execute.SchedulerError) else ""
        raise CliError(f"{option}{e}") from None
