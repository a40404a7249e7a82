"""How many threads the step kernel runs on: a setting of each Simulation.

numba runs the kernel's parallel loop on a pool of NUMBA_NUM_THREADS threads (by default one
per core) and lets each calling thread use fewer. Only the engine sets that count, so it
remembers each calling thread's setting and changes it only when a simulation asks for
another (numba's own call costs a few microseconds, a few percent of a small step).
"""

from __future__ import annotations

import threading

import numba

_current = threading.local()


def max_threads() -> int:
    """The most threads the kernel can run on in this process (numba's pool)."""
    # numba.config sets its attributes from the environment at run time.
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def use_threads(count: int) -> None:
    """Run the kernel's calls from this thread on `count` threads, 1 <= count <= max_threads()."""
    if getattr(_current, "count", None) != count:
        numba.set_num_threads(count)
        _current.count = count
