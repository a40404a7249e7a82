"""How fast the engine steps: the one place that times `Simulation.step` (for `wander3d bench`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .params import RunSpec
from .simulation import Simulation


@dataclass(frozen=True)
class StepRate:
    """agent_steps_per_s: N * steps / wall-clock seconds; bytes_per_agent: state plus trails
    over N."""

    agent_steps_per_s: float
    bytes_per_agent: float


def measure_step_rate(spec: RunSpec, steps_per_call: int, min_seconds: float = 0.5) -> StepRate:
    """Time `Simulation.step(steps_per_call)` calls on a run of `spec` for at least
    `min_seconds`; best of 3 runs. The first call (which may compile or load the kernel) is
    not timed."""
    sim = Simulation(spec)
    sim.step(steps_per_call)
    # Size one timed run to about min_seconds / 3 from a short probe.
    probe = time.perf_counter()
    sim.step(steps_per_call)
    per_call = max(time.perf_counter() - probe, 1e-7)
    calls = max(1, int(min_seconds / 3 / per_call))
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            sim.step(steps_per_call)
        elapsed = time.perf_counter() - start
        best = max(best, sim.count * steps_per_call * calls / elapsed)
    return StepRate(best, sim.nbytes / max(sim.count, 1))
