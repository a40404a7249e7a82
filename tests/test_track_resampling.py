"""The compiled resampling of recorded tracks (`wander3d.engine.tracksample`) against the numpy
definitions it replaced: linear interpolation at each track's own times, central-difference
headings, the last direction of motion at rest, and the extent of each track's own samples."""

from __future__ import annotations

import numpy as np
import pytest

from wander3d.engine import tracksample

TOLERANCE = 1e-9


def reference_resample(t, values, starts, ends, count, interval):
    """numpy's linear interpolation of each track's (rows, k) values at first + j * interval
    (a searchsorted over every track at once), as read_tracks computed it before."""
    n = len(starts)
    targets = t[starts][None, :] + np.arange(count)[:, None] * interval
    track = np.repeat(np.arange(n), ends - starts)
    at = np.ceil((t - targets[0][track]) / interval - TOLERANCE)
    keys = track * (count + 1) + np.clip(at, 0, count).astype(np.int64)
    wanted = (np.arange(n, dtype=np.int64) * (count + 1))[None, :] + np.arange(count)[:, None]
    left = np.searchsorted(keys, wanted, side="right") - 1
    left = np.clip(left, starts[None, :], np.maximum(ends - 2, starts)[None, :])
    right = np.minimum(left + 1, ends[None, :] - 1)
    gap = np.where(t[right] > t[left], t[right] - t[left], 1.0)
    weight = np.clip((targets - t[left]) / gap, 0.0, 1.0)
    weight[weight < TOLERANCE] = 0.0
    weight[weight > 1.0 - TOLERANCE] = 1.0
    return values[left] + weight[..., None] * (values[right] - values[left])


def reference_headings(p, lengths, interval):
    """numpy's central differences inside each track, one-sided at its ends, and the unit
    velocity with the last direction of motion at rest (+x for a track that never moves)."""
    v = np.gradient(p, interval, axis=0)
    cols = np.arange(p.shape[1])
    end = lengths - 1
    v[end, cols] = (p[end, cols] - p[end - 1, cols]) / interval
    after = np.arange(p.shape[0])[:, None] > end[None, :]
    v = np.where(after[..., None], v[end, cols][None], v)
    speeds = np.sqrt(np.einsum("tni,tni->tn", v, v))
    moving = speeds > tracksample.REST_SPEED
    index = np.where(moving, np.arange(len(p))[:, None], -1)
    last = np.maximum.accumulate(index, axis=0)
    source = np.where(last >= 0, last, np.argmax(moving, axis=0)[None, :])
    w = np.take_along_axis(v, source[..., None], axis=0)
    norm = np.sqrt(np.einsum("tni,tni->tn", w, w))
    headings = np.zeros_like(w)
    headings[..., 0] = 1.0
    np.divide(w, norm[..., None], out=headings, where=norm[..., None] > 1e-12)
    return headings.astype(np.float32), speeds.astype(np.float32)


def tracks(seed: int = 3):
    """Fixes of ragged tracks: off the sample grid, on it, a hair off it, with rests, one that
    never moves; each track's (start, end) and its own sample count at `interval`."""
    rng = np.random.default_rng(seed)
    interval = 0.25
    times: list[np.ndarray] = []
    values: list[np.ndarray] = []
    starts: list[int] = []
    for k in range(12):
        n = int(rng.integers(3, 60))
        t = 100.0 * k + np.cumsum(rng.uniform(0.05, 0.6, n))
        if k % 3 == 0:
            t = t[0] + np.arange(n) * interval  # on the grid
        if k == 4:
            t = t[0] + np.arange(n) * interval + 1e-12  # a hair after each target
        v = np.cumsum(rng.normal(0, 1, (n, 2)), axis=0) + np.array([5e3, -2e3])
        if k % 4 == 1:
            v[3:9] = v[3]  # at rest for a while
        if k == 6:
            v[:] = v[0]  # never moves
        starts.append(sum(len(x) for x in times))
        times.append(t)
        values.append(v)
    t = np.concatenate(times)
    first = np.array(starts)
    ends = np.append(first[1:], len(t))
    counts = np.floor((t[ends - 1] - t[first]) / interval * (1 + TOLERANCE) + TOLERANCE)
    return t, np.concatenate(values), first, ends, counts.astype(np.int64) + 1, interval


def resampled(t, values, starts, ends, lengths, interval, axes, signs, centre):
    count = int(lengths.max())
    out = np.empty((count, len(starts), 3))
    low, high = np.full(3, np.inf), np.full(3, -np.inf)
    tracksample.resample(
        t, values, np.array(axes), np.array(signs, float), np.array(centre, float), starts,
        ends, lengths, interval, TOLERANCE, out, low, high,
    )  # fmt: skip
    return out, low, high


def test_resampling_is_numpys_interpolation_with_fixes_on_targets_copied_exactly():
    t, xy, starts, ends, lengths, interval = tracks()
    centre = (12.5, 0.0, -7.25)
    out, low, high = resampled(t, xy, starts, ends, lengths, interval, (0, -1, 1), (1, 1, -1),
                               centre)  # fmt: skip
    placed = np.column_stack([xy[:, 0], np.zeros(len(xy)), -xy[:, 1]]) - centre
    expected = reference_resample(t, placed, starts, ends, len(out), interval)
    # a + 1.0 * (b - a) can miss b by a unit in the last place; the kernel gives b.
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=0)
    # Fixes on the targets (on the grid or a hair after them) are the samples exactly.
    for k in (0, 3, 4, 9):
        own = placed[starts[k] : ends[k]]
        np.testing.assert_array_equal(out[: len(own), k], own)
    assert (out[:, :, 1] == 0.0).all()
    # The extent of each track's own samples, not of the rows after its end.
    own = np.arange(len(out))[:, None] < lengths[None, :]
    np.testing.assert_array_equal(low, out[own].min(axis=0))
    np.testing.assert_array_equal(high, out[own].max(axis=0))


def test_a_track_at_rest_stays_exactly_at_rest():
    t, xy, starts, ends, lengths, interval = tracks()
    out, _, _ = resampled(t, xy, starts, ends, lengths, interval, (0, 1, -1), (1, 1, 1), (0, 0, 0))
    still = out[: lengths[6], 6]
    assert (still == still[0]).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_headings_are_numpys_central_differences_and_keep_direction_at_rest(dtype):
    t, xy, starts, ends, lengths, interval = tracks()
    p, _, _ = resampled(t, xy, starts, ends, lengths, interval, (0, -1, 1), (1, 1, -1), (0, 0, 0))
    p = p.astype(dtype)
    headings = np.empty(p.shape, np.float32)
    speeds = np.empty(p.shape[:2], np.float32)
    tracksample.headings_and_speeds(p, lengths, interval, True, headings, speeds)
    expected_headings, expected_speeds = reference_headings(p.astype(np.float64), lengths, interval)
    np.testing.assert_array_equal(headings, expected_headings)
    np.testing.assert_array_equal(speeds, expected_speeds)
    assert (headings[:, 6] == [1.0, 0.0, 0.0]).all()  # never moved: +x


def test_headings_from_velocities_are_their_directions():
    rng = np.random.default_rng(4)
    v = rng.normal(size=(30, 5, 3))
    v[10:14, 2] = 0.0  # at rest: the direction before
    v[:3, 3] = 0.0  # at rest first: the first direction of motion
    headings = np.empty(v.shape, np.float32)
    speeds = np.empty(v.shape[:2], np.float32)
    tracksample.headings_and_speeds(v, np.full(5, 30), 0.1, False, headings, speeds)
    norm = np.linalg.norm(v, axis=2)
    moving = norm > 0
    np.testing.assert_allclose(headings[moving], v[moving] / norm[moving][:, None], rtol=1e-6)
    np.testing.assert_array_equal(headings[10:14, 2], np.repeat(headings[9:10, 2], 4, axis=0))
    np.testing.assert_array_equal(headings[:3, 3], np.repeat(headings[3:4, 3], 3, axis=0))
    np.testing.assert_array_equal(speeds, norm.astype(np.float32))


def test_column_ranges_leave_nan_out():
    values = np.array([[1.0, np.nan], [-2.0, 5.0], [np.nan, -1.0]])
    low, high = np.full(2, np.inf), np.full(2, -np.inf)
    tracksample.column_ranges(values, low, high)
    np.testing.assert_array_equal(low, [-2.0, -1.0])
    np.testing.assert_array_equal(high, [1.0, 5.0])
