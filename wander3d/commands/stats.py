"""`wander3d stats SCENE`: measure a scene's wander, headless (metrics: wander3d.analysis)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import itertools
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from wander3d.analysis.metric_table import METRES, WORLD_LENGTH
from wander3d.analysis.metrics import MSD_WEIGHTINGS
from wander3d.analysis.plot import plot_format
from wander3d.analysis.report import METRICS_HELP, StatsReport, format_table, to_json
from wander3d.analysis.sampling import (
    BYTES_PER_AGENT_SAMPLE,
    DEFAULT_SAMPLE_RATE,
    Samples,
    plan_samples,
    sample_run,
)
from wander3d.analysis.stats import (
    MAX_LAG_S,
    MIN_LAGS,
    GroupLabel,
    compute_stats,
    working_bytes,
)
from wander3d.analysis.tracks import (
    FITTED_MEASURE,
    TRACKS_METHOD,
    Tracks,
    headings_from_positions,
)
from wander3d.arguments import positive_float
from wander3d.engine import GroupParams
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.export import Provenance
from wander3d.scene import check_fits, memory_budget
from wander3d.scene.memory import format_bytes

from .common import PROG, CliError, help_paragraph, load_scene_arg, output_option
from .progress import Progress
from .track_options import add_track_options, given_track_options, read_tracks_option

NAME = "stats"
HELP = "measure the wander: path statistics per group"

DEFAULT_SECONDS = 60.0
#: Above this many agent-samples, say on a terminal that the metrics are being computed.
_NOTICE_AGENT_SAMPLES = 2_000_000

DESCRIPTION = (
    help_paragraph(
        "Run SCENE without a window for --seconds of simulated time (progress on stderr) and print "
        "one row of path metrics per group. With --json, print the same numbers as JSON instead "
        "(nothing else goes to stdout). With --plot, also write a PNG, SVG or PDF (as its "
        "extension says) of each group's turn-rate distribution, heading and turning-axis "
        "autocorrelations, mean squared displacement, and turn and lift angle distributions.",
    )
    + "\n\n"
    + help_paragraph(
        "With --tracks FILE instead of SCENE, measure trajectories from elsewhere (a game's logged "
        "NPC paths, animal tracks, a tracker's or trackpy's output, idtracker.ai's tables, a "
        "Movebank, AIS or ADS-B export, a GPS log, or a file 'wander3d run' wrote): a .csv (.tsv, "
        ".csv.gz; separator, decimal commas, comments, a header written as a comment and "
        "UTF-16 found) or .parquet table with a "
        "particle id (none: one track), a time (seconds, epoch numbers or date-times; or frame "
        "and --fps/--dt), x, y and optionally z, vx, vy, vz and group, in the usual spellings "
        "(id, track_id, individual, mmsi; time, timestamp; X, Y; longitude/latitude, measured "
        "in metres in each track's own frame), or as named by --columns; or a wide table of "
        "x1, y1, x2, y2, .... Empty or NaN positions or times are missing fixes; tracks are "
        "split at gaps "
        "longer than --max-gap; each piece is resampled linearly to --sample-rate from its "
        "first fix and measured in full. Every refusal names the line and the option that "
        "helps.",
    )
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `stats`'s arguments and help (metric definitions in the epilog) to `parser`."""
    parser.description = DESCRIPTION
    parser.epilog = "Metrics:\n" + METRICS_HELP
    parser.add_argument("scene", nargs="?", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--tracks", metavar="FILE", help="measure the tracks in this .csv or .parquet instead"
    )
    parser.add_argument(
        "--seconds",
        type=positive_float,
        metavar="S",
        help=f"simulated seconds to measure (default: {DEFAULT_SECONDS:g}; not with --tracks)",
    )
    parser.add_argument(
        "--sample-rate",
        type=positive_float,
        metavar="HZ",
        help=f"samples per simulated second (default: {DEFAULT_SAMPLE_RATE:g}); rounded to a "
        "whole number of steps, at most one sample per step",
    )
    parser.add_argument(
        "--max-lag",
        type=positive_float,
        metavar="S",
        help=f"compute the autocorrelations and the MSD (and its slope) up to a lag of S "
        f"seconds (default: {MAX_LAG_S:g} s or {MIN_LAGS} samples, whichever is longer); "
        "at most half the run or the longest track",
    )
    parser.add_argument(
        "--msd-weighting",
        choices=MSD_WEIGHTINGS,
        default="pairs",
        help="how the MSD (and its slope) weighs tracks: every pair of samples alike "
        "(default), or as trackpy's emsd (each track's own MSD by its count of independent "
        "measurements), to compare with trackpy; the same on tracks of one length",
    )
    parser.add_argument(
        "--headings",
        choices=("velocity", "positions"),
        help="where the headings come from: the velocity (default: the engine's, or a tracks "
        "file's vx, vy, vz; from the positions when it has none) or the positions (central "
        "differences, as for tracks without velocities and as `tune --like` fits). A scene "
        "`tune` wrote is measured as it was fitted (its --seconds, --sample-rate and "
        "--headings, stated in its first lines) unless these options are given",
    )
    parser.add_argument(
        "--per-track",
        action="store_true",
        help="with --tracks: one row per particle (its pieces pooled) instead of per group",
    )
    parser.add_argument(
        "--json", action="store_true", help="write the numbers to stdout as JSON, no table"
    )
    parser.add_argument(
        "--plot", metavar="FILE", help="also write the plots to this .png, .svg or .pdf file"
    )
    add_track_options(parser, "with --tracks")


def _check_plotting(path: Path) -> None:
    """CliError, before any run, for a --plot name of another format or without matplotlib."""
    try:
        if not path.is_dir():  # a folder is told as one when the output is opened
            plot_format(path)
    except ValueError as e:
        raise CliError(f"--plot {e}") from None
    if importlib.util.find_spec("matplotlib") is None:
        raise CliError("--plot needs matplotlib: pip install matplotlib")


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def main(args: argparse.Namespace) -> int:
    """Measure the scene or tracks as `args` (from `configure`) say; return the exit status."""
    if args.tracks is not None and args.sample_rate is None:
        args.sample_rate = DEFAULT_SAMPLE_RATE
    if args.tracks is not None:
        if args.scene is not None:
            raise CliError("give a SCENE or --tracks FILE, not both")
        if args.seconds is not None:
            raise CliError("--seconds does not apply to --tracks: the tracks' length is used")
        return _measure_tracks(args)
    if args.scene is None:
        raise CliError("give a SCENE to measure, or --tracks FILE")
    for option in [*given_track_options(args), *(["--per-track"] if args.per_track else [])]:
        raise CliError(f"{option} applies to --tracks only")
    scene = load_scene_arg(args.scene)
    _as_fitted(args, scene.source)
    seconds = args.seconds if args.seconds is not None else DEFAULT_SECONDS
    if args.sample_rate is None:
        args.sample_rate = DEFAULT_SAMPLE_RATE
    check_fits(scene)
    plan = plan_samples(scene.dt, seconds, args.sample_rate)
    if plan.rate < args.sample_rate * (1 - 1e-6) and plan.steps_per_sample == 1:
        print(
            f"{PROG}: --sample-rate {args.sample_rate:g} is faster than the scene steps "
            f"(dt {scene.dt:.4g} s): sampling every step, at {plan.rate:.4g} Hz",
            file=sys.stderr,
        )
    if plan.samples < 3:
        raise CliError(
            f"--seconds {seconds:g} is too short: the metrics need at least 2 sample "
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
        _check_plotting(plot_path)
    # Entered before the run, so a bad --plot path fails at once; written whole or not at all.
    with output_option("--plot", plot_path) if plot_path else contextlib.nullcontext() as plot_file:
        # The first run ever compiles the engine's kernel: say why nothing moves for a while.
        compile_kernel(on_slow=compiling_notice)
        progress = Progress(sys.stderr, plan.steps, scene.agent_count, scene.dt)
        samples = sample_run(scene.run_spec, plan, progress.update)
        progress.finish(plan.steps)
        report = _report(
            _with_headings(samples, args.headings),
            scene.groups,
            args,
            scene=scene.name,
            source=None if scene.source is None else str(scene.source),
            seed=scene.seed,
            dt=scene.dt,
            plan=plan,
        )
        if plot_file is not None:
            _plot(plot_file, report, [g.color for g in scene.groups])
    return _print(report, args.json, plot_path)


def _report(
    samples: Samples,
    groups: Sequence[GroupParams | GroupLabel],
    args: argparse.Namespace,
    **run: Any,
) -> StatsReport:
    """The statistics of `samples` as a report, with autocorrelations up to --max-lag s
    (None: the default) and the MSD weighted as --msd-weighting says; `run` describes them
    (StatsReport's fields)."""
    if samples.count * samples.headings.shape[1] > _NOTICE_AGENT_SAMPLES and _is_tty(sys.stderr):
        # Big runs take a while to analyse too (about a second per million agent-samples).
        print("wander3d: computing path metrics...", file=sys.stderr, flush=True)
    # --max-lag is the lag asked for, however few samples that is.
    max_lag, min_lags = (MAX_LAG_S, MIN_LAGS) if args.max_lag is None else (args.max_lag, 1)
    stats, curves = compute_stats(
        samples,
        groups,
        max_lag_s=max_lag,
        min_lags=min_lags,
        msd_weighting=args.msd_weighting,
    )
    return StatsReport(groups=stats, curves=curves, msd_weighting=args.msd_weighting, **run)


def _with_headings(samples: Samples, headings: str | None) -> Samples:
    """`samples` with headings from the positions if asked (`headings_from_positions`)."""
    return headings_from_positions(samples) if headings == "positions" else samples


_FITTED = re.compile(
    r"--seconds (?P<seconds>\S+) --sample-rate (?P<rate>\S+) "
    r"--headings (?P<headings>velocity|positions)"
)


def _as_fitted(args: argparse.Namespace, source: Path | None) -> None:
    """For a scene `tune` wrote (FITTED_MEASURE in its first lines), set each of --seconds,
    --sample-rate and --headings not given to the fit's, so that `stats` measures it as the
    fit's table did, and say so."""
    if source is None:
        return
    try:
        with open(source, encoding="utf-8") as f:
            head = f.read(8192)
    except (OSError, UnicodeDecodeError):
        return
    line = next((x for x in head.splitlines() if x.startswith(FITTED_MEASURE)), None)
    found = _FITTED.search(line) if line is not None else None
    if found is None:
        return
    try:
        seconds, rate = positive_float(found["seconds"]), positive_float(found["rate"])
    except argparse.ArgumentTypeError:
        return
    taken = []
    if args.seconds is None:
        args.seconds = seconds
        taken.append(f"--seconds {found['seconds']}")
    if args.sample_rate is None:
        args.sample_rate = rate
        taken.append(f"--sample-rate {found['rate']}")
    if args.headings is None:
        args.headings = found["headings"]
        taken.append(f"--headings {found['headings']}")
    if taken:
        other = " (--headings velocity: the engine's)" if args.headings == "positions" else ""
        print(
            f"{PROG}: measured as `tune` fitted this scene, as its table was: "
            f"{' '.join(taken)}{other}",
            file=sys.stderr,
        )


def _plot(path: Path, report: StatsReport, colors: Sequence[str]) -> None:
    """Write the plots to `path` (a temporary file with the --plot name's extension)."""
    from wander3d.analysis.plot import write_plot

    assert report.curves is not None
    with open(path, "wb") as out:
        write_plot(out, report, report.curves, colors, plot_format(path))


def _measure_tracks(args: argparse.Namespace) -> int:
    """`stats --tracks FILE`: read, resample and measure external (or exported) tracks."""
    path = Path(args.tracks)
    plot_path = Path(args.plot) if args.plot is not None else None
    if plot_path is not None:
        _check_plotting(plot_path)
    with output_option("--plot", plot_path) if plot_path else contextlib.nullcontext() as plot_file:
        tracks = read_tracks_option(path, "--tracks", args)
        if args.per_track:
            tracks = per_track(tracks)
        record = tracks.record
        report = _report(
            _with_headings(tracks.samples, args.headings),
            tracks.groups,
            args,
            scene=record.scene_name if record else path.name,
            source=str(path),
            seed=record.seed if record else None,
            dt=record.dt if record else None,
            plan=tracks.plan,
            tracks=None if record else tracks.samples.headings.shape[1],
            counts=tracks.counts,
            length_unit=METRES if tracks.geographic else WORLD_LENGTH,
        )
        if plot_file is not None:
            colors = _track_colors(record, path, [g.name for g in tracks.groups])
            _plot(plot_file, report, colors)
    return _print(report, args.json, plot_path)


def per_track(tracks: Tracks) -> Tracks:
    """`tracks` with one group per particle (its pieces, contiguous in the samples)."""
    names = tracks.particles
    bounds = [0] + [i for i in range(1, len(names)) if names[i] != names[i - 1]] + [len(names)]
    slices = tuple(slice(a, b) for a, b in itertools.pairwise(bounds))
    labels = tuple(GroupLabel(names[s.start], TRACKS_METHOD) for s in slices)
    samples = dataclasses.replace(tracks.samples, group_slices=slices)
    return dataclasses.replace(tracks, samples=samples, groups=labels)


def _track_colors(record: Provenance | None, path: Path, names: Sequence[str]) -> list[str]:
    """The scene's group colours for a wander3d run, else matplotlib's default cycle."""
    known = {g.name: g.color for g in record.scene(str(path)).groups} if record else {}
    cycle = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
    return [known.get(name, cycle[i % len(cycle)]) for i, name in enumerate(names)]


def _print(report: StatsReport, as_json: bool, plot_path: Path | None) -> int:
    if as_json:
        json.dump(to_json(report), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(format_table(report))
        if plot_path is not None:
            print(f"wander3d: plots written to {plot_path}", file=sys.stderr)
    sys.stdout.flush()
    return 0
