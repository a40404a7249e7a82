"""Engine throughput: agent-steps per second of the compiled kernel, and bytes per agent."""

from __future__ import annotations

from dataclasses import dataclass

from wander3d.engine import GroupParams, RunSpec, WanderParams
from wander3d.engine.speed import measure_step_rate

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
    """Time `Simulation.step(steps_per_call)` calls on the benchmark scene of `agents` agents
    for at least `min_seconds`; best of 3 runs (the engine's measure_step_rate)."""
    rate = measure_step_rate(benchmark_scene(agents), steps_per_call, min_seconds)
    return EngineResult(agents, steps_per_call, rate.agent_steps_per_s, rate.bytes_per_agent)
