"""One-line progress bars for long headless runs: steps of a run, cells of a sweep."""

from __future__ import annotations

import time
from typing import IO

from .common import PROG


class _Bar:
    """What both bars share: drawn live (redrawn with \\r) only on a TTY, at most every
    INTERVAL seconds. total: the units of work (steps, cells) the job will take."""

    WIDTH = 30
    INTERVAL = 0.1  # seconds between redraws: drawing must not slow the run

    def __init__(self, stream: IO[str], total: int) -> None:
        self.stream = stream
        self.total = total
        try:
            self.live = stream.isatty()
        except (AttributeError, ValueError):
            self.live = False
        self.start = time.perf_counter()
        self._last = -1.0

    def _due(self, done: int) -> bool:
        """Whether to redraw now (always at the end), noting the time when it is."""
        if not self.live:
            return False
        now = time.perf_counter()
        if now - self._last < self.INTERVAL and done < self.total:
            return False
        self._last = now
        return True

    def _bar(self, fraction: float) -> str:
        filled = int(fraction * self.WIDTH)
        return "[" + "#" * filled + "-" * (self.WIDTH - filled) + "]"


class Progress(_Bar):
    """A one-line progress bar of a run's steps on a TTY, else only a final line.

    total_steps: steps the run will take; agents: agents stepped; dt: seconds per step.
    only_steps: whether the run does nothing but step (its rate over the wall time is the
    engine's); a run that also draws and encodes (`render`) shows no live rate, and its
    final line names the rate over the seconds spent stepping, given to `finish`.
    """

    def __init__(
        self, stream: IO[str], total_steps: int, agents: int, dt: float, only_steps: bool = True
    ) -> None:
        super().__init__(stream, total_steps)
        self.agents = agents
        self.dt = dt
        self.only_steps = only_steps

    def _rate(self, done: int, seconds: float | None = None) -> str:
        elapsed = max(time.perf_counter() - self.start if seconds is None else seconds, 1e-9)
        rate = done * self.agents / elapsed
        for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
            if rate >= scale:
                return f"{rate / scale:.1f}{unit} agent-steps/s"
        return f"{rate:.0f} agent-steps/s"

    def update(self, done: int) -> None:
        if not self._due(done):
            return
        frac = done / self.total if self.total else 1.0
        rate = f"  {self._rate(done)}" if self.only_steps else ""
        self.stream.write(
            f"\r{self._bar(frac)} {frac:4.0%}  {done * self.dt:.1f}/{self.total * self.dt:.1f} s"
            f"{rate}   "
        )
        self.stream.flush()

    def finish(self, done: int, step_seconds: float | None = None) -> float:
        """End the bar (or write the only line); return the wall time in seconds.

        step_seconds: of the wall time, the seconds spent stepping, when the run did more.
        """
        elapsed = time.perf_counter() - self.start
        if self.live:
            self.update(done)
            self.stream.write("\n")
        ran = (
            f"{PROG}: ran {done:,} steps ({done * self.dt:.2f} s simulated) of "
            f"{self.agents:,} agents in {elapsed:.2f} s"
        )
        if step_seconds is None:
            self.stream.write(f"{ran}, {self._rate(done)}\n")
        else:
            self.stream.write(
                f"{ran}: {step_seconds:.2f} s simulating ({self._rate(done, step_seconds)}), "
                f"{max(0.0, elapsed - step_seconds):.2f} s drawing and writing\n"
            )
        self.stream.flush()
        return elapsed


class CellProgress(_Bar):
    """A one-line bar of finished cells, their rate and the time left, on a TTY only.

    total: cells to run.
    """

    def update(self, done: int) -> None:
        if not self.total or not self._due(done):
            return
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        left = f"{_clock((self.total - done) / rate)} left" if done else "--:-- left"
        bar = self._bar(done / self.total)
        self.stream.write(f"\r{bar} {done}/{self.total} cells  {rate:.2f} cells/s  {left}   ")
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line (nothing to do when it was not drawn)."""
        if self.live and self.total:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    """12:05 or 1:02:03."""
    s = round(seconds)
    hours, rest = divmod(s, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
