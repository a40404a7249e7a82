"""Threads: each Simulation steps on the threads it was given, with the same run at any
count, and the kernel releases the GIL, so a GUI thread keeps running while another steps."""

from __future__ import annotations

import threading
import time

import numba
import numpy as np
import pytest

from wander3d.engine import Simulation, kernel, max_threads

from engine_support import group, run_spec


def test_a_simulation_steps_on_the_threads_it_was_given():
    spec = run_spec(group("sphere", count=64), group("noise", count=64))
    one, all_ = Simulation(spec, threads=1), Simulation(spec)
    assert (one.threads, all_.threads) == (1, max_threads())
    for _ in range(3):  # alternating, on one calling thread
        one.step(20)
        assert numba.get_num_threads() == 1
        all_.step(20)
        assert numba.get_num_threads() == max_threads()
    assert np.array_equal(one.positions, all_.positions)
    assert np.array_equal(one.headings, all_.headings)


def test_a_thread_count_beyond_the_engines_uses_them_all_and_zero_is_refused():
    spec = run_spec(group("sphere", count=4))
    assert Simulation(spec, threads=max_threads() + 5).threads == max_threads()
    with pytest.raises(ValueError, match="at least 1"):
        Simulation(spec, threads=0)


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
    # One kernel thread, so that on a 2-core machine the kernel and this thread's loop each
    # have a core and the test measures the GIL, not the OS scheduler; a call of about a
    # second, so that another process taking a core for a moment stays well under half of it.
    sim = Simulation(run_spec(group("sphere", count=100_000)), threads=1)
    sim.step(1)  # compiled and warm
    gap, duration = longest_pause_while_stepping(sim, 100)
    # Holding the GIL would stop this thread for the whole kernel call.
    assert gap < duration / 2
