"""The one recorder: how a run is sampled, and the loop that steps it and hands out samples.

`wander3d run` (to a trajectory writer), `wander3d stats`, sweeps and tuning (through
`wander3d.analysis.sampling`) all record a fresh run through `record_run`, which keeps the
simulation to itself; the rounding of a sample rate to a whole number of steps lives in
`steps_per_sample` only.

The kernel writes the samples itself, many per call (`Simulation.step_sampled`): a sampled
run costs about what the engine's own steps do, not a kernel call per sample.

The session's path tracer shares `advance`, the stepping loop, but not `record`: it records
every step of one group through the kernel's trail ring, which it reads between calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .params import RunSpec
from .simulation import Simulation

Array = np.ndarray

#: A recorder's consumer: (first, positions, velocities, headings) with samples first ..
#: first + k - 1 as (k, N, 3) arrays (units, units/s, unit vectors). The arrays are the
#: recorder's buffers, refilled after the call returns: copy what must be kept.
Consumer = Callable[[int, Array, Array, Array], None]

#: Agent-steps per kernel call when stepping in batches: many steps per call let the kernel keep
#: each agent in registers (several times faster than one step per call for big scenes), and ~5 M
#: agent-steps a call still reports progress a few times a second.
BATCH_AGENT_STEPS = 5_000_000
#: More steps between samples than any run takes.
_MAX_STEPS = 2.0**53
#: At most this many steps per kernel call, however few agents.
MAX_BATCH_STEPS = 600


def steps_per_sample(dt: float, rate: float) -> int:
    """Steps between samples for `rate` samples per second: round(1 / (rate * dt)), at least 1.

    The interval must be a whole number of steps, so the actual rate is the nearest one the
    time step allows (exactly `rate` when dt divides 1 / rate).
    """
    if not (dt > 0 and rate > 0):
        raise ValueError("dt and rate must be positive")
    # A rate far below 1 / seconds (1e-320 Hz) makes a ratio beyond any whole number: an
    # interval longer than any run, which the caller finds too short to measure.
    product = rate * dt  # 0 when it underflows
    return max(1, round(min(1.0 / product, _MAX_STEPS))) if product > 0 else int(_MAX_STEPS)


def steps_for_seconds(dt: float, seconds: float) -> int:
    """Steps of `dt` seconds nearest to `seconds` seconds, at least 1."""
    if not (dt > 0 and seconds > 0):
        raise ValueError("dt and seconds must be positive")
    return max(1, round(seconds / dt))


def batch_steps(agents: int) -> int:
    """Steps per kernel call for `agents` agents: about BATCH_AGENT_STEPS agent-steps, 1 to
    MAX_BATCH_STEPS."""
    return min(MAX_BATCH_STEPS, max(1, BATCH_AGENT_STEPS // max(agents, 1)))


@dataclass(frozen=True)
class SamplePlan:
    """How a run is sampled.

    steps_per_sample:  simulation steps between samples (>= 1);
    samples:           number of samples T, the first at the run's start;
    interval:          seconds between samples, steps_per_sample * dt (the actual interval,
                       which can differ a little from 1 / the requested rate);
    extra_steps:       steps the run goes on after its last sample (0 to steps_per_sample - 1).
    """

    steps_per_sample: int
    samples: int
    interval: float
    extra_steps: int = 0

    @classmethod
    def at_rate(cls, dt: float, seconds: float, rate: float) -> SamplePlan:
        """Samples every steps_per_sample(dt, rate) steps for about `seconds` seconds, the run
        ending on its last sample; at least two samples."""
        if not seconds > 0:
            raise ValueError("dt, seconds and rate must be positive")
        every = steps_per_sample(dt, rate)
        interval = every * dt
        intervals = max(1, round(seconds / interval))
        return cls(steps_per_sample=every, samples=intervals + 1, interval=interval)

    @classmethod
    def over_steps(cls, dt: float, steps: int, every: int) -> SamplePlan:
        """A run of exactly `steps` steps (>= 1) sampled at its start and every `every` steps."""
        if not (dt > 0 and steps >= 1 and every >= 1):
            raise ValueError("dt, steps and every must be positive")
        return cls(
            steps_per_sample=every,
            samples=steps // every + 1,
            interval=every * dt,
            extra_steps=steps % every,
        )

    @property
    def steps(self) -> int:
        """Simulation steps the run takes."""
        return (self.samples - 1) * self.steps_per_sample + self.extra_steps

    @property
    def rate(self) -> float:
        """Actual samples per second."""
        return 1.0 / self.interval

    @property
    def seconds(self) -> float:
        """Simulated seconds from the first sample to the last."""
        return (self.samples - 1) * self.interval


def advance(
    sim: Simulation,
    end: int,
    batch: int,
    next_stop: Callable[[int], int | None] | None = None,
) -> Iterator[int]:
    """Step `sim` up to step `end` (its step_count) in kernel calls of at most `batch` steps,
    yielding sim.step_count after each call.

    No call steps past next_stop(step): the first step after `step` at which the caller must
    see the state (a sample, an edit), or None. Stepping in bigger calls is bit-identical to
    stepping one at a time; only where the calls stop differs.
    """
    while sim.step_count < end:
        now = sim.step_count
        stop = min(end, now + batch)
        if next_stop is not None:
            target = next_stop(now)
            if target is not None:
                stop = min(stop, target)
        sim.step(stop - now)
        yield stop


def record_run(
    spec: RunSpec,
    plan: SamplePlan,
    consume: Consumer | None,
    *,
    threads: int | None = None,
    chunk: int = 1,
    progress: Callable[[int], None] | None = None,
    batch: int | None = None,
    dtype: type = np.float32,
) -> None:
    """`record` a fresh run of `spec` from its start, stepping on `threads` threads (None:
    all the engine has); the other arguments as `record`'s."""
    sim = Simulation(spec, threads=threads)
    record(sim, plan, consume, chunk=chunk, progress=progress, batch=batch, dtype=dtype)


def record(
    sim: Simulation,
    plan: SamplePlan,
    consume: Consumer | None,
    *,
    chunk: int = 1,
    progress: Callable[[int], None] | None = None,
    batch: int | None = None,
    dtype: type = np.float32,
) -> None:
    """Advance `sim` by plan.steps steps, handing its state at every sample to `consume`.

    Sample j is the state plan.steps_per_sample * j steps after the current one (sample 0 is
    the current state). `consume(first, positions, velocities, headings)` gets the samples in
    order, `chunk` at a time (the last call may get fewer), as (k, N, 3) arrays of `dtype`.
    The kernel writes the samples itself (`Simulation.step_sampled`), so a kernel call covers
    as many samples as fit in `batch` steps (default batch_steps(N); at least one sample) and
    in what is left of the chunk: a small chunk means more calls. With consume None the run
    only steps, in full batches. `progress(steps_done)` is called after every call.
    """
    start, n = sim.step_count, sim.count
    end = start + plan.steps
    batch = batch or batch_steps(n)
    if consume is None:
        for done in advance(sim, end, batch):
            if progress is not None:
                progress(done - start)
        return
    every, samples = plan.steps_per_sample, plan.samples
    size = max(1, min(chunk, samples))
    # The kernel records float64 (the state's own values); other dtypes are copies of them.
    raw = [np.empty((size, n, 3)) for _ in range(3)]
    out = raw if np.dtype(dtype) == np.float64 else [np.empty((size, n, 3), dtype) for _ in raw]
    per_call = max(1, batch // every)
    raw[0][0], raw[1][0], raw[2][0] = sim.positions, sim.velocities, sim.headings
    taken, held = 1, 1  # samples taken so far, of which not yet handed to the consumer
    while True:
        if held == size or taken == samples:
            if out is not raw:
                for kept, written in zip(out, raw, strict=True):
                    kept[:held] = written[:held]
            consume(taken - held, out[0][:held], out[1][:held], out[2][:held])
            held = 0
        if progress is not None and sim.step_count > start:
            progress(sim.step_count - start)
        if taken == samples:
            break
        k = min(per_call, size - held, samples - taken)
        sim.step_sampled(every, *(a[held : held + k] for a in raw))
        taken += k
        held += k
    for done in advance(sim, end, batch):  # the plan's steps after its last sample
        if progress is not None:
            progress(done - start)
