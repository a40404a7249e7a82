"""The engine's one recorder: sample plans, the batched stepping loop and its chunks."""

from __future__ import annotations

import numpy as np
import pytest

from wander3d.engine import Enclosure
from wander3d.engine.recording import (
    SamplePlan,
    advance,
    batch_steps,
    record,
    steps_for_seconds,
    steps_per_sample,
)

from engine_support import group, simulation

#: Small enough to reach the walls in a short run, so reflections are recorded too.
BOX = Enclosure(min=(-15, -10, -15), max=(15, 10, 15), margin=4.0)


def _sim():
    return simulation(group("sphere", count=12), group("noise", count=7), enclosure=BOX, dt=1 / 30)


def _plain(steps: int, every: int) -> dict[str, np.ndarray]:
    """The states every `every` steps from 0 to `steps`, stepping one step per kernel call."""
    sim = _sim()
    out: dict[str, list[np.ndarray]] = {"positions": [], "velocities": [], "headings": []}
    for s in range(steps + 1):
        if s % every == 0:
            for name, kept in out.items():
                kept.append(getattr(sim, name).astype(np.float32))
        if s < steps:
            sim.step(1)
    return {name: np.array(kept) for name, kept in out.items()}


class Chunks:
    """A consumer that keeps copies of every chunk it is handed."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []  # (first, k)
        self.parts: dict[str, list[np.ndarray]] = {
            "positions": [],
            "velocities": [],
            "headings": [],
        }

    def __call__(self, first, positions, velocities, headings) -> None:
        self.calls.append((first, len(positions)))
        for name, part in zip(self.parts, (positions, velocities, headings), strict=True):
            assert part.shape == (len(positions), 19, 3)
            self.parts[name].append(part.copy())

    def joined(self, name: str) -> np.ndarray:
        return np.concatenate(self.parts[name])


def test_a_rate_rounds_to_the_nearest_whole_number_of_steps():
    assert steps_per_sample(1 / 60, 10.0) == 6
    assert steps_per_sample(1 / 60, 7.0) == 9  # 60 / 7 = 8.57 steps
    assert steps_per_sample(1 / 60, 1000.0) == 1  # never below one step
    assert steps_for_seconds(1 / 60, 5.0) == 300
    assert steps_for_seconds(1 / 60, 0.001) == 1
    with pytest.raises(ValueError):
        steps_per_sample(0.0, 10.0)


def test_a_plan_at_a_rate_ends_on_its_last_sample():
    plan = SamplePlan.at_rate(1 / 60, 10.0, 7.0)
    assert (plan.steps_per_sample, plan.samples, plan.extra_steps) == (9, 68, 0)
    assert plan.steps == 67 * 9
    assert plan.interval == pytest.approx(0.15)
    assert SamplePlan.at_rate(1 / 60, 0.01, 10.0).samples == 2  # at least one interval


def test_a_plan_over_steps_runs_them_all_and_samples_from_the_start():
    plan = SamplePlan.over_steps(1 / 30, 100, 7)
    assert (plan.samples, plan.extra_steps, plan.steps) == (15, 2, 100)  # 0, 7, .., 98
    assert SamplePlan.over_steps(1 / 30, 98, 7).extra_steps == 0
    with pytest.raises(ValueError):
        SamplePlan.over_steps(1 / 30, 0, 7)


@pytest.mark.parametrize(("steps", "every", "chunk", "batch"), [(100, 7, 4, 600), (61, 1, 5, 9)])
def test_recording_equals_plain_stepping_in_chunks(steps, every, chunk, batch):
    plan = SamplePlan.over_steps(1 / 30, steps, every)
    sim, chunks = _sim(), Chunks()
    record(sim, plan, chunks, chunk=chunk, batch=batch)
    assert sim.step_count == steps
    expected = _plain(steps, every)
    for name, want in expected.items():
        np.testing.assert_array_equal(chunks.joined(name), want)
    # Full chunks in order, the last one holding what is left.
    firsts = [first for first, _ in chunks.calls]
    assert firsts == list(range(0, plan.samples, chunk))
    assert [k for _, k in chunks.calls] == [min(chunk, plan.samples - first) for first in firsts]


def test_kernel_calls_record_whole_samples_as_many_as_fit_and_report_progress():
    plan = SamplePlan.over_steps(1 / 30, 50, 7)  # samples at 0, 7, .., 49, then step 50
    done: list[int] = []
    record(_sim(), plan, Chunks(), chunk=3, batch=5, progress=done.append)
    # A batch shorter than a sample interval: one sample (7 steps) per call.
    assert done == [7, 14, 21, 28, 35, 42, 49, 50]
    done.clear()
    chunks = Chunks()
    record(_sim(), plan, chunks, chunk=3, batch=20, progress=done.append)
    # Two samples (14 steps) per call, cut where a chunk of 3 fills: sample 0 is taken before
    # the first call, so the first chunk needs 2 more, the next ones 3 (2 + 1).
    assert done == [14, 28, 35, 49, 50]
    assert chunks.calls == [(0, 3), (3, 3), (6, 2)]


def test_sampled_steps_take_only_float64_rows_of_the_agents():
    sim = _sim()
    rows = np.empty((2, 19, 3))
    sim.step_sampled(4, rows, rows.copy(), rows.copy())
    assert sim.step_count == 8
    np.testing.assert_array_equal(rows[1], sim.positions)
    for bad in (
        np.empty((2, 18, 3)),
        np.empty((2, 19, 3), np.float32),
        np.empty((2, 19, 6))[..., ::2],
    ):
        with pytest.raises(ValueError):
            sim.step_sampled(4, bad, rows, rows)
    with pytest.raises(ValueError):
        sim.step_sampled(0, rows, rows, rows)


def test_without_a_consumer_the_run_only_steps_in_full_batches():
    done: list[int] = []
    sim = _sim()
    record(sim, SamplePlan.over_steps(1 / 30, 23, 2), None, batch=10, progress=done.append)
    assert done == [10, 20, 23]
    assert sim.step_count == 23


def test_recording_starts_from_the_simulations_current_step():
    sim, chunks = _sim(), Chunks()
    sim.step(10)
    done: list[int] = []
    record(sim, SamplePlan.over_steps(1 / 30, 12, 4), chunks, chunk=8, progress=done.append)
    assert sim.step_count == 22
    assert done == [12]  # steps since the recording started: one call records 3 samples
    expected = _plain(22, 2)["positions"][5::2]  # steps 10, 14, 18, 22
    np.testing.assert_array_equal(chunks.joined("positions"), expected)


def test_advance_never_passes_a_stop_and_yields_after_every_call():
    sim = _sim()
    stops = [3, 4, 11]

    def next_stop(step: int) -> int | None:
        return next((s for s in stops if s > step), None)

    assert list(advance(sim, 20, 6, next_stop)) == [3, 4, 10, 11, 17, 20]
    assert list(advance(sim, 20, 6)) == []  # already there


def test_the_batch_rule_keeps_about_five_million_agent_steps_a_call():
    assert batch_steps(300) == 600
    assert batch_steps(100_000) == 50
    assert batch_steps(10_000_000) == 1
