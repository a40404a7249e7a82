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
from wander3d.analysis.plot import plot_format
from wander3d.arguments import finite_float, positive_float, positive_int

from .common import EXIT_INTERRUPTED, PROG, CliError, load_scene_arg, output_option
from .sweep import add_timeout_option
from .track_options import add_track_options, given_track_options, read_tracks_option

if TYPE_CHECKING:
    from wander3d.scene import Scene
    from wander3d.sweep.like import TrackTargets
    from wander3d.sweep.tune import Knob, TuneResult

NAME = "tune"
HELP = "find parameter values whose measured metrics match targets"

DEFAULT_SECONDS = 30.0
DEFAULT_SEEDS = 2
DEFAULT_TRIALS = 320
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
        "--tolerance of every --target. Coarse to fine: Optuna's TPE sampler over the whole "
        "ranges (in batches), then least squares on the targets' errors (scipy's "
        "trust-region reflective, its Jacobian measured by steps in each key) from the best "
        "points found (seeded: the same command finds the same values); "
        "trials run on a local Dask cluster or on --scheduler. The best few points are "
        "measured again on seeds the search never used (achieved), and the winner as "
        "`wander3d stats` of the written scene measures it (checked). Writes the scene with "
        "the tuned values (every other key kept) to --out and prints both against the "
        "targets; exits with status 3 when some target was not met (beyond the tolerance and "
        "beyond what sampling noise explains; the best values found are written all the same).",
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
    from wander3d.analysis.metric_table import target_help
    from wander3d.sweep.like import TURN_DISTANCE
    from wander3d.sweep.tune import OLD_NAMES

    old = ", ".join(sorted(OLD_NAMES)[:2])
    lines = [
        textwrap.fill(
            "Metrics (--target NAME=VALUE): the names of `stats --json` and of sweep tables; "
            f"'mean_' may be left out, and the older JSON names ({old}, ...) are accepted:",
            width=88,
        ),
        target_help(),
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
        "--sample-rate",
        type=positive_float,
        default=DEFAULT_SAMPLE_RATE,
        metavar="HZ",
        help=f"samples per second the metrics are measured at (default: "
        f"{DEFAULT_SAMPLE_RATE:g}); with --like, lower it to the tracks' fix rate if slower",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="with --like: draw the tracks' and the fitted group's turn-angle distributions "
        "and MSD curves to this .png, .svg or .pdf",
    )
    parser.add_argument(
        "--fit-box",
        nargs="?",
        const="reach",
        choices=("reach", "tracks"),
        help=f"with --like: 'reach' (the default): scale the scene's box (and its margin) to "
        f"{BOX_REACH:g} times the distance the tracks move in --seconds, when it is smaller "
        "(else that is refused); 'tracks': make the box the one the tracks fill, for tracks "
        "whose walls turned them (a tank, an arena)",
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
    add_track_options(parser, "with --like, as for stats --tracks")


def main(args: argparse.Namespace) -> int:
    """Tune as `args` say; return the exit status (0, EXIT_NOT_REACHED, or 130 when
    interrupted)."""
    _check_request(args)
    scene = load_scene_arg(args.scene)
    index, targets, specs = _targets_and_keys(scene, args)
    if plan_samples(scene.dt, args.seconds, args.sample_rate).samples < 3:
        raise CliError(f"--seconds {args.seconds:g} is too short to measure")
    found = None
    if args.like is not None:
        found = _read_like(args)
        scene = _fitting_box(scene, index, found, args)
        targets = {**found.targets, **targets}
    knobs = _knobs(scene, index, specs, found, args)
    done = [0]  # trials finished, for the interrupt's line
    try:
        result = _tune_and_write(args, scene, index, targets, knobs, found, done)
    except KeyboardInterrupt:
        print(
            f"{PROG}: interrupted after {done[0]} trials; nothing written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    _print_table(knobs, result, found, args.tolerance)
    return _verdict(args, result, found)


def _check_request(args: argparse.Namespace) -> None:
    """CliError for a request that cannot work, before anything is read or run: options
    without --like, an --out or --plot name of the wrong kind."""
    if args.like is None:
        if not args.target:
            raise CliError("give a --target METRIC=VALUE, or --like TRACKS")
        extra = ["--plot"] if args.plot else []
        extra += ["--fit-box"] if args.fit_box else []
        for option in [*given_track_options(args), *extra]:
            raise CliError(f"{option} applies to --like only")
    if Path(args.out).suffix.lower() != ".toml":
        raise CliError(f"--out {args.out}: the tuned scene is TOML; name a .toml file")
    if args.plot is not None and not Path(args.plot).is_dir():
        try:
            plot_format(args.plot)
        except ValueError as e:
            raise CliError(f"--plot {e}") from None


def _targets_and_keys(
    scene: Scene, args: argparse.Namespace
) -> tuple[int, dict[str, float], list[str]]:
    """The tuned group's index, the --target values by metric, and the keys to vary."""
    from wander3d.sweep import tune

    try:
        index = tune.group_index(scene, args.group)
        targets = {tune.metric_name(name): value for name, value in args.target or []}
        specs = args.vary or tune.default_keys(scene, index)
    except tune.TuneError as e:
        raise CliError(str(e)) from None
    return index, targets, specs


def _knobs(
    scene: Scene,
    index: int,
    specs: list[str],
    found: TrackTargets | None,
    args: argparse.Namespace,
) -> list[Knob]:
    """The keys searched: --vary's (or the defaults), and with --like the speed and force."""
    from wander3d.sweep import tune

    try:
        knobs = [tune.make_knob(scene, index, spec) for spec in specs]
    except tune.TuneError as e:
        raise CliError(f"--vary {e}") from None
    if found is not None and not args.vary:
        knobs += _speed_knobs(scene, index, found.stats.mean_speed)
        if found.three_d:
            knobs.append(_vertical_knob(scene, index))
    names = [k.name for k in knobs]
    if len(set(names)) < len(names):
        raise CliError("--vary names a key twice")
    return knobs


def _tune_and_write(
    args: argparse.Namespace,
    scene: Scene,
    index: int,
    targets: dict[str, float],
    knobs: list[Knob],
    found: TrackTargets | None,
    done: list[int],
) -> TuneResult:
    """Search, then write the tuned scene (and --plot), each whole or not at all."""
    from wander3d.sweep import like, tune

    plot_path = Path(args.plot) if args.plot is not None else None
    with contextlib.ExitStack() as outputs:
        temporary = outputs.enter_context(output_option("--out", Path(args.out)))
        plot_file = outputs.enter_context(output_option("--plot", plot_path)) if plot_path else None
        result = _tune(args, scene, index, targets, knobs, found, done)
        measured = _stats_command(args)
        from_positions = found is not None and found.from_positions
        text = tune.tuned_toml(
            result,
            knobs,
            args.group,
            args.scene,
            measured,
            from_positions,
            _fit_options(args, found),
        )
        temporary.write_text(text, encoding="utf-8")
        if plot_file is not None and found is not None and result.profile is not None:
            with open(plot_file, "wb") as out:
                like.write_plot(
                    out,
                    found.profile,
                    result.profile,
                    f"fitted {args.group!r}",
                    plot_format(plot_file),
                )
    return result


def _stats_command(args: argparse.Namespace) -> str:
    """The `wander3d stats` command that measures the tuned scene as the check did (its
    options are also the written scene's defaults for `stats`: FITTED_MEASURE)."""
    return f"wander3d stats {args.out}"


def _fit_options(args: argparse.Namespace, found: TrackTargets | None) -> str:
    """The `stats` options that measure a scene as the fit did."""
    headings = "positions" if found is not None and found.from_positions else "velocity"
    return f"--seconds {args.seconds:g} --sample-rate {args.sample_rate:g} --headings {headings}"


def _print_table(
    knobs: list[Knob], result: TuneResult, found: TrackTargets | None, tolerance: float
) -> None:
    """The keys from the scene's values to the tuned ones, and each metric's target (with the
    tracks' own sampling error), achieved and checked values."""
    print(f"{'key':<24} {'from':>10} {'to':>10}")
    for k in knobs:
        print(f"{k.name:<24} {k.value:>10.4g} {result.values[k.name]:>10.4g}")
    noise = found.noise if found is not None else None
    spread = f" {'± tracks':>8}" if noise is not None else ""
    # "checked": the tuned scene as `stats` measures it, on its own seed.
    print(
        f"\n{'metric':<24} {'target':>10}{spread} {'achieved':>10} {'off':>7} {'checked':>10} "
        f"{'off':>7}"
    )
    for metric, goal in result.targets.items():
        if noise is not None:
            se = noise.get(metric, math.nan) / (abs(goal) or 1.0)
            spread = f" {se:>8.1%}" if math.isfinite(se) else f" {'':>8}"
        print(
            f"{metric:<24} {goal:>10.4g}{spread} {result.achieved[metric]:>10.4g} "
            f"{result.errors[metric]:>7.1%} {result.checked[metric]:>10.4g} "
            f"{result.checked_errors[metric]:>7.1%}{_note(result, metric, tolerance)}"
        )
    for metric, why in (found.skipped if found is not None else {}).items():
        print(f"{metric:<24} {'':>10} {'':>10} {'':>7}  not targeted: {why}")
    for metric, floor in (found.floors if found is not None else {}).items():
        print(
            f"({metric}: 'off' is its distance less {floor:.3g}, the distance between two "
            "halves of the tracks)"
        )


def _note(result: TuneResult, metric: str, tolerance: float) -> str:
    """ "  not matched", "  within noise (±A%)" (beyond the tolerance, within the sampling
    noise's allowance), or nothing, for one metric's row."""
    pairs = (
        (result.errors[metric], result.allowances.get(metric, 0.0)),
        (result.checked_errors[metric], result.checked_allowances.get(metric, 0.0)),
    )
    if any(error > max(tolerance, allowed) for error, allowed in pairs):
        return "  not matched"
    allowed = [a for error, a in pairs if error > tolerance]
    return f"  within noise (±{max(allowed):.1%})" if allowed else ""


def _verdict(args: argparse.Namespace, result: TuneResult, found: TrackTargets | None) -> int:
    """Say how it went on stderr; the exit status: 0 if every target was met (within the
    tolerance, or within what sampling noise explains) by the winner on new seeds and in the
    check, EXIT_NOT_REACHED if not."""
    tolerance = args.tolerance
    measured = args.agents or result.checked_agents
    print(
        f"{PROG}: achieved: the mean over {result.final_seeds} seeds the search never used, of "
        f"{measured:,} agents (the best of its {result.finalists} best points there); checked: "
        f"the scene's own seed and {result.checked_agents:,} agents, as "
        f"`{_stats_command(args)}` measures it",
        file=sys.stderr,
    )
    unmet, unchecked = result.unmet(tolerance), result.unmet(tolerance, checked=True)
    if unmet:
        worst = max(unmet, key=lambda m: result.errors[m])
        print(
            f"{PROG}: not within {tolerance:.0%} of every target after {result.trials} trials "
            f"(worst: {worst}, {result.errors[worst]:.1%} off); the best values found are "
            f"written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_NOT_REACHED
    if unchecked:
        worst = max(unchecked, key=lambda m: result.checked_errors[m])
        print(
            f"{PROG}: within {tolerance:.0%} of every target after {result.trials} trials, but "
            f"not in the check (worst: {worst}, {result.checked_errors[worst]:.1%} off, beyond "
            f"the ±{result.checked_allowances.get(worst, 0.0):.1%} sampling noise explains): "
            f"more --seeds or --seconds average out more of the runs' noise; the values are "
            f"written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_NOT_REACHED
    noisy = [
        f"{m} {max(result.errors[m], result.checked_errors[m]):.1%}"
        for m in result.targets
        if max(result.errors[m], result.checked_errors[m]) > tolerance
    ]
    within = (
        f" ({', '.join(noisy)} off: within what the sampling noise of the tracks and the runs "
        "explains)"
        if noisy
        else ""
    )
    print(
        f"{PROG}: within {tolerance:.0%} of every target after {result.trials} trials, and in "
        f"the check{within}; tuned scene written to {args.out}",
        file=sys.stderr,
    )
    return 0


def _read_like(args: argparse.Namespace) -> TrackTargets:
    """The targets of --like's tracks (like.TrackTargets); notes on stderr as `stats`."""
    from wander3d.sweep import like

    tracks = read_tracks_option(Path(args.like), "--like", args)
    return like.track_targets(tracks)


def _fitting_box(scene: Scene, index: int, found: TrackTargets, args: argparse.Namespace) -> Scene:
    """`scene`, or with --fit-box its box scaled to hold the tracks' paths; CliError if its
    box cannot hold them at their scale (agents would meet walls the tracks never met). A
    note if the tracks are flat and the group is not."""
    from wander3d.sweep import like

    group = scene.groups[index]
    flat = not found.three_d
    if flat and group.wander.vertical != 0:
        print(
            f"{PROG}: the tracks are 2D; group {group.name!r} moves in 3D (wander.vertical = "
            f"{group.wander.vertical:g}): its turns and MSD are measured in 3D; tune a scene "
            "whose group stays level (wander.vertical = 0) to fit flat motion",
            file=sys.stderr,
        )
    if args.fit_box == "tracks":
        return _tracks_box(scene, found)
    # Along each axis, how far a track moves in a run: no farther than the tracks range (a
    # box held them) nor than their MSD says they move in --seconds.
    reach = like.reach(found, args.seconds)
    enclosure = scene.enclosure
    axes = (0, 2) if flat else (0, 1, 2)
    inside = [enclosure.max[a] - enclosure.min[a] - 2 * enclosure.margin for a in axes]
    need = [min(found.extent[a], reach) for a in axes]
    ratio, axis = max((n / max(i, 1e-9), a) for n, i, a in zip(need, inside, axes, strict=True))
    if ratio <= BOX_LIMIT:
        if args.fit_box is None:
            _note_other_box(scene, found, axes)
        return scene
    name = "xyz"[axis]
    said = (
        f"the tracks range {need[axes.index(axis)]:.3g} units along {name} in {args.seconds:g} "
        f"s, and the scene's box is {inside[axes.index(axis)]:.3g} units along {name} inside "
        "its wall margins"
    )
    if not args.fit_box:
        raise CliError(
            f"--like: {said}: its walls would turn the group where the tracks went on; "
            f"--fit-box scales the box to {BOX_REACH:g} times their range"
        )
    factor = BOX_REACH * ratio
    scaled = dataclasses.replace(
        enclosure,
        min=_scaled(enclosure.min, factor),
        max=_scaled(enclosure.max, factor),
        margin=enclosure.margin * factor,
    )
    print(f"{PROG}: {said}: the box scaled {factor:.3g} times (--fit-box)", file=sys.stderr)
    return scene.replace(enclosure=scaled)


#: A box whose side differs from the tracks' (with its wall margins) by more than this share
#: of it is worth a note: if walls held the tracks, the fit's walls turn the group elsewhere.
OTHER_BOX = 0.25


def _note_other_box(scene: Scene, found: TrackTargets, axes: tuple[int, ...]) -> None:
    """A note when the box --fit-box tracks would make (the tracks' with the scene's wall
    margins) is of other proportions than the scene's."""
    if found.bounds is None:
        return
    low, high = found.bounds
    enclosure = scene.enclosure
    box = [enclosure.max[a] - enclosure.min[a] for a in range(3)]
    filled = [high[a] - low[a] for a in range(3)]
    theirs = [side + 2 * enclosure.margin for side in filled]
    if all(abs(theirs[a] - box[a]) <= OTHER_BOX * box[a] for a in axes):
        return
    print(
        f"{PROG}: the tracks fill {_sides(filled, axes)} units and the scene's box is "
        f"{_sides(box, axes)} ({', '.join('xyz'[a] for a in axes)}): if walls held the tracks "
        "(a tank, an arena), --fit-box tracks gives the group their box",
        file=sys.stderr,
    )


def _sides(sides: list[float], axes: tuple[int, ...]) -> str:
    return " x ".join(f"{sides[a]:.3g}" for a in axes)


def _tracks_box(scene: Scene, found: TrackTargets) -> Scene:
    """`scene` with its box around the tracks' (--fit-box tracks): its wall margin begins
    where the tracks' farthest samples are, so the group turns back where they did (a flat
    axis keeps the scene's side, centred on the tracks)."""
    if found.bounds is None:
        raise CliError(
            "--fit-box tracks: geographic tracks are each measured in a local frame of their "
            "own and fill no common box; --fit-box scales the box to their range instead"
        )
    enclosure = scene.enclosure
    margin = enclosure.margin
    low, high = list(found.bounds[0]), list(found.bounds[1])
    for a in range(3):
        if high[a] - low[a] <= 0:
            half = (enclosure.max[a] - enclosure.min[a]) / 2 - margin
            centre = (high[a] + low[a]) / 2
            low[a], high[a] = centre - half, centre + half
        low[a] -= margin
        high[a] += margin
    box = dataclasses.replace(
        enclosure, min=(low[0], low[1], low[2]), max=(high[0], high[1], high[2])
    )
    sides = _sides([h - lo for h, lo in zip(high, low, strict=True)], (0, 1, 2))
    print(
        f"{PROG}: the box is the tracks' own (--fit-box tracks): {sides} units (x, y, z), "
        f"its {margin:g}-unit wall margin starting at their farthest samples",
        file=sys.stderr,
    )
    from wander3d.scene import SceneError

    try:
        return scene.replace(enclosure=box)
    except SceneError as e:
        raise CliError(f"--fit-box tracks: {e}") from None


def _scaled(corner: tuple[float, float, float], factor: float) -> tuple[float, float, float]:
    return (corner[0] * factor, corner[1] * factor, corner[2] * factor)


#: Tracks that move farther in a run (root mean square) than this many times the box's
#: width inside its margins cannot be fitted in it: a walk confined to a box moves at most
#: about 0.7 of its width (the RMS distance between two points in it).
BOX_LIMIT = 2.0
#: --fit-box makes the box's inside this many times as wide as the tracks move in a run.
BOX_REACH = 2.0


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
    values = (float(group.max_speed), float(group.max_force))
    return [
        dataclasses.replace(k, start=v, value=value)
        for k, v, value in zip(knobs, starts, values, strict=True)
    ]


#: With --like on 3D tracks, wander.vertical is searched from this to 1 (0 keeps a group
#: level, which flat tracks call for; the log-scale search needs a positive bound).
VERTICAL_LOW = 0.05


def _vertical_knob(scene: Scene, index: int) -> Knob:
    """wander.vertical from VERTICAL_LOW to 1, starting at the group's (how flat 3D tracks
    move is theirs to say, not the scene's)."""
    from wander3d.sweep import tune

    knob = tune.make_knob(scene, index, f"wander.vertical={VERTICAL_LOW:g}:1")
    return dataclasses.replace(knob, start=min(max(knob.value, knob.low), knob.high))


def _tune(
    args: argparse.Namespace,
    scene: Scene,
    index: int,
    targets: dict[str, float],
    knobs: list[Knob],
    found: TrackTargets | None,
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
                tolerance=args.tolerance,
                profile=found.profile if found is not None else None,
                from_positions=found.from_positions if found is not None else False,
                floors=found.floors if found is not None else None,
                noise=found.noise if found is not None else None,
                on_batch=report,
                timeout=args.timeout,
            )
    except execute.ClusterError as e:
        option = "--scheduler " if isinstance(e, execute.SchedulerError) else ""
        raise CliError(f"{option}{e}") from None
