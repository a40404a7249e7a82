"""Will a scene's arrays fit in memory? A conservative estimate and the budget it must fit.

A scene with a million agents and long trails would make the engine allocate gigabytes and then
die (or swap the machine to a halt); rejecting it at load time with the numbers is kinder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from wander3d.engine.params import GroupParams

#: Per-agent simulation state (265 bytes in the engine today: positions, velocities,
#: headings, frames, targets, forces, random keys...) plus the temporaries of a step.
AGENT_STATE_BYTES = 512
#: One trail point: float32 x, y, z plus a "line break here" flag.
TRAIL_POINT_BYTES = 13

_GIB = 1024**3
_MIB = 1024**2
#: Used when the platform cannot tell its memory size (not POSIX): a modest laptop.
_ASSUMED_RAM = 8 * _GIB


def estimate_bytes(groups: Iterable[GroupParams]) -> int:
    """Bytes the engine needs for these groups: agents' state plus their trail buffers."""
    agents = 0
    points = 0
    for g in groups:
        agents += g.count
        points += g.count * g.trail_length
    return agents * AGENT_STATE_BYTES + points * TRAIL_POINT_BYTES


def _physical_ram() -> int | None:
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    if pages <= 0 or page_size <= 0:
        return None
    return pages * page_size


def _cgroup_limit() -> int | None:
    """A container's memory limit (cgroup v2), which can be far below the machine's RAM."""
    try:
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _address_space_limit() -> int | None:
    try:
        import resource  # POSIX only
    except ImportError:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else soft


def memory_budget() -> tuple[int, str]:
    """The most bytes a scene may need, and where that number comes from, in words.

    Half of the smallest of: physical RAM, the container's limit, the address-space limit;
    half, because the renderer, numpy temporaries and the rest of the desktop need room too.
    """
    candidates = [
        (_physical_ram(), "half the physical memory"),
        (_cgroup_limit(), "half the container's memory limit"),
        (_address_space_limit(), "half the process's address-space limit"),
    ]
    known = [(n // 2, why) for n, why in candidates if n is not None]
    if not known:
        return _ASSUMED_RAM // 2, "half of an assumed 8 GiB of memory"
    return min(known)


def format_bytes(n: float) -> str:
    """A size as people read it: "12.5 MiB" below a GiB, "3.2 GiB" from there on."""
    if n >= _GIB:
        return f"{n / _GIB:.1f} GiB"
    return f"{n / _MIB:.1f} MiB"
