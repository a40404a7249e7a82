"""Tracks from anywhere as `Samples`: `wander3d stats --tracks FILE`.

A CSV (or TSV, gzip'd too) or Parquet table as the field's tools write it (`track_source`
finds its separator, decimal commas, comments and encoding; `track_rows` its columns, in
the field's spellings, `COLUMN_ALIASES`, or named explicitly):

    particle   any id (also id, track_id, individual, mmsi, ...); none: the file is one track;
    t          seconds (or ms, us, ns: `time_unit`), or date-times (`track_times`); or frame
               with a time step;
    x, y, z    units; longitude and latitude (location-long, lon, lng, ... or `geographic`)
               are measured in metres in each track's own frame (`track_geo`);
    vx, vy, vz optional velocities (units/s); group optional, a name.

Or a wide table, `time, x1, y1, x2, y2, ...`, one track per numbered pair (idtracker.ai).

Axes are right-handed with +y up, as wander3d's. 2D tracks (no z) lie in the horizontal
plane: (x, y) becomes (x, 0, -y), seen from above as drawn on paper, so their turn angles
are the usual 2D ones; image coordinates, y down (`y_down`), become (x, 0, y). 3D tracks are
+y up, or +z up (`up="z"`: (x, y, z) becomes (x, z, -y)); geographic ones are (east,
altitude, -north). An empty or NaN position is a missing fix (trackers write them so), and
so is an empty or NaN time (it cannot be placed in time); each particle's fixes must come in
time order (or `sort`), and a repeated fix is refused (or dropped: `drop_duplicates`). A
particle's track is split where consecutive fixes are more than `max_gap` apart (default:
GAP_INTERVALS sample or fix intervals, whichever is longer), never bridged; each piece is
resampled by linear interpolation to a fixed interval from its own first fix and measured in
full (`Samples.lengths`); pieces shorter than the metrics need are left out and counted.
Headings are the velocity's direction: the vx, vy, vz columns when present, else central
differences of the resampled positions (one-sided at each track's ends); while a particle is
at rest its heading is its last direction of motion. Positions are kept in float64 and moved
so that the middle of their bounding box is the origin before anything is computed:
coordinates in UTM metres (5e6) measure as near zero do.

The file is read in batches, and whether its fixes and then its samples fit in memory is
asked before they are read or made (`memory_budget`), so a file too large for this machine
is refused with the numbers rather than read until the machine swaps.

Files written by `wander3d run` carry their run's record: the scene's box and groups are then
used (so coverage and wall contact mean what they do for `wander3d stats SCENE`), and the sample
interval is a whole number of the run's steps, as for the scene. Other tracks have no known
enclosure: coverage divides their bounding box and wall contact is NaN.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wander3d.engine import tracksample
from wander3d.export.provenance import (
    ExportError,
    Provenance,
    missing_file_problem,
    read_provenance,
)
from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from . import track_geo, track_source
from .sampling import SamplePlan, Samples, plan_samples
from .stats import GroupLabel, working_bytes
from .track_rows import (
    COLUMN_ALIASES,
    FEET_NAMES,
    GEOGRAPHIC,
    ROW_BYTES,
    Z_UNITS,
    Layout,
    Rows,
    TracksError,
    map_columns,
    parse_columns,
    plan_read,
    read_rows,
    source_error,
    spelling,
)
from .track_source import Lines, SourceError

Array = np.ndarray

#: The method shown for groups no scene describes.
TRACKS_METHOD = "tracks"
#: Bytes kept per sample: float64 position, float32 heading and speed.
_SAMPLE_BYTES = 24 + 12 + 4
#: Bytes per sample of velocities read from a file, while the headings are taken from them.
_VELOCITY_BYTES = 24
#: Positions are interpolated; a target this close (relative to the interval) to a fix is
#: that fix.
_TIME_TOLERANCE = 1e-9
#: By default a track is split where two fixes are more than this many intervals apart (the
#: sample interval or the median fix interval, whichever is longer).
GAP_INTERVALS = 3.0
#: Non-geographic x and y all within these bounds, moving this little a fix, look like degrees.
_DEGREE_LIKE_STEP = 0.01


@dataclass(frozen=True)
class TrackOptions:
    """How to read a tracks file, beyond what it says itself (each None: found or default).

    dt:              seconds per frame, for files timed by a `frame` column;
    columns:         {role: column} for columns the aliases do not find;
    max_gap:         split tracks at gaps longer than this (s);
    separator:       the CSV separator; time_format: a strptime form of the date-times;
    time_unit:       "s", "ms", "us" or "ns": the unit of numeric times;
    geographic:      x and y are longitude and latitude whatever their names;
    crs:             x and y are in this coordinate reference system (e.g. "EPSG:32633"):
                     taken to longitude and latitude, then measured as those;
    z_unit:          "m" or "ft": the unit of a geographic file's altitude;
    up:              "y" or "z": the up axis of non-geographic 3D tracks (default y);
    y_down:          2D tracks' y points down (image coordinates, as trackers of video write
                     them): placed flipped, so that their left and right turns are the video's;
    drop_duplicates: drop repeated rows (same particle, time and position) and count them;
    sort:            put each track's fixes in time order;
    names:           the column names of a CSV without a header line;
    skip_bad_rows:   skip (and count) CSV rows with the wrong number of fields.
    """

    dt: float | None = None
    columns: Mapping[str, str] | None = None
    max_gap: float | None = None
    separator: str | None = None
    time_format: str | None = None
    time_unit: str | None = None
    geographic: bool = False
    crs: str | None = None
    z_unit: str | None = None
    up: str | None = None
    y_down: bool = False
    drop_duplicates: bool = False
    sort: bool = False
    names: tuple[str, ...] = ()
    skip_bad_rows: bool = False


@dataclass(frozen=True)
class TrackCounts:
    """What reading did to the fixes, for the user to see.

    fixes:        rows read (a wide table's: fixes, rows times tracks); missing: fixes whose
                  position was empty or NaN (or at longitude 0, latitude 0) left out;
    duplicates:   repeated rows dropped (`drop_duplicates`);
    gaps:         gaps longer than max_gap (s) at which a particle's track was split;
    tracks:       the pieces measured; short: pieces too short to measure (left out);
    fixes_used:   fixes in the pieces measured; samples: samples measured (all pieces).
    """

    fixes: int
    missing: int
    gaps: int
    max_gap: float
    tracks: int
    short: int
    fixes_used: int
    samples: int
    duplicates: int = 0


@dataclass(frozen=True)
class Tracks:
    """Tracks read and resampled.

    samples:    the resampled tracks, groups in contiguous blocks (ragged: samples.lengths);
    groups:     a name and method per group, in the samples' order;
    plan:       the sampling (steps_per_sample is the run's, or 1 for foreign tracks; samples
                is the longest track's);
    record:     the run record if `wander3d run` wrote the file, else None;
    fix_interval: the median time between consecutive fixes of a track (s);
    columns:    (role, column) for each column found by another name than the role's;
    notes:      what reading assumed or found, one line each (a separator, a time form, the
                projection, the axes), for the user to see;
    warnings:   what looks wrong in the data (implausible speeds, degrees read as units);
    counts:     fixes read, missing, gaps split and samples measured;
    velocities: True if the headings came from the file's vx, vy, vz columns, False if from
                the positions (`headings_from_positions`);
    particles:  the particle of each track (piece) of the samples, by name;
    geographic: True if the positions came from longitude and latitude: each track is then
                placed in its own local frame, and the tracks share no box.
    """

    samples: Samples
    groups: tuple[GroupLabel, ...]
    plan: SamplePlan
    record: Provenance | None
    fix_interval: float
    columns: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    counts: TrackCounts
    velocities: bool
    particles: tuple[str, ...] = ()
    geographic: bool = False


def read_tracks(
    path: Path, rate: float, options: TrackOptions | None = None, min_samples: int = 3
) -> Tracks:
    """Read `path` and resample every track at `rate` Hz (see the module's description),
    as `options` say. Raises TracksError (or ExportError for a damaged run record) with one
    line naming the column or row at fault, and `missing` the option that would help.
    """
    options = options or TrackOptions()
    path = Path(path)
    if not path.is_file():
        raise TracksError(f"{path}: {missing_file_problem(path)}")
    try:
        dialect = track_source.sniff(path, options.separator, options.names)
        dialect = dataclasses.replace(dialect, skip_bad=options.skip_bad_rows)
        names = track_source.column_names(path, dialect)
    except SourceError as e:
        raise source_error(e) from None
    layout = map_columns(names, options.columns or {}, path)
    # Only wander3d's own outputs (.csv with its sidecar, .parquet) carry a run record.
    record = read_provenance(path) if path.suffix.lower() in (".csv", ".parquet") else None
    plan = plan_read(
        path,
        dialect,
        names,
        layout,
        dt=options.dt,
        record_dt=record.sample_interval if record else None,
        time_format=options.time_format,
        time_unit=options.time_unit,
    )
    lines = Lines(path, dialect)
    expected = _check_rows_fit(path, dialect, layout)
    rows = read_rows(path, dialect, plan, lines, expected)
    notes = [*dialect.notes, *_layout_notes(layout, path, names), *rows.notes]
    if plan.times is not None and plan.times.note:
        notes.append(plan.times.note)
    geographic = _is_geographic(layout, options)
    fixes = _order_fixes(rows, layout, options, geographic, lines)
    del rows
    if fixes.null_island:
        notes.append(
            f"{fixes.null_island:,} fix{'es' if fixes.null_island != 1 else ''} at longitude 0, "
            "latitude 0 (where loggers without a fix write one) left out as missing"
        )
    if fixes.untimed:
        time = plan.times.name if plan.times else layout.roles["frame"]
        first = lines.at(fixes.first_untimed).rsplit(": ", 1)[1]
        notes.append(
            f"{fixes.untimed:,} fix{'es' if fixes.untimed != 1 else ''} without a time ({time} "
            f"empty or NaN, the first on {first}) left out as missing: they cannot be placed "
            "in time"
        )
    pieces = _pieces(fixes, rate, record, options.max_gap, min_samples, path)
    positions, frame_notes, warnings = _positions(
        fixes, pieces, layout, options, geographic, record, lines
    )
    velocities = _velocity_axes(fixes.velocity, layout, options)
    fixes.raw = fixes.velocity = None  # held by positions and velocities now
    notes += frame_notes
    placed = [positions, velocities]
    del positions, velocities  # `_resampled` lets them go once resampled
    tracks = _resampled(path, fixes, pieces, placed, record, layout, notes, warnings)
    return dataclasses.replace(tracks, geographic=geographic)


@dataclass(frozen=True)
class _Placed:
    """Fix values (positions or velocities) in wander3d's axes, without an array of them:
    axis a of fix i is signs[a] * values[i, axes[a]] - centre[a] (axes[a] = -1: none, 0)."""

    values: Array
    axes: tuple[int, int, int]
    signs: tuple[float, float, float] = (1.0, 1.0, 1.0)
    centre: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def resample(self, t: Array, pieces: _Pieces) -> tuple[Array, Array, Array]:
        """(T, n, 3) samples of the measured pieces (`tracksample.resample`), and the lowest
        and highest corner of their own samples."""
        plan = pieces.plan
        measured = pieces.measured
        out = np.empty((plan.samples, len(measured), 3))
        low, high = np.full(3, np.inf), np.full(3, -np.inf)
        tracksample.resample(
            t, self.values, np.array(self.axes, np.int64), np.array(self.signs),
            np.array(self.centre), pieces.starts[measured], pieces.ends[measured],
            pieces.lengths, plan.interval, _TIME_TOLERANCE, out, low, high,
        )  # fmt: skip
        return out, low, high


def _check_rows_fit(path: Path, dialect: track_source.Dialect, layout: Layout) -> int:
    """The rows the file holds (a Parquet footer's count, or a CSV's size over the bytes of
    its first lines' rows); TracksError, before reading, if their fixes alone would not fit
    in memory (a CSV's count is then a generous bound: its shortest rows)."""
    budget, why = memory_budget()
    per_row = ROW_BYTES * max(1, len(layout.wide))
    if dialect.parquet:
        rows = track_source.parquet_rows(path)
        said = f"{rows:,} rows"
        expected = rows
    else:
        size = track_source.text_bytes(path, dialect)
        rows = size // _row_bytes_estimate(layout)
        said = f"about {rows:,} rows ({format_bytes(size)} of text)"
        expected = int(size / track_source.head_bytes_per_row(path, dialect) * 1.02) + 16
    if rows * per_row > budget:
        raise TracksError(
            f"{path}: {said}; their fixes alone would need {format_bytes(rows * per_row)}, "
            f"more than the {format_bytes(budget)} allowed ({why})"
        )
    return expected


def _row_bytes_estimate(layout: Layout) -> int:
    """The fewest bytes a CSV row of this layout can take (digits and separators): a
    generous count of rows from a file's size."""
    return max(8, 4 * len(layout.columns))


def _is_geographic(layout: Layout, options: TrackOptions) -> bool:
    if options.geographic or options.crs is not None:
        return True
    roles = layout.roles
    if layout.wide or "x" not in roles or "y" not in roles:
        return False
    return spelling(roles["x"]) in GEOGRAPHIC[0] and spelling(roles["y"]) in GEOGRAPHIC[1]


def _layout_notes(layout: Layout, path: Path, names: list[str]) -> list[str]:
    if layout.wide:
        first, last = layout.wide[0], layout.wide[-1]
        return [
            f"a wide table: {first[1]}, {first[2]} ... {last[1]}, {last[2]} as "
            f"{len(layout.wide)} tracks"
        ]
    if "particle" not in layout.roles:
        return [
            f"no particle column: the file is one track (its columns: {', '.join(names)}; "
            "name an id column with --columns particle=NAME if it holds several)"
        ]
    return []


@dataclass
class _Fixes:
    """The fixes measured, by particle and then time: particle, t, raw (n, 2 or 3) as the
    file holds them (longitude, latitude for geographic files), velocity or None, group,
    and the data row of each (None: fix i is row i); counts of what was left out."""

    particle: Array
    t: Array
    raw: Array | None
    velocity: Array | None
    group: Array | None
    rows: Array | None
    names: list[str]
    group_names: list[str]
    read: int
    missing: int
    duplicates: int
    null_island: int
    untimed: int = 0  # fixes without a time, counted in `missing` too
    first_untimed: int = 0  # the first one's data row

    def row(self, fix: int) -> int:
        return fix if self.rows is None else int(self.rows[fix])


def _order_fixes(
    rows: Rows, layout: Layout, options: TrackOptions, geographic: bool, lines: Lines
) -> _Fixes:
    """The rows' fixes without missing ones, each particle's in time order; TracksError for
    a time that goes back (unless `sort`) or a repeated time (dropped with `drop_duplicates`
    if the whole row repeats), with both lines."""
    xyz = _coordinates(rows, layout, options, geographic, lines)
    # Column by column: numpy's all(axis=1) over two columns costs ten times as much.
    missing = ~(np.isfinite(xyz[:, 0]) & np.isfinite(xyz[:, 1]))
    null_island = 0
    if geographic:
        # (0, 0), "null island", is where a logger without a fix writes one: not a place.
        island = (xyz[:, 0] == 0) & (xyz[:, 1] == 0)
        null_island = int(island.sum())
        missing |= island
    if rows.velocity is not None:
        missing |= ~np.isfinite(rows.velocity).all(axis=1)
    # A fix without a time (GPS loggers write points before their clock is set) cannot be
    # placed in time: missing, as one without a position is.
    untimed = np.isnan(rows.t)
    missing |= untimed
    sel = np.flatnonzero(~missing) if missing.any() else None  # each fix's index in `rows`
    particle, t = _take(rows.particle, sel), _take(rows.t, sel)
    if len(t) == 0:
        time = layout.roles.get("t", layout.roles.get("frame"))
        if untimed.all():
            raise TracksError(
                f"{lines.path}: every {time} is missing (empty or NaN): no fix is placed in time"
            )
        raise TracksError(
            f"{lines.path}: no fix has both a time and a position"
            if untimed.any()
            else f"{lines.path}: every position is missing"
        )
    order = np.argsort(particle, kind="stable") if (np.diff(particle) < 0).any() else None
    pid, tt = _take(particle, order), _take(t, order)
    same = pid[1:] == pid[:-1]
    back = same & (tt[1:] < tt[:-1])
    if back.any():
        if not options.sort:
            _refuse_back(int(np.argmax(back)), pid, tt, _compose(sel, order), rows, layout, lines)
        order = np.lexsort((t, particle))
        pid, tt = particle[order], t[order]
        same = pid[1:] == pid[:-1]
    del particle, t
    sel = _compose(sel, order)
    raw, velocity, group = _take(xyz, sel), _take(rows.velocity, sel), _take(rows.group, sel)
    repeat = np.flatnonzero(same & (tt[1:] == tt[:-1]))
    if len(repeat):
        identical = _same_rows(raw, repeat)
        if velocity is not None:
            identical &= _same_rows(velocity, repeat)
        if group is not None:
            identical &= group[repeat] == group[repeat + 1]
        if not identical.all():
            _refuse_conflict(int(repeat[np.argmin(identical)]), pid, tt, sel, rows, layout, lines)
        if not options.drop_duplicates:
            j = int(repeat[0])
            first, second = lines.where(_data_row(sel, j, rows), _data_row(sel, j + 1, rows))
            raise TracksError(
                f"{second}: repeats {first.split(': ', 1)[1]} (particle "
                f"{rows.names[pid[j]]}, t = {tt[j]:g}, the same position)",
                "drop_duplicates",
            )
        kept = np.ones(len(tt), dtype=bool)
        kept[repeat + 1] = False
        pid, tt, raw = pid[kept], tt[kept], raw[kept]
        velocity = velocity[kept] if velocity is not None else None
        group = group[kept] if group is not None else None
        sel = _compose(sel, np.flatnonzero(kept))
    source = rows.source if sel is None else (sel if rows.source is None else rows.source[sel])
    return _Fixes(
        particle=pid,
        t=tt,
        raw=raw,
        velocity=velocity,
        group=group,
        rows=source,
        names=[str(name) for name in rows.names],
        group_names=[str(name) for name in rows.groups],
        read=len(rows.t),
        missing=int(missing.sum()),
        duplicates=len(repeat),
        null_island=null_island,
        untimed=int(untimed.sum()),
        first_untimed=rows.row(int(np.argmax(untimed))),
    )


def _coordinates(
    rows: Rows, layout: Layout, options: TrackOptions, geographic: bool, lines: Lines
) -> Array:
    """The rows' coordinates, (n, 2) or (n, 3) with a z column: longitude and latitude (and
    altitude) for geographic files, checked to be on Earth (TracksError with the line)."""
    xyz = rows.xyz
    if not ("z" in layout.roles or (layout.wide and not np.isnan(xyz[:, 2]).all())):
        xyz = xyz[:, :2]
    if not geographic:
        return xyz
    if options.crs is not None:
        try:
            lon, lat = track_geo.to_lon_lat(xyz[:, 0], xyz[:, 1], options.crs)
        except ValueError as e:
            raise TracksError(f"{lines.path}: {e}", "crs") from None
        lost = ~np.isfinite(xyz[:, :2]).all(axis=1)
        lon[lost] = lat[lost] = np.nan
        xyz = np.column_stack([lon, lat, *([xyz[:, 2]] if xyz.shape[1] == 3 else [])])
    bad = track_geo.check_degrees(xyz[:, 0], xyz[:, 1])
    if bad is not None:
        fix, problem = bad
        raise TracksError(
            f"{lines.at(rows.row(fix))}: {problem}; longitude and latitude are degrees (WGS84)"
        )
    return xyz


def _take(values: Array | None, index: Array | None) -> Array:
    """values[index], or values themselves for no index (None stays None)."""
    return values if index is None or values is None else values[index]  # type: ignore[return-value]


def _compose(first: Array | None, then: Array | None) -> Array | None:
    """The index `then` applied after the index `first` (None: identity)."""
    if first is None:
        return then
    return first if then is None else first[then]


def _data_row(sel: Array | None, fix: int, rows: Rows) -> int:
    """The data row of ordered fix `fix`."""
    return rows.row(fix if sel is None else int(sel[fix]))


def _same_rows(values: Array, k: Array) -> Array:
    """Whether rows k and k + 1 of `values` are equal (NaN equal to NaN)."""
    a, b = values[k], values[k + 1]
    return ((a == b) | (np.isnan(a) & np.isnan(b))).all(axis=1)


def _refuse_back(
    k: int, pid: Array, t: Array, sel: Array | None, rows: Rows, layout: Layout, lines: Lines
) -> None:
    before, after = lines.where(_data_row(sel, k, rows), _data_row(sel, k + 1, rows))
    earlier = before.split(": ", 1)[1]
    if "particle" not in layout.roles and not layout.wide:
        raise TracksError(
            f"{after}: t = {t[k + 1]:g} is earlier than t = {t[k]:g} on {earlier}, and the "
            "file has no particle column, so all its rows are one track; if it holds several "
            "tracks, name their id column",
            "columns",
        )
    raise TracksError(
        f"{after}: particle {rows.names[pid[k]]}'s t = {t[k + 1]:g} is earlier than "
        f"t = {t[k]:g} on {earlier}: each track's fixes must come in time order",
        "sort",
    )


def _refuse_conflict(
    j: int, pid: Array, t: Array, sel: Array | None, rows: Rows, layout: Layout, lines: Lines
) -> None:
    first, second = lines.where(_data_row(sel, j, rows), _data_row(sel, j + 1, rows))
    if "particle" not in layout.roles and not layout.wide:
        raise TracksError(
            f"{second}: t = {t[j]:g} again (as on {first.split(': ', 1)[1]}) at another "
            "position, and the file has no particle column, so all its rows are one track; "
            "if it holds several tracks, name their id column",
            "columns",
        )
    raise TracksError(
        f"{second}: particle {rows.names[pid[j]]} has two rows at t = {t[j]:g} at different "
        f"positions (this one and {first.split(': ', 1)[1]})"
    )


@dataclass(frozen=True)
class _Pieces:
    """The pieces (tracks between gaps) of the fixes: fixes starts[i]:ends[i]; those long
    enough to measure, in the samples' order (`measured`, indices into starts), with their
    sample counts; the sampling plan, the fix interval, the gap threshold and count."""

    starts: Array
    ends: Array
    measured: Array
    lengths: Array
    plan: SamplePlan
    fix_interval: float
    max_gap: float
    gaps: int


def _pieces(
    fixes: _Fixes,
    rate: float,
    record: Provenance | None,
    max_gap: float | None,
    min_samples: int,
    path: Path,
) -> _Pieces:
    """Split each particle's fixes at gaps longer than max_gap and plan their samples;
    TracksError if none is long enough, or if the samples would not fit in memory."""
    pid, t = fixes.particle, fixes.t
    same = pid[1:] == pid[:-1]
    if record is not None:
        plan = plan_samples(record.dt, max(float(np.max(t) - np.min(t)), record.dt), rate)
        interval, every = plan.interval, plan.steps_per_sample
        _check_run_rate(path, record, every, rate)
    else:
        interval, every = 1.0 / rate, 1
    steps = np.diff(t)
    fix_gaps = steps[same]
    fix_interval = _median(fix_gaps)
    del fix_gaps
    if max_gap is None:
        max_gap = GAP_INTERVALS * max(interval, fix_interval if math.isfinite(fix_interval) else 0)
    gap = same & (steps > max_gap * (1 + _TIME_TOLERANCE))
    del steps
    new_piece = np.concatenate([[True], ~same | gap])
    starts = np.flatnonzero(new_piece)
    ends = np.append(starts[1:], len(t))
    first, last = t[starts], t[ends - 1]
    counts = np.floor((last - first) / interval * (1 + _TIME_TOLERANCE) + _TIME_TOLERANCE)
    counts = counts.astype(np.int64) + 1
    long_enough = counts >= min_samples
    if not long_enough.any():
        longest = int(np.argmax(last - first))
        raise TracksError(
            f"{path}: the longest track, {fixes.names[pid[starts[longest]]]}, lasts "
            f"{last[longest] - first[longest]:g} s; the metrics need at least "
            f"{min_samples - 1} sample intervals ({(min_samples - 1) * interval:g} s at "
            f"{1 / interval:g} Hz)"
        )
    # Pieces in group order (as a scene's groups are), by particle and time within a group.
    candidates = np.flatnonzero(long_enough)
    _labels, rank = _piece_groups(fixes, starts[candidates], record, path)
    measured = candidates[np.argsort(rank, kind="stable")]
    lengths = counts[measured]
    count = int(lengths.max())
    _check_memory(
        path,
        count,
        len(measured),
        (count - 1) * interval,
        1.0 / interval,
        len(t),
        fixes.velocity is not None,
    )
    return _Pieces(
        starts=starts,
        ends=ends,
        measured=measured,
        lengths=lengths,
        plan=SamplePlan(steps_per_sample=every, samples=count, interval=interval),
        fix_interval=fix_interval,
        max_gap=float(max_gap),
        gaps=int(gap.sum()),
    )


def _median(values: Array) -> float:
    """The median of `values` (NaN if none); for fixes logged at one interval, without
    partitioning millions of them."""
    if len(values) == 0:
        return math.nan
    least, most = values.min(), values.max()
    return float(least) if least == most else float(np.median(values))


def _piece_groups(
    fixes: _Fixes, starts: Array, record: Provenance | None, path: Path
) -> tuple[list[GroupLabel], Array]:
    """The groups' labels and the group rank of each piece starting at fix starts[i]."""
    names = fixes.group_names if fixes.group is not None else [track_source.stem(path)]
    labels, name_rank = _group_labels(names, record, path)
    group_of = fixes.group[starts] if fixes.group is not None else np.zeros(len(starts), np.int64)
    return labels, name_rank[group_of]


def _positions(
    fixes: _Fixes,
    pieces: _Pieces,
    layout: Layout,
    options: TrackOptions,
    geographic: bool,
    record: Provenance | None,
    lines: Lines,
) -> tuple[_Placed, list[str], list[str]]:
    """The fixes' positions in wander3d's axes, notes on how they were placed, and warnings
    about what looks wrong."""
    raw = fixes.raw
    assert raw is not None
    three_d = raw.shape[1] == 3
    notes: list[str] = []
    warnings: list[str] = []
    if options.y_down and (geographic or three_d):
        kind = "geographic" if geographic else "3D"
        raise TracksError(
            f"{lines.path}: y down (image coordinates) applies to 2D (x, y) tracks; these are "
            f"{kind}",
            None if geographic else "up",
        )
    if geographic:
        positions, notes = _geographic_positions(raw, pieces, layout, options)
        _warn_speeds(fixes, pieces, positions, warnings, lines)
        return _Placed(positions, (0, 1, 2)), notes, warnings
    if not three_d:  # (x, y) in the horizontal plane: (x, 0, -y), or (x, 0, y) if y is down
        placed = _Placed(raw, (0, -1, 1), (1.0, 1.0, 1.0 if options.y_down else -1.0))
        if options.y_down:
            notes.append("2D tracks with y down (image coordinates): (x, y) measured as (x, -y)")
        elif record is None:
            notes.append(
                "2D tracks taken as y up, seen from above (--y-down for image coordinates: "
                "their left and right turns would be mirrored)"
            )
    elif options.up == "z":
        placed = _Placed(raw, (0, 2, 1), (1.0, 1.0, -1.0))
        notes.append("3D tracks with +z up: (x, y, z) measured as (x, z, -y), +y up")
    else:
        placed = _Placed(raw, (0, 1, 2))
        if options.up is None and record is None:  # wander3d's own runs are +y up
            notes.append("3D tracks taken as +y up (--up z for z-up data)")
    if record is not None:
        return placed, notes, warnings
    low, high = np.full(raw.shape[1], np.inf), np.full(raw.shape[1], -np.inf)
    tracksample.column_ranges(raw, low, high)
    # Centred: steps and turns of tracks in UTM metres keep every digit.
    x, y, z = (
        _middle(low, high, column, sign)
        for column, sign in zip(placed.axes, placed.signs, strict=True)
    )
    warnings += _degree_like(raw, (low[:2], high[:2]), fixes, layout)
    return dataclasses.replace(placed, centre=(x, y, z)), notes, warnings


def _middle(low: Array, high: Array, column: int, sign: float) -> float:
    """The middle of the range low[column]..high[column] of a column placed with `sign`, as
    (its least + its greatest) / 2 of the placed values; 0 for no column (-1)."""
    if column < 0:
        return 0.0
    least, greatest = sorted((sign * low[column], sign * high[column]))
    return float((least + greatest) / 2)


def _geographic_positions(
    raw: Array, pieces: _Pieces, layout: Layout, options: TrackOptions
) -> tuple[Array, list[str]]:
    """Longitude, latitude (and altitude) as metres in each piece's own frame, in
    wander3d's axes (east, altitude, south), and notes on how."""
    notes: list[str] = []
    three_d = raw.shape[1] == 3
    east, north, reach = track_geo.local_frames(raw[:, 0], raw[:, 1], pieces.starts, pieces.ends)
    widest = float(reach.max(initial=0.0))
    wide = track_geo.frame_errors(reach) > track_geo.MAX_FRAME_ERROR
    error = track_geo.frame_error(widest) if not wide.any() else track_geo.MAX_FRAME_ERROR
    shown = "longitude/latitude" if options.crs is None else f"{options.crs} coordinates"
    notes.append(
        f"{shown} measured in metres in each track's own frame (azimuthal equidistant "
        f"about its centre, WGS84 geodesics, pyproj): the widest reaches "
        f"{widest / 1000:.3g} km from its centre, distances within {100 * error:.2g}%"
    )
    if wide.any():
        notes.append(
            f"{int(wide.sum()):,} track{'s' if wide.sum() != 1 else ''} reaching farther "
            f"than {track_geo.MAX_FRAME_ERROR:.1%} of stretch allows laid out by their "
            "geodesic steps and turns instead (exact steps and turns, flattened)"
        )
    altitude = np.zeros(len(east))
    if three_d:
        unit = options.z_unit
        column = layout.roles.get("z", "z")
        if unit is None:
            unit = "ft" if FEET_NAMES.search(spelling(column)) else "m"
            other = "m" if unit == "ft" else "ft"
            notes.append(
                f"altitude ({column}) read as {'feet' if unit == 'ft' else 'metres'} "
                f"(--z-unit {other} if it is in {'metres' if other == 'm' else 'feet'})"
            )
        altitude = raw[:, 2] * Z_UNITS[unit]
    positions = np.column_stack([east, altitude, -north])
    return positions, notes


def _degree_like(
    raw: Array, ranges: tuple[Array, Array], fixes: _Fixes, layout: Layout
) -> list[str]:
    """A warning if x and y (raw's first columns, within `ranges`) look like longitude and
    latitude read as units."""
    (x_low, y_low), (x_high, y_high) = ranges
    if not (-180 <= x_low and x_high <= 180 and -90 <= y_low and y_high <= 90):
        return []
    same = fixes.particle[1:] == fixes.particle[:-1]
    steps = np.hypot(np.diff(raw[:, 0]), np.diff(raw[:, 1]))[same]
    moving = steps[steps > 0]
    if len(moving) == 0 or np.median(moving) >= _DEGREE_LIKE_STEP:
        return []
    names = ", ".join(layout.roles.get(r, r) for r in ("x", "y")) if not layout.wide else "x, y"
    return [
        f"{names} are all within ±180 and ±90 and move by about {np.median(moving):.2g} a fix: "
        "if they are longitude and latitude, give --geographic (they are measured as plain "
        "units now)"
    ]


def _warn_speeds(
    fixes: _Fixes, pieces: _Pieces, positions: Array, warnings: list[str], lines: Lines
) -> None:
    """A warning naming the fastest step between fixes if any is implausibly fast."""
    pid, t = fixes.particle, fixes.t
    same = pid[1:] == pid[:-1]
    dt = np.diff(t)
    step = np.sqrt(np.einsum("ij,ij->i", np.diff(positions, axis=0), np.diff(positions, axis=0)))
    speed = np.divide(step, dt, out=np.zeros_like(step), where=same & (dt > 0))
    fast = speed > track_geo.IMPLAUSIBLE_SPEED
    if not fast.any():
        return
    k = int(np.argmax(speed))
    first, second = lines.where(fixes.row(k), fixes.row(k + 1))
    warnings.append(
        f"{int(fast.sum()):,} step{'s' if fast.sum() != 1 else ''} between fixes faster than "
        f"{track_geo.IMPLAUSIBLE_SPEED:g} m/s, the fastest {speed[k]:.3g} m/s (particle "
        f"{fixes.names[pid[k]]}, {first} to line {second.rsplit(' ', 1)[1]}): bad fixes?"
    )


def _resampled(
    path: Path,
    fixes: _Fixes,
    pieces: _Pieces,
    placed: list[_Placed | None],
    record: Provenance | None,
    layout: Layout,
    notes: list[str],
    warnings: list[str],
) -> Tracks:
    """The measured pieces resampled, as Tracks. placed: [positions, velocities or None] of
    the fixes, emptied once resampled (they are as large as the samples: the headings need
    the room)."""
    plan = pieces.plan
    interval, count = plan.interval, plan.samples
    measured, lengths = pieces.measured, pieces.lengths
    n = len(measured)
    starts, ends = pieces.starts[measured], pieces.ends[measured]
    positions, velocities = placed
    assert positions is not None
    has_velocities = velocities is not None
    p, low, high = positions.resample(fixes.t, pieces)
    v = velocities.resample(fixes.t, pieces)[0] if velocities is not None else None
    placed.clear()
    del positions, velocities
    headings = np.empty((count, n, 3), dtype=np.float32)
    speeds = np.empty((count, n), dtype=np.float32)
    tracksample.headings_and_speeds(
        p if v is None else v, lengths, interval, v is None, headings, speeds
    )
    del v
    labels, rank = _piece_groups(fixes, starts, record, path)
    group_counts = np.bincount(rank, minlength=len(labels))
    bounds = np.concatenate([[0], np.cumsum(group_counts)])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    present = group_counts > 0
    margin = math.nan
    if record is not None:
        scene = record.scene(str(path))
        low = np.asarray(scene.enclosure.min, dtype=np.float64)
        high = np.asarray(scene.enclosure.max, dtype=np.float64)
        margin = float(scene.enclosure.margin)
    samples = Samples(
        interval=interval,
        times=np.arange(count) * interval,
        headings=headings,
        positions=p,
        speeds=speeds,
        group_slices=tuple(s for s, k in zip(slices, present, strict=True) if k),
        low=low,
        high=high,
        margin=margin,
        lengths=None if np.all(lengths == count) else lengths,
    )
    used = int((ends - starts).sum())
    return Tracks(
        samples=samples,
        groups=tuple(g for g, k in zip(labels, present, strict=True) if k),
        plan=plan,
        record=record,
        fix_interval=pieces.fix_interval,
        columns=tuple((role, name) for role, name in layout.roles.items() if name != role),
        notes=tuple(notes),
        warnings=tuple(warnings),
        counts=TrackCounts(
            fixes=fixes.read,
            missing=fixes.missing,
            gaps=pieces.gaps,
            max_gap=pieces.max_gap,
            tracks=n,
            short=len(pieces.starts) - n,
            fixes_used=used,
            samples=int(lengths.sum()),
            duplicates=fixes.duplicates,
        ),
        velocities=has_velocities,
        particles=tuple(fixes.names[i] for i in fixes.particle[starts]),
    )


def _velocity_axes(velocity: Array | None, layout: Layout, options: TrackOptions) -> _Placed | None:
    """The file's velocities in wander3d's axes, as the positions are placed."""
    if velocity is None:
        return None
    if "vz" not in layout.roles:
        return _Placed(velocity, (0, -1, 1), (1.0, 1.0, 1.0 if options.y_down else -1.0))
    if options.up == "z":
        return _Placed(velocity, (0, 2, 1), (1.0, 1.0, -1.0))
    return _Placed(velocity, (0, 1, 2))


#: The line `tune --like` writes at the top of a scene it fitted measuring headings from
#: positions, by which `stats` knows to say so.
FITTED_FROM_POSITIONS = "# Fitted with headings measured from positions"
#: The line `tune` writes at the top of a scene it tuned, followed by the `stats` options
#: that measure it as the fit did ("--seconds S --sample-rate HZ --headings velocity|
#: positions"); `stats` of the scene takes those it is not given from it.
FITTED_MEASURE = "# Fitted as `wander3d stats` measures with:"


def headings_from_positions(samples: Samples) -> Samples:
    """`samples` with headings and speeds taken from the positions, as for tracks read from a
    file without velocities: central differences (one-sided at each track's ends), the last
    direction of motion while at rest. A simulated run measured so compares like for like
    with such tracks (a central difference smooths the turns the true heading makes)."""
    p = np.asarray(samples.positions)
    t, n = p.shape[:2]
    lengths = np.full(n, t, np.int64) if samples.lengths is None else np.asarray(samples.lengths)
    headings = np.empty((t, n, 3), dtype=np.float32)
    speeds = np.empty((t, n), dtype=np.float32)
    tracksample.headings_and_speeds(
        p, lengths.astype(np.int64), samples.interval, True, headings, speeds
    )
    return dataclasses.replace(samples, headings=headings, speeds=speeds)


def _check_memory(
    path: Path,
    count: int,
    tracks: int,
    duration: float,
    rate: float,
    fixes: int,
    velocities: bool,
) -> None:
    """TracksError if resampling `tracks` tracks to `count` samples would not fit in memory
    beside the `fixes` fixes read (tracks lasting years at 10 Hz, or a typo in a time
    column), before allocating any."""
    per_sample = _SAMPLE_BYTES + (_VELOCITY_BYTES if velocities else 0)
    need = count * tracks * per_sample + fixes * ROW_BYTES + working_bytes(count, tracks)
    budget, why = memory_budget()
    if need > budget:
        raise TracksError(
            f"{path}: {count:,} samples of {tracks:,} tracks ({duration:g} s at {rate:g} Hz) "
            f"would need {format_bytes(need)}, more than the {format_bytes(budget)} allowed "
            f"({why}); use a lower sample rate"
        )


def _check_run_rate(path: Path, record: Provenance, every: int, rate: float) -> None:
    """TracksError unless the samples `stats SCENE` takes at `rate` (every `every` steps) are
    samples the run's file holds: between them, interpolated positions are not the run's, and
    the table would differ from the scene's without saying why. The error names rates that
    work."""
    kept = record.steps_per_sample
    if every % kept == 0:
        return
    first, second, third = (f"{1.0 / (kept * m * record.dt):.4g}" for m in (1, 2, 3))
    rates = f"{first}, {second} or {third}"
    raise TracksError(
        f"{path}: holds every {kept} steps of its run ({1.0 / (kept * record.dt):.4g} Hz); "
        f"at {rate:g} Hz `stats SCENE` samples every {every} steps, which it does not hold; "
        f"a sample rate of {rates} Hz (every {kept}, {2 * kept} or {3 * kept} steps) gives "
        "the scene's table"
    )


def _group_labels(
    group_names: list[str], record: Provenance | None, path: Path
) -> tuple[list[GroupLabel], Array]:
    """A label per group and each group name's rank: the scene's order and methods for a
    wander3d run, else the order of the names."""
    if record is None:
        labels = [GroupLabel(name, TRACKS_METHOD) for name in group_names]
        return labels, np.arange(len(group_names), dtype=np.int64)
    scene_groups = record.scene(str(path)).groups
    known = [g.name for g in scene_groups]
    extra = [name for name in group_names if name not in known]
    labels = [GroupLabel(g.name, g.wander.method) for g in scene_groups]
    labels += [GroupLabel(name, TRACKS_METHOD) for name in extra]
    rank_of_name = {label.name: i for i, label in enumerate(labels)}
    return labels, np.array([rank_of_name[name] for name in group_names], dtype=np.int64)


__all__ = [
    "COLUMN_ALIASES",
    "FITTED_FROM_POSITIONS",
    "FITTED_MEASURE",
    "GAP_INTERVALS",
    "TRACKS_METHOD",
    "ExportError",
    "TrackCounts",
    "TrackOptions",
    "Tracks",
    "TracksError",
    "headings_from_positions",
    "parse_columns",
    "read_tracks",
]
