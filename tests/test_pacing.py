"""The frame loop's arithmetic (wander3d.drawing.pacing, no Qt: a core install tests it):
display clock, interpolation, time caps, speed meter, the stride of agents drawn."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from wander3d.drawing.pacing import (
    DRAW_BUDGET_MS,
    MIN_DRAWN,
    STRIDE_RELEASE,
    DrawStride,
    FrameClock,
    FrameStats,
    SpeedMeter,
    WorkBudget,
)


def _run(clock: FrameClock, frame: float, seconds: float, lag: float = 0.1) -> tuple[int, list]:
    """Frames of `frame` s for `seconds` with an engine that always delivers what is due.

    Returns the engine's final step and the drawn time ((c - 1 + alpha) * dt) of every frame.
    """
    step, drawn = 0, []
    for _ in range(round(seconds / frame)):
        clock.advance(frame, step, lag)
        drawn.append((step - 1 + clock.alpha(step)) * clock.dt)
        step += clock.steps_due(step, ahead=frame)
    return step, drawn


def test_steps_follow_elapsed_time_at_any_frame_rate():
    dt = 1 / 60
    for fps in (24, 60, 144):
        step, _ = _run(FrameClock(dt), 1 / fps, 10.0)
        # Ten simulated seconds, plus the one frame the engine works ahead: from both sides.
        assert 600 <= step <= 600 + 60 / fps + 1


def test_drawn_time_advances_by_each_frame_so_no_frame_skips():
    # A 16 ms frame against 16.67 ms steps used to show the same step twice every ~25 frames;
    # interpolation moves the drawing by exactly the elapsed time every frame.
    clock = FrameClock(1 / 60)
    _, drawn = _run(clock, 0.016, 3.0)
    moves = [b - a for a, b in itertools.pairwise(drawn[3:])]
    assert min(moves) == pytest.approx(0.016, abs=1e-9)
    assert max(moves) == pytest.approx(0.016, abs=1e-9)


def test_alpha_is_the_leftover_time_over_dt():
    clock = FrameClock(0.1)
    clock.show_step(4)
    assert clock.alpha(4) == 1.0  # a discrete jump shows the engine's state itself
    clock.advance(0.03, engine_step=4, lag=1.0)
    assert clock.steps_due(4) == 1
    assert clock.alpha(5) == pytest.approx(0.3)
    assert clock.alpha(3) == 1.0 and clock.alpha(9) == 0.0  # clamped


def test_a_slow_engine_holds_the_clock_back_instead_of_snowballing():
    clock = FrameClock(0.01)
    for _ in range(100):  # the engine never delivers
        clock.advance(0.05, engine_step=7, lag=0.2)
    assert clock.shown == pytest.approx(0.08 + 0.2)
    assert clock.steps_due(7) == 21  # 0.28 s / 0.01 s - 7


def test_work_per_request_is_capped_by_time_not_steps():
    budget = WorkBudget(seconds=0.05)
    assert budget.cap(100) == 1  # nothing measured yet: one step to learn the cost
    budget.record(steps=4, seconds=0.04)
    assert budget.cap(100) == 5
    assert budget.cap(3) == 3 and budget.cap(0) == 0
    budget.record(steps=1, seconds=2.0)  # a huge scene: still one step per request
    assert budget.cap(100) == 1


def test_speed_meter_measures_simulated_seconds_per_real_second():
    meter = SpeedMeter(window=1.0)
    assert meter.speed is None
    for i in range(31):
        meter.record(now=i / 20, sim_time=0.6 * i / 20)
    assert meter.speed == pytest.approx(0.6)
    meter.reset()
    assert meter.speed is None


def test_frame_stats_average_over_the_window():
    stats = FrameStats(window=1.0)
    for i in range(31):
        stats.record(sim_ms=2.0, upload_ms=0.5)
        stats.frame(now=i / 30, draw_ms=1.5)
    assert stats.fps == pytest.approx(30.0)
    assert stats.sim_ms == pytest.approx(2.0)
    assert stats.draw_ms == pytest.approx(2.0)
    assert FrameStats().fps == 0.0


def _draw(policy: DrawStride, agents: int, cost, frames: int) -> list[tuple[int, float]]:
    """Feed `frames` frames whose drawing takes cost(agents drawn) ms; (stride, ms) each."""
    out = []
    for _ in range(frames):
        ms = cost(math.ceil(agents / policy.stride))
        out.append((policy.stride, ms))
        policy.record(ms, agents)
    return out


@pytest.mark.parametrize("fixed", [0.0, 8.0, 20.0])
def test_a_slow_draw_engages_a_stride_that_fits_the_budget_and_holds_it(fixed):
    # A million agents at 1.4 us each (a software renderer), on top of a fixed cost.
    policy = DrawStride()
    frames = _draw(policy, 1_000_000, lambda n: fixed + 1.4e-3 * n, 60)
    assert frames[0] == (1, pytest.approx(fixed + 1400.0))
    settled = frames[12:]
    assert len({stride for stride, _ in settled}) == 1  # no more changes
    stride, ms = settled[-1]
    # Within the budget, and not needlessly coarse: a smaller stride would not fit.
    assert STRIDE_RELEASE * DRAW_BUDGET_MS <= ms <= DRAW_BUDGET_MS
    assert fixed + 1.4e-3 * math.ceil(1_000_000 / (stride - 8)) > 0.7 * DRAW_BUDGET_MS


def test_a_fixed_cost_over_the_budget_gives_the_largest_stride_not_more():
    policy = DrawStride()
    frames = _draw(policy, 1_000_000, lambda n: 50.0 + 1e-3 * n, 40)
    assert frames[-1][0] == policy.max_stride(1_000_000) == 1_000_000 // MIN_DRAWN


def test_fast_frames_give_every_agent_back():
    policy = DrawStride()
    _draw(policy, 200_000, lambda n: 2.0 + 1e-3 * n, 30)
    assert policy.stride > 1
    frames = _draw(policy, 200_000, lambda n: 2.0 + 1e-5 * n, 30)  # e.g. trails turned off
    assert frames[-1][0] == 1
    assert sum(1 for (a, _), (b, _) in itertools.pairwise(frames) if a != b) <= 3


def test_small_scenes_and_single_slow_frames_never_stride():
    policy = DrawStride()
    _draw(policy, MIN_DRAWN, lambda n: 500.0, 20)  # slow, but too few agents to thin out
    assert policy.stride == 1
    policy = DrawStride()
    hiccups = iter([10.0, 10.0, 300.0, 10.0, 10.0, 300.0, 10.0] * 5)
    _draw(policy, 100_000, lambda n: next(hiccups), 35)
    assert policy.stride == 1


def test_noisy_frames_settle_without_oscillating():
    rng = np.random.default_rng(7)
    policy = DrawStride()
    frames = _draw(policy, 1_000_000, lambda n: (6.0 + 1.2e-3 * n) * rng.uniform(0.8, 1.2), 300)
    changes = [i for i, ((a, _), (b, _)) in enumerate(itertools.pairwise(frames)) if a != b]
    assert len(changes) <= 8 and changes[-1] < 60
    assert max(ms for _, ms in frames[60:]) <= 1.2 * DRAW_BUDGET_MS


def test_a_new_scene_keeps_about_as_many_agents_drawn():
    policy = DrawStride()
    _draw(policy, 1_000_000, lambda n: 1.4e-3 * n, 30)
    drawn = 1_000_000 // policy.stride
    policy.rescale(1_000_000, 500_000)
    assert 500_000 // policy.stride == pytest.approx(drawn, rel=0.1)
    assert policy.rescale(500_000, 300) == 1  # a small scene is drawn whole at once
