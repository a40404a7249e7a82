"""Tracks from anywhere as `Samples`: `wander3d stats --tracks FILE`.

A CSV or Parquet long table, one row per particle per fix, in the field's own spellings
(`COLUMN_ALIASES`, matched ignoring case, spaces, '-' and '_'; or named explicitly):

    particle   any id (also id, track_id, TrackId, track, individual-local-identifier);
    t          seconds, or date-times (also time, Time, timestamp); or frame with a time step;
    x, y, z    units (+y up; z optional); location-long / location-lat (Movebank) are
               longitude and latitude, projected to metres (`GEOGRAPHIC`);
    vx, vy, vz optional velocities (units/s); group optional, a name.

2D tracks (no z) lie in the horizontal plane: (x, y) becomes (x, 0, -y), seen from above as
drawn on paper, so their turn angles are the usual 2D ones. An empty or NaN position is a
missing fix (trackers write them so); each particle's fixes must come in time order (rows of
different particles may interleave). A particle's track is split where consecutive fixes are
more than `max_gap` apart (default: GAP_INTERVALS sample or fix intervals, whichever is
longer), never bridged; each piece is resampled by linear interpolation to a fixed interval
from its own first fix and measured in full (`Samples.lengths`); pieces shorter than the
metrics need are left out and counted. Headings are the velocity's direction: the vx, vy, vz
columns when present, else central differences of the resampled positions (one-sided at each
track's ends); while a particle is at rest its heading is its last direction of motion.
Positions are kept in float64 and moved so that the middle of their bounding box is the
origin before anything is computed: coordinates in UTM metres (5e6) measure as near zero do.

Files written by `wander3d run` carry their run's record: the scene's box and groups are then
used (so coverage and wall contact mean what they do for `wander3d stats SCENE`), and the sample
interval is a whole number of the run's steps, as for the scene. Other tracks have no known
enclosure: coverage divides their bounding box and wall contact is NaN.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wander3d.export.provenance import (
    ExportError,
    Provenance,
    missing_file_problem,
    read_provenance,
)
from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from .sampling import SamplePlan, Samples, plan_samples
from .stats import GroupLabel, working_bytes

Array = np.ndarray

#: The method shown for groups no scene describes.
TRACKS_METHOD = "tracks"
#: The largest coordinate or velocity component read (units): far beyond any world a game
#: or a GPS logger covers, and far inside float32's range, which the samples use.
MAX_COORDINATE = 1e15
#: Bytes per resampled agent-sample while reading: the merge of fixes and targets, the
#: float64 positions, velocities and headings, and the float32 samples kept.
_RESAMPLE_BYTES = 160
#: Positions are interpolated; a target this close (relative to the interval) to a fix is
#: that fix.
_TIME_TOLERANCE = 1e-9
#: By default a track is split where two fixes are more than this many intervals apart (the
#: sample interval or the median fix interval, whichever is longer).
GAP_INTERVALS = 3.0
#: What each column is, in the spellings found in the field's files, first match wins; a
#: file's column matches when equal ignoring case, spaces, '-' and '_'.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "particle": (
        "particle",
        "id",
        "track_id",
        "track",
        "individual-local-identifier",
        "individual_id",
        "animal_id",
        "object_id",
    ),
    "t": ("t", "time", "timestamp", "seconds"),
    "frame": ("frame", "frame_number", "frame_no"),
    "x": ("x", "pos_x", "position_x", "location-long", "longitude", "lon"),
    "y": ("y", "pos_y", "position_y", "location-lat", "latitude", "lat"),
    "z": ("z", "pos_z", "position_z"),
    "vx": ("vx", "vel_x", "velocity_x"),
    "vy": ("vy", "vel_y", "velocity_y"),
    "vz": ("vz", "vel_z", "velocity_z"),
    "group": ("group",),
}
#: x and y columns with these names hold longitude and latitude (degrees, WGS84).
GEOGRAPHIC = (("locationlong", "longitude", "lon"), ("locationlat", "latitude", "lat"))
#: Columns read as numbers (CSV: as text first, so a bad cell is reported with its line).
_NUMERIC = ("t", "frame", "x", "y", "z", "vx", "vy", "vz")


class TracksError(ValueError):
    """The tracks cannot be read; one line naming the file and the column or row.

    `missing` names the argument of `read_tracks` that would have made them readable ("dt",
    "columns"), or is None.
    """

    def __init__(self, message: str, missing: str | None = None) -> None:
        self.missing = missing
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        return (type(self), (str(self), self.missing))


@dataclass(frozen=True)
class TrackCounts:
    """What reading did to the fixes, for the user to see.

    fixes:        rows read; missing: rows whose position was empty or NaN (left out);
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
    projection: how longitude and latitude became metres, or None;
    counts:     fixes read, missing, gaps split and samples measured;
    velocities: True if the headings came from the file's vx, vy, vz columns, False if from
                the positions (`headings_from_positions`).
    """

    samples: Samples
    groups: tuple[GroupLabel, ...]
    plan: SamplePlan
    record: Provenance | None
    fix_interval: float
    columns: tuple[tuple[str, str], ...]
    projection: str | None
    counts: TrackCounts
    velocities: bool


def _spelling(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def parse_columns(text: str) -> dict[str, str]:
    """ "particle=TrackId,t=Time" as {role: column}; TracksError naming a bad pair."""
    mapping: dict[str, str] = {}
    for pair in text.split(","):
        role, eq, column = (part.strip() for part in pair.partition("="))
        if not eq or not role or not column:
            raise TracksError(
                f"expected ROLE=COLUMN pairs, e.g. particle=TrackId,t=Time; got {text!r}"
            )
        if role not in COLUMN_ALIASES:
            raise TracksError(f"{role!r} is not a role: one of {', '.join(COLUMN_ALIASES)}")
        mapping[role] = column
    return mapping


def _map_columns(names: list[str], explicit: Mapping[str, str], path: Path) -> dict[str, str]:
    """{role: column of the file}: the explicit ones (exact, or the one column equal to it
    ignoring case), then the first alias of each other role that some column spells."""
    roles: dict[str, str] = {}
    by_spelling: dict[str, str] = {}
    for name in names:
        by_spelling.setdefault(_spelling(name), name)
    for role, column in explicit.items():
        if column not in names:
            if _spelling(column) not in by_spelling:
                listed = ", ".join(names) or "none"
                raise TracksError(
                    f"{path}: no column {column!r} for {role} (its columns: {listed})"
                )
            column = by_spelling[_spelling(column)]
        roles[role] = column
    taken = set(roles.values())
    for role, aliases in COLUMN_ALIASES.items():
        if role in roles:
            continue
        for alias in aliases:
            found = by_spelling.get(_spelling(alias))
            if found is not None and found not in taken:
                roles[role] = found
                taken.add(found)
                break
    return roles


def _column_names(path: Path) -> list[str]:
    """The file's column names, read without reading its rows."""
    import pyarrow as pa

    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return _check_names(list(pq.read_schema(path).names), path)
        if suffix == ".csv":
            import pyarrow.csv as pacsv

            with pacsv.open_csv(path) as reader:
                return _check_names(list(reader.schema.names), path)
    except UnicodeDecodeError:
        raise TracksError(f"{path}: the column names are not UTF-8 text") from None
    except (pa.ArrowException, OSError) as e:
        raise TracksError(f"{path}: {_first_line(e)}") from None
    raise TracksError(f"{path}: tracks must be a .csv or .parquet file")


def _read_table(path: Path, numeric: tuple[str, ...]):
    """The file as a pyarrow Table; CSV's numeric columns are read as text and checked later,
    so that a bad value can be reported with its line."""
    import pyarrow as pa

    try:
        if path.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path)
        import pyarrow.csv as pacsv

        types = {name: pa.string() for name in numeric}
        return pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))
    except (pa.ArrowException, OSError) as e:
        raise TracksError(f"{path}: {_first_line(e)}") from None


def _check_names(names: list[str], path: Path) -> list[str]:
    """The column names, if none appears twice."""
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise TracksError(f"{path}: column {twice[0]!r} appears twice")
    return names


def _where(path: Path, row: int) -> str:
    """A data row (0-based) as the user finds it: a CSV line (the header is line 1) or a
    Parquet row (1-based)."""
    if path.suffix.lower() == ".csv":
        return f"{path}: line {row + 2}"
    return f"{path}: row {row + 1}"


_MISSING_TEXT = ("", "nan", "NaN", "NAN", "NA", "na", "null", "NULL", "None")


def _floats(table, name: str, path: Path, missing: bool = False) -> Array:
    """A column as float64; TracksError naming the first row that is not a number. With
    `missing`, empty, NaN and NA cells are missing values (NaN); else they are errors too."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(name)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        # Blanks and the usual spellings of "no value" are missing; the rest must be numbers.
        column = pc.if_else(
            pc.is_in(pc.utf8_trim_whitespace(column), pa.array(_MISSING_TEXT)),
            pa.scalar(None, column.type),
            column,
        )
    if column.null_count and not missing:
        row = int(np.argmax(np.asarray(pc.is_null(column))))
        raise TracksError(f"{_where(path, row)}: {name} is missing (empty or NaN)")
    try:
        values = pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        # Only on the error path: find the offending value one by one.
        for row, value in enumerate(column.to_pylist()):
            try:
                float(value if value is not None else "nan")
            except (TypeError, ValueError):
                raise TracksError(
                    f"{_where(path, row)}: {name} is {value!r}, not a number"
                ) from None
        raise TracksError(f"{path}: column {name} is not numeric ({column.type})") from None
    values = (
        np.where(np.asarray(pc.is_null(column)), np.nan, values) if column.null_count else values
    )
    bad = np.isinf(values) if missing else ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise TracksError(f"{_where(path, row)}: {name} is {values[row]}, not a finite number")
    return values


def _times(table, name: str, path: Path) -> Array:
    """A time column as seconds (float64): numbers as they are, or date-times (ISO 8601, as
    Movebank writes them, UTC) as seconds after the earliest."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(name)
    if pa.types.is_timestamp(column.type):
        stamps = column
    else:
        try:
            return _floats(table, name, path)
        except TracksError as number_error:
            stamps = None
            for unit in (pa.timestamp("ns"), pa.timestamp("ns", tz="UTC")):
                try:
                    stamps = pc.cast(column, unit)
                    break
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    continue
            if stamps is None:
                raise number_error from None
    if stamps.null_count:
        row = int(np.argmax(np.asarray(pc.is_null(stamps))))
        raise TracksError(f"{_where(path, row)}: {name} is empty")
    ns = pc.cast(pc.cast(stamps, pa.timestamp("ns")), pa.int64()).to_numpy(zero_copy_only=False)
    return (ns - ns.min()).astype(np.float64) * 1e-9


def _vectors(table, names: tuple[str, str, str | None], path: Path) -> Array:
    """Three columns as (rows, 3) float64 in wander3d's axes (+y up), NaN where missing.
    Without the third, the tracks are 2D and lie in the horizontal plane, seen from above as
    drawn: (x, y) becomes (x, 0, -y), so that an anticlockwise turn on paper is a positive
    turn angle."""
    a, b, c = names
    columns = {name: _floats(table, name, path, missing=True) for name in names if name}
    for name, values in columns.items():
        beyond = np.abs(values) > MAX_COORDINATE  # NaN, a missing fix, is not beyond
        if beyond.any():
            row = int(np.argmax(beyond))
            raise TracksError(
                f"{_where(path, row)}: {name} is {values[row]:g}, beyond ±{MAX_COORDINATE:g}"
            )
    x, y = columns[a], columns[b]
    if c is not None:
        return np.stack([x, y, columns[c]], axis=1)
    return np.stack([x, np.zeros_like(x), -y], axis=1)


def _project(lon_lat: Array) -> tuple[Array, str]:
    """Longitude, latitude (deg, WGS84; (rows, 2), NaN where missing) as metres east and north
    of their centre, by the azimuthal equidistant projection there (pyproj): distances from
    the centre are true, and within a few hundred km every distance is within 1%."""
    from pyproj import Transformer

    ok = np.isfinite(lon_lat).all(axis=1)
    lon0 = float((np.nanmin(lon_lat[ok, 0]) + np.nanmax(lon_lat[ok, 0])) / 2) if ok.any() else 0.0
    lat0 = float((np.nanmin(lon_lat[ok, 1]) + np.nanmax(lon_lat[ok, 1])) / 2) if ok.any() else 0.0
    local = f"+proj=aeqd +lat_0={lat0:.6f} +lon_0={lon0:.6f} +datum=WGS84 +units=m"
    east, north = Transformer.from_crs("EPSG:4326", local, always_xy=True).transform(
        lon_lat[:, 0], lon_lat[:, 1]
    )
    metres = np.stack([east, north], axis=1)
    metres[~ok] = np.nan
    said = (
        f"longitude/latitude projected to metres east/north of {lon0:.5f}, {lat0:.5f} "
        "(azimuthal equidistant, WGS84, pyproj)"
    )
    return metres, said


def _ids(table, name: str, path: Path) -> tuple[Array, Array]:
    """(distinct values, index of each row's value) of an id column (numbers or text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(name)
    if column.null_count:
        row = int(np.argmax(np.asarray(pc.is_null(column))))
        raise TracksError(f"{_where(path, row)}: {name} is empty")
    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
        raise TracksError(f"{path}: column {name} is not UTF-8 text")  # how Arrow reads it
    values = column.to_numpy(zero_copy_only=False)
    if values.dtype == object:
        values = values.astype(str)
    return np.unique(values, return_inverse=True)


def read_tracks(
    path: Path,
    rate: float,
    dt: float | None = None,
    min_samples: int = 3,
    *,
    columns: Mapping[str, str] | None = None,
    max_gap: float | None = None,
) -> Tracks:
    """Read `path` and resample every track at `rate` Hz (see the module's description).

    dt: seconds per frame, for files with a `frame` column and no `t`; columns: {role:
    column} for columns the aliases do not find; max_gap: split tracks at gaps longer than
    this (s). Raises TracksError (or ExportError for a damaged run record) with one line
    naming the column or row at fault.
    """
    path = Path(path)
    if not path.is_file():
        raise TracksError(f"{path}: {missing_file_problem(path)}")
    names = _column_names(path)
    roles = _map_columns(names, columns or {}, path)
    record = read_provenance(path)
    table = _read_table(path, tuple(roles[r] for r in _NUMERIC if r in roles))
    listed = ", ".join(names) or "none"
    for required in ("particle", "x", "y"):
        if required not in roles:
            raise TracksError(f"{path}: no column {required!r} (its columns: {listed})", "columns")
    if "t" in roles:
        times = _times(table, roles["t"], path)
    elif "frame" in roles:
        step = dt if dt is not None else (record.sample_interval if record else None)
        if step is None:
            raise TracksError(
                f"{path}: no column 't'; to time its {roles['frame']!r} column, give the "
                "seconds per frame (dt)",
                missing="dt",
            )
        times = _floats(table, roles["frame"], path) * step
    else:
        raise TracksError(f"{path}: no column 't' or 'frame' (its columns: {listed})", "columns")
    if len(times) == 0:
        raise TracksError(f"{path}: no rows")
    geographic = _spelling(roles["x"]) in GEOGRAPHIC[0] and _spelling(roles["y"]) in GEOGRAPHIC[1]
    projection = None
    if geographic:
        lon = _floats(table, roles["x"], path, missing=True)
        lat = _floats(table, roles["y"], path, missing=True)
        metres, projection = _project(np.stack([lon, lat], axis=1))
        z = _floats(table, roles["z"], path, missing=True) if "z" in roles else None
        positions = np.stack(
            [metres[:, 0], np.zeros(len(lon)) if z is None else z, -metres[:, 1]], axis=1
        )
        if z is not None:  # 3D: (east, up, north) as (x, y, z) with +y up
            positions[:, 2] = metres[:, 1]
    else:
        positions = _vectors(table, (roles["x"], roles["y"], roles.get("z")), path)
    velocities = None
    if "vx" in roles and "vy" in roles:
        velocities = _vectors(table, (roles["vx"], roles["vy"], roles.get("vz")), path)
    particles, particle_of = _ids(table, roles["particle"], path)
    if "group" in roles:
        group_names, group_of_row = _ids(table, roles["group"], path)
    else:
        group_names, group_of_row = np.array([path.stem]), np.zeros(len(times), dtype=np.int64)

    # Rows by particle, each particle's in file order: its fixes must then be in time order.
    order = np.argsort(particle_of, kind="stable")
    pid, t = particle_of[order], times[order]
    same_track = pid[1:] == pid[:-1]
    step_back = same_track & (t[1:] <= t[:-1])
    if step_back.any():
        k = int(np.argmax(step_back))
        row, before = int(order[k + 1]), int(order[k])
        name = particles[pid[k]]
        if t[k + 1] == t[k]:
            raise TracksError(f"{_where(path, row)}: particle {name} has two rows at t = {t[k]:g}")
        earlier = _where(path, before).split(": ", 1)[1]
        raise TracksError(
            f"{_where(path, row)}: particle {name}'s t = {t[k + 1]:g} is earlier than "
            f"t = {t[k]:g} on {earlier}: each track's fixes must come in time order"
        )
    group_rows = group_of_row[order]
    first_row = np.searchsorted(pid, pid)
    mixed = group_rows != group_rows[first_row]
    if mixed.any():
        row = int(order[np.argmax(mixed)])
        raise TracksError(
            f"{_where(path, row)}: particle {particles[pid[np.argmax(mixed)]]} changes group"
        )
    if record is None:
        # Centred: steps and turns of tracks in UTM metres keep every digit.
        finite = np.isfinite(positions).all(axis=1)
        if finite.any():
            low, high = positions[finite].min(axis=0), positions[finite].max(axis=0)
            positions = positions - (low + high) / 2
    missing = ~np.isfinite(positions[order]).all(axis=1)
    if velocities is not None:
        missing |= ~np.isfinite(velocities[order]).all(axis=1)
    keep = ~missing
    order, pid, t, group_rows = order[keep], pid[keep], t[keep], group_rows[keep]
    if len(t) == 0:
        raise TracksError(f"{path}: every position is missing")

    if record is not None:
        plan = plan_samples(record.dt, max(float(np.max(t) - np.min(t)), record.dt), rate)
        interval, every = plan.interval, plan.steps_per_sample
        _check_run_rate(path, record, every, rate)
    else:
        interval, every = 1.0 / rate, 1
    fix_gaps = np.diff(t)[pid[1:] == pid[:-1]]
    fix_interval = float(np.median(fix_gaps)) if len(fix_gaps) else math.nan
    if max_gap is None:
        max_gap = GAP_INTERVALS * max(interval, fix_interval if math.isfinite(fix_interval) else 0)
    # Pieces: a new one at each particle's first fix and after each gap longer than max_gap.
    gap = (pid[1:] == pid[:-1]) & (np.diff(t) > max_gap * (1 + _TIME_TOLERANCE))
    new_piece = np.concatenate([[True], (pid[1:] != pid[:-1]) | gap])
    piece_of_row = np.cumsum(new_piece) - 1
    starts = np.flatnonzero(new_piece)
    ends = np.append(starts[1:], len(t))
    first, last = t[starts], t[ends - 1]
    counts = np.floor((last - first) / interval * (1 + _TIME_TOLERANCE) + _TIME_TOLERANCE)
    counts = counts.astype(np.int64) + 1
    long_enough = counts >= min_samples
    if not long_enough.any():
        longest = int(np.argmax(last - first))
        raise TracksError(
            f"{path}: the longest track, {particles[pid[starts[longest]]]}, lasts "
            f"{last[longest] - first[longest]:g} s; the metrics need at least "
            f"{min_samples - 1} sample intervals ({(min_samples - 1) * interval:g} s at "
            f"{1 / interval:g} Hz)"
        )
    starts, ends, first, counts = (a[long_enough] for a in (starts, ends, first, counts))
    count = int(counts.max())
    _check_memory(path, count, len(counts), (count - 1) * interval, 1.0 / interval)
    plan = SamplePlan(steps_per_sample=every, samples=count, interval=interval)

    # Pieces in group order (as a scene's groups are), by particle and time within a group.
    piece_group = group_rows[starts]
    labels, group_rank = _group_labels(group_names, piece_group, record, path)
    pieces = np.lexsort((np.arange(len(starts)), group_rank))
    n = len(pieces)
    # Each row's column in the samples: its piece's rank, -1 for the pieces left out.
    rank = np.full(len(long_enough), -1, dtype=np.int64)
    rank[np.flatnonzero(long_enough)[pieces]] = np.arange(n)
    column = rank[piece_of_row]
    used = column >= 0
    targets = first[pieces][None, :] + np.arange(count)[:, None] * interval  # (T, n)
    # Rows of the pieces measured, in (column, time) order, as _resample needs.
    by_column = np.flatnonzero(used)[np.argsort(column[used], kind="stable")]
    row_column = column[by_column]
    piece_starts = np.searchsorted(row_column, np.arange(n))
    piece_ends = np.append(piece_starts[1:], len(row_column))
    blocks = (t[by_column], row_column, piece_starts, piece_ends, targets)
    lengths = counts[pieces]
    p = _resample(blocks[0], positions[order][by_column], *blocks[1:])
    if velocities is not None:
        v = _resample(blocks[0], velocities[order][by_column], *blocks[1:])
    else:
        v = _track_gradient(p, lengths, interval)
    speeds = np.sqrt(np.einsum("tni,tni->tn", v, v))
    headings = _headings(v, speeds)

    group_counts = np.bincount(group_rank[pieces], minlength=len(labels))
    bounds = np.concatenate([[0], np.cumsum(group_counts)])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    present = group_counts > 0
    valid = np.arange(count)[:, None] < lengths[None, :]
    if record is not None:
        scene = record.scene(str(path))
        low = np.asarray(scene.enclosure.min, dtype=np.float64)
        high = np.asarray(scene.enclosure.max, dtype=np.float64)
        margin = float(scene.enclosure.margin)
    else:
        low, high, margin = p[valid].min(axis=0), p[valid].max(axis=0), math.nan
    samples = Samples(
        interval=interval,
        times=np.arange(count) * interval,
        headings=headings.astype(np.float32),
        positions=p,
        speeds=speeds.astype(np.float32),
        group_slices=tuple(s for s, k in zip(slices, present, strict=True) if k),
        low=low,
        high=high,
        margin=margin,
        lengths=None if np.all(lengths == count) else lengths,
    )
    return Tracks(
        samples=samples,
        groups=tuple(g for g, k in zip(labels, present, strict=True) if k),
        plan=plan,
        record=record,
        fix_interval=fix_interval,
        columns=tuple((role, name) for role, name in roles.items() if name != role),
        projection=projection,
        counts=TrackCounts(
            fixes=len(times),
            missing=int(missing.sum()),
            gaps=int(gap.sum()),
            max_gap=float(max_gap),
            tracks=n,
            short=int((~long_enough).sum()),
            fixes_used=int(used.sum()),
            samples=int(lengths.sum()),
        ),
        velocities=velocities is not None,
    )


def headings_from_positions(samples: Samples) -> Samples:
    """`samples` with headings and speeds taken from the positions, as for tracks read from a
    file without velocities: central differences (one-sided at each track's ends), the last
    direction of motion while at rest. A simulated run measured so compares like for like
    with such tracks (a central difference smooths the turns the true heading makes)."""
    p = np.asarray(samples.positions, dtype=np.float64)
    t, n = p.shape[:2]
    lengths = np.full(n, t, np.int64) if samples.lengths is None else np.asarray(samples.lengths)
    v = _track_gradient(p, lengths, samples.interval)
    speeds = np.sqrt(np.einsum("tni,tni->tn", v, v))
    return dataclasses.replace(
        samples,
        headings=_headings(v, speeds).astype(np.float32),
        speeds=speeds.astype(np.float32),
    )


def _track_gradient(p: Array, lengths: Array, interval: float) -> Array:
    """Velocities of (T, n, 3) positions whose track a has lengths[a] samples (then repeats its
    last): central differences inside each track, one-sided at its first and last sample, and
    the last sample's after its end (so the heading stays)."""
    v = np.gradient(p, interval, axis=0)
    cols = np.arange(p.shape[1])
    end = lengths - 1
    v[end, cols] = (p[end, cols] - p[end - 1, cols]) / interval
    after = np.arange(p.shape[0])[:, None] > end[None, :]
    return np.where(after[..., None], v[end, cols][None], v)


def _check_memory(path: Path, count: int, tracks: int, duration: float, rate: float) -> None:
    """TracksError if resampling `tracks` tracks to `count` samples would not fit in memory
    (tracks lasting years at 10 Hz, or a typo in a time column), before allocating any."""
    need = count * tracks * _RESAMPLE_BYTES + working_bytes(count, tracks)
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
    group_names: Array, track_group: Array, record: Provenance | None, path: Path
) -> tuple[list[GroupLabel], Array]:
    """A label per group and each track's group rank: the scene's order and methods for a
    wander3d run, else the order of the names."""
    if record is None:
        labels = [GroupLabel(str(name), TRACKS_METHOD) for name in group_names]
        return labels, track_group
    scene_groups = record.scene(str(path)).groups
    known = [g.name for g in scene_groups]
    extra = [str(name) for name in group_names if str(name) not in known]
    labels = [GroupLabel(g.name, g.wander.method) for g in scene_groups]
    labels += [GroupLabel(name, TRACKS_METHOD) for name in extra]
    rank_of_name = {label.name: i for i, label in enumerate(labels)}
    ranks = np.array([rank_of_name[str(name)] for name in group_names], dtype=np.int64)
    return labels, ranks[track_group]


def _resample(
    t: Array, values: Array, row_track: Array, starts: Array, ends: Array, targets: Array
) -> Array:
    """Linear interpolation of each track's (rows, k) values at its target times.

    t, values: the rows, each track's a contiguous block in time order; row_track: the
    column of `targets` each row's track has; starts, ends: each column's track's rows (n,);
    targets: (T, n) times within each track's span. Returns (T, n, k) float64. A target within
    _TIME_TOLERANCE of the gap from a fix gets that fix's value exactly.
    """
    count, n = targets.shape
    wanted = targets.ravel()
    # Merge fixes and targets in (column, time) order, fixes first at equal times: the fixes
    # before a target in that order are those of the columns before its own (`before`) and
    # its track's fixes at or before it.
    track = np.concatenate([row_track, np.tile(np.arange(n), count)])
    time = np.concatenate([t, wanted])
    kind = np.concatenate([np.zeros(len(t), np.int8), np.ones(len(wanted), np.int8)])
    merged = np.lexsort((kind, time, track))
    fixes_before = np.cumsum(kind[merged] == 0)
    is_target = kind[merged] == 1
    at_or_before = np.empty(len(wanted), dtype=np.int64)
    at_or_before[merged[is_target] - len(t)] = fixes_before[is_target]
    length = ends - starts
    before = np.concatenate([[0], np.cumsum(length)[:-1]])
    left = starts[None, :] + at_or_before.reshape(count, n) - before[None, :] - 1
    left = np.clip(left, starts[None, :], np.maximum(ends - 2, starts)[None, :])
    right = np.minimum(left + 1, ends[None, :] - 1)
    t_left, t_right = t[left], t[right]
    gap = np.where(t_right > t_left, t_right - t_left, 1.0)
    weight = np.clip((targets - t_left) / gap, 0.0, 1.0)
    weight[weight < _TIME_TOLERANCE] = 0.0
    weight[weight > 1.0 - _TIME_TOLERANCE] = 1.0
    w = weight[..., None]
    return values[left] * (1.0 - w) + values[right] * w


def _headings(velocities: Array, speeds: Array) -> Array:
    """Unit velocity, the last direction of motion while at rest (the first one before any
    motion; +x for a track that never moves): (T, n, 3)."""
    moving = speeds > 1e-12
    t = len(speeds)
    index = np.where(moving, np.arange(t)[:, None], -1)
    last = np.maximum.accumulate(index, axis=0)
    first = np.argmax(moving, axis=0)
    source = np.where(last >= 0, last, first[None, :])
    v = np.take_along_axis(velocities, source[..., None], axis=0)
    norm = np.sqrt(np.einsum("tni,tni->tn", v, v))
    out = np.zeros_like(v)
    out[..., 0] = 1.0
    np.divide(v, norm[..., None], out=out, where=norm[..., None] > 1e-12)
    return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


__all__ = [
    "COLUMN_ALIASES",
    "TRACKS_METHOD",
    "ExportError",
    "TrackCounts",
    "Tracks",
    "TracksError",
    "headings_from_positions",
    "parse_columns",
    "read_tracks",
]
