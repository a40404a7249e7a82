"""`Session`: the one owner of a running simulation, its timeline and the selected agent's path.

Threads: the session is driven from one thread, its owner's (the desktop app's GUI thread, or
a script's). The simulation itself is changed only on the session's engine thread, by jobs run
one at a time in the order asked: steps, live edits, seeks, resets, path tracing. The owner
learns that a job finished through `notify` (called on the engine thread), then calls
`collect()`, which publishes the engine's new state and emits the events, on the owner's
thread. Everything the owner reads between collects (`state`, `groups`, `path`, ...) is an
immutable copy, so it never races the engine.

Edits are commands (`GroupEdit`): they name the fields to change and are applied to the live
groups on the engine thread, so no edit can overwrite another.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from psygnal import Signal, SignalGroup

from wander3d.engine import GroupParams, Simulation
from wander3d.scene import Scene, check_fits

from .edits import FIXED_FIELDS, GroupEdit
from .path import TRACE_MAX_AGENTS, PathTracer
from .timeline import Timeline
from .worker import Worker

#: Time-scale factors offered by "faster" / "slower".
SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Seconds of path tracing per engine job, so steps and edits never wait long behind it.
TRACE_SLICE = 0.01

Pair = tuple[np.ndarray, np.ndarray]


def agents_of(sim: Simulation) -> Pair:
    """Copies of (N, 3) positions (units) and velocities (units/s) as float32, to draw from."""
    return sim.positions.astype(np.float32), sim.velocities.astype(np.float32)


@dataclass(frozen=True)
class EngineState:
    """The engine's state as last collected; immutable, safe to read on the owner's thread.

    step:      the simulation's step count; head: the furthest step its timeline recorded.
    current:   (positions, velocities) at `step`, float32 (N, 3) each.
    previous:  the same one step before `step` when the last job advanced consecutively
               (the app draws between the two), else None.
    groups:    the live group parameters at `step`.
    steps:     steps the last job took; seconds: the wall time it worked (s).
    jumped:    the run went to another moment (a reset, a seek) instead of stepping.
    """

    step: int
    head: int
    current: Pair
    previous: Pair | None
    groups: tuple[GroupParams, ...]
    steps: int = 0
    seconds: float = 0.0
    jumped: bool = False


@dataclass(frozen=True)
class Display:
    """What is shown besides the agents; `trails` and `enclosure` are saved with the scene.

    trails, enclosure:      draw the trails, and the box with its floor grid.
    overlay:                draw the selected agent's wander sphere, target and arrows.
    overlay_all:            draw that overlay on every agent of groups of up to 64.
    hidden_groups:          indices of the groups not drawn.
    """

    trails: bool = True
    enclosure: bool = True
    overlay: bool = True
    overlay_all: bool = False
    hidden_groups: frozenset[int] = frozenset()


class SessionEvents(SignalGroup):
    """What a session announces, always on its owner's thread."""

    #: The scene changed: another file opened or reloaded, or saved under a new name.
    scene_changed = Signal(object)
    #: A new simulation runs (open or reload); True when the same file was reloaded.
    simulation_changed = Signal(bool)
    #: A job finished: `state` (and maybe `groups`, `path`) are new.
    state_changed = Signal()
    #: The live group parameters changed (an edit, a reset, a seek across edits).
    groups_changed = Signal(object)
    running_changed = Signal(bool)
    speed_changed = Signal(float)
    #: The selected agent (an index, or None).
    selection_changed = Signal(object)
    #: The selected agent's traced path changed (or was cleared).
    path_changed = Signal()
    display_changed = Signal(object)


@dataclass
class _Run:
    """One simulation's run; the engine thread's jobs work on it."""

    generation: int
    sim: Simulation
    timeline: Timeline
    tracer: PathTracer | None = None


@dataclass(frozen=True)
class _Result:
    generation: int
    state: EngineState
    path: Pair | None  # the traced path when it grew, else None
    path_agent: int | None  # whose path the tracer holds (None: no tracer)


Job = Callable[[], _Result]


class Session:
    """Runs one scene at a time; see the module's doc for the threading rules.

    notify: called on the engine thread whenever a job finishes (the app turns it into a
    queued Qt signal); the owner then calls `collect()`.
    threads: how many threads every simulation of the session steps on (see `Simulation`);
    None: all the engine has.
    """

    def __init__(
        self,
        scene: Scene,
        notify: Callable[[], None] = lambda: None,
        threads: int | None = None,
    ) -> None:
        """Raises MemoryFitError if `scene` does not fit in this machine's memory budget."""
        self.threads = threads
        self.events = SessionEvents()
        #: Called on the engine thread when a job finished; the owner may replace it.
        self.notify = notify
        self._worker = Worker(notify=lambda: self.notify())
        self._pending: deque[tuple[str, Job]] = deque()
        self._generation = 0
        self.running = False
        self.speed = 1.0
        self.selected: int | None = None
        self.path_on = False
        self.path: Pair | None = None
        self.path_agent: int | None = None
        self._start(scene, reloaded=False)

    # ------------------------------------------------------------------ reading
    @property
    def scene(self) -> Scene:
        """The scene as its file has it (no live edits; see `current_scene`)."""
        return self._scene

    @property
    def groups(self) -> tuple[GroupParams, ...]:
        """The live group parameters as last collected."""
        return self.state.groups

    @property
    def step(self) -> int:
        return self.state.step

    @property
    def head(self) -> int:
        return self.state.head

    @property
    def dt(self) -> float:
        return self._scene.dt

    @property
    def agent_count(self) -> int:
        """Agents in the running simulation (a resized group may differ from the file's)."""
        return int(self._group_index.shape[0])

    @property
    def group_index(self) -> np.ndarray:
        """(N,) int64: the group of each agent."""
        return self._group_index

    @property
    def timeline_enabled(self) -> bool:
        """Whether the run is recorded for seeking (huge scenes are not)."""
        return self._timeline_enabled

    @property
    def path_available(self) -> bool:
        """Whether the selected agent's whole path can be traced in this scene."""
        return self._timeline_enabled and self.agent_count <= TRACE_MAX_AGENTS

    @property
    def simulation(self) -> Simulation:
        """The running simulation itself. Read it only while the engine is idle (`busy` is
        False, or right after `collect()` returned True, before anything else is asked):
        drawing code uploads its arrays then."""
        return self._run.sim

    @property
    def busy(self) -> bool:
        """Whether engine work is in flight, waiting to be collected, or queued."""
        return self._worker.busy or bool(self._pending)

    @property
    def wants_work(self) -> bool:
        """Whether the engine has something to do or hand over (including path tracing)."""
        return self.busy or self._tracing()

    def current_scene(self) -> Scene:
        """The scene as it runs now: live parameter edits and display toggles included (the
        edits collected so far: `settle()` first to include every one asked for)."""
        view = dataclasses.replace(
            self._scene.view, show_trails=self.display.trails, show_enclosure=self.display.enclosure
        )
        return self._scene.replace(groups=self.groups, view=view)

    @property
    def modified(self) -> bool:
        """Whether the running scene differs from its file (live edits or display toggles)."""
        return self.current_scene().to_toml() != self._scene.to_toml()

    # ------------------------------------------------------------------ scenes
    def open(self, scene: Scene, reloaded: bool = False) -> None:
        """Run `scene` from its start in place of the current one; queued work is dropped.

        Raises MemoryFitError (nothing changed) if its simulation would not fit in this
        machine's memory budget, MemoryError if allocating it failed all the same.
        """
        self._start(scene, reloaded)

    def _start(self, scene: Scene, reloaded: bool) -> None:
        check_fits(scene)
        sim = Simulation(scene.run_spec, threads=self.threads)
        self._generation += 1
        self._run = _Run(self._generation, sim, Timeline(sim))
        self._pending.clear()
        self._scene = scene
        self._group_index = sim.group_index
        self._timeline_enabled = self._run.timeline.enabled
        self.state = EngineState(sim.step_count, sim.step_count, agents_of(sim), None, sim.groups)
        self.display = Display(trails=scene.view.show_trails, enclosure=scene.view.show_enclosure)
        self.selected = None
        self.path = self.path_agent = None
        self.events.scene_changed.emit(scene)
        self.events.simulation_changed.emit(reloaded)
        self.events.display_changed.emit(self.display)
        self.events.selection_changed.emit(None)
        self.events.groups_changed.emit(self.groups)
        self.events.path_changed.emit()
        self.events.state_changed.emit()

    def mark_saved(self, scene: Scene) -> None:
        """The running scene was saved as `scene` (its file and text): it becomes the scene,
        and a reset now starts from its groups."""
        self._scene = scene
        run, groups = self._run, scene.groups
        self._queue("adopt", self._job(lambda: run.sim.adopt_groups(groups)))
        self.events.scene_changed.emit(scene)

    # ------------------------------------------------------------------ playing
    def set_running(self, running: bool) -> None:
        self.running = bool(running)
        self.events.running_changed.emit(self.running)

    def toggle_running(self) -> None:
        self.set_running(not self.running)

    def change_speed(self, direction: int) -> None:
        """One notch faster (+1) or slower (-1) along SPEEDS."""
        i = min(len(SPEEDS) - 1, max(0, SPEEDS.index(self.speed) + direction))
        self.speed = SPEEDS[i]
        self.events.speed_changed.emit(self.speed)

    def single_step(self) -> None:
        """Pause and advance one step."""
        self.set_running(False)
        self.advance(1)

    def advance(self, steps: int) -> None:
        """Queue `steps` steps (the timeline records them; recorded edits replay)."""
        self._queue("step", self._advance_job(int(steps)))

    def reset(self) -> None:
        """Back to the scene's start: a new timeline."""
        run = self._run

        def reset() -> None:
            run.sim.reset()
            run.timeline = Timeline(run.sim)

        self._queue("reset", self._job(reset, jumped=True))

    def seek(self, step: int) -> None:
        """Pause and go to `step` of the recorded run (clamped to it)."""
        if self.running:
            self.set_running(False)
        run = self._run
        job = self._job(lambda: run.timeline.seek(step), jumped=True)
        # Only the latest of a burst of seeks (a dragged slider) is worth doing.
        if self._pending and self._pending[-1][0] == "seek":
            self._pending[-1] = ("seek", job)
        else:
            self._queue("seek", job)

    def edit(self, group: int, **changes: Any) -> None:
        """Change group `group`'s parameters (GroupParams or WanderParams fields) from the
        current step on, applied to its live parameters on the engine thread.

        Raises ValueError for an unknown or fixed field, SceneError for a value the scene
        format does not allow; nothing is queued then.
        """
        command = GroupEdit(group, changes)
        # Validate at the boundary: the result must be a valid scene.
        groups = list(self.groups)
        groups[group] = command.apply(groups[group])
        self._scene.replace(groups=tuple(groups))
        run = self._run

        def edit() -> None:
            run.timeline.edit(group, command.apply(run.sim.groups[group]))

        self._queue("edit", self._job(edit))

    def resize_group(self, group: int, **changes: Any) -> None:
        """Change what sizes group `group`'s arrays (`count`, `trail_length`,
        `trail_seconds`): the run starts again from the start of the scene as it runs now, with
        those changed (the camera stays). The scene's file is still what `modified` compares
        with, so the change counts as an unsaved edit.

        Raises ValueError for another field, SceneError for a value the scene format does not
        allow, MemoryFitError if the result would not fit; nothing changed then.
        """
        other = set(changes) - FIXED_FIELDS
        if other:
            raise ValueError(f"{', '.join(sorted(other))}: edit it live (Session.edit)")
        self.settle()  # the live edits asked for so far are part of the scene restarted
        groups = list(self.groups)
        groups[group] = dataclasses.replace(groups[group], **changes)
        scene = self.current_scene().replace(groups=tuple(groups))
        saved = self._scene
        self._start(scene, reloaded=True)
        self._scene = saved
        self.events.groups_changed.emit(self.groups)  # now `modified` is true: say so

    # ------------------------------------------------------------------ selection and display
    def select(self, agent: int | None) -> None:
        """Select agent `agent` (an index into the simulation's agents) or none."""
        if agent is not None and not 0 <= agent < self.agent_count:
            raise ValueError(f"no agent {agent}: the scene has {self.agent_count}")
        self.selected = None if agent is None else int(agent)
        self.events.selection_changed.emit(self.selected)
        self._show_path()

    def set_path(self, on: bool) -> None:
        """Trace and show the selected agent's whole path (where `path_available`)."""
        self.path_on = bool(on)
        self._show_path()
        self.dispatch()

    def set_display(self, **changes: Any) -> None:
        """Change what is drawn (Display's fields)."""
        display = dataclasses.replace(self.display, **changes)
        if display != self.display:
            self.display = display
            self.events.display_changed.emit(display)

    def set_group_visible(self, group: int, visible: bool) -> None:
        hidden = self.display.hidden_groups
        self.set_display(hidden_groups=hidden - {group} if visible else hidden | {group})

    # ------------------------------------------------------------------ the engine thread
    def collect(self) -> bool:
        """Publish a finished job's result and emit its events; then start the next queued
        command (not steps or tracing: `dispatch` decides those). Returns True when a result
        of the running simulation was collected."""
        if not self._worker.finished:
            return False
        result: _Result = self._worker.take()
        collected = result.generation == self._generation
        if collected:
            groups_before = self.state.groups
            self.state = result.state
            if result.path is not None:
                self.path, self.path_agent = result.path, result.path_agent
            self.events.state_changed.emit()
            if result.state.groups != groups_before:
                self.events.groups_changed.emit(result.state.groups)
            if result.path is not None:
                self.events.path_changed.emit()
        self._dispatch_command()
        return collected

    def dispatch(self, steps: int = 0) -> None:
        """Give an idle engine its next job: a queued command, else `steps` steps (the
        owner's pacing decides them), else a slice of path tracing."""
        if self._worker.busy or self._dispatch_command():
            return
        if steps > 0:
            self._worker.submit(self._advance_job(steps))
        elif self._tracing():
            self._worker.submit(self._job(lambda: None))

    def _dispatch_command(self) -> bool:
        """Start the next queued command on an idle engine; True if one started."""
        if self._worker.busy or not self._pending:
            return False
        self._worker.submit(self._pending.popleft()[1])
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job in flight finished (True) or `timeout` s passed (False)."""
        return self._worker.wait(timeout)

    def settle(self, timeout: float = 10.0) -> None:
        """Run every queued command to its end, collecting each: what is read afterwards
        (`groups`, `current_scene()`) includes every command asked for so far.

        Raises TimeoutError if a job takes longer than `timeout` seconds.
        """
        self._dispatch_command()
        while self.busy:
            if not self.wait(timeout):
                raise TimeoutError(f"the engine did not finish a job within {timeout} s")
            self.collect()

    def close(self) -> None:
        """Stop the engine thread after the job in flight; queued work is dropped."""
        self._pending.clear()
        self._worker.close()

    # ------------------------------------------------------------------ internals
    def _queue(self, kind: str, job: Job) -> None:
        self._pending.append((kind, job))
        self.dispatch()

    def _advance_job(self, steps: int) -> Job:
        run = self._run

        def advance() -> Pair:
            run.timeline.advance(steps - 1)
            previous = agents_of(run.sim)
            run.timeline.advance(1)
            return previous

        return self._job(advance, consecutive=True)

    def _job(
        self, action: Callable[[], object], consecutive: bool = False, jumped: bool = False
    ) -> Job:
        """Wrap `action` (run on the engine thread) into a job that reports the engine's state.

        consecutive: `action` returns the agents one step before the end (to draw between).
        jumped: the run goes to another moment instead of stepping (a reset, a seek).
        """
        run = self._run
        agent = self.selected if self.path_on and self.path_available else None
        # The owner dropped its copy (the agent was deselected, then selected again while the
        # engine idled): the tracer's path must be handed over again, grown or not.
        handed = self.path is not None and self.path_agent == agent

        def job() -> _Result:
            sim = run.sim
            t0 = time.perf_counter()
            before = sim.step_count
            out = action()
            seconds = time.perf_counter() - t0
            state = EngineState(
                step=sim.step_count,
                head=run.timeline.head,
                current=agents_of(sim),
                previous=out if consecutive else None,  # type: ignore[arg-type]
                groups=sim.groups,
                steps=max(0, sim.step_count - before),
                seconds=seconds,
                jumped=jumped,
            )
            return _Result(run.generation, state, _trace(run, agent, handed), agent)

        return job

    def _tracing(self) -> bool:
        """Whether the selected agent's path wants more tracing."""
        if not (self.path_on and self.path_available) or self.selected is None:
            return False
        if self.path_agent != self.selected:
            return True
        return self.path is None or len(self.path[0]) <= self.head

    def _show_path(self) -> None:
        """Drop a shown path that no longer belongs to the selection (tracing resumes)."""
        if self.path is not None and (not self.path_on or self.path_agent != self.selected):
            self.path = self.path_agent = None
            self.events.path_changed.emit()


def _trace(run: _Run, agent: int | None, handed: bool = True) -> Pair | None:
    """Trace `agent`'s path a little further (engine thread); copies when it changed, or
    when the owner holds none of it (`handed` False)."""
    if agent is None:
        run.tracer = None
        return None
    tracer, timeline = run.tracer, run.timeline
    fresh = (
        tracer is None
        or tracer.agent != agent
        or tracer.timeline is not timeline
        or tracer.version != timeline.version
    )
    if fresh:
        tracer = run.tracer = PathTracer(timeline, agent)
    assert tracer is not None
    if tracer.trace(TRACE_SLICE) or fresh or not handed:
        return tracer.points.copy(), tracer.breaks.copy()
    return None
