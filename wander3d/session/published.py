"""What the session publishes after every engine job: immutable copies to draw from.

At the end of each job the engine thread copies out of the simulation everything a view
draws: the agents, each shown group's new trail samples (or its whole ring) and the overlay's
arrays for the agents it covers, into an `EngineState`. The owner's thread and the renderer
read only these copies (read-only numpy arrays), never the simulation, which the next job may
already be stepping. A run's shape, which never changes while it runs, is its `Layout`
(wander3d.engine.layout).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wander3d.engine import GroupParams, Layout, Simulation, TrailBuffer

Pair = tuple[np.ndarray, np.ndarray]

#: With "overlay on every agent" on, groups of at most this many agents show it on each one.
OVERLAY_ALL_MAX = 64


def frozen(array: np.ndarray) -> np.ndarray:
    """`array`, read-only (a copy the caller made, now published)."""
    array.flags.writeable = False
    return array


def agents_of(sim: Simulation) -> Pair:
    """Read-only copies of (N, 3) positions (units) and velocities (units/s) as float32."""
    return frozen(sim.positions.astype(np.float32)), frozen(sim.velocities.astype(np.float32))


@dataclass(frozen=True)
class Display:
    """What is shown besides the agents; `trails` and `enclosure` are saved with the scene.

    trails, enclosure:      draw the trails, and the box with its floor grid.
    overlay:                draw the selected agent's wander sphere, target and arrows.
    overlay_all:            draw that overlay on every agent of groups of up to
                            OVERLAY_ALL_MAX agents.
    hidden_groups:          indices of the groups not drawn.
    """

    trails: bool = True
    enclosure: bool = True
    overlay: bool = True
    overlay_all: bool = False
    hidden_groups: frozenset[int] = frozenset()

    def trails_shown(self, group: int) -> bool:
        """Whether group `group`'s trails are drawn."""
        return self.trails and group not in self.hidden_groups


def overlay_agents(layout: Layout, display: Display, selected: int | None) -> np.ndarray:
    """(k,) int64, sorted: the agents the overlay covers under `display` with `selected` the
    selected agent (or None): every agent of the visible groups of up to OVERLAY_ALL_MAX
    when `overlay_all`, and the selected agent, if its group is visible, when `overlay`."""
    chosen: list[np.ndarray] = []
    hidden = display.hidden_groups
    if display.overlay_all:
        for g, sl in enumerate(layout.group_slices):
            if g not in hidden and sl.stop - sl.start <= OVERLAY_ALL_MAX:
                chosen.append(np.arange(sl.start, sl.stop))
    if display.overlay and selected is not None and int(layout.group_index[selected]) not in hidden:
        chosen.append(np.array([selected]))
    if not chosen:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(chosen)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Overlay:
    """The debug overlay's arrays for agents `agents` ((k,) int64, sorted), at one step.

    positions, velocities, forces (after truncation), wander_points (each agent's target),
    wander_centers: (k, 3) float64 (units, units/s, force units, units, units);
    wander_radii: (k,) float64 (units). All read-only.
    """

    agents: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    forces: np.ndarray
    wander_points: np.ndarray
    wander_centers: np.ndarray
    wander_radii: np.ndarray

    @classmethod
    def of(cls, sim: Simulation, agents: np.ndarray) -> Overlay:
        """Copies of `sim`'s overlay arrays for `agents` (engine thread)."""
        agents = np.asarray(agents, dtype=np.int64)
        copies = (frozen(getattr(sim, name)[agents]) for name in _PER_AGENT)
        return cls(frozen(agents.copy()), *copies)

    def subset(self, agents: np.ndarray) -> Overlay:
        """The rows of those of `agents` (sorted) this overlay holds."""
        rows = np.flatnonzero(np.isin(self.agents, agents))
        return Overlay(
            frozen(self.agents[rows]), *(frozen(getattr(self, name)[rows]) for name in _PER_AGENT)
        )


#: Overlay's per-agent arrays after `agents`, in field order: Simulation attributes alike.
_PER_AGENT = tuple(f.name for f in dataclasses.fields(Overlay))[1:]

#: The overlay of no agents.
NO_OVERLAY = Overlay(
    agents=frozen(np.zeros(0, np.int64)),
    positions=frozen(np.zeros((0, 3))),
    velocities=frozen(np.zeros((0, 3))),
    forces=frozen(np.zeros((0, 3))),
    wander_points=frozen(np.zeros((0, 3))),
    wander_centers=frozen(np.zeros((0, 3))),
    wander_radii=frozen(np.zeros(0)),
)


@dataclass(frozen=True, eq=False)
class TrailSamples:
    """Samples of one group's trail ring: those taken since the group's last publication, or
    the whole ring (`whole`) when a mirror must start again.

    Sample k is taken after k * every steps and lives in ring slot k % capacity.
    generation: the ring's history (it changes when the run restarts or jumps: a mirror of
                an older generation starts again from a whole ring);
    first:      the number of the first sample held;
    points:     (k, n, 3) float32, samples first .. first + k - 1 of the group's n agents
                (units), oldest first; read-only;
    breaks:     (k, n) bool, read-only: True where the agent was reflected at a wall just
                before the sample (the segment ending there must not be drawn);
    capacity:   slots of the ring.
    """

    generation: int
    first: int
    points: np.ndarray
    breaks: np.ndarray
    capacity: int
    whole: bool

    @property
    def written(self) -> int:
        """Samples taken in all, up to the newest one held."""
        return self.first + len(self.points)

    @property
    def head(self) -> int:
        """The slot the next sample goes into."""
        return self.written % self.capacity

    @property
    def size(self) -> int:
        """Filled slots of the ring."""
        return min(self.written, self.capacity)


class TrailPublisher:
    """What each group's trail ring has published so far in one run (engine thread only).

    Each publication holds the samples since the group's previous one, so a mirror that
    applies every publication in order holds the ring as the engine has it; a group not
    shown publishes nothing and catches up (or starts again whole) when shown again.
    """

    def __init__(self, groups: int) -> None:
        self._sent: list[tuple[int, int] | None] = [None] * groups  # (generation, written)

    def publish(
        self, buffers: Sequence[TrailBuffer], shown: Sequence[bool], whole: bool = False
    ) -> tuple[TrailSamples | None, ...]:
        """Per group: its new samples (or whole ring) if it has a trail and is `shown`, else
        None. whole: every shown group's whole ring (a view asked to start again)."""
        return tuple(
            self._publish(g, b, whole) if shown[g] and b.capacity and b.slots.shape[1] else None
            for g, b in enumerate(buffers)
        )

    def _publish(self, group: int, buffer: TrailBuffer, whole: bool) -> TrailSamples:
        written, generation = buffer.samples_written, buffer.generation
        sent = self._sent[group]
        if whole or sent is None or sent[0] != generation or written - sent[1] > buffer.capacity:
            first, whole = written - buffer.size, True
        else:
            first = sent[1]
        self._sent[group] = (generation, written)
        slots = np.arange(first, written) % buffer.capacity
        return TrailSamples(
            generation=generation,
            first=first,
            points=frozen(buffer.slots[slots]),
            breaks=frozen(buffer.slot_breaks[slots]),
            capacity=buffer.capacity,
            whole=whole,
        )


@dataclass(frozen=True, eq=False)
class EngineState:
    """The engine's state as a job left it; immutable, safe to read on any thread.

    step:      the simulation's step count; head: the furthest step its timeline recorded.
    current:   (positions, velocities) at `step`, float32 (N, 3) each.
    previous:  the same one step before `step` when the last job advanced consecutively
               (the app draws between the two), else None.
    groups:    the live group parameters at `step`.
    trails:    per group, its trail samples published with this state (see TrailPublisher),
               or None: no trail, or not shown when the job ran.
    overlay:   the overlay's arrays for the agents it covered when the job ran.
    steps:     steps the last job took; seconds: the wall time it worked (s).
    jumped:    the run went to another moment (a reset, a seek) instead of stepping.
    """

    step: int
    head: int
    current: Pair
    previous: Pair | None
    groups: tuple[GroupParams, ...]
    trails: tuple[TrailSamples | None, ...]
    overlay: Overlay = NO_OVERLAY
    steps: int = 0
    seconds: float = 0.0
    jumped: bool = False
