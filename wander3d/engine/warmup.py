"""Compiling the step kernel ahead of use.

numba compiles `kernel.advance` on its first call (about 15-20 s on two idle cores, minutes on
a busy machine) and caches the machine code on disk, so only the first ever launch pays; later
processes load it in about a second (a few on a busy machine). Commands call `compile_kernel`
with a notice for the user that comes only when numba really compiles, however long a cached
load takes; the desktop app compiles in a child process so its screen stays live
(wander3d.app.main); `python -m wander3d.engine.warmup` compiles ahead of time, e.g. after
installing.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

from numba.core import event

from .methods import METHODS
from .params import GroupParams, RunSpec, WanderParams

#: One small agent group per method: enough to compile every branch's types.
_TINY_SCENE = RunSpec(
    groups=tuple(
        GroupParams(count=2, trail_length=4, wander=WanderParams(method=m)) for m in METHODS
    ),
)


class _FirstCompile(event.Listener):
    """Calls `on_compile` at the start of the first compile numba does (a function it has
    no cached machine code for), once."""

    def __init__(self, on_compile: Callable[[], None]) -> None:
        self.on_compile = on_compile
        self.fired = False

    def on_start(self, event: event.Event) -> None:
        if not self.fired:
            self.fired = True
            self.on_compile()

    def on_end(self, event: event.Event) -> None:
        """Nothing: only the start is news."""


@contextlib.contextmanager
def compiling_reported(on_compile: Callable[[], None] | None) -> Iterator[None]:
    """Within the block, call `on_compile` (in the thread compiling) when numba starts to
    compile something, at most once; loading machine code from numba's cache calls nothing.

    numba announces a compile only on a cache miss (its "numba:compile" event), so this tells
    a first run from a cached one however busy the machine is. If `on_compile` raises, the
    compile does not happen and the exception leaves the block.
    """
    if on_compile is None:
        yield
        return
    with event.install_listener("numba:compile", _FirstCompile(on_compile)):
        yield


def compile_kernel(on_slow: Callable[[], None] | None = None) -> float:
    """Make sure the kernel is compiled (or loaded from the cache); return the seconds it took.

    on_slow is called once, as numba starts compiling (the slow case: no machine code cached
    for this version of the kernel), never for a load from the cache.
    """
    from .simulation import Simulation  # here, so importing this module stays cheap

    start = time.perf_counter()
    with compiling_reported(on_slow):
        Simulation(_TINY_SCENE).step(2)
    return time.perf_counter() - start


class NotCached(Exception):
    """The kernel has no machine code in numba's cache (see `load_cached_kernel`)."""


def load_cached_kernel() -> bool:
    """Load the kernel from numba's cache; False, having compiled nothing, if it is not there.

    For a caller that compiles elsewhere when it must (the app, in a child process).
    """

    def refuse() -> None:
        raise NotCached

    try:
        compile_kernel(on_slow=refuse)
    except NotCached:
        return False
    return True


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
