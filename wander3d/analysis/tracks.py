"""Tracks from anywhere as `Samples`: `wander3d stats --tracks FILE`.

A CSV or Parquet long table, one row per particle per fix: `particle` (any id), `t` (s) or
`frame` with a time step, `x`, `y` and optionally `z` (+y up), optionally `vx, vy, vz`
(units/s) and `group` (a name). 2D tracks (no `z`) lie in the horizontal plane: (x, y) becomes
(x, 0, -y), seen from above as drawn on paper, so their turn angles are the usual 2D ones.
Each track is resampled by linear interpolation to a fixed interval from its own first fix;
tracks of different durations are all cut to the shortest, because the metrics take (T, n, 3)
arrays. Headings are the velocity's
direction: the vx, vy, vz columns when present, else central differences of the resampled
positions (one-sided at the ends); while a particle is at rest its heading is its last
direction of motion.

Files written by `wander3d run` carry their run's record: the scene's box and groups are then
used (so coverage and wall contact mean what they do for `wander3d stats SCENE`), and the sample
interval is a whole number of the run's steps, as for the scene. Other tracks have no known
enclosure: coverage divides their bounding box and wall contact is NaN.
"""

from __future__ import annotations

import itertools
import math
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


class TracksError(ValueError):
    """The tracks cannot be read; one line naming the file and the column or row.

    `missing` names the argument of `read_tracks` that would have made them readable ("dt"),
    or is None.
    """

    def __init__(self, message: str, missing: str | None = None) -> None:
        self.missing = missing
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        return (type(self), (str(self), self.missing))


@dataclass(frozen=True)
class Tracks:
    """Tracks read and resampled.

    samples:    the resampled tracks, groups in contiguous blocks;
    groups:     a name and method per group, in the samples' order;
    plan:       the sampling (steps_per_sample is the run's, or 1 for foreign tracks);
    record:     the run record if `wander3d run` wrote the file, else None;
    cut:        True if some tracks were longer than the shortest and were cut;
    fix_interval: the median time between consecutive fixes of a track (s).
    """

    samples: Samples
    groups: tuple[GroupLabel, ...]
    plan: SamplePlan
    record: Provenance | None
    cut: bool
    fix_interval: float


def _read_table(path: Path, numeric: tuple[str, ...]):
    """The file as a pyarrow Table; CSV's numeric columns are read as text and checked later,
    so that a bad value can be reported with its line."""
    import pyarrow as pa

    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return _check_header(pq.read_table(path), path)
        if suffix == ".csv":
            import pyarrow.csv as pacsv

            types = {name: pa.string() for name in numeric}
            options = pacsv.ConvertOptions(column_types=types)
            return _check_header(pacsv.read_csv(path, convert_options=options), path)
    except (pa.ArrowException, OSError) as e:
        raise TracksError(f"{path}: {_first_line(e)}") from None
    raise TracksError(f"{path}: tracks must be a .csv or .parquet file")


def _check_header(table, path: Path):
    """The table, if its column names are UTF-8 text and none appears twice."""
    try:
        names = table.column_names
    except UnicodeDecodeError:
        raise TracksError(f"{path}: the column names are not UTF-8 text") from None
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise TracksError(f"{path}: column {twice[0]!r} appears twice")
    return table


def _where(path: Path, row: int) -> str:
    """A data row (0-based) as the user finds it: a CSV line (the header is line 1) or a
    Parquet row (1-based)."""
    if path.suffix.lower() == ".csv":
        return f"{path}: line {row + 2}"
    return f"{path}: row {row + 1}"


def _floats(table, name: str, path: Path) -> Array:
    """A column as float64; TracksError naming the first row that is empty or not a number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(name)
    if column.null_count:
        row = int(np.argmax(np.asarray(pc.is_null(column))))
        raise TracksError(f"{_where(path, row)}: {name} is empty")
    try:
        values = pc.cast(column, pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        # Only on the error path: find the offending value one by one.
        for row, value in enumerate(column.to_pylist()):
            try:
                float(value)
            except (TypeError, ValueError):
                shown = "empty" if value == "" else f"{value!r}, not a number"
                raise TracksError(f"{_where(path, row)}: {name} is {shown}") from None
        raise TracksError(f"{path}: column {name} is not numeric ({column.type})") from None
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise TracksError(f"{_where(path, row)}: {name} is {values[row]}, not a finite number")
    return values


def _vectors(table, names: tuple[str, str, str], path: Path) -> Array:
    """Three columns as (rows, 3) float64 in wander3d's axes (+y up). Without the third,
    the tracks are 2D and lie in the horizontal plane, seen from above as drawn: (x, y)
    becomes (x, 0, -y), so that an anticlockwise turn on paper is a positive turn angle."""
    a, b, c = names
    present = [name for name in names if name in table.column_names]
    columns = {name: _floats(table, name, path) for name in present}
    for name, values in columns.items():
        beyond = np.abs(values) > MAX_COORDINATE
        if beyond.any():
            row = int(np.argmax(beyond))
            raise TracksError(
                f"{_where(path, row)}: {name} is {values[row]:g}, beyond ±{MAX_COORDINATE:g}"
            )
    if c in columns:
        return np.stack([columns[name] for name in names], axis=1)
    x, y = columns[a], columns[b]
    return np.stack([x, np.zeros_like(x), -y], axis=1)


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


def read_tracks(path: Path, rate: float, dt: float | None = None, min_samples: int = 3) -> Tracks:
    """Read `path` and resample every track at `rate` Hz (see the module's description).

    dt: seconds per frame, for files with a `frame` column and no `t`. Raises TracksError (or
    ExportError for a damaged run record) with one line naming the column or row at fault.
    """
    path = Path(path)
    if not path.is_file():
        raise TracksError(f"{path}: {missing_file_problem(path)}")
    record = read_provenance(path) if path.suffix.lower() in (".csv", ".parquet") else None
    numeric = ("t", "frame", "x", "y", "z", "vx", "vy", "vz")
    table = _read_table(path, numeric)
    names = set(table.column_names)
    columns = ", ".join(table.column_names) or "none"
    for required in ("particle", "x", "y"):
        if required not in names:
            raise TracksError(f"{path}: no column {required!r} (its columns: {columns})")
    if "t" in names:
        times = _floats(table, "t", path)
    elif "frame" in names:
        step = dt if dt is not None else (record.sample_interval if record else None)
        if step is None:
            raise TracksError(
                f"{path}: no column 't'; to time its 'frame' column, give the seconds per "
                "frame (dt)",
                missing="dt",
            )
        times = _floats(table, "frame", path) * step
    else:
        raise TracksError(f"{path}: no column 't' or 'frame' (its columns: {columns})")
    if len(times) == 0:
        raise TracksError(f"{path}: no rows")
    positions = _vectors(table, ("x", "y", "z"), path)
    velocities = _vectors(table, ("vx", "vy", "vz"), path) if {"vx", "vy"} <= names else None
    particles, particle_of = _ids(table, "particle", path)
    if "group" in names:
        group_names, group_of_row = _ids(table, "group", path)
    else:
        group_names, group_of_row = np.array([path.stem]), np.zeros(len(times), dtype=np.int64)

    # Rows in (particle, time) order; each particle's rows are then one contiguous run.
    order = np.lexsort((times, particle_of))
    pid, t = particle_of[order], times[order]
    same = (pid[1:] == pid[:-1]) & (t[1:] == t[:-1])
    if same.any():
        row = int(order[1:][same][0])
        raise TracksError(
            f"{_where(path, row)}: particle {particles[pid[1:][same][0]]} has two rows at "
            f"t = {t[1:][same][0]:g}"
        )
    starts = np.searchsorted(pid, np.arange(len(particles)))
    ends = np.append(starts[1:], len(pid))
    group_rows = group_of_row[order]
    mixed = group_rows != group_rows[starts[pid]]
    if mixed.any():
        row = int(order[np.argmax(mixed)])
        raise TracksError(
            f"{_where(path, row)}: particle {particles[pid[np.argmax(mixed)]]} changes group"
        )
    track_group = group_rows[starts]

    first, last = t[starts], t[ends - 1]
    duration = float(np.min(last - first))
    shortest = particles[int(np.argmin(last - first))]
    if record is not None:
        plan = plan_samples(record.dt, max(duration, record.dt), rate)
        interval = plan.interval
        every = plan.steps_per_sample
        _check_run_rate(path, record, every, rate)
    else:
        interval, every = 1.0 / rate, 1
    count = math.floor(duration / interval * (1 + _TIME_TOLERANCE) + _TIME_TOLERANCE) + 1
    if count < min_samples:
        raise TracksError(
            f"{path}: track {shortest} lasts {duration:g} s; the metrics need at least "
            f"{min_samples - 1} sample intervals ({(min_samples - 1) * interval:g} s at "
            f"{1 / interval:g} Hz)"
        )
    _check_memory(path, count, len(particles), duration, 1.0 / interval)
    plan = SamplePlan(steps_per_sample=every, samples=count, interval=interval)
    cut = bool(np.any(last - first > (count - 1) * interval * (1 + 1e-9) + interval))

    # Tracks in group order (as a scene's groups are), by particle within a group.
    labels, group_rank = _group_labels(group_names, track_group, record, path)
    tracks = np.lexsort((np.arange(len(particles)), group_rank))
    targets = first[tracks][None, :] + np.arange(count)[:, None] * interval  # (T, n)
    column = np.empty(len(particles), dtype=np.int64)
    column[tracks] = np.arange(len(particles))
    blocks = (t, column[pid], starts[tracks], ends[tracks], targets)
    p = _resample(blocks[0], positions[order], *blocks[1:])
    if velocities is not None:
        v = _resample(blocks[0], velocities[order], *blocks[1:])
    else:
        v = np.gradient(p, interval, axis=0)
    speeds = np.sqrt(np.einsum("tni,tni->tn", v, v))
    headings = _headings(v, speeds)

    counts = np.bincount(group_rank[tracks], minlength=len(labels))
    bounds = np.concatenate([[0], np.cumsum(counts)])
    slices = tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(bounds))
    keep = counts > 0
    if record is not None:
        scene = record.scene(str(path))
        low = np.asarray(scene.enclosure.min, dtype=np.float64)
        high = np.asarray(scene.enclosure.max, dtype=np.float64)
        margin = float(scene.enclosure.margin)
    else:
        low, high, margin = p.min(axis=(0, 1)), p.max(axis=(0, 1)), math.nan
    samples = Samples(
        interval=interval,
        times=np.arange(count) * interval,
        headings=headings.astype(np.float32),
        positions=p.astype(np.float32),
        speeds=speeds.astype(np.float32),
        group_slices=tuple(s for s, k in zip(slices, keep, strict=True) if k),
        low=low,
        high=high,
        margin=margin,
    )
    groups = tuple(g for g, k in zip(labels, keep, strict=True) if k)
    gaps = np.diff(t)[pid[1:] == pid[:-1]]
    return Tracks(
        samples=samples,
        groups=groups,
        plan=plan,
        record=record,
        cut=cut,
        fix_interval=float(np.median(gaps)),
    )


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


__all__ = ["TRACKS_METHOD", "ExportError", "Tracks", "TracksError", "read_tracks"]
