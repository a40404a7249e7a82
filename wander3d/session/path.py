"""One agent's whole path since the start of a run, re-simulated on demand.

The timeline (timeline.py) keeps checkpoints, not paths; `PathTracer` replays the run from its
start in a scratch simulation that records only the agent's group, so a path costs nothing
until someone asks for it. It steps through the engine recorder's loop (`advance`), with the
timeline's edits as the stops; it samples every step through the kernel's trail ring rather
than through `record` (see wander3d.engine.recording).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from wander3d.engine import GroupParams, RunSpec, Simulation
from wander3d.engine.recording import advance

from .timeline import Timeline

#: Bytes the path tracer's trail ring may use; it records that many steps per kernel call.
TRACE_RING_BYTES = 8 * 2**20
#: Scenes above this many agents get no whole-path tracing (it re-simulates every agent).
TRACE_MAX_AGENTS = 200_000


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
        spec = RunSpec(
            seed=live.seed,
            dt=live.dt,
            enclosure=live.enclosure,
            groups=tuple(self._trail_fields(i, g) for i, g in enumerate(start_groups)),
        )
        self.sim = Simulation(spec, threads=live.threads)
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
        if sim.step_count >= timeline.head or time.perf_counter() >= deadline:
            return False
        trail = sim.trail_buffers[self.group]
        before = sim.step_count
        # At most ring - 1 steps a call, so the ring still holds every step of the call; each
        # call stops at the next timeline edit, which is applied before stepping on.
        for now in advance(sim, timeline.head, self.ring - 1, timeline.next_edit_after):
            n, before = now - before, now
            slots = trail.ordered_slots()[-n:]
            self._grow(self.size + n)
            self._points[self.size : self.size + n] = trail.points[self.local, slots]
            self._breaks[self.size : self.size + n] = trail.breaks[self.local, slots]
            self.size += n
            for e in timeline.edits_at(now):
                sim.update_group(e.group, self._trail_fields(e.group, e.params))
            if time.perf_counter() >= deadline:
                break
        return True

    def _grow(self, size: int) -> None:
        if size <= len(self._points):
            return
        capacity = max(size, 2 * len(self._points))
        points = np.zeros((capacity, 3), np.float32)
        breaks = np.zeros(capacity, bool)
        points[: self.size] = self._points[: self.size]
        breaks[: self.size] = self._breaks[: self.size]
        self._points, self._breaks = points, breaks
