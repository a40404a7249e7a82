"""Fixed-capacity trail history: one ring buffer per group, memory independent of run time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TrailView:
    """A group's trail, ordered oldest to newest, ready to draw.

    points:     (n_agents, n_points, 3) float32 world positions.
    connected:  (n_agents, n_points - 1) bool; False where the segment from point j to j+1 must
                not be drawn (the agent was reflected at a wall between the two samples).
    """

    points: np.ndarray
    connected: np.ndarray


class TrailBuffer:
    """Ring buffer of the last `capacity` sampled positions of `n_agents` agents.

    Every agent of a group is sampled on the same step, so one write index serves the group.
    `points[:, head - 1]` is the newest sample; slot order wraps at `capacity`.
    `breaks[a, j]` is True when agent a jumped (wall reflection) between the sample before slot j
    and slot j, so the segment ending at slot j must not be drawn.
    """

    def __init__(self, n_agents: int, capacity: int, every: int) -> None:
        self.capacity = capacity
        self.every = every
        self.points = np.zeros((n_agents, capacity, 3), dtype=np.float32)
        self.breaks = np.zeros((n_agents, capacity), dtype=bool)
        self.head = 0  # slot the next sample goes into
        self.size = 0  # filled slots, <= capacity
        self.samples_written = 0  # total samples ever written; lets a GPU mirror upload deltas
        self._jumped = np.zeros(n_agents, dtype=bool)

    @property
    def nbytes(self) -> int:
        return self.points.nbytes + self.breaks.nbytes + self._jumped.nbytes

    def note_jumps(self, jumped: np.ndarray) -> None:
        """Remember agents (bool (n_agents,)) that jumped since the last sample."""
        self._jumped |= jumped

    def record(self, positions: np.ndarray) -> None:
        """Append one sample of `positions` (n_agents, 3)."""
        if self.capacity == 0:
            return
        self.points[:, self.head] = positions
        self.breaks[:, self.head] = self._jumped
        self._jumped[:] = False
        self.head = (self.head + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.samples_written += 1

    def clear(self) -> None:
        self.head = 0
        self.size = 0
        self.samples_written = 0
        self.breaks[:] = False
        self._jumped[:] = False

    def ordered_slots(self) -> np.ndarray:
        """(size,) slot indices from oldest to newest sample."""
        return (self.head - self.size + np.arange(self.size)) % max(self.capacity, 1)

    def view(self) -> TrailView:
        """The trail ordered oldest to newest (copies; for drawing or analysis)."""
        slots = self.ordered_slots()
        points = self.points[:, slots]
        connected = ~self.breaks[:, slots[1:]]
        return TrailView(points=points, connected=connected)
