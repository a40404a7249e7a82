import subprocess
import sys

from wander3d.engine import kernel
from wander3d.engine.warmup import compile_kernel


def test_compile_kernel_leaves_the_kernel_ready_and_reports_slowness_once():
    calls = []
    seconds = compile_kernel(on_slow=lambda: calls.append(1), slow_after=0.0)
    assert seconds > 0.0
    assert kernel.advance.signatures, "the kernel has a compiled signature"
    assert len(calls) <= 1


def test_warmup_module_runs_as_a_child_process():
    command = [sys.executable, "-m", "wander3d.engine.warmup"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "engine kernel ready" in done.stderr
