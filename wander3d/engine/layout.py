"""The shape of a run: its agents, groups, box and trail rings, fixed from its start to its end.

A `Layout` follows from a `RunSpec` alone, so whoever draws or measures a run knows its shape
without holding its simulation (the session publishes the run's layout; the renderer builds
its visuals from it). `Simulation` takes its own shape from here too.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .params import RunSpec
from .trails import trail_layout


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Layout:
    """What a run's arrays look like.

    count:         N, agents of all groups;
    group_slices:  each group's agents, contiguous blocks in group order;
    group_index:   (N,) int64, read-only: each agent's group;
    low, high:     (3,) float64, read-only: the enclosure's corners (units);
    dt:            seconds per step;
    trails:        per group, (capacity, every) of its trail ring: `capacity` samples taken
                   every `every` steps (capacity 0: no trail; see trails.trail_layout).
    """

    count: int
    group_slices: tuple[slice, ...]
    group_index: np.ndarray
    low: np.ndarray
    high: np.ndarray
    dt: float
    trails: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, spec: RunSpec) -> Layout:
        """The layout of a simulation of `spec`."""
        counts = [g.count for g in spec.groups]
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        dt = float(spec.dt)
        return cls(
            count=int(starts[-1]),
            group_slices=tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(starts)),
            group_index=_read_only(np.repeat(np.arange(len(counts), dtype=np.int64), counts)),
            low=_read_only(np.asarray(spec.enclosure.min, dtype=np.float64)),
            high=_read_only(np.asarray(spec.enclosure.max, dtype=np.float64)),
            dt=dt,
            trails=tuple(trail_layout(g.trail_length, g.trail_seconds, dt) for g in spec.groups),
        )

    @property
    def groups(self) -> int:
        """How many groups the run has."""
        return len(self.group_slices)

    @property
    def extent(self) -> float:
        """The box's largest side (units)."""
        return float(np.max(self.high - self.low))
