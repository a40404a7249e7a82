"""The frame loop: paces drawing to the display, steps the engine on a worker thread.

Frames follow the display's refresh: each frame schedules the next one a refresh period on
(a vsync'ed swap blocks the GUI thread, so it paces the loop itself), whether it drew or not:
a frame with nothing new to draw (the engine ahead of the display) never swaps, so a chain
driven by swaps would stall there. Each frame advances the display clock by the elapsed
time, draws the agents interpolated between the engine's last two fixed steps, and, when the
worker is idle, collects its last result (uploading trails and overlay while nothing changes
the simulation) and asks it for the steps the next frame will need, capped by time
(`WorkBudget`). The GUI thread never waits for the engine: every change to the simulation
(steps, edits, seeks, resets) is a job for the worker, run in order. When the engine cannot
keep up, the display clock holds back (`MAX_LAG`) and the status bar says the speed reached.
When drawing every agent of a huge scene takes longer than a frame's budget (a software
renderer), only 1 agent in k is drawn (`DrawStride`), and the status bar says so.

The timeline (see `timeline.py`) records the run so the user can seek in it; the selected
agent's whole path is traced on the worker between steps.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np
from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal

from wander3d.engine import GroupParams, Simulation
from wander3d.render import SimulationView
from wander3d.render.path import path_measures

from .loop import MAX_LAG, SPEEDS, DrawStride, FrameClock, FrameStats, SpeedMeter, WorkBudget
from .timeline import TRACE_MAX_AGENTS, PathTracer, Timeline
from .worker import Worker

#: How often the status bar's figures refresh (s).
STATUS_INTERVAL = 0.25
#: While running, how often the timeline bar follows the run (s): repainting its widgets
#: every frame cost a software-rendered window several frames per second, and a run being
#: recorded keeps the slider at its end anyway. Paused, every change shows at once.
TIMELINE_INTERVAL = 0.1
#: A frame that comes after a longer gap (window hidden, machine stalled) counts as this long.
MAX_FRAME_GAP = 0.25
#: The next frame starts this fraction of a refresh period after the last one began (below
#: 1, so with vsync the swap, not the timer, sets the pace).
PACE = 0.9
#: Weight of the newest frame interval in the smoothed one the engine works ahead by.
INTERVAL_SMOOTHING = 0.2
#: Seconds of path tracing per worker job.
TRACE_SLICE = 0.01
#: How often the watchdog restarts a stalled frame chain (ms).
WATCHDOG_MS = 100
#: When interpolating, uploading and drawing the agents takes longer than this (ms; a huge
#: scene, a software renderer), they are drawn only when the engine delivers a new state, not
#: between states, so the GUI thread is free for input most of the time.
SLOW_FRAME_MS = 50.0
#: The status bar names the speed reached when it is below this fraction of the one asked.
SLOW_FRACTION = 0.9

Pair = tuple[np.ndarray, np.ndarray]


def _agents(sim: Simulation) -> Pair:
    """Copies of (N, 3) positions and velocities as float32, to draw from."""
    return sim.positions.astype(np.float32), sim.velocities.astype(np.float32)


@dataclass
class _Run:
    """One simulation's run: what its worker jobs work on.

    The GUI thread reads and changes it only while the worker is idle.
    """

    generation: int
    sim: Simulation
    timeline: Timeline
    tracer: PathTracer | None = None


@dataclass
class _Result:
    """What a worker job hands back: the engine's state after it, for the GUI thread."""

    generation: int  # which simulation it belongs to (results of a replaced one are dropped)
    step: int
    head: int
    prev: Pair | None  # the agents one step before `cur`, None when not consecutive
    cur: Pair
    steps: int  # steps taken
    seconds: float  # wall time worked
    reset: bool = False  # the run went back to its start (a new timeline)
    path: Pair | None = None  # traced points and breaks, when they changed


class FrameLoop(QObject):
    """Runs `sim` in real time (scaled by `speed`) and shows it in `view`."""

    runningChanged = pyqtSignal(bool)
    speedChanged = pyqtSignal(float)
    statusChanged = pyqtSignal(str)
    #: The step shown or the recorded run changed: (step, head).
    timelineChanged = pyqtSignal(int, int)
    #: Group parameters changed by something other than an edit (a reset).
    groupsChanged = pyqtSignal()
    #: The path's colour scale: (measure, value of the lowest colour, of the highest).
    pathScaleChanged = pyqtSignal(str, float, float)
    _job_done = pyqtSignal()  # emitted on the worker thread

    def __init__(self, view: SimulationView, sim: Simulation, parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        #: The wall clock (s); tests swap in a fake one.
        self.now: Callable[[], float] = time.perf_counter
        self.running = True
        self.speed_index = SPEEDS.index(1.0)
        self.stats = FrameStats()
        self.budget = WorkBudget()
        self.meter = SpeedMeter()
        self.draw_stride = DrawStride()
        self.path_on = False
        self.path_measure = "speed"
        self._generation = 0
        # Jobs waiting for the worker, in order, each with its kind ("seek", "edit", ...).
        self._pending: deque[tuple[str, Callable[[], _Result]]] = deque()
        self._path: Pair | None = None
        self._path_agent: int | None = None
        self._last_frame = self.now()
        self._last_status = 0.0
        self._last_timeline = -TIMELINE_INTERVAL
        self._drawn_key: tuple | None = None
        self._lerp_ms = 0.0  # the GUI thread's cost of interpolating the agents
        self._interval = 1 / 60  # smoothed wall seconds between frames

        self.worker = Worker(notify=self._job_done.emit)
        self.worker.submit(_leave_a_core)
        self.worker.wait()
        self.worker.take()
        self._job_done.connect(self._request_frame, Qt.ConnectionType.QueuedConnection)
        self._frame_timer = QTimer(self)
        self._frame_timer.setSingleShot(True)
        self._frame_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._frame_timer.timeout.connect(self._frame)
        self._watchdog = QTimer(self)
        self._watchdog.setInterval(WATCHDOG_MS)
        self._watchdog.timeout.connect(self._watch)
        self._watchdog.start()
        # A frame's cost counts until Qt has swapped it onto the screen: software GL
        # rasterises it only then.
        view.canvas.native.frameSwapped.connect(self._shown)
        self.set_simulation(sim)

    # ------------------------------------------------------------------ state
    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def step(self) -> int:
        """The engine's step as last collected (the simulation may be ahead meanwhile)."""
        return self._step

    @property
    def head(self) -> int:
        """The furthest step recorded in the timeline."""
        return self._head

    @property
    def busy(self) -> bool:
        """Whether engine work is in flight or queued."""
        return self.worker.busy or bool(self._pending)

    @property
    def sim(self) -> Simulation:
        return self._run.sim

    @property
    def timeline(self) -> Timeline:
        """The run's timeline (read it only while the worker is idle)."""
        return self._run.timeline

    def set_simulation(self, sim: Simulation) -> None:
        """Run `sim` from now on (a new or reloaded scene); work for the old one is dropped."""
        old_count = self._run.sim.count if self._generation else sim.count
        self.view.set_agent_stride(self.draw_stride.rescale(old_count, sim.count))
        self._generation += 1
        self._run = _Run(self._generation, sim, Timeline(sim))
        self._pending.clear()
        self._path = None
        self._path_agent = None
        self.clock = FrameClock(sim.dt)
        self.meter.reset()
        self._step = self._head = sim.step_count
        self._prev: Pair | None = None
        self._cur: Pair = _agents(sim)
        self.clock.show_step(self._step)
        self._drawn_key = None
        self._lerp_ms = 0.0
        self.view.show_path(None)
        self._show_timeline()
        self._request_frame()

    # ------------------------------------------------------------------ controls
    def set_running(self, running: bool) -> None:
        self.running = bool(running)
        if not self.running:
            self._show_timeline()
        self.clock.show_step(self._step)
        self.meter.reset()
        self._last_frame = self.now()
        self.runningChanged.emit(self.running)
        self._show_status()
        self._request_frame()

    def toggle_running(self) -> None:
        self.set_running(not self.running)

    def single_step(self) -> None:
        """Pause and advance one step."""
        self.set_running(False)
        self._queue("step", self._advance_job(1))

    def reset_simulation(self) -> None:
        """Back to the scene's start: a new timeline."""
        run = self._run

        def reset() -> None:
            run.sim.reset()
            run.timeline = Timeline(run.sim)

        self._queue("reset", self._job(reset, reset=True))

    def change_speed(self, direction: int) -> None:
        self.speed_index = min(len(SPEEDS) - 1, max(0, self.speed_index + direction))
        self.meter.reset()
        self.speedChanged.emit(self.speed)
        self._show_status()

    def edit_group(self, group: int, params: GroupParams) -> None:
        """A live edit of group `group`: at once when the engine is idle, else after its job."""
        if not self.busy:
            self.timeline.edit(group, params)
            self._head = self.timeline.head  # an edit in the past drops the recorded future
            self.view.update()  # redraw now, also while paused
            self._show_timeline()
            self._request_frame()
            return
        run = self._run
        self._queue("edit", self._job(lambda: run.timeline.edit(group, params)))

    def seek(self, step: int) -> None:
        """Pause and show the run at `step` (clamped to the recorded run)."""
        if self.running:
            self.set_running(False)
        run = self._run
        job = self._job(lambda: run.timeline.seek(step))
        # Only the latest of a burst of seeks (a dragged slider) is worth doing.
        if self._pending and self._pending[-1][0] == "seek":
            self._pending[-1] = ("seek", job)
        else:
            self._queue("seek", job)

    def set_path(self, on: bool, measure: str | None = None) -> None:
        """Show (or hide) the selected agent's whole path, coloured by `measure`."""
        self.path_on = bool(on)
        if measure is not None:
            self.path_measure = measure
        self._show_path()
        self._request_frame()

    @property
    def path_available(self) -> bool:
        return self.timeline.enabled and self.sim.count <= TRACE_MAX_AGENTS

    def close(self) -> None:
        self._watchdog.stop()
        self._frame_timer.stop()
        self._pending.clear()
        self.worker.close()

    # ------------------------------------------------------------------ jobs (worker thread)
    def _queue(self, kind: str, job: Callable[[], _Result]) -> None:
        self._pending.append((kind, job))
        self._request_frame()

    def _advance_job(self, n: int) -> Callable[[], _Result]:
        run = self._run

        def advance() -> Pair:
            run.timeline.advance(n - 1)
            prev = _agents(run.sim)
            run.timeline.advance(1)
            return prev

        return self._job(advance, consecutive=True)

    def _job(
        self, action: Callable[[], object], consecutive: bool = False, reset: bool = False
    ) -> Callable[[], _Result]:
        """Wrap `action` (run on the worker) into a job that reports the engine's state.

        consecutive: `action` returns the agents one step before the end (for interpolation).
        """
        run = self._run
        agent = self.view.selected if self.path_on and self.path_available else None

        def job() -> _Result:
            sim = run.sim
            t0 = time.perf_counter()
            before = sim.step_count
            out = action()
            seconds = time.perf_counter() - t0
            return _Result(
                generation=run.generation,
                step=sim.step_count,
                head=run.timeline.head,
                prev=out if consecutive else None,  # type: ignore[arg-type]
                cur=_agents(sim),
                steps=max(0, sim.step_count - before),
                seconds=seconds,
                reset=reset,
                path=_trace(run, agent),
            )

        return job

    def _tracing(self) -> bool:
        """Whether the path wants more work from the worker."""
        if not (self.path_on and self.path_available) or self.view.selected is None:
            return False
        if self._path_agent != self.view.selected:
            return True
        return self._path is None or len(self._path[0]) <= self._head

    # ------------------------------------------------------------------ frames (GUI thread)
    def _wants_frames(self) -> bool:
        return (
            self.running
            or self.busy
            or self.worker.finished
            or self._tracing()
            or self._path_stale()
        )

    def _path_stale(self) -> bool:
        """Whether a path is shown for an agent no longer selected."""
        return self.view.path.visible and self.view.selected != self._path_agent

    def _request_frame(self) -> None:
        if not self._frame_timer.isActive():
            self._frame_timer.start(0)

    def _schedule_next_frame(self) -> None:
        """While there is something to show, start the next frame a refresh period after
        this one began (at once if drawing took longer)."""
        if not self._wants_frames() or self._frame_timer.isActive():
            return
        screen = self.view.canvas.native.screen()
        rate = screen.refreshRate() if screen is not None else 60.0
        period = 1.0 / (rate if rate > 1.0 else 60.0)
        delay = self._last_frame + PACE * period - self.now()
        self._frame_timer.start(max(0, int(delay * 1e3)))

    def _watch(self) -> None:
        # The chain of frames ends when there is nothing to show; restart it when there is
        # again and nothing else has (a safety net: the controls request frames themselves).
        if self._wants_frames() and self.now() - self._last_frame > WATCHDOG_MS / 1e3:
            self._request_frame()
        elif self.now() - self._last_status >= STATUS_INTERVAL:
            self._show_status()

    def _frame(self) -> None:
        now = self.now()
        elapsed = min(now - self._last_frame, MAX_FRAME_GAP)
        self._last_frame = now
        self._interval += INTERVAL_SMOOTHING * (elapsed - self._interval)
        if self.worker.finished:
            self._collect(self.worker.take())
        ahead = 0.0
        if self.running:
            self.clock.advance(elapsed * self.speed, self._step, self.speed * MAX_LAG)
            self.meter.record(now, self._step * self.sim.dt)
            # The engine works ahead by the next frame's expected interval: after one long
            # frame (a stall, a dialog) it would otherwise run that far ahead of the display,
            # and the agents would stand still until the display caught up.
            ahead = min(elapsed, self._interval) * self.speed
        self._dispatch(ahead)
        if self._path_stale():
            self._show_path()
        self._draw_agents()
        if now - self._last_status >= STATUS_INTERVAL:
            self._show_status()
        self._schedule_next_frame()

    def _collect(self, result: _Result) -> None:
        if result.generation != self._generation:
            return
        if result.reset:
            self.clock.show_step(result.step)
            self.meter.reset()
            self.groupsChanged.emit()
        self._step, self._head = result.step, result.head
        self._prev, self._cur = result.prev, result.cur
        self.budget.record(result.steps, result.seconds)
        if not self.running:
            self.clock.show_step(self._step)
        t0 = time.perf_counter()
        self.view.update()  # trails and overlay, while the worker is idle
        self.stats.record(result.seconds * 1e3, (time.perf_counter() - t0) * 1e3)
        if result.path is not None:
            tracer = self._run.tracer  # the worker is idle: safe to read
            self._path = result.path
            self._path_agent = tracer.agent if tracer is not None else None
        self._show_path()
        self._drawn_key = None
        if not self.running or self.now() - self._last_timeline >= TIMELINE_INTERVAL:
            self._show_timeline()

    def _dispatch(self, ahead: float) -> None:
        """Give the idle worker its next job: a queued one, the steps due, or path tracing."""
        if self.worker.busy:
            return
        if self._pending:
            self.worker.submit(self._pending.popleft()[1])
            return
        if self.running:
            due = self.clock.steps_due(self._step, ahead)
            if due > 0:
                self.worker.submit(self._advance_job(self.budget.cap(due)))
                return
        if self._tracing():
            self.worker.submit(self._job(lambda: None))

    def _draw_agents(self) -> None:
        view = self.view
        slow = self._lerp_ms + view.last_update_ms + view.last_draw_ms > SLOW_FRAME_MS
        between = self.running and self._prev is not None and not slow
        alpha = self.clock.alpha(self._step) if between else 1.0
        key = (self._step, self._generation, round(alpha, 4), id(self._cur))
        if key == self._drawn_key:
            return
        self._drawn_key = key
        pos, vel = self._cur
        if alpha < 1.0 and self._prev is not None:
            t0 = time.perf_counter()
            p0, v0 = self._prev
            pos = p0 + np.float32(alpha) * (pos - p0)
            vel = v0 + np.float32(alpha) * (vel - v0)
            self._lerp_ms = (time.perf_counter() - t0) * 1e3
        self.view.move_agents(pos, vel)

    def _show_path(self) -> None:
        selected = self.view.selected
        if not self.path_on or self._path is None or selected != self._path_agent:
            self.view.show_path(None)
            return
        points, breaks = self._path
        k = min(len(points), self._step + 1)
        values = path_measures(points[:k], breaks[:k], self.sim.dt)[self.path_measure]
        self.view.show_path(points[:k], breaks[:k], values)
        self.pathScaleChanged.emit(self.path_measure, *self.view.path.scale)

    def _shown(self) -> None:
        self.view.frame_shown()
        self.stats.frame(time.perf_counter(), self.view.last_draw_ms)
        stride = self.draw_stride.record(self.view.last_draw_ms, self.sim.count)
        if stride != self.view.agent_stride:
            # Not from inside the draw: the new subset is uploaded for the next frame.
            QTimer.singleShot(0, self._apply_stride)

    def _apply_stride(self) -> None:
        self.view.set_agent_stride(self.draw_stride.stride)
        self._drawn_key = None
        self._show_status()

    def status_text(self) -> str:
        """The status bar's figures: step, time, agents, frame rate, costs, speed."""
        st = self.stats
        speed = f"speed x{self.speed:g}"
        reached = self.meter.speed
        if self.running and reached is not None and reached < SLOW_FRACTION * self.speed:
            speed = f"x{reached:.2g} of real time (asked x{self.speed:g})"
        state = "" if self.running else "  ·  paused"
        stride = self.view.agent_stride
        subset = f"  ·  drawing 1 in {stride} agents to stay responsive" if stride > 1 else ""
        return (
            f"step {self._step:,}  ·  t {self._step * self.sim.dt:.2f} s  ·  "
            f"{self.sim.count:,} agents  ·  {st.fps:.0f} fps  ·  sim {st.sim_ms:.1f} ms  ·  "
            f"draw {st.draw_ms:.1f} ms  ·  {speed}{state}{subset}"
        )

    def _show_timeline(self) -> None:
        self._last_timeline = self.now()
        self.timelineChanged.emit(self._step, self._head)

    def _show_status(self) -> None:
        self._last_status = self.now()
        self.statusChanged.emit(self.status_text())


def _leave_a_core() -> None:
    """Run the engine's parallel loops on all cores but one (on the worker thread: numba's
    thread count is per calling thread), so the GUI thread and the renderer always have a
    core and the window answers input while a big scene steps."""
    numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS - 1))


def _trace(run: _Run, agent: int | None) -> Pair | None:
    """Trace `agent`'s path a little further (worker thread); copies when it changed."""
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
    if tracer.trace(TRACE_SLICE) or fresh:
        return tracer.points.copy(), tracer.breaks.copy()
    return None


def edited(params: GroupParams, key: str, value: float, wander: bool) -> GroupParams:
    """`params` with one slider's value: a wander parameter, or max_speed / max_force."""
    if wander:
        return dataclasses.replace(
            params, wander=dataclasses.replace(params.wander, **{key: value})
        )
    changes: dict[str, float] = {key: value}
    # A scene's start speed may not exceed its speed limit (it would not save).
    if key == "max_speed" and params.initial_speed is not None:
        changes["initial_speed"] = min(params.initial_speed, value)
    return dataclasses.replace(params, **changes)
