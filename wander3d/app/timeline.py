"""The run as a timeline (no Qt): periodic checkpoints plus the log of live edits.

Runs are deterministic, so any moment of the run so far is the nearest earlier checkpoint
stepped forward, with the recorded edits re-applied on the way. Rules:

- The simulation at step s has every edit logged at step s applied; a checkpoint at step s
  holds the state before them (so restoring it and applying the edits at s gives step s).
- Stepping from a past moment replays the recorded edits: the recorded future comes again.
- An edit made at a past moment truncates the timeline there (checkpoints and edits after it
  are dropped): the recorded future no longer follows from the present.
- Checkpoints are taken every CHECKPOINT_SECONDS of simulated time; when they outgrow the
  memory budget the interval doubles and every other checkpoint is dropped. A scene whose one
  snapshot exceeds the budget gets no timeline (`enabled` is False).

`PathTracer` re-simulates the run in a scratch simulation to record one agent's whole path.
"""

from __future__ import annotations

import bisect
import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from wander3d.engine import Enclosure, GroupParams, Simulation, Snapshot

#: Simulated seconds between checkpoints (until the budget doubles it).
CHECKPOINT_SECONDS = 2.0
#: Bytes all checkpoints together may hold.
CHECKPOINT_BUDGET = 256 * 2**20


@dataclass(frozen=True)
class Edit:
    """A live parameter edit: group `group` got `params` at step `step`."""

    step: int
    group: int
    params: GroupParams


class Timeline:
    """Checkpoints and edits of `sim`'s run from its current step (the timeline's start).

    The timeline changes `sim` only through `advance`, `edit` and `seek`; call them from one
    thread at a time.
    """

    def __init__(
        self, sim: Simulation, seconds: float = CHECKPOINT_SECONDS, budget: int = CHECKPOINT_BUDGET
    ) -> None:
        self.sim = sim
        self.interval = max(1, round(seconds / sim.dt))
        self.budget = budget
        self.start = sim.step_count
        self.head = sim.step_count  # the furthest step recorded
        self.checkpoints: dict[int, Snapshot] = {}
        self.edits: list[Edit] = []
        self._edit_steps: list[int] = []
        self.version = 0  # bumped whenever recorded history changes (truncation)
        # Judge by the simulation's size first, so a huge scene is never copied in vain.
        self.enabled = sim.nbytes <= budget
        if self.enabled:
            self.checkpoints[self.start] = sim.snapshot()

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.checkpoints.values())

    # ------------------------------------------------------------------ changing the run
    def advance(self, n: int) -> None:
        """Step `n` times, replaying recorded edits and taking checkpoints on the way."""
        sim = self.sim
        target = sim.step_count + max(0, int(n))
        while sim.step_count < target:
            s = sim.step_count
            stop = min(target, (s // self.interval + 1) * self.interval)
            i = bisect.bisect_right(self._edit_steps, s)
            if i < len(self._edit_steps):
                stop = min(stop, self._edit_steps[i])
            sim.step(stop - s)
            self._arrive()

    def edit(self, group: int, params: GroupParams) -> None:
        """Apply a live edit now (see the module's rules); ValueError as Simulation.update_group."""
        sim = self.sim
        sim.update_group(group, params)
        step = sim.step_count
        if step < self.head:
            self._truncate(step)
        self.edits.append(Edit(step, group, params))
        self._edit_steps.append(step)

    def seek(self, step: int) -> int:
        """Go to `step` (clamped to the recorded run); returns the step reached."""
        sim = self.sim
        step = min(max(int(step), self.start), self.head)
        if not self.enabled:
            step = sim.step_count
        if sim.step_count == step:
            return step
        base = max(k for k in self.checkpoints if k <= step)
        if not base <= sim.step_count <= step:
            sim.restore(self.checkpoints[base])
            self._apply_edits(base)
        self.advance(step - sim.step_count)
        return step

    # ------------------------------------------------------------------ internals
    def _arrive(self) -> None:
        s = self.sim.step_count
        if self.enabled and s % self.interval == 0 and s not in self.checkpoints:
            self._checkpoint(s)
        self._apply_edits(s)
        self.head = max(self.head, s)

    def _apply_edits(self, step: int) -> None:
        for e in self.edits_at(step):
            self.sim.update_group(e.group, e.params)

    def edits_at(self, step: int) -> list[Edit]:
        lo = bisect.bisect_left(self._edit_steps, step)
        hi = bisect.bisect_right(self._edit_steps, step)
        return self.edits[lo:hi]

    def next_edit_after(self, step: int) -> int | None:
        i = bisect.bisect_right(self._edit_steps, step)
        return self._edit_steps[i] if i < len(self._edit_steps) else None

    def _checkpoint(self, step: int) -> None:
        self.checkpoints[step] = self.sim.snapshot()
        while self.nbytes > self.budget and len(self.checkpoints) > 1:
            self.interval *= 2
            self.checkpoints = {
                k: v
                for k, v in self.checkpoints.items()
                if k == self.start or k % self.interval == 0
            }

    def _truncate(self, step: int) -> None:
        keep = bisect.bisect_right(self._edit_steps, step)
        del self.edits[keep:]
        del self._edit_steps[keep:]
        self.checkpoints = {k: v for k, v in self.checkpoints.items() if k <= step}
        self.head = step
        self.version += 1


#: Bytes the path tracer's trail ring may use; it records that many steps per kernel call.
TRACE_RING_BYTES = 8 * 2**20
#: Scenes above this many agents get no whole-path tracing (it re-simulates every agent).
TRACE_MAX_AGENTS = 200_000


@dataclass(frozen=True)
class _TraceSpec:
    seed: int
    dt: float
    enclosure: Enclosure
    groups: tuple[GroupParams, ...]


class PathTracer:
    """One agent's whole path from the timeline's start, re-simulated in a scratch simulation.

    Trails never change the motion, so the scratch simulation records every step of the
    agent's group in its trail ring (and no trail for the other groups), letting one kernel
    call cover many steps. `points` (k, 3) float32 are the agent's positions after steps
    start .. start + k - 1; `breaks` (k,) bool marks a wall reflection just before a point.
    """

    def __init__(self, timeline: Timeline, agent: int) -> None:
        if timeline.start != 0:
            raise ValueError("path tracing needs a timeline that starts at step 0")
        live = timeline.sim
        self.timeline = timeline
        self.version = timeline.version
        self.agent = int(agent)
        self.group = int(live.group_index[agent])
        self.local = self.agent - live.group_slices[self.group].start
        count = live.groups[self.group].count
        self.ring = max(2, min(4096, TRACE_RING_BYTES // (13 * count)))
        start_groups = timeline.checkpoints[timeline.start].groups
        spec = _TraceSpec(
            live.seed,
            live.dt,
            live.enclosure,
            tuple(self._trail_fields(i, g) for i, g in enumerate(start_groups)),
        )
        self.sim = Simulation(spec)
        for e in timeline.edits_at(0):
            self.sim.update_group(e.group, self._trail_fields(e.group, e.params))
        self._points = np.zeros((1024, 3), np.float32)
        self._breaks = np.zeros(1024, bool)
        self._points[0] = self.sim.positions[self.agent]
        self.size = 1

    def _trail_fields(self, index: int, params: GroupParams) -> GroupParams:
        # A ring of `ring` samples over `ring` steps: one sample every step.
        length = self.ring if index == self.group else 0
        seconds = self.ring * self.timeline.sim.dt
        return dataclasses.replace(params, trail_length=length, trail_seconds=seconds)

    @property
    def points(self) -> np.ndarray:
        return self._points[: self.size]

    @property
    def breaks(self) -> np.ndarray:
        return self._breaks[: self.size]

    @property
    def done(self) -> bool:
        return self.sim.step_count >= self.timeline.head

    def trace(self, seconds: float) -> bool:
        """Trace towards the timeline's head for about `seconds`; True if anything was added."""
        sim, timeline = self.sim, self.timeline
        deadline = time.perf_counter() + seconds
        added = False
        trail = sim.trail_buffers[self.group]
        while sim.step_count < timeline.head and time.perf_counter() < deadline:
            s = sim.step_count
            n = min(timeline.head - s, self.ring - 1)
            edit = timeline.next_edit_after(s)
            if edit is not None:
                n = min(n, edit - s)
            sim.step(n)
            slots = trail.ordered_slots()[-n:]
            self._grow(self.size + n)
            self._points[self.size : self.size + n] = trail.points[self.local, slots]
            self._breaks[self.size : self.size + n] = trail.breaks[self.local, slots]
            self.size += n
            for e in timeline.edits_at(sim.step_count):
                sim.update_group(e.group, self._trail_fields(e.group, e.params))
            added = True
        return added

    def _grow(self, size: int) -> None:
        if size <= len(self._points):
            return
        capacity = max(size, 2 * len(self._points))
        points = np.zeros((capacity, 3), np.float32)
        breaks = np.zeros(capacity, bool)
        points[: self.size] = self._points[: self.size]
        breaks[: self.size] = self._breaks[: self.size]
        self._points, self._breaks = points, breaks
