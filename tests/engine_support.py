"""Building engine inputs directly, without the scene layer, for fast engine tests."""

from __future__ import annotations

import numpy as np

from wander3d.engine import Enclosure, GroupParams, RunSpec, Simulation, WanderParams

#: A box so large that agents in short runs never reach its walls.
OPEN_SPACE = Enclosure(min=(-1e6, -1e6, -1e6), max=(1e6, 1e6, 1e6), margin=10.0)


def group(method: str = "sphere", count: int = 200, trail_length: int = 0, **wander) -> GroupParams:
    return GroupParams(
        count=count,
        name=method,
        trail_length=trail_length,
        wander=WanderParams(method=method, **wander),
    )


def run_spec(*groups: GroupParams, seed: int = 7, **spec) -> RunSpec:
    return RunSpec(groups=groups, seed=seed, **spec)


def simulation(*groups: GroupParams, **spec) -> Simulation:
    return Simulation(run_spec(*groups, **spec))


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
