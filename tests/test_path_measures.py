"""The movement-ecology measures on paths whose answers are known: a straight line, circles and
helices, and correlated random walks checked against their theory (Kareiva & Shigesada 1983;
Benhamou 2004) and against tidynamics' MSD."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tidynamics
import whole_array_metrics as whole

from wander3d.analysis import METRICS_HELP, metrics


def correlated_random_walk(
    steps: int, walkers: int, turn: float, length: float = 1.0, seed: int = 0
) -> np.ndarray:
    """3D walks of constant step length turning by `turn` rad each step about a uniformly
    random axis perpendicular to the last step: (steps + 1, walkers, 3) positions."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(walkers, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    out = np.zeros((steps + 1, walkers, 3))
    for k in range(steps):
        out[k + 1] = out[k] + length * d
        a = np.cross(d, rng.normal(size=(walkers, 3)))
        a /= np.linalg.norm(a, axis=1, keepdims=True)
        d = d * math.cos(turn) + np.cross(a, d) * math.sin(turn)  # a is perpendicular to d
    return out


def helix(samples: int, per_sample_deg: float, climb: float) -> np.ndarray:
    """One agent circling anticlockwise seen from above while climbing: (samples, 1, 3)."""
    phi = np.radians(per_sample_deg) * np.arange(samples)
    # Azimuth atan2(x, z) grows with phi for a path along (sin phi, climb, cos phi).
    x, z = -np.cos(phi), np.sin(phi)
    return np.stack([x, climb * np.arange(samples), z], axis=-1)[:, None, :]


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_a_straight_line(offset):
    p = np.linspace(0, 1, 50)[:, None, None] * np.array([3.0, 4.0, 0.0]) + offset
    assert metrics.straightness(p) == pytest.approx([1.0])
    versine, defined = metrics.step_turn_versines(p)
    assert defined.all() and np.all(versine <= metrics.STRAIGHT_VERSINE)
    msd = whole.mean_squared_displacement(p, 20)
    assert metrics.log_log_slope(np.arange(21) * 0.1, msd) == pytest.approx(2.0)
    step = 0.1 * 5.0 / 49 * 10
    d = float(versine.mean())
    crw = metrics.crw_msd(np.arange(21), step, step * step, d)
    assert metrics.log_log_slope(np.arange(21) * 0.1, crw) == pytest.approx(2.0, abs=1e-9)
    assert math.isnan(metrics.persistence_length_crw(step, d))
    assert math.isnan(metrics.sinuosity(step, step * step, d))
    assert math.isnan(metrics.sinuosity(step, step * step, d, 0.0))


@pytest.mark.parametrize("versine", [1e-6, 1e-9, 1e-12, 1e-15, 0.0])
def test_the_crw_msd_nears_the_ballistic_limit_as_turns_vanish(versine):
    # Steps of 1, c = 1 - versine: MSD(m) -> m^2, slope -> 2 (the closed form gave 1.0 at c = 1
    # and 2.29 at 1 - c = 1e-9).
    m = np.arange(201)
    crw = metrics.crw_msd(m, 1.0, 1.0, versine)
    # The exact first-order correction: m^2 - versine * (m - 1) m (m + 1) / 3 ... to 2nd order.
    assert np.all(crw <= m * m + 1e-9) and np.all(np.diff(crw) > 0)
    np.testing.assert_allclose(crw[1:], (m * m)[1:], rtol=max(versine * 1e4, 1e-15))
    slope = metrics.log_log_slope(m * 0.1, crw)
    assert 2.0 - 1e4 * versine - 1e-12 <= slope <= 2.0 + 1e-12


@pytest.mark.parametrize("c", [-0.5, 0.0, 0.5, 0.9, 0.999])
def test_the_crw_msd_is_kareiva_and_shigesadas_formula(c):
    m = np.arange(60, dtype=np.float64)
    closed = m * 1.3 + 2.0 * c / (1.0 - c) * (m - (1.0 - c**m) / (1.0 - c))
    np.testing.assert_allclose(metrics.crw_msd(m.astype(int), 1.0, 1.3, 1.0 - c), closed, rtol=1e-9)


def test_a_circle_is_infinitely_sinuous_both_ways_round():
    phi = np.radians(10.0)
    versine = 1.0 - math.cos(phi)
    # 1 - c^2 - s^2 is 0 up to rounding: infinite, or beyond any real path's.
    assert metrics.sinuosity(1.0, 1.0, versine, math.sin(phi)) > 1e6
    assert metrics.sinuosity(1.0, 1.0, versine, -math.sin(phi)) > 1e6
    # Without the mean sine, the same turns read as a CRW's: finite.
    assert math.isfinite(metrics.sinuosity(1.0, 1.0, versine))


def test_general_sinuosity_exceeds_the_symmetric_one_when_turns_favour_a_side():
    c, s = 0.9, 0.1  # mean turn biased left
    general = metrics.sinuosity(1.0, 1.0, 1.0 - c, s)
    assert general > metrics.sinuosity(1.0, 1.0, 1.0 - c)
    expected = 2.0 / math.sqrt((1 - c * c - s * s) / ((1 - c) ** 2 + s * s))
    assert general == pytest.approx(expected, rel=1e-12)


def test_turn_and_lift_angles_of_a_helix():
    turn, lift, turned, lifted = metrics.horizontal_turn_and_lift(helix(40, 9.0, 0.0))
    assert turned.all() and lifted.all()
    np.testing.assert_allclose(turn, 9.0, atol=1e-9)  # anticlockwise from above: positive
    np.testing.assert_allclose(lift, 0.0, atol=1e-9)
    turn, lift, _, _ = metrics.horizontal_turn_and_lift(helix(40, -9.0, 0.3))
    np.testing.assert_allclose(turn, -9.0, atol=1e-9)
    np.testing.assert_allclose(lift, 0.0, atol=1e-9)  # a steady climb does not lift further
    # Levelling out from a 45 degree climb lifts by -45 degrees once.
    p = np.array([[0, 0, 0], [0, 1, 1], [0, 2, 2], [0, 2, 3], [0, 2, 4]], float)[:, None]
    _, lift, _, _ = metrics.horizontal_turn_and_lift(p)
    np.testing.assert_allclose(lift[:, 0], [0.0, -45.0, 0.0], atol=1e-9)
    counts = metrics.angle_histogram(lift, np.ones_like(lift, dtype=bool))
    edges = np.linspace(-180, 180, metrics.ANGLE_BINS + 1)
    assert counts.sum() == 3
    assert counts[np.searchsorted(edges, -45.0, side="right") - 1] == 1
    assert counts[np.searchsorted(edges, 0.0, side="right") - 1] == 2


@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_a_vertical_step_has_no_horizontal_turn(offset):
    """A step with no horizontal part has no azimuth (atan2(0, 0) would make it 0 or 180
    degrees): no turn angle is defined in a pair with one; its lift angle is. A step that is
    only nearly vertical (horizontal part 1e-6 of it) keeps its azimuth; one whose horizontal
    part is 1e-12 of it, below what its float64 positions resolve at 1e5, is vertical."""
    north, up = np.array([0.0, 0.0, -1.0]), np.array([0.0, 1.0, 0.0])
    nearly, barely = np.array([1e-6, 1.0, 0.0]), np.array([1e-12, 1.0, 0.0])
    s = np.array([north, up, up, north, nearly, north, barely, north])
    p = np.concatenate([[np.zeros(3)], np.cumsum(s, axis=0)])[:, None, :] + offset
    turn, lift, turned, lifted = metrics.horizontal_turn_and_lift(p)
    assert turned[:, 0].tolist() == [False, False, False, True, True, False, False]
    assert lifted.all()
    np.testing.assert_allclose(lift[:3, 0], [90.0, 0.0, -90.0], atol=1e-9)
    # North (azimuth 180) to nearly up but east (90): a right turn, clockwise from above.
    np.testing.assert_allclose(turn[3:5, 0], [-90.0, 90.0], atol=1e-6)


def test_the_help_states_the_angle_bins():
    width = 360 // metrics.ANGLE_BINS
    assert f"in {width} deg\n                bins from -180 to 180" in METRICS_HELP


def test_msd_matches_tidynamics_on_random_walks():
    p = np.cumsum(np.random.default_rng(3).normal(size=(300, 7, 3)), axis=0) + 1000.0
    ours = whole.mean_squared_displacement(p, 100)
    theirs = np.mean([tidynamics.msd(p[:, a]) for a in range(7)], axis=0)[:101]
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("turn_deg", [40.0, 70.0])
def test_correlated_random_walk_measures_meet_their_theory(turn_deg):
    turn = math.radians(turn_deg)
    p = correlated_random_walk(400, 400, turn)
    versine, defined = metrics.step_turn_versines(p)
    d = float(versine[defined].mean())
    assert 1.0 - d == pytest.approx(math.cos(turn), abs=1e-9)  # every turn is exactly `turn`
    assert metrics.persistence_length_crw(1.0, d) == pytest.approx(1.0 / (1.0 - math.cos(turn)))
    lags = 100
    msd = whole.mean_squared_displacement(p, lags)
    predicted = metrics.crw_msd(np.arange(lags + 1), 1.0, 1.0, d)
    np.testing.assert_allclose(msd[1:], predicted[1:], rtol=0.05)
    # Benhamou's sinuosity is the large-n limit of 2 / sqrt(MSD(n) / path length).
    n = 200
    direct = 2.0 / math.sqrt(whole.mean_squared_displacement(p, n)[n] / n)
    assert metrics.sinuosity(1.0, 1.0, d) == pytest.approx(direct, rel=0.05)
    # And a slower-turning walk is straighter over the same number of steps.
    assert 0.0 < np.nanmean(metrics.straightness(p)) < 1.0


def test_sinuosity_grows_with_variable_step_lengths():
    assert metrics.sinuosity(1.0, 2.0, 0.5) < metrics.sinuosity(1.0, 1.0, 0.5)
