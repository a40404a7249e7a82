"""Engine throughput: agent-steps per second of the compiled kernel, and bytes per agent."""

from __future__ import annotations

import time
from dataclasses import dataclass

from wander3d.engine import GroupParams, RunSpec, Simulation, WanderParams

#: The benchmark scene: sphere wander, containment on (agents meet the walls), 128-point trails.
TRAIL_LENGTH = 128


@dataclass(frozen=True)
class EngineResult:
    """One measurement.

    agents: N; steps_per_call: steps advanced by each `Simulation.step` call;
    agent_steps_per_s: N * steps / wall-clock seconds; bytes_per_agent: state plus trails / N.
    """

    agents: int
    steps_per_call: int
    agent_steps_per_s: float
    bytes_per_agent: float


def benchmark_scene(agents: int, seed: int = 1) -> RunSpec:
    """The run spec of `agents` sphere wanderers in the default box, at 60 steps a second."""
    group = GroupParams(
        count=agents,
        trail_length=TRAIL_LENGTH,
        trail_seconds=TRAIL_LENGTH * 2 / 60,  # a point every 2 steps
        wander=WanderParams(method="sphere"),
    )
    return RunSpec(seed=seed, dt=1 / 60, groups=(group,))


def measure(agents: int, steps_per_call: int, min_seconds: float = 0.5) -> EngineResult:
    """Time `Simulation.step(steps_per_call)` calls for at least `min_seconds`; best of 3 runs.

    The first call (which may compile or load the kernel) is not timed.
    """
    sim = Simulation(benchmark_scene(agents))
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
        best = max(best, agents * steps_per_call * calls / elapsed)
    return EngineResult(agents, steps_per_call, best, sim.nbytes / agents)
