"""A tracks file's rows as arrays: which column is which, and every row read and checked.

Long tables (a row per particle per fix) name their columns in the field's spellings
(`COLUMN_ALIASES`); wide tables, one row per time with `x1, y1, x2, y2, ...` (idtracker.ai's
`trajectories.csv`), are read as one track per numbered pair. A file without a particle
column is one track. Every value is checked as it is read, and a bad one is reported with
its line (`TracksError`, `missing` naming the argument of `read_tracks` that helps).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wander3d.scene import memory_budget
from wander3d.scene.memory import format_bytes

from . import track_source
from .track_source import Dialect, Lines, SourceError
from .track_times import TimeError, TimeReader, time_reader

Array = np.ndarray

#: What each column is, in the spellings found in the field's files, first match wins; a
#: file's column matches when equal ignoring case, spaces, '-', '_' and ':'.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "particle": (
        "particle",
        "id",
        "track_id",
        "individual-local-identifier",
        "individual_id",
        "individual",
        "animal_id",
        "object_id",
        "trajectory_id",
        "traj_id",
        "mmsi",
        "icao24",
        "hex",
        "tag-local-identifier",
        # Last: ADS-B data name the ground track's angle "track" beside their icao24 ids.
        "track",
    ),
    "t": (
        "t",
        "time",
        "timestamp",
        "seconds",
        "datetime",
        "date_time",
        "basedatetime",
        "time_s",
        "update_time",
    ),
    "frame": ("frame", "frame_number", "frame_no", "frame_idx", "frame_index"),
    "x": ("x", "pos_x", "position_x", "location-long", "longitude", "lon", "lng", "long"),
    "y": ("y", "pos_y", "position_y", "location-lat", "latitude", "lat"),
    "z": (
        "z",
        "pos_z",
        "position_z",
        "altitude",
        "alt",
        "elevation",
        "ele",
        "height",
        "height-above-ellipsoid",
        "height-above-msl",
        "geoaltitude",
        "alt_geom",
        "baroaltitude",
        "alt_baro",
    ),
    "vx": ("vx", "vel_x", "velocity_x"),
    "vy": ("vy", "vel_y", "velocity_y"),
    "vz": ("vz", "vel_z", "velocity_z"),
    "group": ("group",),
}
#: x and y columns with these names (as spelled for matching) hold longitude and latitude.
GEOGRAPHIC = (
    ("locationlong", "longitude", "lon", "lng", "long"),
    ("locationlat", "latitude", "lat"),
)
#: Altitude columns in feet, by name (ADS-B Exchange's alt_baro and alt_geom are feet).
FEET_NAMES = re.compile(r"(ft|feet|altbaro|altgeom)$")
#: Metres per unit of `z_unit`.
Z_UNITS = {"m": 1.0, "ft": 0.3048}
#: The largest coordinate or velocity component read (units): far beyond any world a game
#: or a GPS logger covers, and far inside float32's range, which the samples use.
MAX_COORDINATE = 1e15
#: A wide table's numbered coordinate columns: x1, y1, X_2, ...
_WIDE = re.compile(r"^(?P<axis>[xyz])_?(?P<n>\d+)$", re.I)
#: Bytes kept per fix while reading: id, time, x, y, z (and the row order sorting needs).
ROW_BYTES = 4 + 8 + 24 + 8
#: Non-empty values of the time column its form is found from.
HEAD_VALUES = 200
#: Roles read as numbers.
NUMERIC = ("x", "y", "z", "vx", "vy", "vz")


class TracksError(ValueError):
    """The tracks cannot be read; one line naming the file and the column or row.

    `missing` names the argument of `read_tracks` (a `TrackOptions` field) that would have
    made them readable ("dt", "columns", "sort", "drop_duplicates", "time_format",
    "separator", ...), or is None.
    """

    def __init__(self, message: str, missing: str | None = None) -> None:
        self.missing = missing
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        return (type(self), (str(self), self.missing))


def spelling(name: str) -> str:
    """A column name as matched: without case, spaces, '-', '_' or ':'."""
    return re.sub(r"[\s_\-:]", "", name).lower()


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


@dataclass(frozen=True)
class Layout:
    """Which columns hold what. roles: {role: column} of a long table (a wide table's time
    only); wide: ((track name, x, y, z or None), ...) of a wide table, else empty."""

    roles: dict[str, str]
    wide: tuple[tuple[str, str, str, str | None], ...] = ()

    @property
    def columns(self) -> list[str]:
        """Every column to read."""
        names = list(self.roles.values())
        for _name, *axes in self.wide:
            names += [a for a in axes if a is not None]
        return names


def map_columns(names: list[str], explicit: Mapping[str, str], path: Path) -> Layout:
    """The layout of a file with columns `names`: the explicit roles (exact, or the one column
    equal to it as spelled), then the first alias of each other role that some column
    spells; a table without x and y but with numbered pairs is wide."""
    roles: dict[str, str] = {}
    by_spelling: dict[str, str] = {}
    for name in names:
        by_spelling.setdefault(spelling(name), name)
    listed = ", ".join(names) or "none"
    for role, column in explicit.items():
        if column not in names:
            if spelling(column) not in by_spelling:
                raise TracksError(
                    f"{path}: no column {column!r} for {role} (its columns: {listed})"
                )
            column = by_spelling[spelling(column)]
        roles[role] = column
    taken = set(roles.values())
    for role, aliases in COLUMN_ALIASES.items():
        if role in roles:
            continue
        for alias in aliases:
            found = by_spelling.get(spelling(alias))
            if found is not None and found not in taken:
                roles[role] = found
                taken.add(found)
                break
    if "x" not in roles and "y" not in roles and "particle" not in explicit:
        wide = _wide_columns(names)
        if wide:
            return Layout({r: c for r, c in roles.items() if r in ("t", "frame")}, wide)
    return Layout(roles)


def _wide_columns(names: list[str]) -> tuple[tuple[str, str, str, str | None], ...]:
    """Numbered x, y (and z) columns as one track each, in their number's order."""
    axes: dict[str, dict[str, str]] = {}
    for name in names:
        m = _WIDE.match(name.strip())
        if m:
            axes.setdefault(str(int(m["n"])), {})[m["axis"].lower()] = name
    tracks = [(n, a["x"], a["y"], a.get("z")) for n, a in axes.items() if "x" in a and "y" in a]
    return tuple(sorted(tracks, key=lambda track: int(track[0])))


@dataclass
class Rows:
    """Every fix of a file, in file order (a wide table's: time by time, track by track).

    particle: (n,) int32 index into `names`; t: (n,) float64 seconds (NaN: empty); xyz:
    (n, 3) float64 as the file holds them (NaN: missing, or no such column); velocity: (n, 3)
    or None; group: (n,) int32 into `groups` or None; source: (n,) int64 data row of each
    fix, or None when fix i is row i.
    """

    particle: Array
    t: Array
    xyz: Array
    velocity: Array | None
    group: Array | None
    names: list[Any]
    groups: list[Any]
    source: Array | None
    notes: list[str] = field(default_factory=list)

    def row(self, fix: int) -> int:
        """The data row of fix `fix`."""
        return fix if self.source is None else int(self.source[fix])


class _Ids:
    """Ids of any kind, batch by batch, as indices in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def codes(self, column: Any) -> Array:
        import pyarrow as pa
        import pyarrow.compute as pc

        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        values = column.dictionary.to_pylist()
        lookup = np.array([self.index.setdefault(v, len(self.index)) for v in values], np.int32)
        indices = track_source.as_numpy(pc.cast(column.indices, pa.int32()), np.int32)
        return lookup[indices] if len(lookup) else np.zeros(len(indices), np.int32)

    def sorted(self) -> tuple[list[Any], Array]:
        """The ids in order (numbers by value, else as text) and each first-seen index's
        place in that order."""
        values = list(self.index)
        if all(isinstance(v, int | float) for v in values):
            keys: list[Any] = values
        elif all(isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v) for v in values):
            keys = [int(v) for v in values]
        else:
            keys = [str(v) for v in values]
        order = sorted(range(len(values)), key=keys.__getitem__)
        rank = np.empty(len(values), np.int32)
        rank[order] = np.arange(len(values), dtype=np.int32)
        return [values[i] for i in order], rank


@dataclass(frozen=True)
class ReadPlan:
    """What to read and how: the layout, the CSV column types and the time reader."""

    layout: Layout
    types: dict[str, Any]
    times: TimeReader | None
    frame_dt: float | None


def read_rows(
    path: Path,
    dialect: Dialect,
    plan: ReadPlan,
    lines: Lines,
    expected: int,
    budget: tuple[int, str] | None = None,
) -> Rows:
    """Every row of `path` as `Rows`, read batch by batch into arrays sized for `expected`
    rows. TracksError, with the line, for a value that is not what its column holds; and,
    before reading more rows than fit in the memory budget (`ROW_BYTES` a fix), one saying
    so. With dialect.skip_bad, rows with the wrong number of fields are skipped and counted
    (`Rows.notes`), not refused."""
    import pyarrow as pa

    layout = plan.layout
    roles = layout.roles
    budget = budget or memory_budget()
    per_row = max(1, len(layout.wide)) * ROW_BYTES
    ids, groups = _Ids(), _Ids()
    parts = _Growing(expected)
    rows_read = 0
    bad = track_source.BadRows(dialect.skip_bad)
    batches = track_source.read_batches(path, dialect, layout.columns, plan.types, bad=bad)
    try:
        for batch in batches:
            n = batch.num_rows
            if (rows_read + n) * per_row > budget[0]:
                raise TracksError(
                    f"{path}: more than {rows_read + n:,} rows; their fixes alone would need "
                    f"{format_bytes((rows_read + n) * per_row)}, more than the "
                    f"{format_bytes(budget[0])} allowed ({budget[1]})"
                )
            _read_batch(batch, rows_read, plan, ids, groups, parts, lines)
            rows_read += n
    except pa.ArrowInvalid as e:
        raise _arrow_error(e, path, dialect, plan, lines) from None
    except (pa.ArrowException, OSError, EOFError) as e:
        raise TracksError(f"{path}: {_first_line(e)}") from None
    except UnicodeDecodeError:
        raise TracksError(f"{path}: not UTF-8 text (save it as UTF-8 or UTF-16)") from None
    if rows_read == 0:
        raise TracksError(f"{path}: no rows")
    names, rank = ids.sorted()
    group_names, group_rank = groups.sorted()
    particle = parts.take("p")
    if not layout.wide and "particle" in roles:
        particle = rank[particle]
    elif layout.wide:
        names = [name for name, *_ in layout.wide]
    else:
        names = [track_source.stem(path)]
    group = parts.take("g")
    return Rows(
        particle=particle if particle is not None else np.zeros(0, np.int32),
        t=parts.take("t"),  # type: ignore[arg-type]
        xyz=parts.take("x"),  # type: ignore[arg-type]
        velocity=parts.take("v"),
        group=group_rank[group] if group is not None else None,
        names=names,
        groups=group_names,
        source=parts.take("s"),
        notes=_bad_notes(bad.rows, lines),
    )


def _bad_notes(rows: list[str], lines: Lines) -> list[str]:
    """A note on the rows skipped for their number of fields, naming the first's line."""
    if not rows:
        return []
    line = lines.find(rows[0])
    first = f", the first on line {line}" if line is not None else ""
    plural = "s" if len(rows) != 1 else ""
    return [f"{len(rows):,} row{plural} with the wrong number of fields skipped{first}"]


class _Growing:
    """Arrays filled batch by batch in place: each starts at the rows expected and grows by
    a quarter when a batch does not fit (concatenating a list of batches would hold every
    fix twice at the end)."""

    def __init__(self, expected: int) -> None:
        self.expected = max(expected, 1)
        self.arrays: dict[str, Array] = {}
        self.filled: dict[str, int] = {}

    def append(self, key: str, values: Array) -> None:
        self.slot(key, len(values), values.shape[1:], values.dtype)[:] = values

    def slot(self, key: str, rows: int, shape: tuple[int, ...], dtype: Any) -> Array:
        """The next `rows` rows under `key` (each of `shape`), to be filled in place."""
        have = self.filled.get(key, 0)
        array = self.arrays.get(key)
        need = have + rows
        if array is None or need > len(array):
            size = max(need, self.expected if array is None else int(len(array) * 1.25))
            grown = np.empty((size, *shape), dtype=dtype)
            if array is not None:
                grown[:have] = array[:have]
            self.arrays[key] = array = grown
        self.filled[key] = need
        return array[have:need]

    def take(self, key: str) -> Array | None:
        """The array filled under `key` (None if nothing was), released from the store."""
        array = self.arrays.pop(key, None)
        return None if array is None else array[: self.filled[key]]


def _read_batch(
    batch: Any,
    first_row: int,
    plan: ReadPlan,
    ids: _Ids,
    groups: _Ids,
    parts: _Growing,
    lines: Lines,
) -> None:
    """Append one batch's fixes to `parts`."""
    layout = plan.layout
    roles = layout.roles
    n = batch.num_rows

    def column(name: str) -> Any:
        return batch.column(batch.schema.get_field_index(name))

    t = _times(column, plan, first_row, lines)
    if layout.wide:
        k = len(layout.wide)
        xyz = np.full((n, k, 3), np.nan)
        for j, (_name, *axes) in enumerate(layout.wide):
            for i, name in enumerate(axes):
                if name is not None:
                    xyz[:, j, i] = _floats(column(name), name, first_row, lines)
        parts.append("p", np.tile(np.arange(k, dtype=np.int32), n))
        parts.append("t", np.repeat(t, k))
        parts.append("x", xyz.reshape(-1, 3))
        parts.append("s", np.repeat(np.arange(first_row, first_row + n, dtype=np.int64), k))
        return
    if "particle" in roles:
        codes = _codes(ids, column(roles["particle"]), roles["particle"], first_row, lines)
        parts.append("p", codes)
    else:
        parts.append("p", np.zeros(n, np.int32))
    parts.append("t", t)
    present = [axis for axis in "xyz" if axis in roles]
    xyz = parts.slot("x", n, (len(present),), np.float64)
    for i, axis in enumerate(present):
        xyz[:, i] = _floats(column(roles[axis]), roles[axis], first_row, lines)
    if "vx" in roles and "vy" in roles:
        v = np.zeros((n, 3))
        for i, role in enumerate(("vx", "vy", "vz")):
            if role in roles:
                v[:, i] = _floats(column(roles[role]), roles[role], first_row, lines)
        parts.append("v", v)
    if "group" in roles:
        parts.append("g", _codes(groups, column(roles["group"]), roles["group"], first_row, lines))


def _codes(ids: _Ids, column: Any, name: str, first_row: int, lines: Lines) -> Array:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_nested(column.type):
        raise TracksError(f"{lines.path}: column {name} holds {column.type}, not one id per row")
    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
        raise TracksError(f"{lines.path}: column {name} is not UTF-8 text")
    if column.null_count:
        row = int(np.argmax(np.asarray(pc.is_null(column))))
        raise TracksError(f"{lines.at(first_row + row)}: {name} is empty")
    return ids.codes(column)


def _times(column: Any, plan: ReadPlan, first_row: int, lines: Lines) -> Array:
    """A batch's times (s), NaN where empty (a fix that cannot be placed in time, left out
    as missing as one without a position is); TracksError naming the line of a bad one."""
    roles = plan.layout.roles
    if plan.times is None:  # frames
        assert plan.frame_dt is not None
        name = roles["frame"]
        t = _floats(column(name), name, first_row, lines) * plan.frame_dt
    else:
        name = plan.times.name
        try:
            t = plan.times.seconds(column(name))
        except TimeError as e:
            place = lines.at(first_row + e.row) if e.row is not None else str(lines.path)
            raise TracksError(f"{place}: {e}", e.option) from None
    infinite = np.isinf(t)
    if infinite.any():
        row = int(np.argmax(infinite))
        raise TracksError(f"{lines.at(first_row + row)}: {name} is {t[row]}, not a finite number")
    return t


def _floats(column: Any, name: str, first_row: int, lines: Lines) -> Array:
    """A numeric column as float64, NaN where empty; TracksError naming the line of an
    infinite value, of one beyond ±MAX_COORDINATE, or of text that is not a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_nested(column.type):
        raise TracksError(f"{lines.path}: column {name} holds {column.type}, not numbers")
    try:
        values = track_source.as_numpy(pc.cast(column, pa.float64()), np.float64, math.nan)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        for row, value in enumerate(column.to_pylist()):
            try:
                float(value if value is not None else "nan")
            except (TypeError, ValueError):
                raise TracksError(
                    f"{lines.at(first_row + row)}: {name} is {value!r}, not a number"
                ) from None
        raise TracksError(f"{lines.path}: column {name} is not numeric ({column.type})") from None
    values = np.asarray(values, dtype=np.float64)
    beyond = np.abs(values) > MAX_COORDINATE  # NaN, a missing value, is not beyond
    if beyond.any():
        row = int(np.argmax(beyond))
        value = values[row]
        said = (
            f"{value}, not a finite number"
            if np.isinf(value)
            else (f"{value:g}, beyond ±{MAX_COORDINATE:g}")
        )
        raise TracksError(f"{lines.at(first_row + row)}: {name} is {said}")
    return values


_CONVERSION = re.compile(
    r"In CSV column #(\d+): CSV conversion error to (\S+): invalid value '(.*)'"
)


def _arrow_error(
    e: Exception, path: Path, dialect: Dialect, plan: ReadPlan, lines: Lines
) -> TracksError:
    """pyarrow's parse error as a TracksError naming the line: a value its column's type
    cannot hold is found by reading that column again as text."""
    text = _first_line(e)
    m = _CONVERSION.search(text)
    if m is not None:
        name = plan.layout.columns[int(m[1])] if int(m[1]) < len(plan.layout.columns) else None
        found = _find_value(path, dialect, plan, name, m[3]) if name else None
        if found is not None:
            return TracksError(f"{lines.at(found)}: {name} is {m[3]!r}, not a number")
    return _parse_error(text, path, dialect, lines)


def _parse_error(text: str, path: Path, dialect: Dialect, lines: Lines) -> TracksError:
    """pyarrow's CSV parse error `text` as a TracksError naming the line it quotes."""
    return source_error(track_source.parse_error(text, path, dialect))


def _find_value(path: Path, dialect: Dialect, plan: ReadPlan, name: str, value: str) -> int | None:
    """The first row whose `name` is the text `value`, reading that column as text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    first = 0
    try:
        for batch in track_source.read_batches(path, dialect, [name], {name: pa.string()}):
            hits = np.asarray(
                pc.equal(pc.utf8_trim_whitespace(batch.column(0)), value.strip()).fill_null(False)
            )
            if hits.any():
                return first + int(np.argmax(hits))
            first += batch.num_rows
    except (pa.ArrowException, OSError):
        return None
    return None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def source_error(e: SourceError) -> TracksError:
    """A `track_source` error as a TracksError naming its argument."""
    return TracksError(str(e), e.option)


def plan_read(
    path: Path,
    dialect: Dialect,
    names: list[str],
    layout: Layout,
    *,
    dt: float | None,
    record_dt: float | None,
    time_format: str | None,
    time_unit: str | None,
) -> ReadPlan:
    """How to read the file's rows: numeric columns typed for the CSV reader, and the time
    column's reader found from its first values."""
    import pyarrow as pa

    roles = layout.roles
    listed = ", ".join(names) or "none"
    if not layout.wide:
        for required in ("x", "y"):
            if required not in roles:
                raise TracksError(
                    f"{path}: no column {required!r} (its columns: {listed})", "columns"
                )
    types: dict[str, Any] = {}
    numeric = [roles[r] for r in NUMERIC if r in roles]
    numeric += [a for _n, *axes in layout.wide for a in axes if a is not None]
    for name in numeric:
        types[name] = pa.float64()
    for role in ("particle", "group"):
        if role in roles:
            types[roles[role]] = pa.dictionary(pa.int32(), pa.string())
    if "t" in roles:
        head = _head_values(path, dialect, roles["t"])
        try:
            if head is None:  # a Parquet timestamp column
                reader = TimeReader(roles["t"], "date")
            else:
                reader = time_reader(roles["t"], list(head[0]), time_unit, time_format)
        except TimeError as e:
            assert head is not None
            row = head[1][e.row or 0] if head[1] else 0
            raise TracksError(f"{Lines(path, dialect).at(row)}: {e}", e.option) from None
        types[roles["t"]] = pa.float64() if reader.kind == "number" else pa.string()
        return ReadPlan(layout, types, reader, None)
    if "frame" in roles:
        step = dt if dt is not None else record_dt
        if step is None:
            raise TracksError(
                f"{path}: no column 't'; to time its {roles['frame']!r} column, give the "
                "seconds per frame (dt)",
                missing="dt",
            )
        types[roles["frame"]] = pa.float64()
        return ReadPlan(layout, types, None, step)
    raise TracksError(f"{path}: no column 't' or 'frame' (its columns: {listed})", "columns")


def _head_values(path: Path, dialect: Dialect, name: str) -> tuple[list[str], list[int]] | None:
    """The first HEAD_VALUES values of column `name` that are not empty, as text, and their
    data rows (None for a Parquet timestamp column). Read on past empty values as far as
    needed: a GPS log's first points often have no time, and a window of them alone shows
    no time's form."""
    import pyarrow as pa

    values: list[str] = []
    rows: list[int] = []
    first = 0
    try:
        with contextlib.ExitStack() as opened:
            batches: Any
            if dialect.parquet:
                import pyarrow.parquet as pq

                f = opened.enter_context(pq.ParquetFile(path))
                if pa.types.is_timestamp(f.schema_arrow.field(name).type):
                    return None
                batches = f.iter_batches(batch_size=HEAD_VALUES, columns=[name])
            else:
                batches = track_source.read_batches(
                    path, dialect, [name], {name: pa.string()}, track_source.HEAD_BLOCK_BYTES
                )
            for batch in batches:
                first = _gather(batch.column(0), first, values, rows)
                if len(values) >= HEAD_VALUES:
                    break
    except (pa.ArrowException, OSError, EOFError) as e:
        raise _parse_error(_first_line(e), path, dialect, Lines(path, dialect)) from None
    if dialect.decimal == ",":  # as the reader will parse numbers
        values = [v.replace(",", ".") for v in values]
    return values[:HEAD_VALUES], rows[:HEAD_VALUES]


def _gather(column: Any, first: int, values: list[str], rows: list[int]) -> int:
    """Append the non-empty values of a batch's `column` (data rows from `first` on) to
    `values` as text, up to HEAD_VALUES, and their rows to `rows`; the next batch's first
    row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        column = pc.cast(column, pa.string())
    filled = pc.fill_null(pc.not_equal(pc.utf8_trim_whitespace(column), ""), False)
    found = np.flatnonzero(np.asarray(filled))[: HEAD_VALUES - len(values)]
    values += column.take(pa.array(found)).to_pylist()
    rows += (found + first).tolist()
    return first + len(column)


__all__ = [
    "COLUMN_ALIASES",
    "GEOGRAPHIC",
    "MAX_COORDINATE",
    "Z_UNITS",
    "Layout",
    "Rows",
    "TracksError",
    "map_columns",
    "parse_columns",
    "plan_read",
    "read_rows",
    "spelling",
]
