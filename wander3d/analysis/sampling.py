"""Run a simulation headless and record its agents at a fixed sample rate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wander3d.engine import RunSpec, Simulation

Array = np.ndarray

#: Samples per second unless asked otherwise: fine enough to resolve turns lasting a fraction of
#: a second, coarse enough that the per-step jitter of the random walks averages out.
DEFAULT_SAMPLE_RATE = 10.0

#: Bytes stored per agent and sample: float32 heading (3), position (3) and speed (1).
BYTES_PER_AGENT_SAMPLE = 7 * 4
#: More steps between samples than any run takes.
_MAX_STEPS = 2.0**53


@dataclass(frozen=True)
class SamplePlan:
    """How a run is sampled.

    steps_per_sample:  simulation steps between samples (>= 1);
    samples:           number of samples T, the first at time 0;
    interval:          seconds between samples, steps_per_sample * dt (the actual interval,
                       which can differ a little from 1 / the requested rate);
    """

    steps_per_sample: int
    samples: int
    interval: float

    @property
    def steps(self) -> int:
        """Simulation steps the run takes."""
        return (self.samples - 1) * self.steps_per_sample

    @property
    def rate(self) -> float:
        """Actual samples per second."""
        return 1.0 / self.interval

    @property
    def seconds(self) -> float:
        """Simulated seconds from the first sample to the last."""
        return (self.samples - 1) * self.interval


def plan_samples(dt: float, seconds: float, rate: float = DEFAULT_SAMPLE_RATE) -> SamplePlan:
    """Sample every round(1 / (rate * dt)) steps (at least 1) for about `seconds` seconds.

    The interval must be a whole number of steps, so the actual rate is the nearest one the
    time step allows (exactly `rate` when dt divides 1 / rate). At least two samples are taken.
    """
    if not (dt > 0 and seconds > 0 and rate > 0):
        raise ValueError("dt, seconds and rate must be positive")
    # A rate far below 1 / seconds (1e-320 Hz) makes a ratio beyond any whole number: an
    # interval longer than any run, which the caller finds too short to measure.
    product = rate * dt  # 0 when it underflows
    every = max(1, round(min(1.0 / product, _MAX_STEPS))) if product > 0 else int(_MAX_STEPS)
    interval = every * dt
    intervals = max(1, round(seconds / interval))
    return SamplePlan(steps_per_sample=every, samples=intervals + 1, interval=interval)


@dataclass(frozen=True)
class Samples:
    """A sampled run. Agents are in the simulation's order, each group a contiguous block.

    interval:      seconds between samples;
    times:         (T,) simulated seconds of each sample (the first is the start of the run);
    headings:      (T, N, 3) float32 unit headings;
    positions:     (T, N, 3) float32 positions (units);
    speeds:        (T, N) float32 speeds (units/s);
    group_slices:  one slice of the N agents per group;
    low, high:     (3,) enclosure corners (units); margin: its wall band (units).
    """

    interval: float
    times: Array
    headings: Array
    positions: Array
    speeds: Array
    group_slices: tuple[slice, ...]
    low: Array
    high: Array
    margin: float

    @property
    def count(self) -> int:
        """Number of samples T."""
        return len(self.times)


def sample_simulation(
    sim: Simulation,
    plan: SamplePlan,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """Advance `sim` by plan.steps steps, recording every agent every plan.steps_per_sample steps.

    The first sample is the simulation's current state. Each sample copies whole (N, 3) arrays
    (no loop over agents). `progress(steps_done)` is called after every sample.
    """
    t, n = plan.samples, sim.count
    headings = np.empty((t, n, 3), dtype=np.float32)
    positions = np.empty((t, n, 3), dtype=np.float32)
    speeds = np.empty((t, n), dtype=np.float32)
    start = sim.time
    for k in range(t):
        if k:
            sim.step(plan.steps_per_sample)
            if progress is not None:
                progress(k * plan.steps_per_sample)
        headings[k] = sim.headings
        positions[k] = sim.positions
        speeds[k] = np.sqrt(np.einsum("ij,ij->i", sim.velocities, sim.velocities))
    low, high = sim.bounds
    return Samples(
        interval=plan.interval,
        times=start + np.arange(t) * plan.interval,
        headings=headings,
        positions=positions,
        speeds=speeds,
        group_slices=tuple(sim.group_slices),
        low=np.asarray(low, dtype=np.float64),
        high=np.asarray(high, dtype=np.float64),
        margin=float(sim.enclosure.margin),
    )


def sample_spec(
    spec: RunSpec,
    seconds: float,
    rate: float = DEFAULT_SAMPLE_RATE,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> Samples:
    """A fresh Simulation of `spec` (a scene's run_spec), sampled from its start for `seconds`;
    it steps on `threads` threads (None: all the engine has)."""
    sim = Simulation(spec, threads=threads)
    return sample_simulation(sim, plan_samples(sim.dt, seconds, rate), progress)
