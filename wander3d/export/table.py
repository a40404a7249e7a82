"""Long-format trajectory tables (Parquet, CSV): one row per agent per sample, streamed.

Columns: particle (int64, unique across groups), group (the group's name), frame (int64, the
sample's index), t (float64, s), x, y, z (float32, units, +y up), vx, vy, vz (float32,
units/s). The names are those trackpy and pandas users expect. Each chunk of samples becomes
a Parquet row group (or a block of CSV lines) as the run goes, so memory stays bounded
however long the run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from wander3d.scene import Scene

from .base import Array
from .provenance import METADATA_KEY, Provenance


def schema(group_type: pa.DataType) -> pa.Schema:
    """The long table's schema; the group column's type differs between Parquet and CSV."""
    f32 = pa.float32()
    return pa.schema(
        [
            ("particle", pa.int64()),
            ("group", group_type),
            ("frame", pa.int64()),
            ("t", pa.float64()),
            ("x", f32),
            ("y", f32),
            ("z", f32),
            ("vx", f32),
            ("vy", f32),
            ("vz", f32),
        ]
    )


class _LongTable:
    """Turns chunks of (k, N, 3) samples into record batches of k * N rows, frame-major."""

    def __init__(self, scene: Scene, provenance: Provenance, dictionary: bool) -> None:
        counts = [g.count for g in scene.groups]
        self.n = sum(counts)
        self.group_index = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        self.names = pa.array([g.name for g in scene.groups], type=pa.string())
        self.dictionary = dictionary
        self.interval = provenance.sample_interval
        self.schema = schema(pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string())

    def batch(self, first: int, positions: Array, velocities: Array) -> pa.RecordBatch:
        k = len(positions)
        frames = np.repeat(np.arange(first, first + k, dtype=np.int64), self.n)
        codes = pa.array(np.tile(self.group_index, k))
        groups = pa.DictionaryArray.from_arrays(codes, self.names)
        p = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
        v = np.asarray(velocities, dtype=np.float32).reshape(-1, 3)
        columns = [
            pa.array(np.tile(np.arange(self.n, dtype=np.int64), k)),
            groups if self.dictionary else groups.cast(pa.string()),
            pa.array(frames),
            pa.array(frames * self.interval),
            *(pa.array(p[:, i]) for i in range(3)),
            *(pa.array(v[:, i]) for i in range(3)),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=self.schema)


class _BatchWriter:
    """Writes each chunk of samples as one Arrow record batch of the long table to `_writer`
    (a pyarrow Parquet or CSV writer), which subclasses open."""

    _table: _LongTable
    _writer: pq.ParquetWriter | pacsv.CSVWriter

    def write(self, first: int, positions: Array, velocities: Array, headings: Array) -> None:
        self._writer.write_batch(self._table.batch(first, positions, velocities))

    def finish(self) -> None:
        self._writer.close()

    def close(self) -> None:
        self._writer.close()


class ParquetWriter(_BatchWriter):
    """A Parquet file, one row group per chunk; the run record in the schema's metadata under
    b"wander3d" (JSON: scene TOML, seed, dt, sample interval, versions)."""

    def __init__(self, path: Path, scene: Scene, provenance: Provenance) -> None:
        self._table = _LongTable(scene, provenance, dictionary=True)
        metadata = {METADATA_KEY.encode(): provenance.to_json().encode()}
        self._writer = pq.ParquetWriter(
            str(path), self._table.schema.with_metadata(metadata), compression="zstd"
        )


class CsvWriter(_BatchWriter):
    """A CSV file with a header line; the run record goes to FILE.json (see `sidecar_path`),
    which the caller writes."""

    def __init__(self, path: Path, scene: Scene, provenance: Provenance) -> None:
        self._table = _LongTable(scene, provenance, dictionary=False)
        self._writer = pacsv.CSVWriter(str(path), self._table.schema)
