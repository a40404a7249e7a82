"""Will a scene's arrays fit in memory? A conservative estimate, and two limits it must meet.

A scene with a million agents and long trails would make the engine allocate gigabytes and then
die (or swap the machine to a halt); refusing it before with the numbers is kinder. Two
questions, asked at two places:

- Is the scene valid? Validation (`load_scene`) rejects a scene whose estimate is above
  MAX_SCENE_BYTES, a fixed bound, so a file is valid or invalid on every machine alike.
- Does it fit here? `check_fits(scene)` compares the estimate with this machine's
  `memory_budget()` and raises MemoryFitError if it does not fit. Whoever is about to build
  the simulation asks, where it will run: `wander3d run`, `stats` and `render`, every sweep
  and tune task on its Dask worker, and the app before it opens a scene.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wander3d.engine.params import GroupParams
from wander3d.scene.errors import NO_FILE

if TYPE_CHECKING:
    from wander3d.scene.model import Scene

#: Per-agent simulation state (265 bytes in the engine today: positions, velocities,
#: headings, frames, targets, forces, random keys...) plus the temporaries of a step.
AGENT_STATE_BYTES = 512
#: One trail point: float32 x, y, z plus a "line break here" flag.
TRAIL_POINT_BYTES = 13

_GIB = 1024**3
_MIB = 1024**2
#: Used when the platform cannot tell its memory size (not POSIX): a modest laptop.
_ASSUMED_RAM = 8 * _GIB
#: The largest estimate a valid scene may have, on any machine: more than a workstation
#: holds, so a bigger scene is a typo (count = 1_000_000 with trail_length = 100_000 would
#: need 1.2 TiB). Whether a valid scene fits on this machine is `check_fits`'s question.
MAX_SCENE_BYTES = 256 * _GIB


class MemoryFitError(ValueError):
    """A valid scene that does not fit in this machine's memory budget.

    str() is one line, "FILE: problem", e.g. "big.toml: 2,000 agents with 200,000 trail points
    need about 3.5 MiB, more than the 1.0 MiB this machine allows (half the physical memory);
    lower count or trail_length". Attributes: `file` (the scene's file, or "<scene>"),
    `problem` (str), `need` and `budget` (bytes).
    """

    def __init__(self, file: str, problem: str, need: int, budget: int) -> None:
        self.file = file
        self.problem = problem
        self.need = need
        self.budget = budget
        super().__init__(f"{file}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, str, int, int]]:
        # Raised on a Dask worker, it is pickled back to the client.
        return (type(self), (self.file, self.problem, self.need, self.budget))


def estimate_bytes(groups: Iterable[GroupParams]) -> int:
    """Bytes the engine needs for these groups: agents' state plus their trail buffers."""
    agents = 0
    points = 0
    for g in groups:
        agents += g.count
        points += g.count * g.trail_length
    return agents * AGENT_STATE_BYTES + points * TRAIL_POINT_BYTES


def describe_need(groups: Sequence[GroupParams]) -> str:
    """What the groups need, in words: "2,000 agents with 200,000 trail points need about
    3.5 MiB"."""
    agents = sum(g.count for g in groups)
    points = sum(g.count * g.trail_length for g in groups)
    need = format_bytes(estimate_bytes(groups))
    return f"{agents:,} agents with {points:,} trail points need about {need}"


def check_fits(scene: Scene) -> None:
    """Raise MemoryFitError if `scene`'s arrays (`estimate_bytes`) would not fit in this
    machine's `memory_budget()`; do nothing if they would. Call it where the simulation will
    be built: on the machine, and in the process, that runs it."""
    need = estimate_bytes(scene.groups)
    budget, why = memory_budget()
    if need > budget:
        raise MemoryFitError(
            NO_FILE if scene.source is None else str(scene.source),
            f"{describe_need(scene.groups)}, more than the {format_bytes(budget)} this machine "
            f"allows ({why}); lower count or trail_length",
            need,
            budget,
        )


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
