"""Fixed-capacity trail history: one ring buffer per group, memory independent of run time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def trail_layout(points: int, seconds: float, dt: float) -> tuple[int, int]:
    """(capacity, every): a ring of `capacity` samples taken every `every` steps of `dt` s.

    Covers `seconds` of path (capacity * every * dt) with at most `points` samples: exactly
    when seconds / dt is a multiple of the steps between samples, else to within one sample.
    A trail needing more than one sample per step keeps one per step, and fewer points.
    points = 0 means no trail: (0, 1).
    """
    if points <= 0:
        return 0, 1
    steps = max(1.0, seconds / dt)
    every = max(1, round(steps / points))
    return min(points, max(1, round(steps / every))), every


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
    """Ring buffer of the last `capacity` sampled positions of a group's agents.

    The kernel writes sample k (taken after step k * every; sample 0 is the start) into slot
    k % capacity; every agent of a group is sampled on the same step, so one write index serves
    the group. Storage is slot-major: `slots` (capacity, n_agents, 3) float32 and `slot_breaks`
    (capacity, n_agents) bool are views into the simulation's trail store, so one sample of the
    whole group is one contiguous block (cheap to write, and to upload to a GPU ring).
    `points` (n_agents, capacity, 3) and `breaks` (n_agents, capacity) are the same memory,
    agent-major. `breaks[a, j]` is True when agent a jumped (wall reflection) between the
    sample before slot j and slot j, so the segment ending at slot j must not be drawn.
    """

    def __init__(self, slots: np.ndarray, slot_breaks: np.ndarray, every: int) -> None:
        self.slots = slots
        self.slot_breaks = slot_breaks
        self.points = slots.transpose(1, 0, 2)
        self.breaks = slot_breaks.T
        self.capacity = slots.shape[0]
        self.every = every
        self.samples_written = 0  # total samples ever written; lets a GPU mirror upload deltas
        self.generation = 0  # bumped by every restart, so a mirror knows to start again

    def restart(self) -> None:
        """The simulation went back to its start: the history is new (see `generation`)."""
        self.generation += 1
        self.sync(0)

    def sync(self, step_count: int) -> None:
        """Account for the samples the kernel has written up to `step_count` steps."""
        self.samples_written = step_count // self.every + 1 if self.capacity else 0

    @property
    def head(self) -> int:
        """Slot the next sample goes into; the newest sample is in slot head - 1."""
        return self.samples_written % self.capacity if self.capacity else 0

    @property
    def size(self) -> int:
        """Filled slots, at most capacity."""
        return min(self.samples_written, self.capacity)

    @property
    def nbytes(self) -> int:
        return self.slots.nbytes + self.slot_breaks.nbytes

    def ordered_slots(self) -> np.ndarray:
        """(size,) slot indices from oldest to newest sample."""
        return (self.head - self.size + np.arange(self.size)) % max(self.capacity, 1)

    def view(self) -> TrailView:
        """The trail ordered oldest to newest (copies; for drawing or analysis)."""
        slots = self.ordered_slots()
        points = self.points[:, slots]
        connected = ~self.breaks[:, slots[1:]]
        return TrailView(points=points, connected=connected)
