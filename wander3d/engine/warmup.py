"""Compiling the step kernel ahead of use.

numba compiles `kernel.advance` on its first call (about 15-20 s on two cores) and caches the
machine code on disk, so only the first ever launch pays; later processes load it in well under
a second. Commands call `compile_kernel` with a notice for the user; the desktop app calls it
in a thread before building its window, keeping the screen live (wander3d.app.main);
`python -m wander3d.engine.warmup` compiles ahead of time, e.g. after installing.
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


def compiling_notice() -> None:
    """Tell a command-line user why nothing moves for a while (for `compile_kernel(on_slow=)`)."""
    print(
        "wander3d: compiling the simulation kernel (first run only, about 20 s)...",
        file=sys.stderr,
        flush=True,
    )


def main() -> int:
    seconds = compile_kernel()
    print(f"wander3d: engine kernel ready in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
