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
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from wander3d.engine import GroupParams, Simulation, Snapshot, recording

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
        # The engine's stepping loop, stopping at every checkpoint and recorded edit.
        for _ in recording.advance(sim, target, recording.batch_steps(sim.count), self._next_stop):
            self._arrive()

    def _next_stop(self, step: int) -> int:
        """The first step after `step` at which the timeline must see the run: its next
        checkpoint or recorded edit."""
        checkpoint = (step // self.interval + 1) * self.interval
        edit = self.next_edit_after(step)
        return checkpoint if edit is None else min(checkpoint, edit)

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
