"""Compiled resampling of recorded tracks, for the analysis layer's `read_tracks`.

A tracks file's fixes, each track's a contiguous block in time order, become samples at a
fixed interval from each track's first fix (linear interpolation), and the samples' headings
and speeds come from velocities or from the positions' central differences. numpy did this in
some fifteen passes over arrays as large as the samples (searches, gathers, masks, strided
reductions), which cost a 20-million-fix file more than parsing it; these kernels walk each
track once, in the order its fixes and samples lie.

Every value is the one the numpy definitions give, bit for bit: the same float64 operations
in the same order, no multiply and add contracted (tests hold them to numpy references).

Shapes: fixes (F,) times and (F, m) values; a track i has fixes starts[i] .. ends[i] - 1 and
lengths[i] samples of its own; samples are (T, n, 3), rows after a track's own repeating its
last fix (positions) or its last sample's velocity (headings), which no measure reads.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

_jit = numba.njit(cache=True, fastmath=False, error_model="numpy", nogil=True)

_Floats = npt.NDArray[np.floating[Any]]
_Float64s = npt.NDArray[np.float64]
_Float32s = npt.NDArray[np.float32]
_Int64s = npt.NDArray[np.int64]

#: A sample moves when its speed is above this (units/s); at rest, the heading is kept.
REST_SPEED = 1e-12


@_jit
def resample(
    t: _Float64s,
    values: _Float64s,
    axes: _Int64s,
    signs: _Float64s,
    centre: _Float64s,
    starts: _Int64s,
    ends: _Int64s,
    lengths: _Int64s,
    interval: float,
    tolerance: float,
    out: _Float64s,
    low: _Float64s,
    high: _Float64s,
) -> None:
    """Each track's fixes linearly interpolated at its first fix's time + j * interval.

    The value of a fix along output axis a is signs[a] * values[fix, axes[a]] - centre[a]
    (axes[a] = -1: 0.0 - centre[a]): a file's columns placed in wander3d's axes and centred,
    without an array of them. Writes out[j, i, :] for j < T = out.shape[0], every track i:
    targets past a track's last fix give that fix. A fix is at a target when it is within
    `tolerance` sample intervals after it (ceil(offset - tolerance)), and a weight within
    `tolerance` of 0 or 1 gives that fix exactly: fixes on the targets are copied, and a track
    at rest stays exactly at rest. Lowers `low` and raises `high` (3,) to the extent of every
    track's own samples (j < lengths[i]). Sample by sample, every track's in turn: the
    output is written in the order it lies in memory.
    """
    count, n = out.shape[0], out.shape[1]
    # after[i]: track i's fixes starts[i] .. after[i] - 1 are at or before the target.
    after = starts.copy()
    for j in range(count):
        for i in range(n):
            start, end = starts[i], ends[i]
            first = t[start]
            target = first + j * interval
            next_fix = after[i]
            # ceil(offset - tolerance) <= j, with no integer that a far time could overflow.
            while next_fix < end and (t[next_fix] - first) / interval - tolerance <= j:
                next_fix += 1
            after[i] = next_fix
            left = min(max(next_fix - 1, start), max(end - 2, start))
            right = min(left + 1, end - 1)
            t_left, t_right = t[left], t[right]
            gap = t_right - t_left if t_right > t_left else 1.0
            weight = min(max((target - t_left) / gap, 0.0), 1.0)
            if weight < tolerance:
                weight = 0.0
            if weight > 1.0 - tolerance:
                weight = 1.0
            own = j < lengths[i]
            for a in range(3):
                column = axes[a]
                if column < 0:
                    from_left = 0.0 - centre[a]
                    to_right = from_left
                else:
                    from_left = signs[a] * values[left, column] - centre[a]
                    to_right = signs[a] * values[right, column] - centre[a]
                if weight == 0.0:
                    value = from_left
                elif weight == 1.0:  # a + (b - a) can miss b by a unit in the last place
                    value = to_right
                else:
                    value = from_left + weight * (to_right - from_left)
                out[j, i, a] = value
                if own:
                    low[a] = min(low[a], value)
                    high[a] = max(high[a], value)


@_jit
def headings_and_speeds(
    vectors: _Floats,
    lengths: _Int64s,
    interval: float,
    from_positions: bool,
    headings: _Float32s,
    speeds: _Float32s,
) -> None:
    """Unit headings (T, n, 3) and speeds (T, n), float32, of every track.

    vectors (T, n, 3): the velocities, or with from_positions the positions, whose velocity
    is then their central difference inside each track, (p[k+1] - p[k-1]) / (2 interval), a
    one-sided one at its first and last own sample, and the last one's after its end. A
    heading is the velocity over its length; while a track is at rest (speed at most
    REST_SPEED) its last direction of motion, before any motion its first, and +x for a
    track that never moves. Sample by sample, every track's in turn, as memory holds them.
    """
    count, n = vectors.shape[0], vectors.shape[1]
    first_moving = np.full(n, -1, np.int64)
    velocity = np.empty(3)
    for k in range(count):
        for i in range(n):
            if from_positions:
                end = lengths[i] - 1
                _gradient(vectors, i, min(k, end), end, interval, velocity)
            else:
                for a in range(3):
                    velocity[a] = vectors[k, i, a]
            speed = math.sqrt(
                velocity[0] * velocity[0] + velocity[1] * velocity[1] + velocity[2] * velocity[2]
            )
            speeds[k, i] = speed
            if speed > REST_SPEED:
                for a in range(3):
                    headings[k, i, a] = velocity[a] / speed
                if first_moving[i] < 0:
                    first_moving[i] = k
            elif first_moving[i] >= 0:  # at rest: the last direction of motion
                for a in range(3):
                    headings[k, i, a] = headings[k - 1, i, a]
    # Before a track's first motion, its direction (+x if it never moves).
    for i in range(n):
        moved = first_moving[i]
        for k in range(count if moved < 0 else moved):
            for a in range(3):
                headings[k, i, a] = headings[moved, i, a] if moved >= 0 else 0.0
            if moved < 0:
                headings[k, i, 0] = 1.0


@_jit
def column_ranges(values: _Float64s, low: _Float64s, high: _Float64s) -> None:
    """Lowers low[c] and raises high[c] to the least and greatest of column c of values
    (F, m) in one pass over its rows; NaN values are left out."""
    for i in range(values.shape[0]):
        for c in range(values.shape[1]):
            value = values[i, c]
            if value < low[c]:
                low[c] = value
            if value > high[c]:
                high[c] = value


@_jit
def _gradient(p: _Floats, i: int, k: int, end: int, interval: float, velocity: _Float64s) -> None:
    """The velocity of track i's sample k <= end (its last own sample), from its positions."""
    if end == 0:
        velocity[:] = 0.0
        return
    for a in range(3):
        if k == 0:
            velocity[a] = (np.float64(p[1, i, a]) - np.float64(p[0, i, a])) / interval
        elif k == end:
            velocity[a] = (np.float64(p[end, i, a]) - np.float64(p[end - 1, i, a])) / interval
        else:
            velocity[a] = (np.float64(p[k + 1, i, a]) - np.float64(p[k - 1, i, a])) / (
                2.0 * interval
            )
