"""The frame loop's arithmetic (no Qt): fixed steps from wall time, with a cap."""

from __future__ import annotations

import pytest

from wander3d.app.loop import MAX_STEPS_PER_FRAME, FrameClock, FrameStats


def test_steps_follow_elapsed_time_at_any_frame_rate():
    dt = 1 / 60
    for fps in (24, 60, 144):
        clock = FrameClock(dt)
        steps = sum(clock.advance(1 / fps) for _ in range(fps * 10))
        assert abs(steps - 600) <= 1  # ten simulated seconds, whatever the frame rate


def test_a_slow_frame_is_capped_and_does_not_snowball():
    clock = FrameClock(0.01, max_steps=5)
    assert clock.advance(1.0) == 5
    assert clock.backlog == 0.0  # the rest is dropped, not owed
    assert clock.advance(0.02) == 2


def test_default_cap_and_reset():
    clock = FrameClock(0.01)
    assert clock.advance(10.0) == MAX_STEPS_PER_FRAME
    clock.advance(0.005)
    clock.reset()
    assert clock.backlog == 0.0 and clock.advance(0.0) == 0


def test_frame_stats_average_over_the_window():
    stats = FrameStats(window=1.0)
    for i in range(31):
        stats.record(sim_ms=2.0, upload_ms=0.5)
        stats.frame(now=i / 30, draw_ms=1.5)
    assert stats.fps == pytest.approx(30.0)
    assert stats.sim_ms == pytest.approx(2.0)
    assert stats.draw_ms == pytest.approx(2.0)
    assert FrameStats().fps == 0.0
