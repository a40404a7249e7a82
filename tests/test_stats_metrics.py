"""Path metrics on synthetic heading and position series with answers known in closed form."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import whole_array_metrics as whole

from wander3d.analysis import metrics
from wander3d.analysis.report import METRICS_HELP
from wander3d.analysis.sampling import DEFAULT_SAMPLE_RATE, Samples, plan_samples
from wander3d.analysis.stats import COVERAGE_CELLS, MAX_LAG_S, MIN_LAGS, compute_stats
from wander3d.engine import GroupParams

TS = 0.1  # sample interval (s) of the synthetic series


def along(directions: np.ndarray, n: int = 1) -> np.ndarray:
    """(T, 3) headings -> (T, n, 3), the same series for n agents."""
    d = np.asarray(directions, dtype=np.float64)
    return np.repeat(d[:, None, :], n, axis=1)


def circle(rate_deg: float, samples: int, axis: str = "y") -> np.ndarray:
    """Headings turning at a constant rate (deg/s) in a plane: (T, 3)."""
    a = np.radians(rate_deg) * TS * np.arange(samples)
    zeros = np.zeros_like(a)
    if axis == "y":  # turning about +y: from +x towards -z
        return np.stack([np.cos(a), zeros, -np.sin(a)], axis=1)
    return np.stack([np.cos(a), np.sin(a), zeros], axis=1)  # about +z


def u_turn(before: int, turn: int, after: int) -> np.ndarray:
    """Straight along +x, a steady 180 degree turn over `turn` intervals, straight along -x."""
    a = np.concatenate([np.zeros(before), np.linspace(0.0, np.pi, turn + 1), np.full(after, np.pi)])
    return np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], axis=1)


# ----------------------------------------------------------------------------- straight line
def test_straight_line_does_not_turn():
    h = along(np.tile([0.6, 0.0, 0.8], (50, 1)), n=3)
    assert whole.mean_turn_rate(h, TS) == 0.0
    assert whole.twitchiness(h, TS) == 0.0
    assert whole.about_turn_rate(h, TS) == 0.0
    # No turn, no turning axis: persistence is undefined, not a number that looks measured.
    seconds, censored = whole.persistence(h, TS, max_lag=10)
    assert math.isnan(seconds) and not censored
    np.testing.assert_allclose(whole.heading_autocorrelation(h, 10), 1.0)


# ----------------------------------------------------------------------------- circles
@pytest.mark.parametrize("rate", [5.0, 45.0, 120.0])
def test_constant_circle_has_exact_turn_rate_and_no_angular_acceleration(rate):
    h = along(circle(rate, 80), n=2)
    rates = metrics.turn_rates_deg(h, TS)
    np.testing.assert_allclose(rates, rate, rtol=1e-9)
    assert whole.mean_turn_rate(h, TS) == pytest.approx(rate, rel=1e-9)
    assert whole.twitchiness(h, TS) == pytest.approx(0.0, abs=1e-6)
    omega = metrics.angular_velocities(h, TS)
    # Turning from +x towards -z is a positive rotation about +y.
    np.testing.assert_allclose(omega[..., 1], np.radians(rate), rtol=1e-9)
    np.testing.assert_allclose(omega[..., [0, 2]], 0.0, atol=1e-12)


def test_a_circle_keeps_its_turning_axis_for_the_whole_run():
    h = along(circle(30.0, 101), n=2)
    c = whole.turning_axis_autocorrelation(h, 40)
    np.testing.assert_allclose(c, 1.0, rtol=1e-12)
    seconds, censored = whole.persistence(h, TS, max_lag=40)
    assert censored and seconds == pytest.approx(40 * TS)


def test_float32_headings_give_the_same_numbers():
    h = along(circle(45.0, 60), n=4)
    h32 = h.astype(np.float32)
    assert whole.mean_turn_rate(h32, TS) == pytest.approx(45.0, rel=1e-5)
    assert whole.twitchiness(h32, TS) < 0.05  # float32 rounding only
    straight = along(np.tile([0.0, 0.0, 1.0], (20, 1)), n=2).astype(np.float32)
    assert metrics.turning_axes(straight)[1].sum() == 0


# ----------------------------------------------------------------------------- twitchiness
def test_twitchiness_of_an_s_curve_is_the_one_reversal_of_the_turn():
    # 30 deg/s left for 20 intervals, then 30 deg/s right for 20: the angular velocity changes
    # once, by 60 deg/s, between two consecutive intervals; every other change is zero.
    left = circle(30.0, 21)
    yaw = np.radians(30.0) * TS * np.concatenate([np.arange(21), 20 - np.arange(1, 21)])
    h = along(np.stack([np.cos(yaw), np.zeros_like(yaw), -np.sin(yaw)], axis=1), n=2)
    np.testing.assert_allclose(h[:21, 0], left, atol=1e-12)
    acc = metrics.angular_accelerations_deg(h, TS)
    assert acc.shape == (39, 2)
    expected = 60.0 / TS  # deg/s^2
    np.testing.assert_allclose(acc[19], expected, rtol=1e-9)
    np.testing.assert_allclose(np.delete(acc, 19, axis=0), 0.0, atol=1e-6)
    assert whole.twitchiness(h, TS) == pytest.approx(expected / 39, rel=1e-9)


def test_twitchiness_sees_a_change_of_turning_axis_at_the_same_rate():
    # 40 deg/s about +y, then 40 deg/s about an axis perpendicular to +y and to the heading:
    # the rate never changes, the angular velocity does, once, by sqrt(2) * 40 deg/s.
    first = circle(40.0, 11)
    end = first[-1]
    axis = np.cross(end, [0.0, 1.0, 0.0])
    axis /= np.linalg.norm(axis)
    phi = np.radians(40.0) * TS * np.arange(1, 11)[:, None]
    second = end * np.cos(phi) + np.cross(axis, end) * np.sin(phi)
    h = along(np.concatenate([first, second]))
    np.testing.assert_allclose(metrics.turn_rates_deg(h, TS), 40.0, rtol=1e-9)
    omega = metrics.angular_velocities(h, TS)
    np.testing.assert_allclose(omega[-1, 0], axis * np.radians(40.0), rtol=1e-9, atol=1e-12)
    acc = metrics.angular_accelerations_deg(h, TS)
    assert acc.max() == pytest.approx(math.sqrt(2) * 40.0 / TS, rel=1e-9)
    assert np.count_nonzero(acc > 1e-6) == 1


# ----------------------------------------------------------------------------- about-turns
def test_a_reversal_is_exactly_one_about_turn():
    h = along(u_turn(before=30, turn=10, after=30), n=3)  # 180 degrees in 1 s
    assert metrics.about_turn_counts(h, TS).tolist() == [1, 1, 1]
    minutes = (len(h) - 1) * TS / 60
    assert whole.about_turn_rate(h, TS) == pytest.approx(1 / minutes)


def test_an_instant_reversal_is_one_about_turn():
    d = np.array([[1.0, 0.0, 0.0]] * 20 + [[-1.0, 0.0, 0.0]] * 20)
    assert metrics.about_turn_counts(along(d), TS).tolist() == [1]


def test_a_slow_reversal_is_not_an_about_turn():
    # 180 degrees over 4 s: at most 90 degrees within any 2 s.
    h = along(u_turn(before=10, turn=40, after=10))
    assert metrics.about_turn_counts(h, TS).tolist() == [0]


def test_two_reversals_count_twice():
    there = u_turn(before=10, turn=10, after=30)
    back = -u_turn(before=0, turn=10, after=20)[1:]  # from -x back to +x
    h = along(np.concatenate([there, back]))
    assert metrics.about_turn_counts(h, TS).tolist() == [2]


def test_circling_counts_one_about_turn_per_150_degrees():
    # 110 deg/s for 20 s: more than 150 degrees first 1.4 s (154 degrees) after each start,
    # and the next event starts where the last one ended: starts at 0, 1.4, ..., 18.2 s.
    h = along(circle(110.0, 201))
    assert metrics.about_turn_counts(h, TS).tolist() == [14]


def reference_about_turns(h: np.ndarray, window: int, cos_limit: float) -> int:
    """The definition, one agent, written as plainly as possible."""
    count, k = 0, 0
    while k < len(h):
        ends = [j for j in range(k + 1, min(k + window, len(h) - 1) + 1) if h[k] @ h[j] < cos_limit]
        if ends:
            count += 1
            k = ends[0]
        else:
            k += 1
    return count


def test_about_turns_match_a_plain_reference_on_wild_headings():
    rng = np.random.default_rng(3)
    h = np.empty((150, 6, 3))
    h[0] = rng.normal(size=(6, 3))
    for k in range(1, len(h)):  # a heading that random-walks by about 30 degrees a sample
        h[k] = h[k - 1] / np.linalg.norm(h[k - 1], axis=1, keepdims=True)
        h[k] += rng.normal(size=(6, 3)) * 0.35
    h /= np.linalg.norm(h, axis=2, keepdims=True)
    counts = metrics.about_turn_counts(h, TS)
    cos_limit = math.cos(math.radians(metrics.ABOUT_TURN_ANGLE_DEG))
    window = round(metrics.ABOUT_TURN_WINDOW_S / TS)
    expected = [reference_about_turns(h[:, a], window, cos_limit) for a in range(6)]
    assert counts.tolist() == expected
    assert sum(expected) > 12  # the test series does turn round, often


# ----------------------------------------------------------------------------- persistence
def test_lagged_correlation_matches_the_direct_sum():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(40, 5, 3))
    valid = rng.random((40, 5)) > 0.3
    c = whole.lagged_correlation(v, valid, 45)
    for lag in range(40):
        pairs = valid[: 40 - lag] & valid[lag:]
        dots = np.einsum("tni,tni->tn", v[: 40 - lag], v[lag:])
        assert c[lag] == pytest.approx(dots[pairs].mean(), rel=1e-9, abs=1e-12)
    assert np.isnan(c[40:]).all()  # beyond the series


def test_decay_time_of_an_exponential_is_its_time_constant():
    lags = np.arange(200) * TS
    seconds, censored = metrics.decay_time(np.exp(-lags / 2.5), TS)
    assert not censored
    assert seconds == pytest.approx(2.5, rel=2e-3)  # linear interpolation of exp


def test_decay_time_censored_and_immediate():
    assert metrics.decay_time(np.array([1.0, 0.9, 0.8]), TS) == (pytest.approx(0.2), True)
    seconds, censored = metrics.decay_time(np.array([1.0, 0.0, 0.0]), TS)
    assert not censored and seconds == pytest.approx((1 - math.exp(-1)) * TS)


def test_a_turn_that_flips_every_second_persists_a_third_of_a_second():
    # Sign of the turn flips every P = 10 samples: C(lag) = 1 - 2 lag / P for lag <= P, so
    # C crosses 1/e at lag = P (1 - 1/e) / 2.
    yaw = np.radians(20.0) * TS * np.cumsum(np.where((np.arange(400) // 10) % 2 == 0, 1, -1))
    h = along(np.stack([np.cos(yaw), np.zeros_like(yaw), np.sin(yaw)], axis=1), n=2)
    seconds, censored = whole.persistence(h, TS, max_lag=40)
    assert not censored
    assert seconds == pytest.approx(10 * TS * (1 - math.exp(-1)) / 2, rel=0.03)


# ----------------------------------------------------------------------------- space
LOW = np.array([-8.0, -4.0, 0.0])
HIGH = np.array([8.0, 4.0, 32.0])


def test_coverage_counts_the_cells_visited():
    cells = 4  # cells of 4 x 2 x 8 units
    # Three cells visited by two agents over three samples (repeats count once).
    p = np.array(
        [
            [[-7.0, -3.0, 1.0], [7.0, 3.0, 31.0]],
            [[-7.5, -3.5, 2.0], [7.0, 3.0, 31.0]],
            [[-1.0, 0.5, 20.0], [7.9, 3.9, 25.0]],
        ]
    )
    assert whole.coverage(p, LOW, HIGH, cells) == pytest.approx(3 / 64)
    # The corners themselves belong to the first and the last cell.
    corners = np.array([[LOW, HIGH]])
    assert whole.coverage(corners, LOW, HIGH, cells) == pytest.approx(2 / 64)
    # A sweep along every x cell at one y, z.
    x = np.linspace(-7.9, 7.9, 100)
    sweep = np.stack([x, np.full_like(x, 1.0), np.full_like(x, 5.0)], axis=1)[:, None, :]
    assert whole.coverage(sweep, LOW, HIGH, cells) == pytest.approx(4 / 64)


def test_wall_contact_is_the_share_of_samples_in_the_margin_band():
    margin = 1.0
    p = np.array(
        [
            [[0.0, 0.0, 16.0], [-7.5, 0.0, 16.0]],  # centre; 0.5 from the low x wall
            [[0.0, 3.2, 16.0], [0.0, 0.0, 31.5]],  # 0.8 below the top; 0.5 from high z
            [[0.0, 0.0, 1.0], [6.9, -2.9, 2.0]],  # exactly the margin (not in); 1.1 clear
        ]
    )
    assert whole.wall_contact(p, LOW, HIGH, margin) == pytest.approx(3 / 6)
    assert metrics.in_wall_band(p, LOW, HIGH, margin).tolist() == [
        [False, True],
        [True, True],
        [False, False],
    ]


# ----------------------------------------------------------------------------- per group
def synthetic_samples(headings: np.ndarray, positions: np.ndarray, groups: list[int]) -> Samples:
    starts = np.cumsum([0, *groups])
    return Samples(
        interval=TS,
        times=np.arange(len(headings)) * TS,
        headings=headings.astype(np.float32),
        positions=positions.astype(np.float32),
        speeds=np.full(headings.shape[:2], 10.0, dtype=np.float32),
        group_slices=tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(starts)),
        low=LOW,
        high=HIGH,
        margin=1.0,
    )


def test_compute_stats_per_group(monkeypatch):
    t = 101
    h = np.concatenate([along(circle(30.0, t), n=3), along(u_turn(30, 10, 60), n=2)], axis=1)
    p = np.zeros((t, 5, 3))
    p[..., 2] = 16.0
    p[:, 3:, 0] = -7.5  # the second group hugs the low x wall
    samples = synthetic_samples(h, p, [3, 2])
    groups = [GroupParams(count=3, name="circlers"), GroupParams(count=2, name="returners")]
    stats, curves = compute_stats(samples, groups)
    circlers, returners = stats
    assert (circlers.name, circlers.agents, returners.agents) == ("circlers", 3, 2)
    assert circlers.mean_speed == pytest.approx(10.0)
    assert circlers.mean_turn_rate == pytest.approx(30.0, rel=1e-5)
    assert circlers.twitchiness == pytest.approx(0.0, abs=0.05)
    assert circlers.about_turns == 0.0
    assert circlers.persistence_censored
    assert circlers.coverage == pytest.approx(1 / COVERAGE_CELLS**3)
    assert circlers.wall_contact == 0.0
    assert returners.about_turns == pytest.approx(1 / ((t - 1) * TS / 60))
    assert returners.wall_contact == 1.0
    assert len(curves[0].lags) == len(curves[0].axis_acf) == len(curves[0].heading_acf)
    lags = min(max(MAX_LAG_S, MIN_LAGS * TS), (t - 1) // 2 * TS)
    assert curves[0].lags[-1] == pytest.approx(lags)
    # Working through agents in chunks gives the same numbers as all at once.
    monkeypatch.setattr("wander3d.analysis.sums.CHUNK_AGENTS", 1)
    chunked, _ = compute_stats(samples, groups)
    for a, b in zip(stats, chunked, strict=True):
        for field in ("mean_turn_rate", "twitchiness", "about_turns", "persistence", "coverage"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-9, abs=1e-12)


def test_sample_plan_is_a_whole_number_of_steps():
    plan = plan_samples(1 / 60, 60.0, 10.0)
    assert (plan.steps_per_sample, plan.samples, plan.steps) == (6, 601, 3600)
    assert plan.rate == pytest.approx(10.0)
    odd = plan_samples(1 / 60, 10.0, 7.0)  # 60 / 7 steps rounds to 9: 6.67 Hz
    assert odd.steps_per_sample == 9 and odd.rate == pytest.approx(60 / 9)
    assert plan_samples(0.05, 1.0, 100.0).steps_per_sample == 1  # never below one step


def test_the_help_text_states_the_constants_in_use():
    assert f"default {DEFAULT_SAMPLE_RATE:g} Hz" in METRICS_HELP
    assert f"more than {metrics.ABOUT_TURN_ANGLE_DEG:g} deg" in METRICS_HELP
    assert f"within {metrics.ABOUT_TURN_WINDOW_S:g} s" in METRICS_HELP
    assert f"({MAX_LAG_S:g} s or {MIN_LAGS} samples, at most half the run)" in METRICS_HELP
    assert f"{COVERAGE_CELLS} x {COVERAGE_CELLS} x {COVERAGE_CELLS}" in METRICS_HELP
    assert max(len(line) for line in METRICS_HELP.splitlines()) <= 92
