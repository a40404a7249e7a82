"""The wander3d engine: the simulation's state arrays and its one compiled step.

It imports numpy, numba (the step's kernel) and the standard library only, and no other
layer of wander3d: no Qt, no vispy, so it runs where there is no display. It is the only layer
that imports numba: how many threads the kernel runs on is a setting of each `Simulation`.
A Simulation runs from a `RunSpec`, and its shape (agents, groups, box, trail rings) is the
spec's `Layout`; what each wander method is, `methods.METHOD_TABLE` says. Recording a run (its
sample plan, the batched stepping loop, samples handed out in chunks) is `recording` alone:
`wander3d run` and the analysis record fresh runs through `record_run`, and the session's
timeline and path tracer step through its loop. Only the engine and the session hold a
Simulation: others get samples, a `Layout`, a `start_state` or, from the session, published
states (timing the stepping itself is `speed`'s).
"""

from .layout import Layout
from .methods import METHOD_KEYS, METHODS
from .params import (
    FIXED_GROUP_FIELDS,
    SHARED_WANDER_KEYS,
    STEERING_MODES,
    Enclosure,
    GroupParams,
    RunSpec,
    WanderParams,
)
from .simulation import Simulation, start_state
from .snapshot import Snapshot
from .threads import max_threads
from .trails import TrailBuffer, TrailView

__all__ = [
    "FIXED_GROUP_FIELDS",
    "METHODS",
    "METHOD_KEYS",
    "SHARED_WANDER_KEYS",
    "STEERING_MODES",
    "Enclosure",
    "GroupParams",
    "Layout",
    "RunSpec",
    "Simulation",
    "Snapshot",
    "TrailBuffer",
    "TrailView",
    "WanderParams",
    "max_threads",
    "start_state",
]
