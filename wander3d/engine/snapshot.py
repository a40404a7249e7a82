"""A frozen copy of a Simulation's whole state, to go back to it later (the app's timeline)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .params import GroupParams


@dataclass(frozen=True, eq=False)
class Snapshot:
    """Everything `Simulation.restore` needs to continue a run bit for bit.

    arrays: copies of every state array by attribute name (agent state, the parameter table,
    the trail store); step_count: steps taken; groups: the live group parameters (edits
    included); rng: the state of the generator that draws a new method's starting state.
    """

    arrays: dict[str, np.ndarray]
    step_count: int
    groups: tuple[GroupParams, ...]
    rng: dict[str, Any]

    @property
    def nbytes(self) -> int:
        """Bytes held by the copied arrays."""
        return sum(a.nbytes for a in self.arrays.values())
