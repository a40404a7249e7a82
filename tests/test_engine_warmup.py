import subprocess
import sys
import threading

from wander3d.engine import kernel, simulation
from wander3d.engine.warmup import compile_kernel

#: How long a forced-slow compile waits for the notice before giving up (never reached when
#: the notice comes: the wait ends as soon as it does).
NOTICE_TIMEOUT = 60.0


def test_compile_kernel_leaves_the_kernel_ready():
    seconds = compile_kernel()
    assert seconds > 0.0
    assert kernel.advance.signatures, "the kernel has a compiled signature"


def test_a_slow_compile_reports_once_while_it_is_still_running(monkeypatch):
    """Force the slow path: the warm-up step blocks until the notice arrives (or a long
    timeout passes), so the test fails if the notice never comes, and it never depends on
    how fast this machine is."""
    noticed = threading.Event()
    calls = []
    steps = []

    class SlowSimulation(simulation.Simulation):
        def step(self, n=1):
            steps.append(noticed.wait(NOTICE_TIMEOUT))
            return super().step(n)

    def on_slow():
        calls.append(threading.current_thread())
        noticed.set()

    monkeypatch.setattr(simulation, "Simulation", SlowSimulation)
    compile_kernel(on_slow=on_slow, slow_after=0.01)
    assert steps == [True], "the notice came while the compile was still running"
    assert len(calls) == 1
    assert calls[0] is not threading.main_thread(), "the notice comes from another thread"


def test_a_fast_compile_reports_nothing_and_leaves_no_timer_behind():
    calls = []
    before = set(threading.enumerate())  # e.g. pytest-timeout's timer of this test
    compile_kernel(on_slow=lambda: calls.append(1), slow_after=3600.0)
    assert calls == []
    # The timer was cancelled, not left to fire an hour from now.
    new = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t not in before]
    assert all(t.finished.is_set() for t in new), new


def test_warmup_module_runs_as_a_child_process():
    command = [sys.executable, "-m", "wander3d.engine.warmup"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "engine kernel ready" in done.stderr
