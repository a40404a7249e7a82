"""`wander3d stats SCENE`: measure a scene's wander, headless (metrics: wander3d.analysis)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from wander3d.analysis.plot import plot_format
from wander3d.analysis.report import METRICS_HELP, StatsReport, format_table, to_json
from wander3d.analysis.sampling import (
    BYTES_PER_AGENT_SAMPLE,
    DEFAULT_SAMPLE_RATE,
    Samples,
    plan_samples,
    sample_run,
)
from wander3d.analysis.stats import GroupLabel, compute_stats, working_bytes
from wander3d.analysis.tracks import (
    GAP_INTERVALS,
    Tracks,
    TracksError,
    parse_columns,
    read_tracks,
)
from wander3d.arguments import positive_float
from wander3d.engine import GroupParams
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.export import ExportError, Provenance
from wander3d.scene import check_fits, memory_budget
from wander3d.scene.memory import format_bytes

from .common import PROG, CliError, load_scene_arg, output_option
from .progress import Progress

NAME = "stats"
HELP = "measure the wander: path statistics per group"

DEFAULT_SECONDS = 60.0
#: Above this many agent-samples, say on a terminal that the metrics are being computed.
_NOTICE_AGENT_SAMPLES = 2_000_000

DESCRIPTION = (
    textwrap.fill(
        "Run SCENE without a window for --seconds of simulated time (progress on stderr) and print "
        "one row of path metrics per group. With --json, print the same numbers as JSON instead "
        "(nothing else goes to stdout). With --plot, also write a PNG, SVG or PDF (as its "
        "extension says) of each group's turn-rate distribution, heading and turning-axis "
        "autocorrelations, mean squared displacement, and turn and lift angle distributions.",
        width=88,
    )
    + "\n\n"
    + textwrap.fill(
        "With --tracks FILE instead of SCENE, measure trajectories from elsewhere (a game's logged "
        "NPC paths, animal tracks, a tracker's or trackpy's output, a Movebank CSV export, or a "
        "file 'wander3d run' wrote): a .csv or .parquet long table with a particle id, a time "
        "(seconds or date-times; or frame and --fps/--dt), x, y and optionally z, vx, vy, vz and "
        "group, in the usual spellings (id, track_id, TrackId; time, Time, timestamp; X, Y; "
        "Movebank's location-long/location-lat, projected to metres), or as named by --columns. "
        "Empty or NaN positions are missing fixes; tracks are split at gaps longer than "
        "--max-gap; each piece is resampled linearly to --sample-rate from its first fix and "
        "measured in full.",
        width=88,
    )
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `stats`'s arguments and help (metric definitions in the epilog) to `parser`."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = DESCRIPTION
    parser.epilog = "Metrics:\n" + METRICS_HELP
    parser.add_argument("scene", nargs="?", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--tracks", metavar="FILE", help="measure the tracks in this .csv or .parquet instead"
    )
    timing = parser.add_mutually_exclusive_group()
    timing.add_argument(
        "--dt",
        type=positive_float,
        metavar="S",
        help="with --tracks: seconds per frame, for tracks timed by a 'frame' column",
    )
    timing.add_argument(
        "--fps",
        type=positive_float,
        metavar="HZ",
        help="with --tracks: frames per second, for tracks timed by a 'frame' column (trackpy)",
    )
    parser.add_argument(
        "--columns",
        metavar="ROLE=NAME,...",
        help="with --tracks: which column is which, e.g. particle=TrackId,t=Time,x=X,y=Y "
        "(roles: particle, t, frame, x, y, z, vx, vy, vz, group; others found by their usual "
        "spellings)",
    )
    parser.add_argument(
        "--max-gap",
        type=positive_float,
        metavar="S",
        help=f"with --tracks: split a track where fixes are more than S seconds apart "
        f"(default: {GAP_INTERVALS:g} sample or fix intervals, whichever is longer)",
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
        default=DEFAULT_SAMPLE_RATE,
        metavar="HZ",
        help=f"samples per simulated second (default: {DEFAULT_SAMPLE_RATE:g}); rounded to a "
        "whole number of steps, at most one sample per step",
    )
    parser.add_argument(
        "--json", action="store_true", help="write the numbers to stdout as JSON, no table"
    )
    parser.add_argument(
        "--plot", metavar="FILE", help="also write the plots to this .png, .svg or .pdf file"
    )


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
    if args.tracks is not None:
        if args.scene is not None:
            raise CliError("give a SCENE or --tracks FILE, not both")
        if args.seconds is not None:
            raise CliError("--seconds does not apply to --tracks: the tracks' length is used")
        return _measure_tracks(args)
    if args.scene is None:
        raise CliError("give a SCENE to measure, or --tracks FILE")
    for option in ("dt", "fps", "columns", "max_gap"):
        if getattr(args, option) is not None:
            raise CliError(f"--{option.replace('_', '-')} applies to --tracks only")
    seconds = args.seconds if args.seconds is not None else DEFAULT_SECONDS
    scene = load_scene_arg(args.scene)
    check_fits(scene)
    plan = plan_samples(scene.dt, seconds, args.sample_rate)
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
            samples,
            scene.groups,
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
    samples: Samples, groups: Sequence[GroupParams | GroupLabel], **run: Any
) -> StatsReport:
    """The statistics of `samples` as a report; `run` describes them (StatsReport's fields)."""
    if samples.count * samples.headings.shape[1] > _NOTICE_AGENT_SAMPLES and _is_tty(sys.stderr):
        # Big runs take a while to analyse too (about a second per million agent-samples).
        print("wander3d: computing path metrics...", file=sys.stderr, flush=True)
    stats, curves = compute_stats(samples, groups)
    return StatsReport(groups=stats, curves=curves, **run)


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
        if tracks.fix_interval > 1.5 * tracks.plan.interval:
            print(
                f"wander3d: the tracks have a fix every {tracks.fix_interval:.3g} s (median), "
                f"sampled every {tracks.plan.interval:.3g} s: the samples between fixes lie "
                "on straight lines; a lower --sample-rate measures the tracks themselves",
                file=sys.stderr,
            )
        record = tracks.record
        report = _report(
            tracks.samples,
            tracks.groups,
            scene=record.scene_name if record else path.name,
            source=str(path),
            seed=record.seed if record else None,
            dt=record.dt if record else None,
            plan=tracks.plan,
            tracks=None if record else tracks.samples.headings.shape[1],
            counts=tracks.counts,
        )
        if plot_file is not None:
            colors = _track_colors(record, path, [g.name for g in tracks.groups])
            _plot(plot_file, report, colors)
    return _print(report, args.json, plot_path)


def read_tracks_option(path: Path, option: str, args: argparse.Namespace) -> Tracks:
    """The tracks in `path`, given as `option` (--tracks, --like), read with the track options
    in `args` (--columns, --fps or --dt, --sample-rate, --max-gap); what reading them did is
    said on stderr (`tracks_notes`). CliError naming the option for a file it cannot read."""
    try:
        columns = parse_columns(args.columns) if args.columns is not None else None
    except TracksError as e:
        raise CliError(f"--columns {e}") from None
    dt = 1.0 / args.fps if args.fps is not None else args.dt
    try:
        tracks = read_tracks(path, args.sample_rate, dt, columns=columns, max_gap=args.max_gap)
    except TracksError as e:
        hint = {"dt": " with --dt S or --fps HZ", "columns": "; name it with --columns"}
        raise CliError(f"{option} {e}{hint.get(e.missing or '', '')}") from None
    except ExportError as e:
        raise CliError(f"{option} {e}") from None
    for line in tracks_notes(tracks):
        print(f"{PROG}: {line}", file=sys.stderr)
    return tracks


def tracks_notes(tracks: Tracks) -> list[str]:
    """What reading the tracks did, one line each: columns found by other names, a
    projection, and always the fixes, gaps and samples measured."""
    notes = []
    if tracks.columns:
        notes.append("columns: " + ", ".join(f"{role}={name}" for role, name in tracks.columns))
    if tracks.projection is not None:
        notes.append(tracks.projection)
    c = tracks.counts
    parts = [f"{c.fixes:,} fixes read"]
    if c.missing:
        parts.append(f"{c.missing:,} missing (empty or NaN) left out")
    parts.append(f"{c.gaps:,} gap{'s' if c.gaps != 1 else ''} over {c.max_gap:.3g} s split")
    if c.short:
        parts.append(f"{c.short:,} piece{'s' if c.short != 1 else ''} too short left out")
    parts.append(
        f"measured {c.fixes_used:,} fixes in {c.tracks:,} track{'s' if c.tracks != 1 else ''} "
        f"as {c.samples:,} samples"
    )
    notes.append("; ".join(parts))
    return notes


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
