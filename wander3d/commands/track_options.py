"""The options that say how to read a tracks file, shared by `stats --tracks` and
`tune --like`, and what reading one says on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wander3d.analysis.track_times import TIME_UNITS
from wander3d.analysis.tracks import (
    GAP_INTERVALS,
    TrackOptions,
    Tracks,
    TracksError,
    parse_columns,
    read_tracks,
)
from wander3d.arguments import positive_float
from wander3d.export import ExportError

from .common import PROG, CliError

#: The options `add_track_options` adds, as argparse destinations.
TRACK_OPTIONS = (
    "columns",
    "dt",
    "fps",
    "max_gap",
    "sep",
    "time_format",
    "time_unit",
    "geographic",
    "crs",
    "z_unit",
    "up",
    "y_down",
    "drop_duplicates",
    "sort",
    "names",
    "skip_bad_rows",
)
#: What to add to a TracksError whose `missing` names a TrackOptions field: the option.
HINTS = {
    "dt": " with --dt S or --fps HZ",
    "columns": "; name it with --columns",
    "sort": "; --sort puts each track's fixes in time order",
    "drop_duplicates": "; --drop-duplicates drops repeated rows (and counts them)",
    "time_format": " with --time-format",
    "separator": "; name the separator with --sep (e.g. --sep ';')",
    "crs": " (--crs)",
    "names": " with --names NAME,NAME,...",
    "skip_bad_rows": "; --skip-bad-rows skips such rows (and counts them)",
    "up": "; --up z reads z-up data",
}
_SEPARATORS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


def _separator(text: str) -> str:
    value = _SEPARATORS.get(text.lower(), text)
    if len(value) != 1 or value in '"\n\r':
        raise argparse.ArgumentTypeError(f"expected one character (or tab), e.g. ';', got {text!r}")
    return value


def add_track_options(parser: argparse.ArgumentParser, applies: str) -> None:
    """Add the options that say how to read a tracks file; `applies` ("with --tracks")
    opens each one's help."""
    group = parser.add_argument_group(f"reading the tracks ({applies})")
    group.add_argument(
        "--columns",
        metavar="ROLE=NAME,...",
        help="which column is which, e.g. particle=TrackId,t=Time,x=X,y=Y (roles: particle, "
        "t, frame, x, y, z, vx, vy, vz, group; others found by their usual spellings)",
    )
    timing = group.add_mutually_exclusive_group()
    timing.add_argument(
        "--dt", type=positive_float, metavar="S", help="seconds per frame, for a 'frame' column"
    )
    timing.add_argument(
        "--fps",
        type=positive_float,
        metavar="HZ",
        help="frames per second, for a 'frame' column (trackpy)",
    )
    group.add_argument(
        "--max-gap",
        type=positive_float,
        metavar="S",
        help=f"split a track where fixes are more than S seconds apart (default: "
        f"{GAP_INTERVALS:g} sample or fix intervals, whichever is longer)",
    )
    group.add_argument(
        "--sep",
        type=_separator,
        metavar="CHAR",
        help="the CSV separator (default: found from the first lines: , ; tab or |)",
    )
    group.add_argument(
        "--time-format",
        metavar="FORM",
        help="the date-times' form, e.g. '%%d/%%m/%%Y %%H:%%M:%%S' (default: ISO 8601 or a "
        "common form found from the first rows; fractional seconds are read)",
    )
    group.add_argument(
        "--time-unit",
        choices=tuple(TIME_UNITS),
        help="the unit of numeric times (default: s, or ms, us, ns for epoch numbers of that "
        "size, as a note says)",
    )
    group.add_argument(
        "--geographic",
        action="store_true",
        help="x and y are longitude and latitude (degrees, WGS84) whatever their names "
        "(lon, lng, long, longitude, location-long and lat, latitude, location-lat are "
        "found as such)",
    )
    group.add_argument(
        "--crs",
        metavar="CRS",
        help="x and y are in this coordinate reference system (e.g. EPSG:32633 for UTM "
        "zone 33N): taken to longitude and latitude, then measured as those",
    )
    group.add_argument(
        "--z-unit",
        choices=("m", "ft"),
        help="the unit of a geographic file's altitude (default: metres, feet for columns "
        "named so, as a note says)",
    )
    group.add_argument(
        "--up",
        choices=("y", "z"),
        help="the up axis of 3D tracks that are not geographic (default: y, as wander3d's); "
        "turn and lift angles, the sine of the turn and coverage depend on it",
    )
    group.add_argument(
        "--y-down",
        action="store_true",
        help="2D tracks in image coordinates, y pointing down (pixels of a video, as "
        "idtracker.ai, trackpy and most trackers write them): y is flipped so that left and "
        "right turns and the sine of the turn are the video's",
    )
    group.add_argument(
        "--drop-duplicates",
        action="store_true",
        help="drop rows that repeat a particle's time and position (counted); a time "
        "repeated at another position is refused with both lines",
    )
    group.add_argument("--sort", action="store_true", help="put each track's fixes in time order")
    group.add_argument(
        "--names",
        metavar="NAME,...",
        help="the column names of a CSV without a header line (its first line is a row)",
    )
    group.add_argument(
        "--skip-bad-rows",
        action="store_true",
        help="skip CSV rows with another number of fields than the header (counted and the "
        "first named), instead of refusing the file",
    )


def given_track_options(args: argparse.Namespace) -> list[str]:
    """The track options given on the command line, as written ("--dt")."""
    return [
        f"--{name.replace('_', '-')}"
        for name in TRACK_OPTIONS
        if getattr(args, name) not in (None, False)
    ]


def track_options(args: argparse.Namespace) -> TrackOptions:
    """The TrackOptions `args` give; CliError for bad --columns."""
    try:
        columns = parse_columns(args.columns) if args.columns is not None else None
    except TracksError as e:
        raise CliError(f"--columns {e}") from None
    if args.geographic and args.crs is not None:
        raise CliError("give --geographic or --crs, not both (--crs CRS implies geographic)")
    return TrackOptions(
        dt=1.0 / args.fps if args.fps is not None else args.dt,
        columns=columns,
        max_gap=args.max_gap,
        separator=args.sep,
        time_format=args.time_format,
        time_unit=args.time_unit,
        geographic=args.geographic,
        crs=args.crs,
        z_unit=args.z_unit,
        up=args.up,
        y_down=args.y_down,
        drop_duplicates=args.drop_duplicates,
        sort=args.sort,
        names=tuple(name.strip() for name in args.names.split(",")) if args.names else (),
        skip_bad_rows=args.skip_bad_rows,
    )


def read_tracks_option(path: Path, option: str, args: argparse.Namespace) -> Tracks:
    """The tracks in `path`, given as `option` (--tracks, --like), read with the track options
    in `args` and its --sample-rate; what reading them did is said on stderr
    (`tracks_notes`). CliError naming the option for a file it cannot read."""
    options = track_options(args)
    try:
        tracks = read_tracks(path, args.sample_rate, options)
    except TracksError as e:
        raise CliError(f"{option} {e}{HINTS.get(e.missing or '', '')}") from None
    except ExportError as e:
        raise CliError(f"{option} {e}") from None
    for line in tracks_notes(tracks):
        print(f"{PROG}: {line}", file=sys.stderr)
    for line in tracks.warnings:
        print(f"{PROG}: warning: {line}", file=sys.stderr)
    if tracks.fix_interval > SAMPLING_MISMATCH * tracks.plan.interval:
        print(f"{PROG}: {oversampling_note(tracks)}", file=sys.stderr)
    elif 0 < tracks.fix_interval * SAMPLING_MISMATCH <= tracks.plan.interval:
        print(f"{PROG}: {undersampling_note(tracks)}", file=sys.stderr)
    return tracks


#: How many times faster the samples than the fixes, or the fixes than the samples, before a
#: note says so.
SAMPLING_MISMATCH = 1.5


def oversampling_note(tracks: Tracks) -> str:
    """Said when the samples are closer than the fixes."""
    return (
        f"the tracks have a fix every {tracks.fix_interval:.3g} s (median), sampled every "
        f"{tracks.plan.interval:.3g} s: the samples between fixes lie on straight lines; "
        f"--sample-rate {1 / tracks.fix_interval:.3g} or lower measures the tracks themselves"
    )


def undersampling_note(tracks: Tracks) -> str:
    """Said when the fixes are closer than the samples: a lab's 30 fps tracks at the default
    10 Hz turn more slowly than at their own rate, and the default is easy to miss."""
    fix_rate = 1 / tracks.fix_interval
    return (
        f"the tracks have a fix every {tracks.fix_interval:.3g} s ({fix_rate:.4g} Hz, median), "
        f"sampled at {tracks.plan.rate:.4g} Hz: turn rates and twitchiness depend on the "
        f"sample rate; --sample-rate {fix_rate:.4g} measures at the fixes' own rate"
    )


def tracks_notes(tracks: Tracks) -> list[str]:
    """What reading the tracks did, one line each: columns found by other names, what was
    assumed (dialect, times, projection, axes), and always the fixes, gaps and samples
    measured."""
    notes = []
    if tracks.columns:
        notes.append("columns: " + ", ".join(f"{role}={name}" for role, name in tracks.columns))
    notes += tracks.notes
    c = tracks.counts
    parts = [f"{c.fixes:,} fixes read"]
    if c.missing:
        parts.append(f"{c.missing:,} missing (empty or NaN) left out")
    if c.duplicates:
        parts.append(f"{c.duplicates:,} repeated dropped")
    parts.append(f"{c.gaps:,} gap{'s' if c.gaps != 1 else ''} over {c.max_gap:.3g} s split")
    if c.short:
        parts.append(f"{c.short:,} piece{'s' if c.short != 1 else ''} too short left out")
    pieces = f"{c.tracks:,} track{'s' if c.tracks != 1 else ''}"
    particles = len(set(tracks.particles))
    if 0 < particles < c.tracks:  # split at gaps: the table's agents are the pieces
        plural = "s" if particles != 1 else ""
        pieces += f" (pieces of {particles:,} particle{plural}, each counted as an agent)"
    parts.append(f"measured {c.fixes_used:,} fixes in {pieces} as {c.samples:,} samples")
    notes.append("; ".join(parts))
    return notes


__all__ = [
    "HINTS",
    "TRACK_OPTIONS",
    "add_track_options",
    "given_track_options",
    "oversampling_note",
    "read_tracks_option",
    "track_options",
    "tracks_notes",
    "undersampling_note",
]
