"""Sweep results on disk: part files written as cells finish, then one table.

While a sweep runs, finished cells go to `OUT.parts/`, a folder beside the output, in small
Parquet part files, each renamed into place whole, so a killed sweep loses at most the cells
of the part it had not written yet. A restarted sweep reads the parts, and the table an earlier
run finished, and skips the cells they hold. At the end the rows are put in sweep order (cell,
then group: never completion order, so any number of workers writes the same bytes) and
written to OUT at once; then the parts go.

Columns: one per varied key (named by its key path), `seed`, `cell_id`, `group` and every field
of `GroupStats` after the name, in its order.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from wander3d.analysis import GroupStats
from wander3d.export import sidecar_path
from wander3d.files import OutputError, output_file, unknown_format

from .spec import Sweep

#: Schema metadata key holding the sweep file's text (Parquet) / sidecar JSON keys.
SWEEP_METADATA_KEY = b"wander3d.sweep"
FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}

_ARROW_TYPES = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
#: Seconds between part files: few files for big sweeps, little lost to a kill.
FLUSH_SECONDS = 1.0


def metric_fields() -> list[dataclasses.Field]:
    """GroupStats's fields after `name` (which becomes the `group` column)."""
    return [f for f in dataclasses.fields(GroupStats) if f.name != "name"]


def _arrow_type(field: dataclasses.Field) -> pa.DataType | None:
    """The column type for a GroupStats field (None: let Arrow infer it)."""
    name = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    return _ARROW_TYPES.get(name.replace(" | None", ""))


def parts_folder(out: Path) -> Path:
    """Where a sweep writing `out` keeps its finished cells until the end."""
    return out.with_name(out.name + ".parts")


def table_format(out: Path) -> str:
    """ "parquet" or "csv" from the output's suffix; ValueError for anything else."""
    try:
        return FORMATS[out.suffix.lower()]
    except KeyError:
        raise ValueError(unknown_format(out, tuple(FORMATS))) from None


class PartWriter:
    """Collects finished cells and writes them to part files in `folder` (made with the first
    part), about every FLUSH_SECONDS and on `flush()`; `written` counts the cells written.

    The caller must be the only writer of the folder (the sweep's lock): temporary part
    files found there are what a killed writer left, and are removed.
    """

    def __init__(self, folder: Path, flush_seconds: float = FLUSH_SECONDS) -> None:
        self.folder = folder
        self.flush_seconds = flush_seconds
        self.written = 0
        self._rows: list[dict[str, Any]] = []
        self._cells: set[str] = set()
        self._last = time.monotonic()
        for stale in folder.glob(".part-*.tmp") if folder.is_dir() else ():
            with contextlib.suppress(OSError):
                stale.unlink()

    def add(self, cell_id: str, stats: Sequence[GroupStats]) -> None:
        for index, group in enumerate(stats):
            self._rows.append({"cell_id": cell_id, "group_index": index, **_stats_row(group)})
        self._cells.add(cell_id)
        if time.monotonic() - self._last >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write what has not been written yet as one part file (renamed into place whole).

        OutputError naming the folder if it cannot be written (a full disk); the rows stay,
        for a later flush.
        """
        self._last = time.monotonic()
        if not self._rows:
            return
        columns = {"cell_id": pa.string(), "group_index": pa.int64(), "name": pa.string()}
        columns.update({f.name: _arrow_type(f) for f in metric_fields()})
        table = pa.table(
            {name: pa.array([r[name] for r in self._rows], type=t) for name, t in columns.items()}
        )
        name = f"part-{time.time_ns()}-{os.getpid()}.parquet"
        temporary = self.folder / f".{name}.tmp"
        try:
            self.folder.mkdir(exist_ok=True)
            pq.write_table(table, temporary)
            os.replace(temporary, self.folder / name)
        except OSError as e:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise OutputError(self.folder, f"cannot write: {e.strerror or e}") from None
        self.written += len(self._cells)
        self._rows = []
        self._cells = set()


def _stats_row(stats: GroupStats) -> dict[str, Any]:
    return {f.name: getattr(stats, f.name) for f in dataclasses.fields(GroupStats)}


def read_parts(folder: Path, groups: dict[str, int]) -> dict[str, list[dict[str, Any]]]:
    """Finished cells found in `folder`: cell id -> its rows (one per group, in order).

    groups: cell id -> number of groups, for the cells wanted; parts of other cells, parts
    without today's metric columns and unreadable files are ignored (those cells run again).
    """
    found: dict[str, list[dict[str, Any]]] = {}
    if not folder.is_dir():
        return found
    wanted = {"cell_id", "group_index", "name"} | {f.name for f in metric_fields()}
    for path in sorted(folder.glob("part-*.parquet")):
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException):
            continue
        if not wanted <= set(table.column_names):
            continue
        by_cell: dict[str, list[dict[str, Any]]] = {}
        for row in table.select(sorted(wanted)).to_pylist():
            by_cell.setdefault(row["cell_id"], []).append(row)
        for cid, rows in by_cell.items():
            rows.sort(key=lambda r: r["group_index"])
            if cid in groups and [r["group_index"] for r in rows] == list(range(groups[cid])):
                found[cid] = rows
    return found


def read_table_cells(out: Path, groups: dict[str, int]) -> dict[str, list[dict[str, Any]]]:
    """Finished cells in an earlier sweep's table at `out` (.parquet, or .csv as write_table
    writes it): cell id -> its rows (one per group, in order), as `read_parts` gives them.

    So a finished sweep, rerun or extended (more values, more seeds), runs only the cells
    its table lacks. groups: as for read_parts; a table without today's columns, or one that
    cannot be read, gives nothing (its cells run again).
    """
    if not out.is_file():
        return {}
    wanted = {"cell_id", "group"} | {f.name for f in metric_fields()}
    try:
        rows = _table_rows(out, wanted)
    except (OSError, ValueError, KeyError, pa.ArrowException, csv.Error):
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        cell = found.setdefault(row.pop("cell_id"), [])
        row["name"] = row.pop("group")
        cell.append(row)
    # A cell listed twice in the sweep (the same scene and seed) is in the table twice.
    return {
        cid: rows[: groups[cid]]
        for cid, rows in found.items()
        if cid in groups and len(rows) % groups[cid] == 0 and rows
    }


def _table_rows(out: Path, wanted: set[str]) -> list[dict[str, Any]]:
    """The `wanted` columns of a sweep table, row by row, with their Python values."""
    if table_format(out) == "parquet":
        table = pq.read_table(out)
        if not wanted <= set(table.column_names):
            return []
        return table.select(sorted(wanted)).to_pylist()
    readers = {f.name: _CSV_READERS[str(f.type).replace(" | None", "")] for f in metric_fields()}
    readers.update(cell_id=str, group=str)
    with open(out, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if not wanted <= set(reader.fieldnames or ()):
            return []
        return [{name: readers[name](row[name]) for name in wanted} for row in reader]


def _csv_bool(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(f"not a boolean: {text!r}")
    return text == "true"


#: Reading back what _csv_value wrote, by GroupStats field type.
_CSV_READERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": _csv_bool,
}


def build_table(sweep: Sweep, results: dict[str, list[dict[str, Any]]]) -> pa.Table:
    """The sweep's table: rows in sweep order (cell, then group), every cell in `results`."""
    columns: dict[str, list[Any]] = {a.key.text: [] for a in sweep.axes}
    names = ["seed", "cell_id", "group", *(f.name for f in metric_fields())]
    columns.update({n: [] for n in names})
    for cell in sweep.cells:
        for row in results[cell.id]:
            for axis, value in zip(sweep.axes, cell.values, strict=True):
                columns[axis.key.text].append(value)
            columns["seed"].append(cell.seed)
            columns["cell_id"].append(cell.id)
            columns["group"].append(row["name"])
            for f in metric_fields():
                columns[f.name].append(row[f.name])
    types = {"seed": pa.int64(), "cell_id": pa.string(), "group": pa.string()}
    types.update({f.name: _arrow_type(f) for f in metric_fields()})
    arrays = {name: pa.array(values, type=types.get(name)) for name, values in columns.items()}
    metadata = {SWEEP_METADATA_KEY: sweep.text.encode("utf-8")}
    return pa.table(arrays).replace_schema_metadata(metadata)


def write_table(table: pa.Table, out: Path, sweep_text: str) -> None:
    """Write `table` to `out` (.parquet, or .csv with its sidecar OUT.json, e.g.
    atlas.csv.json), whole or not at all."""
    if table_format(out) == "parquet":
        with output_file(out) as temporary:
            pq.write_table(table, temporary)
        return
    sidecar = sidecar_path(out)  # atlas.csv.json, as `run` names a CSV's record
    with output_file(out) as temporary, output_file(sidecar) as side:
        try:
            with open(temporary, "w", newline="", encoding="utf-8") as f:
                writer = csv.writer(f, lineterminator="\n")
                writer.writerow(table.column_names)
                for row in table.to_pylist():
                    writer.writerow([_csv_value(v) for v in row.values()])
        except OSError as e:  # the table's error, not the sidecar's (whose block this is in)
            raise OutputError(out, f"cannot write: {e.strerror or e}") from None
        meta = {"sweep": sweep_text, "columns": table.column_names}
        side.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def _csv_value(value: Any) -> str:
    """Text that reads back exactly: repr for floats, true/false, JSON for lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value).lower()
    if isinstance(value, list):
        return json.dumps(value)
    return str(value)


def remove_parts(folder: Path) -> None:
    """Remove a parts folder once its rows are in the output (ignoring what is already gone)."""
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(folder)


def remove_empty_parts(folder: Path) -> None:
    """Remove a parts folder that holds no finished cell (no part file): nothing to resume.

    Temporary part files a killed writer left count as nothing; the caller holds the lock.
    """
    if not folder.is_dir() or any(folder.glob("part-*.parquet")):
        return
    for stale in folder.glob(".part-*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()


def cell_groups(sweep: Sweep) -> dict[str, int]:
    """Cell id -> how many groups its scene has (rows a finished cell must have)."""
    return {c.id: len(c.scene.groups) for c in sweep.cells}


def missing(sweep: Sweep, done: Iterable[str]) -> list:
    """The sweep's cells not in `done`, in sweep order."""
    have = set(done)
    return [c for c in sweep.cells if c.id not in have]
