"""The interface every trajectory writer has, and the long table's columns."""

from __future__ import annotations

from typing import Protocol

import numpy as np

Array = np.ndarray

#: The long format's columns, in order: one row per agent per sample.
COLUMNS = ("particle", "group", "frame", "t", "x", "y", "z", "vx", "vy", "vz")


class TrajectoryWriter(Protocol):
    """Writes a run's samples to one file as they are taken.

    `write` gets consecutive chunks of samples, `first` being the index of the chunk's first
    sample; `finish` completes the file after the last chunk. A writer that is not finished
    (the run failed) leaves an unusable file, which `wander3d.files.output_file` then deletes.
    """

    def write(self, first: int, positions: Array, velocities: Array, headings: Array) -> None:
        """positions (units), velocities (units/s), headings (unit): (k, N, 3) float32."""

    def finish(self) -> None:
        """Complete and close the file."""

    def close(self) -> None:
        """Release the file, finished or not (safe to call twice)."""
