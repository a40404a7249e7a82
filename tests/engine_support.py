"""Building engine inputs directly, without the scene layer, for fast engine tests."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from wander3d.engine import Enclosure, GroupParams, Simulation, WanderParams

#: A box so large that agents in short runs never reach its walls.
OPEN_SPACE = Enclosure(min=(-1e6, -1e6, -1e6), max=(1e6, 1e6, 1e6), margin=10.0)


@dataclass(frozen=True)
class Spec:
    seed: int = 7
    dt: float = 1 / 60
    enclosure: Enclosure = field(default_factory=Enclosure)
    groups: tuple[GroupParams, ...] = ()


def group(method: str = "sphere", count: int = 200, trail_length: int = 0, **wander) -> GroupParams:
    return GroupParams(
        count=count,
        name=method,
        trail_length=trail_length,
        wander=WanderParams(method=method, **wander),
    )


def simulation(*groups: GroupParams, **spec) -> Simulation:
    return Simulation(Spec(groups=groups, **spec))


def sample_headings(sim: Simulation, seconds: float, interval: float = 0.1) -> np.ndarray:
    """Headings every `interval` seconds of simulated time: (T, N, 3)."""
    every = max(1, round(interval / sim.dt))
    out = []
    for _ in range(round(seconds / interval)):
        out.append(sim.headings.copy())
        sim.step(every)
    return np.array(out)


def turn_rates(headings: np.ndarray, interval: float) -> np.ndarray:
    """Angular speed of the heading (rad/s) between consecutive samples: (T-1, N)."""
    cos = np.clip(np.einsum("tij,tij->ti", headings[1:], headings[:-1]), -1.0, 1.0)
    return np.arccos(cos) / interval


def yaw_rates(headings: np.ndarray, interval: float) -> np.ndarray:
    """Signed turn rate about the world up axis (rad/s, + is counter-clockwise from above)."""
    return np.cross(headings[:-1], headings[1:])[..., 1] / interval
