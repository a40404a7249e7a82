"""The arithmetic of drawing a run in real time, free of Qt (the app's frame loop uses it).

`FrameClock` is the display clock: it turns wall-clock time into the simulated time to show,
the steps the engine owes, and where between the last two fixed steps to draw the agents.
`WorkBudget` caps the engine's work per request by time, `SpeedMeter` measures the speed the
run really reaches, `FrameStats` keeps the figures the status bar shows, and `DrawStride`
chooses how many of a huge scene's agents to draw so a frame's drawing leaves the GUI thread
free for input.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

#: Real seconds the display clock may run ahead of the engine; beyond it the run slows down
#: (the backlog is dropped) instead of snowballing on a machine that cannot keep up.
MAX_LAG = 0.1
#: Real seconds of engine work one request may take, so fresh states arrive often.
WORK_SLICE = 0.05
#: Milliseconds a frame's drawing may take (the GUI thread answers no input meanwhile) before
#: only a subset of the agents is drawn.
DRAW_BUDGET_MS = 40.0
#: A stride is chosen so the drawing takes about this fraction of the budget...
STRIDE_TARGET = 0.7
#: ...and made smaller once frames take less than this fraction of it.
STRIDE_RELEASE = 0.5
#: At least this many agents are drawn: scenes up to this size are always drawn whole.
MIN_DRAWN = 5_000
#: Frames measured at one stride before changing it.
STRIDE_FRAMES = 2


class FrameClock:
    """Simulated time to show, between the engine's fixed steps of `dt` seconds.

    Agents are drawn one step behind the display time `shown`, interpolated between the
    engine's last two states (steps c - 1 and c): `alpha(c) = shown / dt - c`, the leftover
    time over dt. So `steps_due(c)` asks for the step the next frame will need.
    """

    def __init__(self, dt: float) -> None:
        self.dt = dt
        self.shown = dt  # with the engine at step 0, draw step 0

    def advance(self, seconds: float, engine_step: int, lag: float) -> None:
        """Move the display `seconds` of simulated time on (already scaled by the speed), but
        at most `lag` simulated seconds past the engine's latest state at `engine_step`."""
        limit = (engine_step + 1) * self.dt + max(0.0, lag)
        self.shown = max(self.shown, min(self.shown + max(0.0, seconds), limit))

    def steps_due(self, engine_step: int, ahead: float = 0.0) -> int:
        """Steps the engine owes for a display `ahead` simulated seconds from now."""
        # A hair of tolerance so 0.1 / (1/60 s) counts as 6 steps despite rounding.
        return max(0, math.floor((self.shown + ahead) / self.dt + 1e-9) - engine_step)

    def alpha(self, engine_step: int) -> float:
        """Where between steps c - 1 (0.0) and c (1.0) to draw, for the engine at step c."""
        return min(1.0, max(0.0, self.shown / self.dt - engine_step))

    def show_step(self, engine_step: int) -> None:
        """Jump to showing `engine_step` exactly (after a pause, a single step, a seek)."""
        self.shown = (engine_step + 1) * self.dt


class WorkBudget:
    """How many steps fit in `seconds` of engine work, from the measured cost per step."""

    def __init__(self, seconds: float = WORK_SLICE) -> None:
        self.seconds = seconds
        self.step_cost = 0.0  # seconds per step, smoothed; 0 until measured

    def record(self, steps: int, seconds: float) -> None:
        if steps <= 0:
            return
        cost = seconds / steps
        self.step_cost = cost if self.step_cost == 0.0 else 0.7 * self.step_cost + 0.3 * cost

    def cap(self, steps: int) -> int:
        """`steps`, limited to what fits in the budget (at least one)."""
        if self.step_cost <= 0.0:
            return max(0, min(steps, 1))
        return max(0, min(steps, max(1, int(self.seconds / self.step_cost))))


class SpeedMeter:
    """Simulated seconds per real second over the last `window` real seconds."""

    def __init__(self, window: float = 1.0) -> None:
        self.window = window
        self._samples: deque[tuple[float, float]] = deque()

    def record(self, now: float, sim_time: float) -> None:
        self._samples.append((now, sim_time))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window:
            self._samples.popleft()

    def reset(self) -> None:
        self._samples.clear()

    @property
    def speed(self) -> float | None:
        """The measured speed, or None until a full window has been seen."""
        if len(self._samples) < 2:
            return None
        (t0, s0), (t1, s1) = self._samples[0], self._samples[-1]
        if t1 - t0 < 0.9 * self.window:
            return None
        return (s1 - s0) / (t1 - t0)


class FrameStats:
    """Rolling per-frame figures over the last `window` seconds, for the status bar.

    Between two drawn frames the loop may step the simulation and upload to the GPU several
    times: `record(sim_ms, upload_ms)` adds those up, `frame(now, draw_ms)` closes a frame.
    """

    def __init__(self, window: float = 1.0) -> None:
        self.window = window
        self._frames: deque[tuple[float, float, float]] = deque()
        self._sim_ms = 0.0
        self._upload_ms = 0.0

    def record(self, sim_ms: float, upload_ms: float) -> None:
        self._sim_ms += sim_ms
        self._upload_ms += upload_ms

    def frame(self, now: float, draw_ms: float) -> None:
        self._frames.append((now, self._sim_ms, self._upload_ms + draw_ms))
        self._sim_ms = self._upload_ms = 0.0
        while self._frames and now - self._frames[0][0] > self.window:
            self._frames.popleft()

    @property
    def fps(self) -> float:
        """Frames drawn per second (0 with fewer than two frames in the window)."""
        if len(self._frames) < 2:
            return 0.0
        span = self._frames[-1][0] - self._frames[0][0]
        return (len(self._frames) - 1) / span if span > 0 else 0.0

    @property
    def sim_ms(self) -> float:
        """Mean milliseconds of simulation per drawn frame."""
        return sum(f[1] for f in self._frames) / len(self._frames) if self._frames else 0.0

    @property
    def draw_ms(self) -> float:
        """Mean milliseconds per drawn frame of upload plus drawing, until the frame reached
        the screen (SimulationView.frame_shown)."""
        return sum(f[2] for f in self._frames) / len(self._frames) if self._frames else 0.0


class DrawStride:
    """Draw 1 agent in `stride` while drawing every agent would take longer than a budget.

    Fed each frame's drawing time, it changes the stride after `frames` frames in a row at
    one stride all over `budget_ms`, or all under STRIDE_RELEASE of it, to the stride whose
    drawing it predicts at STRIDE_TARGET of the budget. The prediction is a line, time =
    fixed + per agent x agents drawn, fitted to the last HISTORY frames once they span
    different numbers of agents drawn (before that: no fixed part, the safe side when
    growing). Where the fixed part alone exceeds the target, the largest stride is the best
    it can do. The first frame after a change (it uploads anew) is not measured. The stride
    never leaves fewer than `min_drawn` agents, so small scenes are always drawn whole.
    """

    #: Frames the cost line is fitted to.
    HISTORY = 8

    def __init__(
        self,
        budget_ms: float = DRAW_BUDGET_MS,
        min_drawn: int = MIN_DRAWN,
        frames: int = STRIDE_FRAMES,
    ) -> None:
        self.budget_ms = budget_ms
        self.min_drawn = min_drawn
        self.frames = frames
        self.stride = 1
        self._history: deque[tuple[int, float]] = deque(maxlen=self.HISTORY)
        self._current: list[float] = []  # times at the current stride
        self._skip = 0

    def max_stride(self, agents: int) -> int:
        """The largest stride for a scene of `agents` agents (1 up to `min_drawn`)."""
        return max(1, agents // max(1, self.min_drawn))

    def record(self, draw_ms: float, agents: int) -> int:
        """One frame of a scene of `agents` agents, drawn at the current stride, took
        `draw_ms`; returns the stride for the next frames."""
        if self._skip > 0:
            self._skip -= 1
            return self.stride
        drawn = -(-agents // self.stride)
        self._history.append((drawn, draw_ms))
        self._current = [*self._current, draw_ms][-self.frames :]
        if len(self._current) < self.frames:
            return self.stride
        slow = min(self._current) > self.budget_ms
        fast = max(self._current) < STRIDE_RELEASE * self.budget_ms and self.stride > 1
        if slow or fast:
            fixed, per_agent = self._cost_line(drawn)
            room = STRIDE_TARGET * self.budget_ms - fixed
            if room <= 0.0:
                stride = self.max_stride(agents)
            else:
                stride = max(1, math.ceil(agents * per_agent / room))
            # Only in the direction asked; growing by at least one step, since the line may
            # be off (trails just turned on) while the measurements are not. (When the line
            # holds a stride back on fast frames, it gives way once the history holds that
            # stride's frames only.)
            stride = max(stride, self.stride + 1) if slow else min(stride, self.stride)
            self._set(min(stride, self.max_stride(agents)))
        return self.stride

    def _cost_line(self, drawn: int) -> tuple[float, float]:
        """(fixed ms, ms per agent drawn) from the history; `drawn` agents drawn now."""
        n = np.array([h[0] for h in self._history], dtype=np.float64)
        ms = np.array([h[1] for h in self._history], dtype=np.float64)
        now = float(np.median(self._current))
        if n.max() >= 1.5 * n.min():
            per_agent, fixed = np.polyfit(n, ms, 1)
            if per_agent > 0.0 and 0.0 <= fixed < now:
                return float(fixed), float(per_agent)
        return 0.0, now / drawn

    def rescale(self, old_agents: int, new_agents: int) -> int:
        """A new scene: keep about as many agents drawn as before, then measure afresh."""
        drawn = max(1, old_agents // self.stride)
        self._set(min(max(1, math.ceil(new_agents / drawn)), self.max_stride(new_agents)))
        self._history.clear()
        self._current = []
        return self.stride

    def _set(self, stride: int) -> None:
        if stride != self.stride:
            self.stride = stride
            self._current = []
            self._skip = 1
