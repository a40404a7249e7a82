"""Run a simulation headless and record its agents at a fixed sample rate, in memory.

The sampling and the stepping are the engine's recorder (wander3d.engine.recording); this
module keeps its samples as one `Samples` of float32 arrays for the metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wander3d.engine import Layout, RunSpec
from wander3d.engine.recording import SamplePlan, record_run

Array = np.ndarray

#: Samples per second unless asked otherwise: fine enough to resolve turns lasting a fraction of
#: a second, coarse enough that the per-step jitter of the random walks averages out.
DEFAULT_SAMPLE_RATE = 10.0

#: Bytes stored per agent and sample: float32 heading (3), position (3) and speed (1).
BYTES_PER_AGENT_SAMPLE = 7 * 4

#: Agent-samples per chunk the recorder hands over: its float64 buffers stay near 18 MiB.
_CHUNK_ROWS = 2**18


def plan_samples(dt: float, seconds: float, rate: float = DEFAULT_SAMPLE_RATE) -> SamplePlan:
    """Sample every round(1 / (rate * dt)) steps (at least 1) for about `seconds` seconds: the
    engine's SamplePlan.at_rate. At least two samples are taken."""
    return SamplePlan.at_rate(dt, seconds, rate)


@dataclass(frozen=True)
class Samples:
    """A sampled run. Agents are in the simulation's order, each group a contiguous block.

    interval:      seconds between samples;
    times:         (T,) simulated seconds of each sample (the first is the start of the run);
    headings:      (T, N, 3) float32 unit headings;
    positions:     (T, N, 3) float32 positions (units; float64 for tracks read from files,
                   whose coordinates can be large);
    speeds:        (T, N) float32 speeds (units/s);
    group_slices:  one slice of the N agents per group;
    low, high:     (3,) enclosure corners (units); margin: its wall band (units);
    lengths:       (N,) samples each agent has, from the first: a track of ragged tracks
                   ends at lengths[a] - 1 and its rows after that repeat its last sample
                   (they are left out of every metric); None: all T.
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
    lengths: Array | None = None

    @property
    def count(self) -> int:
        """Number of samples T."""
        return len(self.times)


def sample_run(
    spec: RunSpec,
    plan: SamplePlan,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> Samples:
    """A fresh run of `spec` (a scene's run_spec) for plan.steps steps, every agent recorded
    every plan.steps_per_sample steps from its start; it steps on `threads` threads (None: all
    the engine has).

    `progress(steps_done)` is called after every kernel call, and so at least after every
    sample.
    """
    layout = Layout.of(spec)
    t, n = plan.samples, layout.count
    headings = np.empty((t, n, 3), dtype=np.float32)
    positions = np.empty((t, n, 3), dtype=np.float32)
    speeds = np.empty((t, n), dtype=np.float32)

    def keep(first: int, pos: Array, vel: Array, head: Array) -> None:
        # The recorder hands float64 chunks so that speeds come from the engine's own
        # velocities, not from float32 copies of them.
        positions[first : first + len(pos)] = pos
        headings[first : first + len(head)] = head
        speeds[first : first + len(vel)] = np.sqrt(np.einsum("kij,kij->ki", vel, vel))

    chunk = max(1, _CHUNK_ROWS // max(n, 1))
    record_run(spec, plan, keep, threads=threads, chunk=chunk, progress=progress, dtype=np.float64)
    return Samples(
        interval=plan.interval,
        times=np.arange(t) * plan.interval,
        headings=headings,
        positions=positions,
        speeds=speeds,
        group_slices=layout.group_slices,
        low=np.array(layout.low),
        high=np.array(layout.high),
        margin=float(spec.enclosure.margin),
    )


def sample_spec(
    spec: RunSpec,
    seconds: float,
    rate: float = DEFAULT_SAMPLE_RATE,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
) -> Samples:
    """A fresh run of `spec` (a scene's run_spec), sampled from its start for `seconds` at
    `rate` samples a second (see sample_run)."""
    return sample_run(spec, plan_samples(spec.dt, seconds, rate), progress, threads)
