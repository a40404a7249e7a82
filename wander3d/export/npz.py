"""The .npz trajectory: whole (T, N, 3) arrays, as numpy users load them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from wander3d.scene import Scene

from .base import Array
from .provenance import Provenance

#: Bytes held per agent and sample until the file is written: float32 positions, velocities.
BYTES_PER_AGENT_SAMPLE = 2 * 3 * 4


class NpzWriter:
    """Arrays only (no pickles), readable with np.load(allow_pickle=False).

    positions, velocities: (T, N, 3) float32, units and units/s; times: (T,) s;
    steps: (T,) step numbers; group_index: (N,); group_names, group_colors: (G,) str;
    bounds: (2, 3) box min and max; dt: s per step; seed; scene_name; scene_text: the TOML;
    wander3d_version; run_steps: steps the run took. The samples are kept in memory until
    `finish` writes them.
    """

    def __init__(self, path: Path, scene: Scene, provenance: Provenance) -> None:
        self._path = path
        self._scene = scene
        self._provenance = provenance
        shape = (provenance.samples, scene.agent_count, 3)
        self._positions = np.empty(shape, dtype=np.float32)
        self._velocities = np.empty(shape, dtype=np.float32)

    def write(self, first: int, positions: Array, velocities: Array, headings: Array) -> None:
        self._positions[first : first + len(positions)] = positions
        self._velocities[first : first + len(velocities)] = velocities

    def finish(self) -> None:
        scene, record = self._scene, self._provenance
        steps = np.arange(record.samples, dtype=np.int64) * record.steps_per_sample
        counts = [g.count for g in scene.groups]
        arrays: dict[str, Any] = {
            "positions": self._positions,
            "velocities": self._velocities,
            "steps": steps,
            "times": steps * scene.dt,
            "group_index": np.repeat(np.arange(len(counts), dtype=np.int64), counts),
            "group_names": np.array([g.name for g in scene.groups], dtype=str),
            "group_colors": np.array([g.color for g in scene.groups], dtype=str),
            "bounds": np.array([scene.enclosure.min, scene.enclosure.max], dtype=np.float64),
            "dt": np.float64(scene.dt),
            "seed": np.int64(scene.seed),
            "scene_name": np.array(scene.name),
            "scene_text": np.array(record.scene_text),
            "wander3d_version": np.array(record.wander3d_version),
            "run_steps": np.int64(record.steps),
        }
        with open(self._path, "wb") as out:
            np.savez(out, **arrays)

    def close(self) -> None:
        """Nothing is open between `write` calls."""
