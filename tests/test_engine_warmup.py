import os
import subprocess
import sys
import threading
import time

import numba

from wander3d.engine import kernel, simulation
from wander3d.engine.warmup import compile_kernel, compiling_reported


def test_compile_kernel_leaves_the_kernel_ready():
    seconds = compile_kernel()
    assert seconds > 0.0
    assert kernel.advance.signatures, "the kernel has a compiled signature"


def test_the_notice_comes_once_when_numba_compiles_in_the_thread_compiling():
    calls = []

    @numba.njit
    def fresh(x):  # never compiled before this test
        return x + 1

    with compiling_reported(lambda: calls.append(threading.current_thread())):
        assert fresh(1) == 2
        assert fresh(2.5) == 3.5  # a second signature: a second compile, no second notice
    assert calls == [threading.current_thread()]
    with compiling_reported(lambda: calls.append(threading.current_thread())):
        fresh(3)  # compiled already
    assert len(calls) == 1


def test_a_slow_load_from_the_cache_gives_no_notice(monkeypatch):
    """The kernel is cached (the test session compiled it first); loading it on a busy
    machine takes seconds, which is no compile."""
    calls = []

    class BusySimulation(simulation.Simulation):
        def step(self, n=1):
            time.sleep(1.5)  # the notice used to come after 1 s of anything
            return super().step(n)

    monkeypatch.setattr(simulation, "Simulation", BusySimulation)
    compile_kernel(on_slow=lambda: calls.append(1))
    assert calls == []


def test_load_cached_kernel_compiles_nothing_when_the_cache_is_empty(tmp_path):
    probe = (
        "from wander3d.engine import kernel; from wander3d.engine.warmup import "
        "load_cached_kernel; print(load_cached_kernel(), len(kernel.advance.signatures))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "0"]


def test_warmup_module_runs_as_a_child_process():
    command = [sys.executable, "-m", "wander3d.engine.warmup"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "engine kernel ready" in done.stderr
