"""Trajectory files: a run's samples to Parquet, CSV, binary glTF or .npz, and back.

Headless (numpy, pyarrow, pygltflib; no Qt or vispy). `writer_class(path)` picks the format
from the file's extension; every writer takes the samples in chunks as the run goes
(`TrajectoryWriter`). Parquet and CSV stream them to disk, so their memory does not grow with
the run; .glb and .npz hold the whole run until the end (`memory_bytes`). Every file carries
the run's record (`Provenance`: scene TOML, seed, dt, sample interval, versions), from which
`wander3d run --replay FILE` repeats the run exactly.

Imports of pyarrow and pygltflib happen when a writer of that format is asked for.
"""

from __future__ import annotations

from pathlib import Path

from wander3d.files import unknown_format

from .base import COLUMNS, TrajectoryWriter
from .provenance import (
    FORMAT_VERSION,
    METADATA_KEY,
    ExportError,
    Provenance,
    read_provenance,
    sidecar_path,
)

#: Extensions `wander3d run --out` writes, and what each is.
FORMATS = {
    ".parquet": "long table (pandas, trackpy, R, DuckDB)",
    ".csv": "long table, run record in FILE.json",
    ".glb": "binary glTF animation (Blender, three.js, game engines)",
    ".npz": "numpy arrays (numpy.load)",
}
#: Samples are handed to a writer in chunks of about this many rows (agents x samples): a
#: Parquet row group each.
CHUNK_ROWS = 1_000_000


def check_format(path: Path) -> str:
    """The file's format (its lower-case extension); ExportError listing the formats if none,
    or saying that the path is a directory."""
    if Path(path).is_dir():
        raise ExportError(f"{path}: is a directory")
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(unknown_format(path, tuple(FORMATS)))
    return suffix


def writer_class(path: Path) -> type:
    """The writer for the file's extension (see FORMATS); its module is imported now."""
    suffix = check_format(path)
    if suffix == ".parquet":
        from .table import ParquetWriter

        return ParquetWriter
    if suffix == ".csv":
        from .table import CsvWriter

        return CsvWriter
    if suffix == ".glb":
        from .gltf import GlbWriter

        return GlbWriter
    from .npz import NpzWriter

    return NpzWriter


#: Bytes per row of a chunk in flight: the float64 rows the kernel records into (72), the
#: float32 samples copied from them (36) and the Arrow batch built from those with its
#: encoding buffers.
CHUNK_BYTES_PER_ROW = 72 + 36 + 100


def memory_bytes(path: Path, samples: int, agents: int, chunk_samples: int) -> int:
    """About the most memory writing this file takes: a chunk in flight for the streamed
    formats, the whole run as well for .glb and .npz."""
    suffix = check_format(path)
    chunk = chunk_samples * agents * CHUNK_BYTES_PER_ROW
    if suffix == ".glb":
        from .gltf import memory_bytes as glb_bytes

        return chunk + glb_bytes(samples, agents)
    if suffix == ".npz":
        from .npz import BYTES_PER_AGENT_SAMPLE

        return chunk + samples * agents * BYTES_PER_AGENT_SAMPLE
    return chunk


__all__ = [
    "CHUNK_ROWS",
    "COLUMNS",
    "FORMATS",
    "FORMAT_VERSION",
    "METADATA_KEY",
    "ExportError",
    "Provenance",
    "TrajectoryWriter",
    "check_format",
    "memory_bytes",
    "read_provenance",
    "sidecar_path",
    "writer_class",
]
