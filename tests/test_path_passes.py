"""The compiled passes behind `compute_stats` give the sums of the numpy definitions.

`wander3d.analysis.sums.group_sums` adds up a group's measures with the engine's compiled
passes (wander3d.engine.pathsums); `whole_array_metrics.group_sums` computes each sum from
`wander3d.analysis.metrics` at once. They must agree on every sum: to the last few units in
the last place where only the order of addition differs, exactly for counts, cells and
histograms. The paths are chosen to reach every branch: random turning, straight lines
(no turning axis, versine 0), an agent that never moves, vertical steps (no azimuth),
steps along the axes (angles on the histograms' bin edges), flat 2D motion, ragged tracks
with float64 positions far from the origin.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
import whole_array_metrics as whole

from wander3d.analysis import compute_stats, metrics
from wander3d.analysis.sampling import Samples
from wander3d.analysis.stats import COVERAGE_CELLS, GroupLabel, max_lag_samples
from wander3d.analysis.sums import group_sums
from wander3d.engine import pathsums

TS = 0.1
SLOTS = {
    "speed": pathsums.SPEED,
    "turn_rate": pathsums.TURN_RATE,
    "acceleration": pathsums.ACCELERATION,
    "about_turns": pathsums.ABOUT_TURNS,
    "step_length": pathsums.STEP_LENGTH,
    "step_square": pathsums.STEP_SQUARE,
    "steps": pathsums.STEPS,
    "versine": pathsums.VERSINE,
    "pairs": pathsums.PAIRS,
    "turn_sin": pathsums.TURN_SIN,
    "turns": pathsums.TURNS,
    "straight": pathsums.STRAIGHT,
    "straight_agents": pathsums.STRAIGHT_AGENTS,
    "in_band": pathsums.IN_BAND,
}
COUNTS = {"about_turns", "steps", "pairs", "turns", "straight_agents", "in_band"}


def wild_paths(rng: np.random.Generator, t: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Headings random-walking by about 20 degrees a sample, and positions following them."""
    h = np.empty((t, n, 3))
    h[0] = rng.normal(size=(n, 3))
    for k in range(1, t):
        h[k] = h[k - 1] / np.linalg.norm(h[k - 1], axis=1, keepdims=True)
        h[k] += rng.normal(size=(n, 3)) * 0.25
    h /= np.linalg.norm(h, axis=2, keepdims=True)
    p = np.cumsum(h * rng.uniform(0.5, 3.0, size=(t, n, 1)), axis=0)
    return h, p


def special_paths(t: int) -> tuple[np.ndarray, np.ndarray]:
    """Five agents: straight along +x; still; climbing straight up then falling; stepping
    along the axes in turn (+x, +z, -x, -z, +y ...); flat in the x-z plane, zig-zagging."""
    k = np.arange(t, dtype=np.float64)
    p = np.zeros((t, 5, 3))
    h = np.zeros((t, 5, 3))
    p[:, 0, 0] = 2.0 * k
    h[:, 0, 0] = 1.0
    p[:, 1] = (1.0, 2.0, 3.0)
    h[:, 1, 2] = 1.0
    p[:, 2, 1] = np.where(k < t // 2, k, t - k)
    h[:, 2, 1] = np.where(k < t // 2, 1.0, -1.0)
    axes = np.array([(1, 0, 0), (0, 0, 1), (-1, 0, 0), (0, 0, -1), (0, 1, 0)], dtype=np.float64)
    h[:, 3] = axes[np.arange(t) % len(axes)]
    p[1:, 3] = np.cumsum(h[:-1, 3], axis=0)
    h[:, 4] = np.stack([np.ones(t), np.zeros(t), np.where(k % 2 == 0, 1.0, -1.0)], axis=1)
    h[:, 4] /= np.sqrt(2.0)
    p[1:, 4] = np.cumsum(h[:-1, 4], axis=0)
    return h, p


def samples_of(h, p, groups, *, dtype=np.float32, lengths=None, margin=2.0, offset=0.0):
    starts = np.cumsum([0, *groups])
    low = np.min(p.reshape(-1, 3), axis=0) - 1.0 + offset
    high = np.max(p.reshape(-1, 3), axis=0) + 1.0 + offset
    return Samples(
        interval=TS,
        times=np.arange(len(h)) * TS,
        headings=h.astype(np.float32),
        positions=(p + offset).astype(dtype),
        speeds=np.linalg.norm(np.diff(p, axis=0, prepend=p[:1]), axis=2).astype(np.float32),
        group_slices=tuple(slice(int(a), int(b)) for a, b in itertools.pairwise(starts)),
        low=low,
        high=high,
        margin=margin,
        lengths=lengths,
    )


def ragged(samples: Samples, lengths: np.ndarray) -> Samples:
    """The samples cut to `lengths`, each track's rows after its end repeating its last."""
    arrays = {}
    for name in ("headings", "positions", "speeds"):
        a = getattr(samples, name).copy()
        for agent, length in enumerate(lengths):
            a[length:, agent] = a[length - 1, agent]
        arrays[name] = a
    return dataclasses.replace(samples, lengths=lengths, **arrays)


def cases() -> dict[str, Samples]:
    rng = np.random.default_rng(11)
    t = 81
    wild_h, wild_p = wild_paths(rng, t, 7)
    odd_h, odd_p = special_paths(t)
    h = np.concatenate([wild_h, odd_h], axis=1)
    p = np.concatenate([wild_p, odd_p], axis=1)
    plain = samples_of(h, p, [7, 5])
    lengths = rng.integers(4, t + 1, size=12)
    lengths[0] = t
    far = samples_of(h, p, [7, 5], dtype=np.float64, margin=math.inf, offset=1e7)
    return {
        "float32 samples": plain,
        "ragged float64 tracks at 1e7": ragged(far, lengths),
    }


CASES = cases()


@pytest.mark.parametrize("case", CASES)
def test_every_sum_is_the_numpy_definitions(case):
    samples = CASES[case]
    lags = max_lag_samples(samples)
    t = samples.count
    all_lengths = (
        np.full(samples.speeds.shape[1], t) if samples.lengths is None else samples.lengths
    ).astype(np.int64)
    for sl in samples.group_slices:
        got = group_sums(samples, sl, all_lengths[sl], COVERAGE_CELLS, lags, curves=True)
        want = whole.group_sums(samples, samples.group_slices.index(sl), COVERAGE_CELLS, lags)
        for name, slot in SLOTS.items():
            if name in COUNTS:
                assert got.sums[slot] == want[name], name
            elif name == "turn_sin":  # a sum of +-1 terms that cancel: absolute terms
                assert got.sums[slot] == pytest.approx(want[name], abs=1e-13 * want["turns"])
            else:
                assert got.sums[slot] == pytest.approx(want[name], rel=1e-13, abs=1e-300), name
        assert np.array_equal(got.visited, want["visited"])
        for mine, theirs in (("h", "heading"), ("a", "axis"), ("d", "direction"), ("msd", "msd")):
            num, den = got.lagged[mine]
            scale = np.max(np.abs(want[theirs][0]))
            np.testing.assert_allclose(num, want[theirs][0], rtol=0, atol=1e-12 * scale)
            np.testing.assert_array_equal(den, want[theirs][1])
        np.testing.assert_array_equal(got.rates, want["rates"])
        np.testing.assert_array_equal(got.turn_counts, want["turn_counts"])
        np.testing.assert_array_equal(got.lift_counts, want["lift_counts"])


def test_the_cases_reach_every_branch():
    """The comparison above means something only if the paths do what they are for."""
    samples = CASES["float32 samples"]
    want = whole.group_sums(samples, 1, COVERAGE_CELLS, max_lag_samples(samples))
    assert want["straight_agents"] == 4  # the still agent has no path
    assert want["pairs"] < want["steps"] - 5  # the still agent's steps have no turn
    assert want["turn_counts"][[89, 90, 269, 270]].sum() > 0  # +-90 degrees: on bin edges
    assert want["turns"] < want["pairs"]  # vertical steps (climber, axis-stepper): no azimuth
    assert want["about_turns"] > 0  # the climber falls back, the axis-stepper reverses
    wild = whole.group_sums(samples, 0, COVERAGE_CELLS, max_lag_samples(samples))
    assert wild["about_turns"] > 3 and wild["in_band"] > 0


@pytest.mark.parametrize("case", CASES)
def test_stats_do_not_depend_on_curves_or_chunks(case, monkeypatch):
    samples = CASES[case]
    groups = [GroupLabel("wild", "tracks"), GroupLabel("odd", "tracks")]
    with_curves, _ = compute_stats(samples, groups)
    alone, curves = compute_stats(samples, groups, curves=False)
    assert curves == []
    assert alone == with_curves or _nan_equal(alone, with_curves)
    monkeypatch.setattr("wander3d.analysis.sums.CHUNK_AGENTS", 3)
    chunked, _ = compute_stats(samples, groups, curves=False)
    for a, b in zip(alone, chunked, strict=True):
        for field in dataclasses.fields(a):
            x, y = getattr(a, field.name), getattr(b, field.name)
            if isinstance(x, float):
                assert x == pytest.approx(y, rel=1e-12, abs=1e-13, nan_ok=True), field.name
            else:
                assert x == y, field.name


def _nan_equal(a, b) -> bool:
    """Lists of GroupStats equal field by field, NaN equal to NaN."""
    return all(
        (x == y) or (isinstance(x, float) and math.isnan(x) and math.isnan(y))
        for sa, sb in zip(a, b, strict=True)
        for x, y in zip(dataclasses.astuple(sa), dataclasses.astuple(sb), strict=True)
    )


def test_histogram_bins_an_angle_as_numpy_does():
    """Angles on and next to every bin edge, and the ends of the range, land in np.histogram's
    bins (through a path whose horizontal turns are exactly those angles)."""
    angles = np.concatenate(
        [np.arange(-180, 181, 1.0), np.nextafter(np.arange(-179, 180, 1.0), -np.inf)]
    )
    azimuth = np.radians(np.concatenate([[0.0], np.cumsum(angles)]))
    steps = np.stack([np.sin(azimuth), np.zeros_like(azimuth), np.cos(azimuth)], axis=1)
    p = np.concatenate([[np.zeros(3)], np.cumsum(steps, axis=0)])[:, None, :]
    samples = samples_of(np.repeat(steps[:1, None], len(p), axis=0), p, [1], dtype=np.float64)
    got = group_sums(samples, slice(0, 1), np.array([len(p)]), 4, 2, curves=True)
    turn, _, defined, _ = metrics.horizontal_turn_and_lift(p)
    np.testing.assert_array_equal(got.turn_counts, metrics.angle_histogram(turn, defined))


def test_an_exact_reversal_leaves_the_turning_axes_defined_elsewhere():
    """A heading that reverses exactly (+y to -y) turns about no axis: that interval is left
    out of the turning-axis autocorrelation instead of making it NaN."""
    h, p = special_paths(81)
    samples = samples_of(h[:, 2:3], p[:, 2:3], [1])  # the climber that falls back
    (stats,), (curves,) = compute_stats(samples, [GroupLabel("climber", "tracks")])
    assert np.isnan(curves.axis_acf).all()  # no interval has an axis: nothing to correlate
    wild, _ = wild_paths(np.random.default_rng(2), 81, 1)
    h = np.concatenate([h[:, 2:3], wild], axis=1)
    samples = samples_of(h, np.concatenate([p[:, 2:3], p[:, 2:3]], axis=1), [2])
    (stats,), (curves,) = compute_stats(samples, [GroupLabel("both", "tracks")])
    assert np.isfinite(curves.axis_acf).all() and math.isfinite(stats.persistence)


def track_of(steps: np.ndarray) -> Samples:
    """One track taking `steps` ((k, 3)) from the origin, heading along each step, float32."""
    p = np.concatenate([[np.zeros(3)], np.cumsum(steps, axis=0)])
    h = np.concatenate([steps, steps[-1:]])
    h /= np.linalg.norm(h, axis=1, keepdims=True)
    return samples_of(h[:, None], p[:, None], [1])


def measured(steps: np.ndarray):
    """compute_stats' GroupStats and curves of the track `track_of(steps)`."""
    (stats,), (curves,) = compute_stats(track_of(steps), [GroupLabel("track", "tracks")])
    return stats, curves


UP = np.array([0.0, 1.0, 0.0])
ZERO_BIN = metrics.ANGLE_BINS // 2  # turns of [0, 1) degrees


@pytest.mark.parametrize("heading", [(0.0, 0.0, -2.0), (2.0, 0.0, 0.0)], ids=["north", "east"])
def test_a_straight_track_with_vertical_steps_does_not_turn(heading):
    """The colleague's repro: a straight level track with two climbs straight up. A vertical
    step has no azimuth (atan2(0, 0) made it 0 or 180 degrees: turns of -180 on a northward
    track, +-90 on an eastward one); its pairs have no horizontal turn, and the track turns
    as little as without its climbs."""
    level = np.array(heading)
    climbing = np.array([level, level, UP, UP, level, level, UP, level, level])
    stats, curves = measured(climbing)
    straight, straight_curves = measured(np.array([level] * 9))
    level_pairs = 3  # steps 0-1, 4-5 and 7-8
    assert curves.turn_counts[ZERO_BIN] == curves.turn_counts.sum() == level_pairs
    assert straight_curves.turn_counts[ZERO_BIN] == straight_curves.turn_counts.sum() == 8
    assert stats.mean_sin_turn == straight.mean_sin_turn == 0.0
    # The lift angles are defined at every pair, vertical steps or not (3D measures stay).
    assert curves.lift_counts.sum() == 8


def test_a_track_measures_its_horizontal_turns_alike_with_or_without_vertical_steps():
    """A helicopter climbs straight up, flies a course turning more to the left than to the
    right, and lands straight down: its horizontal measures are those of the course alone,
    its 3D ones (the lift angles, the mean cosine) still count the climb and the landing."""
    rng = np.random.default_rng(5)
    azimuth = np.cumsum(np.radians(rng.uniform(-20.0, 40.0, 30)))
    course = np.stack([np.sin(azimuth), np.zeros(30), np.cos(azimuth)], axis=1) * 3.0
    flight = np.concatenate([[UP] * 4, course, [-UP] * 3])
    stats, curves = measured(flight)
    alone, alone_curves = measured(course)
    np.testing.assert_array_equal(curves.turn_counts, alone_curves.turn_counts)
    assert curves.turn_counts.sum() == len(course) - 1
    assert stats.mean_sin_turn == alone.mean_sin_turn > 0.1  # the left turns are there
    assert curves.lift_counts.sum() == len(flight) - 1
    assert stats.mean_cos_turn < alone.mean_cos_turn


def test_a_vertical_track_has_no_horizontal_turn_measures():
    """Straight up, then straight down (a diver): the mean sine of the horizontal turn, and
    the general sinuosity built on it, are undefined (n/a); the 3D turns still give the
    symmetric sinuosity."""
    stats, curves = measured(np.array([UP] * 10 + [-UP] * 10))
    assert curves.turn_counts.sum() == 0
    assert math.isnan(stats.mean_sin_turn) and math.isnan(stats.sinuosity)
    assert math.isfinite(stats.sinuosity_symmetric)
