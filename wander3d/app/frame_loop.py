"""The frame loop: paces drawing to the display and drives the session's engine in real time.

Frames follow the display's refresh: each frame schedules the next one a refresh period on
(a vsync'ed swap blocks the GUI thread, so it paces the loop itself), whether it drew or not:
a frame with nothing new to draw (the engine ahead of the display) never swaps, so a chain
driven by swaps would stall there. Each frame collects the session's finished engine job,
advances the display clock by the elapsed time, asks the session for the steps the next frame
will need (capped by time, `WorkBudget`), and draws the agents interpolated between the
engine's last two fixed steps. When the engine cannot keep up, the display clock holds back
(`MAX_LAG`) and the status bar says the speed reached. When drawing every agent of a huge
scene takes longer than a frame's budget (a software renderer), only 1 agent in k is drawn
(`DrawStride`), and the status bar says so.

The loop keeps no simulation of its own: it reads what the session published.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from PyQt6.QtCore import QObject, Qt, QTimer, pyqtSignal

from wander3d.drawing.pacing import (
    MAX_LAG,
    DrawStride,
    FrameClock,
    FrameStats,
    SpeedMeter,
    WorkBudget,
)
from wander3d.render import SimulationView
from wander3d.session import Session

from .status import status_line

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
#: How often the watchdog restarts a stalled frame chain (ms).
WATCHDOG_MS = 100
#: When interpolating, uploading and drawing the agents takes longer than this (ms; a huge
#: scene, a software renderer), they are drawn only when the engine delivers a new state, not
#: between states, so the GUI thread is free for input most of the time.
SLOW_FRAME_MS = 50.0


class FrameLoop(QObject):
    """Shows `session`'s run in `view` in real time (scaled by the session's speed)."""

    statusChanged = pyqtSignal(str)
    #: The step shown or the recorded run changed: (step, head).
    timelineChanged = pyqtSignal(int, int)
    _job_done = pyqtSignal()  # emitted on the engine thread

    def __init__(self, session: Session, view: SimulationView, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.view = view
        #: The wall clock (s); tests swap in a fake one.
        self.now: Callable[[], float] = time.perf_counter
        self.stats = FrameStats()
        self.budget = WorkBudget()
        self.meter = SpeedMeter()
        self.draw_stride = DrawStride()
        self._last_frame = self.now()
        self._last_status = 0.0
        self._last_timeline = -TIMELINE_INTERVAL
        self._drawn_key: tuple | None = None
        self._lerp_ms = 0.0  # the GUI thread's cost of interpolating the agents
        self._interval = 1 / 60  # smoothed wall seconds between frames
        self._in_frame = False
        self._agents = session.agent_count
        self.clock = FrameClock(session.dt)
        self.clock.show_step(session.step)

        # Emitted on the engine thread: Qt queues it to this object's (the GUI) thread.
        session.notify = self._job_done.emit
        self._job_done.connect(self._request_frame)
        events = session.events
        events.state_changed.connect(self._collected)
        events.simulation_changed.connect(self._new_simulation)
        events.running_changed.connect(self._running_changed)
        events.speed_changed.connect(self._speed_changed)
        for signal in (events.groups_changed, events.selection_changed, events.path_changed):
            signal.connect(self._request_frame)
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
        self._request_frame()

    # ------------------------------------------------------------------ session events
    def _new_simulation(self, _reloaded: bool) -> None:
        session = self.session
        self.view.set_agent_stride(self.draw_stride.rescale(self._agents, session.agent_count))
        self._agents = session.agent_count
        self.clock = FrameClock(session.dt)
        self.clock.show_step(session.step)
        self.meter.reset()
        self._drawn_key = None
        self._lerp_ms = 0.0
        self._show_timeline()
        self._request_frame()

    def _collected(self) -> None:
        state = self.session.state
        self.budget.record(state.steps, state.seconds)
        if state.jumped or not self.session.running:
            self.clock.show_step(state.step)
        if state.jumped:
            self.meter.reset()
        t0 = time.perf_counter()
        self.view.show_state(state)  # trails and overlay, from what the engine published
        if self.view.trails_behind:
            self.session.resend_trails()
        self.stats.record(state.seconds * 1e3, (time.perf_counter() - t0) * 1e3)
        self._drawn_key = None
        if not self.session.running or self.now() - self._last_timeline >= TIMELINE_INTERVAL:
            self._show_timeline()
        self._request_frame()  # a collect outside a frame (e.g. a save settling the edits)

    def _running_changed(self, running: bool) -> None:
        if not running:
            self._show_timeline()
        self.clock.show_step(self.session.step)
        self.meter.reset()
        self._last_frame = self.now()
        self._show_status()
        self._request_frame()

    def _speed_changed(self, _speed: float) -> None:
        self.meter.reset()
        self._show_status()

    # ------------------------------------------------------------------ frames
    def _wants_frames(self) -> bool:
        return self.session.running or self.session.wants_work

    def _request_frame(self, *_: object) -> None:
        # Within a frame, the frame schedules the next one itself, paced to the display.
        if not self._in_frame and not self._frame_timer.isActive():
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
        self._in_frame = True
        try:
            self._step_and_draw()
        finally:
            self._in_frame = False
        self._schedule_next_frame()

    def _step_and_draw(self) -> None:
        session = self.session
        now = self.now()
        elapsed = min(now - self._last_frame, MAX_FRAME_GAP)
        self._last_frame = now
        self._interval += INTERVAL_SMOOTHING * (elapsed - self._interval)
        session.collect()
        steps = 0
        if session.running:
            speed = session.speed
            self.clock.advance(elapsed * speed, session.step, speed * MAX_LAG)
            self.meter.record(now, session.step * session.dt)
            # The engine works ahead by the next frame's expected interval: after one long
            # frame (a stall, a dialog) it would otherwise run that far ahead of the display,
            # and the agents would stand still until the display caught up.
            ahead = min(elapsed, self._interval) * speed
            steps = self.budget.cap(self.clock.steps_due(session.step, ahead))
        session.dispatch(steps)
        self._draw_agents()
        if now - self._last_status >= STATUS_INTERVAL:
            self._show_status()

    def _draw_agents(self) -> None:
        view, state = self.view, self.session.state
        slow = self._lerp_ms + view.last_update_ms + view.last_draw_ms > SLOW_FRAME_MS
        between = self.session.running and state.previous is not None and not slow
        alpha = self.clock.alpha(state.step) if between else 1.0
        key = (id(state), round(alpha, 4))
        if key == self._drawn_key:
            return
        self._drawn_key = key
        pos, vel = state.current
        if alpha < 1.0 and state.previous is not None:
            t0 = time.perf_counter()
            p0, v0 = state.previous
            pos = p0 + np.float32(alpha) * (pos - p0)
            vel = v0 + np.float32(alpha) * (vel - v0)
            self._lerp_ms = (time.perf_counter() - t0) * 1e3
        view.move_agents(pos, vel)

    def _shown(self) -> None:
        self.view.frame_shown()
        self.stats.frame(time.perf_counter(), self.view.last_draw_ms)
        stride = self.draw_stride.record(self.view.last_draw_ms, self.session.agent_count)
        if stride != self.view.agent_stride:
            # Not from inside the draw: the new subset is uploaded for the next frame.
            QTimer.singleShot(0, self._apply_stride)

    def _apply_stride(self) -> None:
        self.view.set_agent_stride(self.draw_stride.stride)
        self._drawn_key = None
        self._show_status()

    def status_text(self) -> str:
        """The status bar's figures (see status.status_line)."""
        return status_line(self.session, self.stats, self.meter, self.view.agent_stride)

    def _show_timeline(self) -> None:
        self._last_timeline = self.now()
        self.timelineChanged.emit(self.session.step, self.session.head)

    def _show_status(self) -> None:
        self._last_status = self.now()
        self.statusChanged.emit(self.status_text())

    def close(self) -> None:
        self._watchdog.stop()
        self._frame_timer.stop()
        self.session.close()
