"""One background thread that runs the engine's jobs, so the GUI thread never waits on a step.

No Qt here: the owner submits a job when the worker is idle, is told through `notify` (called
on the worker thread) when it has finished, and collects the result with `take`. At most one
job is in flight, so whoever holds the result knows the simulation is not being changed.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any


class Worker:
    """Runs submitted callables one at a time on a daemon thread."""

    def __init__(self, notify: Callable[[], None] = lambda: None, name: str = "wander3d-engine"):
        self._notify = notify
        self._jobs: queue.SimpleQueue[Callable[[], Any] | None] = queue.SimpleQueue()
        self._finished = threading.Event()
        self._busy = False
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """True from `submit` until `take`: the job's data must not be touched meanwhile."""
        return self._busy

    @property
    def finished(self) -> bool:
        """True when the job in flight has finished and its result waits for `take`."""
        return self._finished.is_set()

    def submit(self, job: Callable[[], Any]) -> None:
        if self._busy:
            raise RuntimeError("the worker is busy")
        self._busy = True
        self._finished.clear()
        self._jobs.put(job)

    def take(self) -> Any:
        """The finished job's result; its exception is raised here, on the caller's thread."""
        if not self.finished:
            raise RuntimeError("no finished job")
        self._finished.clear()
        self._busy = False
        result, error = self._result, self._error
        self._result = self._error = None
        if error is not None:
            raise error
        return result

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job in flight finishes (for shutdown and tests); True if it did."""
        return not self._busy or self._finished.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread after the job in flight."""
        self._jobs.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                self._result, self._error = job(), None
            except BaseException as e:  # handed to the owner's thread by take()
                self._result, self._error = None, e
            self._finished.set()
            self._notify()
