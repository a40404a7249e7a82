"""`Session`: the one owner of a running simulation, its timeline and the selected agent's path.

Threads: the session is driven from one thread, its owner's (the desktop app's GUI thread, or
a script's). The simulation itself is changed only on the session's engine thread, by jobs
(jobs.py: small immutable commands) run one at a time in the order asked: steps, live edits,
seeks, resets, path tracing. The owner learns that a job finished through `notify` (called
on the engine thread), then calls `collect()`, which publishes the engine's new state and
emits the events, on the owner's thread. Everything the owner reads (`state`, `groups`,
`path`, ...) is an immutable copy, and the session's own settings (`running`, `speed`,
`selected`, `display`) change only through its methods, which announce them.

What a job publishes (published.py) is all a view draws from: the agents, the shown groups'
new trail samples and the overlay's arrays for the agents it covers, as the job left them.
No one outside the session holds its simulation.

Edits are commands (`GroupEdit`): they name the fields to change, are validated on the
owner's thread against the groups it last collected, and are applied to the live groups on
the engine thread, validated again there, so no edit can overwrite another and none can
leave an invalid scene running.
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

from wander3d.engine import GroupParams, Layout, Simulation
from wander3d.scene import Scene, check_fits

from .edits import FIXED_FIELDS, GroupEdit
from .jobs import Adopt, Advance, Applied, Edit, Job, Publish, Reset, Run, Seek
from .path import TRACE_MAX_AGENTS, PathTracer
from .published import Display, EngineState, Overlay, Pair, TrailPublisher, agents_of
from .published import overlay_agents as covered_by_overlay
from .timeline import CHECKPOINT_BUDGET, Timeline
from .worker import Worker

#: Time-scale factors offered by "faster" / "slower".
SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Seconds of path tracing per engine job, so steps and edits never wait long behind it.
TRACE_SLICE = 0.01


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
    #: An edit could not be applied to the live groups as they were on the engine thread
    #: (the message says why); nothing changed.
    edit_rejected = Signal(str)
    running_changed = Signal(bool)
    speed_changed = Signal(float)
    #: The selected agent (an index, or None).
    selection_changed = Signal(object)
    #: The selected agent's traced path changed (or was cleared).
    path_changed = Signal()
    display_changed = Signal(object)


@dataclass(frozen=True)
class _Wanted:
    """What the owner wants a job to publish, as it was when the job started.

    display and selected: which trails and whose overlay; path_agent: whose path to trace
    (None: none); path_handed: the owner holds that path already (only growth is sent);
    whole_trails: send the shown trails whole (a view asked to start again).
    """

    display: Display
    selected: int | None
    path_agent: int | None
    path_handed: bool
    whole_trails: bool


@dataclass(frozen=True)
class _Result:
    generation: int
    state: EngineState
    path: Pair | None  # the traced path when it grew, else None
    path_agent: int | None  # whose path the tracer holds (None: no tracer)
    rejected: str | None  # why the job changed nothing


def _publish(run: Run, wanted: _Wanted, applied: Applied, before: int, seconds: float) -> _Result:
    """The engine's state after a job (engine thread; or the owner's, before any job ran)."""
    sim, display = run.sim, wanted.display
    shown = [display.trails_shown(g) for g in range(len(sim.groups))]
    agents = covered_by_overlay(sim.layout, display, wanted.selected)
    state = EngineState(
        step=sim.step_count,
        head=run.timeline.head,
        current=agents_of(sim),
        previous=applied.previous,
        groups=sim.groups,
        trails=run.trails.publish(sim.trail_buffers, shown, wanted.whole_trails),
        overlay=Overlay.of(sim, agents),
        steps=max(0, sim.step_count - before),
        seconds=seconds,
        jumped=applied.jumped,
    )
    path = _trace(run, wanted.path_agent, wanted.path_handed)
    return _Result(run.generation, state, path, wanted.path_agent, applied.rejected)


class Session:
    """Runs one scene at a time; see the module's doc for the threading rules.

    notify: called on the engine thread whenever a job finishes (the app turns it into a
    queued Qt signal); the owner then calls `collect()`.
    threads: how many threads every simulation of the session steps on (see `Simulation`);
    None: all the engine has.
    timeline: record each run for seeking back (the app); a renderer that only goes forward
    turns it off and keeps no checkpoints.
    """

    def __init__(
        self,
        scene: Scene,
        notify: Callable[[], None] = lambda: None,
        threads: int | None = None,
        timeline: bool = True,
    ) -> None:
        """Raises MemoryFitError if `scene` does not fit in this machine's memory budget."""
        self._threads = threads
        self._checkpoint_budget = CHECKPOINT_BUDGET if timeline else 0
        self.events = SessionEvents()
        #: Called on the engine thread when a job finished; the owner may replace it.
        self.notify = notify
        self._worker = Worker(notify=lambda: self.notify())
        self._pending: deque[Job] = deque()
        self._generation = 0
        self._running = False
        self._speed = 1.0
        self._selected: int | None = None
        self._path_on = False
        self._path: Pair | None = None
        self._path_agent: int | None = None
        self._whole_trails = False
        self._stale = False  # what is shown changed since the last job started
        self._start(scene, reloaded=False)

    # ------------------------------------------------------------------ reading
    @property
    def scene(self) -> Scene:
        """The scene as its file has it (no live edits; see `current_scene`)."""
        return self._scene

    @property
    def state(self) -> EngineState:
        """The engine's state as last collected (immutable; see EngineState)."""
        return self._state

    @property
    def layout(self) -> Layout:
        """The running simulation's shape (agents, groups, box, trail rings)."""
        return self._layout

    @property
    def generation(self) -> int:
        """Which run this is: it changes whenever a new simulation starts (open, reload,
        resize)."""
        return self._generation

    @property
    def threads(self) -> int | None:
        """The threads every simulation of the session steps on (None: all the engine has)."""
        return self._threads

    @property
    def groups(self) -> tuple[GroupParams, ...]:
        """The live group parameters as last collected."""
        return self._state.groups

    @property
    def step(self) -> int:
        return self._state.step

    @property
    def head(self) -> int:
        return self._state.head

    @property
    def dt(self) -> float:
        return self._scene.dt

    @property
    def agent_count(self) -> int:
        """Agents in the running simulation (a resized group may differ from the file's)."""
        return self._layout.count

    @property
    def group_index(self) -> np.ndarray:
        """(N,) int64, read-only: the group of each agent."""
        return self._layout.group_index

    @property
    def running(self) -> bool:
        """Whether the owner plays the run (set_running); the session steps only when asked."""
        return self._running

    @property
    def speed(self) -> float:
        """The time-scale factor the owner plays at, one of SPEEDS (change_speed)."""
        return self._speed

    @property
    def selected(self) -> int | None:
        """The selected agent (select), or None."""
        return self._selected

    @property
    def display(self) -> Display:
        """What is shown besides the agents (set_display)."""
        return self._display

    @property
    def path_on(self) -> bool:
        """Whether the selected agent's whole path is traced and shown (set_path)."""
        return self._path_on

    @property
    def path(self) -> Pair | None:
        """The traced path of `path_agent` as last collected: (k, 3) float32 points after
        steps 0 .. k - 1 and (k,) bool wall reflections just before them; or None."""
        return self._path

    @property
    def path_agent(self) -> int | None:
        """Whose path `path` is."""
        return self._path_agent

    @property
    def timeline_enabled(self) -> bool:
        """Whether the run is recorded for seeking (huge scenes are not)."""
        return self._timeline_enabled

    @property
    def path_available(self) -> bool:
        """Whether the selected agent's whole path can be traced in this scene."""
        return self._timeline_enabled and self.agent_count <= TRACE_MAX_AGENTS

    @property
    def busy(self) -> bool:
        """Whether engine work is in flight, waiting to be collected, or queued."""
        return self._worker.busy or bool(self._pending)

    @property
    def wants_work(self) -> bool:
        """Whether the engine has something to do or hand over (a state for what is shown
        now, path tracing)."""
        return self.busy or self._stale or self._tracing()

    def current_scene(self) -> Scene:
        """The scene as it runs now: live parameter edits and display toggles included (the
        edits collected so far: `settle()` first to include every one asked for)."""
        view = dataclasses.replace(
            self._scene.view,
            show_trails=self._display.trails,
            show_enclosure=self._display.enclosure,
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
        sim = Simulation(scene.run_spec, threads=self._threads)
        self._generation += 1
        timeline = Timeline(sim, budget=self._checkpoint_budget)
        self._run = Run(self._generation, scene, sim, timeline, TrailPublisher(len(sim.groups)))
        self._pending.clear()
        self._scene = scene
        self._layout = sim.layout
        self._timeline_enabled = timeline.enabled
        self._display = Display(trails=scene.view.show_trails, enclosure=scene.view.show_enclosure)
        self._selected = None
        self._path = self._path_agent = None
        self._whole_trails = self._stale = False
        # No job runs on the new simulation yet: its first state is published from here.
        self._state = _publish(self._run, self._wanted(), Applied(), sim.step_count, 0.0).state
        self.events.scene_changed.emit(scene)
        self.events.simulation_changed.emit(reloaded)
        self.events.display_changed.emit(self._display)
        self.events.selection_changed.emit(None)
        self.events.groups_changed.emit(self.groups)
        self.events.path_changed.emit()
        self.events.state_changed.emit()

    def mark_saved(self, scene: Scene) -> None:
        """The running scene was saved as `scene` (its file and text): it becomes the scene,
        and a reset now starts from its groups."""
        self._scene = scene
        self._queue(Adopt(scene.groups))
        self.events.scene_changed.emit(scene)

    # ------------------------------------------------------------------ playing
    def set_running(self, running: bool) -> None:
        self._running = bool(running)
        self.events.running_changed.emit(self._running)

    def toggle_running(self) -> None:
        self.set_running(not self._running)

    def change_speed(self, direction: int) -> None:
        """One notch faster (+1) or slower (-1) along SPEEDS."""
        i = min(len(SPEEDS) - 1, max(0, SPEEDS.index(self._speed) + direction))
        self._speed = SPEEDS[i]
        self.events.speed_changed.emit(self._speed)

    def single_step(self) -> None:
        """Pause and advance one step."""
        self.set_running(False)
        self.advance(1)

    def advance(self, steps: int) -> None:
        """Queue `steps` steps (the timeline records them; recorded edits replay)."""
        self._queue(Advance(int(steps)))

    def reset(self) -> None:
        """Back to the scene's start: a new timeline."""
        self._queue(Reset())

    def seek(self, step: int) -> None:
        """Pause and go to `step` of the recorded run (clamped to it)."""
        if self._running:
            self.set_running(False)
        # Only the latest of a burst of seeks (a dragged slider) is worth doing.
        if self._pending and isinstance(self._pending[-1], Seek):
            self._pending[-1] = Seek(int(step))
        else:
            self._queue(Seek(int(step)))

    def edit(self, group: int, **changes: Any) -> None:
        """Change group `group`'s parameters (GroupParams or WanderParams fields) from the
        current step on, applied to its live parameters on the engine thread.

        Raises ValueError for an unknown or fixed field, SceneError for a value the scene
        format does not allow; nothing is queued then. An edit that passes here but not
        against the live groups on the engine thread changes nothing there, and
        `events.edit_rejected` says why.
        """
        command = GroupEdit(group, changes)
        # Validate at the boundary: the result must be a valid scene.
        groups = list(self.groups)
        groups[group] = command.apply(groups[group])
        self._scene.replace(groups=tuple(groups))
        self._queue(Edit(command))

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
        self._selected = None if agent is None else int(agent)
        self.events.selection_changed.emit(self._selected)
        self._show_path()
        self._republish()

    def set_path(self, on: bool) -> None:
        """Trace and show the selected agent's whole path (where `path_available`)."""
        self._path_on = bool(on)
        self._show_path()
        self.dispatch()

    def set_display(self, **changes: Any) -> None:
        """Change what is drawn (Display's fields)."""
        display = dataclasses.replace(self._display, **changes)
        if display != self._display:
            self._display = display
            self.events.display_changed.emit(display)
            self._republish()

    def set_group_visible(self, group: int, visible: bool) -> None:
        hidden = self._display.hidden_groups
        self.set_display(hidden_groups=hidden - {group} if visible else hidden | {group})

    def resend_trails(self) -> None:
        """Publish every shown group's trail ring whole with the next state, for a view that
        has missed some of its samples (e.g. one made after the run started)."""
        self._whole_trails = True
        self._republish()

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
            groups_before = self._state.groups
            self._state = result.state
            if result.path is not None:
                self._path, self._path_agent = result.path, result.path_agent
            self.events.state_changed.emit()
            if result.state.groups != groups_before or result.rejected is not None:
                self.events.groups_changed.emit(result.state.groups)
            if result.rejected is not None:
                self.events.edit_rejected.emit(result.rejected)
            if result.path is not None:
                self.events.path_changed.emit()
        self._dispatch_command()
        return collected

    def dispatch(self, steps: int = 0) -> None:
        """Give an idle engine its next job: a queued command, else `steps` steps (the
        owner's pacing decides them), else a state for what is shown now or a slice of path
        tracing."""
        if self._worker.busy or self._dispatch_command():
            return
        if steps > 0:
            self._submit(Advance(steps))
        elif self._stale or self._tracing():
            self._submit(Publish())

    def _dispatch_command(self) -> bool:
        """Start the next queued command on an idle engine; True if one started."""
        if self._worker.busy or not self._pending:
            return False
        self._submit(self._pending.popleft())
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job in flight finished (True) or `timeout` s passed (False)."""
        return self._worker.wait(timeout)

    def settle(self, timeout: float | None = 10.0) -> None:
        """Run every queued command to its end, collecting each: what is read afterwards
        (`groups`, `current_scene()`, `state`) includes every command asked for and every
        change of what is shown so far.

        Raises TimeoutError if a job takes longer than `timeout` seconds (None: as long as
        it takes, for batch work whose jobs may be long on a busy machine).
        """
        while True:
            if not self._worker.busy and not self._dispatch_command() and self._stale:
                self._submit(Publish())
            if not self._worker.busy:
                return
            if not self.wait(timeout):
                raise TimeoutError(f"the engine did not finish a job within {timeout} s")
            self.collect()

    def close(self) -> None:
        """Stop the engine thread after the job in flight; queued work is dropped."""
        self._pending.clear()
        self._worker.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals
    def _queue(self, job: Job) -> None:
        self._pending.append(job)
        self.dispatch()

    def _republish(self) -> None:
        """What is shown changed: the engine's next job publishes its state for it (steps
        if the owner asks for some, else a job that only publishes)."""
        self._stale = True
        self.dispatch()

    def _wanted(self) -> _Wanted:
        """What a job starting now publishes (and consumes the request for whole trails)."""
        agent = self._selected if self._path_on and self.path_available else None
        whole, self._whole_trails = self._whole_trails, False
        return _Wanted(
            display=self._display,
            selected=self._selected,
            path_agent=agent,
            # The owner dropped its copy (the agent was deselected, then selected again while
            # the engine idled): the tracer's path must be handed over again, grown or not.
            path_handed=self._path is not None and self._path_agent == agent,
            whole_trails=whole,
        )

    def _submit(self, job: Job) -> None:
        """Run `job` on the engine thread against the current run, then publish."""
        run, wanted = self._run, self._wanted()
        self._stale = False

        def work() -> _Result:
            t0 = time.perf_counter()
            before = run.sim.step_count
            applied = job.apply(run)
            return _publish(run, wanted, applied, before, time.perf_counter() - t0)

        self._worker.submit(work)

    def _tracing(self) -> bool:
        """Whether the selected agent's path wants more tracing."""
        if not (self._path_on and self.path_available) or self._selected is None:
            return False
        if self._path_agent != self._selected:
            return True
        return self._path is None or len(self._path[0]) <= self.head

    def _show_path(self) -> None:
        """Drop a shown path that no longer belongs to the selection (tracing resumes)."""
        if self._path is not None and (not self._path_on or self._path_agent != self._selected):
            self._path = self._path_agent = None
            self.events.path_changed.emit()


def _trace(run: Run, agent: int | None, handed: bool = True) -> Pair | None:
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
