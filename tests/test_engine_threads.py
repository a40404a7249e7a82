"""The step kernel releases the GIL, so a GUI thread keeps running while another one steps."""

from __future__ import annotations

import threading
import time

from wander3d.engine import kernel

from engine_support import group, simulation


def test_the_kernel_is_compiled_without_the_gil():
    assert kernel.advance.targetoptions.get("nogil") is True


def longest_pause_while_stepping(sim, steps: int) -> tuple[float, float]:
    """(longest gap between two iterations of a busy Python loop on this thread, the whole
    time) while another thread runs `sim.step(steps)`."""
    done = threading.Event()

    def work() -> None:
        sim.step(steps)
        done.set()

    thread = threading.Thread(target=work)
    start = last = time.perf_counter()
    thread.start()
    gap = 0.0
    while not done.is_set():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    thread.join()
    return max(gap, time.perf_counter() - last), time.perf_counter() - start


def test_python_runs_on_while_another_thread_steps():
    sim = simulation(group("sphere", count=100_000))
    sim.step(1)  # compiled and warm
    gap, duration = longest_pause_while_stepping(sim, 40)
    # Holding the GIL would stop this thread for the whole kernel call.
    assert gap < duration / 2
