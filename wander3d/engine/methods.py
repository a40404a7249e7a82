"""The wander methods: one table of what each is, read by every layer that needs to know.

Each row gives a method's name (as scene files spell it), its id in the kernel, the wander keys
it reads, the state it carries from step to step, and the words the scene reference and
`wander3d check` use for it. The simulation starts, switches and edits a method's state by its
`State`, the scene schema and validation take the keys and words from here, the app's panel
offers the keys, and `check` states the pace. Adding a method touches this table and the
kernel (its id and its branch in `kernel.advance`) only; tests/test_engine_methods.py checks
that the two agree and that no other module matches on a method's name.

The ids are defined in the kernel and only named here: numba caches the compiled kernel with the
values of its globals, and refreshes that cache when kernel.py changes, not when another module
does.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass

from . import kernel
from .params import WanderParams

_INVERSE_E = math.exp(-1.0)


class State(enum.Enum):
    """What a method carries from step to step to place its target (beyond the agent's motion).

    DIRECTION:   the target's direction from the wander sphere's centre, a unit vector.
    ANGLES:      the target's yaw and pitch in the agent's frame (its heading and a level side
                 vector, both carried).
    NOISE:       two smooth noise curves (keys and phases) driving that yaw and pitch, and
                 offsets added to them where a wall turned the target; the frame as for ANGLES.
    SEEK_POINT:  a point of the box and the seconds left until the next.
    """

    DIRECTION = enum.auto()
    ANGLES = enum.auto()
    NOISE = enum.auto()
    SEEK_POINT = enum.auto()

    @property
    def framed(self) -> bool:
        """Whether the target lives in the agent's frame, so a level side vector is carried."""
        return self in (State.ANGLES, State.NOISE)

    @property
    def on_sphere(self) -> bool:
        """Whether the target is on the wander sphere (else it is a point of the box)."""
        return self is not State.SEEK_POINT


@dataclass(frozen=True)
class MethodTraits:
    """One wander method.

    name:           as scene files spell it.
    id:             the kernel's code for it (`kernel.SPHERE`, ...), which picks its branch.
    reads:          the wander keys it reads, beyond `params.SHARED_WANDER_KEYS`.
    state:          what it carries from step to step.
    summary:        what it does, in a phrase (the scene file reference).
    decorrelation:  from a group's wander parameters, the seconds its target's direction (in
                    the agent's frame) takes to lose its memory to 1/e, or None if it never
                    does; None for a method without such a time.
    rhythm:         from a group's wander parameters, what sets the method's pace in words
                    (`wander3d check`); None for a method that states a decorrelation instead.
    """

    name: str
    id: int
    reads: tuple[str, ...]
    state: State
    summary: str
    decorrelation: Callable[[WanderParams], float | None] | None = None
    rhythm: Callable[[WanderParams], str] | None = None


def sphere_decorrelation(radius: float, jitter: float) -> float | None:
    """Sphere method: 1/e time (s) of the target's direction, 5 (radius/jitter)^2.

    A displacement uniform in a ball of radius a has per-axis variance a^2/5, so the unit
    target diffuses on its sphere with D = jitter^2 / (10 radius^2), and its autocorrelation
    exp(-2 D t) falls to 1/e at 1 / (2 D). None when jitter is 0 (it never changes).
    """
    return None if jitter <= 0.0 else 5.0 * (radius / jitter) ** 2


def angle_decorrelation(rate: float, vertical: float) -> float | None:
    """Angle method: 1/e time (s) of the target's direction in the agent's frame.

    Yaw steps are uniform with variance rate^2 dt / 3, so E cos(yaw change) = exp(-rate^2 t/6);
    pitch is Gaussian with spread s = vertical * PITCH_SPREAD and correlation exp(-theta t),
    theta = rate^2 / (6 s^2), which gives E cos p cos p' = exp(-s^2) cosh(s^2 rho) and
    E sin p sin p' = exp(-s^2) sinh(s^2 rho). Solved for 1/e by bisection (the pitch's
    reflection at the poles is left out: under 3% of the time even at vertical 1).
    None when rate is 0.
    """
    if rate <= 0.0:
        return None
    spread2 = (vertical * kernel.PITCH_SPREAD) ** 2

    def correlation(t: float) -> float:
        yaw = math.exp(-rate * rate * t / 6.0)
        if spread2 == 0.0:
            return yaw
        rho = math.exp(-t * rate * rate / (6.0 * spread2))
        base = math.exp(-spread2)
        return base * (math.cosh(spread2 * rho) * yaw + math.sinh(spread2 * rho))

    lo, hi = 0.0, 6.0 / (rate * rate)
    while correlation(hi) > _INVERSE_E:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if correlation(mid) > _INVERSE_E else (lo, mid)
    return 0.5 * (lo + hi)


#: Every method, in the order the docs list them.
METHOD_TABLE: tuple[MethodTraits, ...] = (
    MethodTraits(
        "sphere",
        kernel.SPHERE,
        reads=("distance", "radius", "jitter"),
        state=State.DIRECTION,
        summary="Reynolds' 3D displacement on a sphere",
        decorrelation=lambda w: sphere_decorrelation(w.radius, w.jitter),
    ),
    MethodTraits(
        "angle",
        kernel.ANGLE,
        reads=("distance", "radius", "rate"),
        state=State.ANGLES,
        summary="the 2D tutorials' angle jitter in 3D",
        decorrelation=lambda w: angle_decorrelation(w.rate, w.vertical),
    ),
    MethodTraits(
        "noise",
        kernel.NOISE,
        reads=("distance", "radius", "frequency"),
        state=State.NOISE,
        summary="smooth coherent noise",
        rhythm=lambda w: f"noise time scale {1.0 / w.frequency:.3g} s",
    ),
    MethodTraits(
        "seek",
        kernel.SEEK,
        reads=("interval",),
        state=State.SEEK_POINT,
        summary="seek random points of the box",
        rhythm=lambda w: f"a new point every {w.interval:g} s",
    ),
    MethodTraits(
        "random",
        kernel.RANDOM,
        reads=("distance", "radius"),
        state=State.DIRECTION,
        summary=f"a fresh random force every 1/{1 / kernel.RANDOM_HOLD:g} s (twitchy baseline)",
        rhythm=lambda w: f"a fresh random force every {kernel.RANDOM_HOLD:.3g} s",
    ),
)

_BY_NAME = {m.name: m for m in METHOD_TABLE}

#: Method names, in the table's order.
METHODS = tuple(_BY_NAME)
#: Which wander keys each method reads, beyond the ones every method shares.
METHOD_KEYS: dict[str, tuple[str, ...]] = {m.name: m.reads for m in METHOD_TABLE}


def traits(method: str) -> MethodTraits:
    """The traits of the method called `method` (one of METHODS)."""
    return _BY_NAME[method]
