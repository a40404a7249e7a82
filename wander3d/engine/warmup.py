"""Compiling the step kernel, and the path measures' passes, ahead of use.

numba compiles `kernel.advance` on its first call (about 15-20 s on two cores) and caches the
machine code on disk, so only the first ever launch pays; later processes load it in well under
a second. Commands call `compile_kernel` with a notice for the user; the desktop app calls it
in a thread before building its window, keeping the screen live (wander3d.app.main);
`python -m wander3d.engine.warmup` compiles both ahead of time, e.g. after installing; a
sweep's workers load both before their first cell.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from .methods import METHODS
from .params import GroupParams, RunSpec, WanderParams

#: One small agent group per method: enough to compile every branch's types.
_TINY_SCENE = RunSpec(
    groups=tuple(
        GroupParams(count=2, trail_length=4, wander=WanderParams(method=m)) for m in METHODS
    ),
)


def compile_kernel(on_slow: Callable[[], None] | None = None, slow_after: float = 1.0) -> float:
    """Make sure the kernel is compiled (or loaded from the cache); return the seconds it took.

    on_slow is called once, from another thread, if this takes longer than `slow_after` seconds:
    the moment to tell the user why they are waiting.
    """
    from .simulation import Simulation  # here, so importing this module stays cheap

    timer = threading.Timer(slow_after, on_slow) if on_slow else None
    if timer:
        timer.daemon = True
        timer.start()
    start = time.perf_counter()
    try:
        Simulation(_TINY_SCENE).step(2)
    finally:
        if timer:
            timer.cancel()
    return time.perf_counter() - start


def compile_path_measures() -> float:
    """Make sure the path measures' compiled passes (`pathsums`) are compiled for a
    recording's float32 samples, or loaded from the cache (about 2 s the first time, then
    some 30 ms); return the seconds it took. A sweep's workers call it before their first
    cell."""
    import numpy as np

    from . import pathsums

    start = time.perf_counter()
    t, n, lags = 4, 2, 1
    samples = np.zeros((t, n, 3), dtype=np.float32)
    samples[..., 0] = 1.0
    speeds = np.ones((t, n), dtype=np.float32)
    lengths = np.full(n, t, dtype=np.int64)
    box = np.array([-1.0, -1.0, -1.0]), np.array([1.0, 1.0, 1.0])
    sums = np.zeros(pathsums.PATH_SUMS)
    turn_sin, turn_cos = np.empty((n, t - 1)), np.empty((n, t - 1))
    counts = np.zeros(2, dtype=np.int64)
    pathsums.path_pass(
        samples, samples, speeds, 0, lengths, *box, 0.1, 2, 1e-9, sums,
        np.zeros(8, dtype=bool), turn_sin, turn_cos, np.zeros((n, 3, t - 1)),
        np.zeros((n, t - 1), dtype=bool), np.empty((n, 3, t)), np.zeros(lags + 1),
        np.empty((0, 3, 0)), counts, counts,
    )  # fmt: skip
    pathsums.turn_pass(
        samples, 0, lengths, np.arctan2(turn_sin, turn_cos), turn_sin, 0.1, 1e-6, 2, -0.8,
        2.6, sums, np.zeros((n, 3, t - 1)), np.zeros((n, t - 1), dtype=bool),
    )  # fmt: skip
    return time.perf_counter() - start


def compiling_notice() -> None:
    """Tell a command-line user why nothing moves for a while (for `compile_kernel(on_slow=)`)."""
    print(
        "wander3d: compiling the simulation kernel (first run only, about 20 s)...",
        file=sys.stderr,
        flush=True,
    )


def main() -> int:
    seconds = compile_kernel() + compile_path_measures()
    print(f"wander3d: engine kernel ready in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
