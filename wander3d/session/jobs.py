"""The engine thread's jobs: small immutable commands, each applied to the run it was made for.

The session queues them in the order asked and runs them one at a time on its engine thread
(session.py); `apply` is the only code that changes a run's simulation. A job that cannot
be applied to the run as it is then (an edit whose result is not a valid scene) changes
nothing and says why (`Applied.rejected`).
"""

from __future__ import annotations

from dataclasses import dataclass

from wander3d.engine import GroupParams, Simulation
from wander3d.scene import Scene, SceneError

from .edits import GroupEdit
from .path import PathTracer
from .published import Pair, TrailPublisher, agents_of
from .timeline import Timeline


@dataclass
class Run:
    """One simulation's run, as the engine thread's jobs see it.

    generation: which of the session's runs it is; scene: the scene it runs (its enclosure
    and dt validate edits); timeline: its checkpoints and edits; trails: what it published.
    """

    generation: int
    scene: Scene
    sim: Simulation
    timeline: Timeline
    trails: TrailPublisher
    tracer: PathTracer | None = None


@dataclass(frozen=True)
class Applied:
    """What applying a job did besides changing the run.

    previous: the agents one step before the end, when the job stepped (to draw between);
    jumped: the run went to another moment (a reset, a seek) instead of stepping;
    rejected: why nothing changed, for a job that could not be applied.
    """

    previous: Pair | None = None
    jumped: bool = False
    rejected: str | None = None


@dataclass(frozen=True)
class Advance:
    """Step `steps` times (the timeline records them; recorded edits replay)."""

    steps: int

    def apply(self, run: Run) -> Applied:
        if self.steps <= 0:
            return Applied()
        run.timeline.advance(self.steps - 1)
        previous = agents_of(run.sim)
        run.timeline.advance(1)
        return Applied(previous=previous)


@dataclass(frozen=True)
class Edit:
    """Change some fields of a group from the current step on (see GroupEdit)."""

    edit: GroupEdit

    def apply(self, run: Run) -> Applied:
        group = self.edit.group
        groups = list(run.sim.groups)
        groups[group] = self.edit.apply(groups[group])
        # Validated again here: the owner checked the edit against the groups it had last
        # collected, and the edits queued before this one may have changed them since.
        try:
            run.scene.replace(groups=tuple(groups))
            run.timeline.edit(group, groups[group])
        except (SceneError, ValueError) as error:
            return Applied(rejected=str(error))
        return Applied()


@dataclass(frozen=True)
class Seek:
    """Go to step `step` of the recorded run (clamped to it)."""

    step: int

    def apply(self, run: Run) -> Applied:
        run.timeline.seek(self.step)
        return Applied(jumped=True)


@dataclass(frozen=True)
class Reset:
    """Back to the scene's start: a new timeline."""

    def apply(self, run: Run) -> Applied:
        run.sim.reset()
        run.timeline = Timeline(run.sim, budget=run.timeline.budget)
        return Applied(jumped=True)


@dataclass(frozen=True)
class Adopt:
    """Make `groups` (the same counts and trails) the ones a reset returns to."""

    groups: tuple[GroupParams, ...]

    def apply(self, run: Run) -> Applied:
        run.sim.adopt_groups(self.groups)
        return Applied()


@dataclass(frozen=True)
class Publish:
    """Change nothing; publish the state again (what is shown changed, or a view asked for
    the trails whole). The selected agent's path is traced a little further meanwhile."""

    def apply(self, run: Run) -> Applied:
        return Applied()


Job = Advance | Edit | Seek | Reset | Adopt | Publish
