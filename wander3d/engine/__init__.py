"""The wander3d engine: numpy and the standard library only (no Qt, no vispy)."""

from .params import (
    METHOD_KEYS,
    METHODS,
    SHARED_WANDER_KEYS,
    STEERING_MODES,
    Enclosure,
    GroupParams,
    SimulationSpec,
    WanderParams,
)
from .simulation import Simulation
from .snapshot import Snapshot
from .trails import TrailBuffer, TrailView

__all__ = [
    "METHODS",
    "METHOD_KEYS",
    "SHARED_WANDER_KEYS",
    "STEERING_MODES",
    "Enclosure",
    "GroupParams",
    "Simulation",
    "SimulationSpec",
    "Snapshot",
    "TrailBuffer",
    "TrailView",
    "WanderParams",
]
