"""The app's frame loop arithmetic, free of Qt so it is easy to test.

`FrameClock` turns wall-clock time into whole fixed simulation steps (so a scene runs at the
same speed at any frame rate); `FrameStats` keeps the figures the status bar shows.
"""

from __future__ import annotations

from collections import deque

#: Most simulation steps one frame may take; beyond it the backlog is dropped, so a slow frame
#: (or a big scene at high speed) slows the simulation down instead of snowballing.
MAX_STEPS_PER_FRAME = 16
#: Time-scale factors offered by "faster" / "slower".
SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


class FrameClock:
    """Fixed-dt accumulator: `advance(seconds)` returns how many `dt` steps are now due."""

    def __init__(self, dt: float, max_steps: int = MAX_STEPS_PER_FRAME) -> None:
        self.dt = dt
        self.max_steps = max_steps
        self.backlog = 0.0  # simulated seconds owed but not yet stepped

    def advance(self, seconds: float) -> int:
        """Owe `seconds` more simulated time (already scaled by the speed); return steps due."""
        self.backlog += max(0.0, seconds)
        # A hair of tolerance so 0.1 / (1/60 s) counts as 6 steps despite rounding.
        steps = int(self.backlog / self.dt + 1e-9)
        if steps > self.max_steps:
            self.backlog = 0.0
            return self.max_steps
        self.backlog = max(0.0, self.backlog - steps * self.dt)
        return steps

    def reset(self) -> None:
        self.backlog = 0.0


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
        """Mean milliseconds of upload plus draw calls per drawn frame."""
        return sum(f[2] for f in self._frames) / len(self._frames) if self._frames else 0.0
