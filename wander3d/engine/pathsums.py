"""Compiled one-pass sums over sampled paths, for the analysis layer's path measures.

`wander3d.analysis.metrics` defines each measure as a few numpy array operations; a group's
statistics take some 25 such passes over (T, n, 3) float64 arrays, each bound by memory
traffic rather than arithmetic, which made a sweep cell's metrics cost most of what its
simulation did. These kernels walk each agent's samples once and return the sums the
measures are built from, and the vector series their autocorrelations need, laid out for
the FFT (agent, component, time). The analysis layer turns them into numbers
(`wander3d.analysis.stats`); tests hold every sum to the numpy definitions.

Two passes, because the heading's turn angle atan2(|h_k x h_k+1|, h_k . h_k+1) is taken
by numpy between them: numpy's vectorised arctan2 is ten times the platform library's speed,
and the angles are then the very ones `metrics.Turns` gives.

Shapes: the samples' headings and positions (T, N, 3) and speeds (T, N), float32 or float64,
are read in place; a call covers the agents first .. first + len(lengths) - 1, agent a having
its own samples 0 .. lengths[a] - 1 (rows after those repeat the last one and are skipped).
Series are (n, 3, T) or (n, 3, T - 1) float64, zero where not valid, with an (n, T) or
(n, T - 1) bool mask. Everything is arithmetic on float64 copies of the samples; no multiply
and add are contracted, so per-sample values equal numpy's bit for bit (sums differ only in
the order they are added: by a few units in the last place).
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

_jit = numba.njit(cache=True, fastmath=False, error_model="numpy", nogil=True)

# The passes' array arguments by element type (numba compiles from the values passed, not from
# these; the module's doc and each pass's give the shapes). Samples are float32 or float64.
_Samples = npt.NDArray[np.floating[Any]]
_Float64s = npt.NDArray[np.float64]
_Int64s = npt.NDArray[np.int64]
_Bools = npt.NDArray[np.bool_]

_DEGREES = 180.0 / math.pi
_RADIANS = math.pi / 180.0

# Slots of the sums array each pass adds to (`PATH_SUMS` entries).
SPEED, STEP_LENGTH, STEP_SQUARE, STEPS, VERSINE, PAIRS, TURN_SIN, TURNS = range(8)
STRAIGHT, STRAIGHT_AGENTS, IN_BAND, TURN_RATE, ACCELERATION, ABOUT_TURNS = range(8, 14)
#: Slots in the sums array.
PATH_SUMS = 14


@_jit
def path_pass(
    headings: _Samples,
    positions: _Samples,
    speeds: _Samples,
    first: int,
    lengths: _Int64s,
    low: _Float64s,
    high: _Float64s,
    margin: float,
    cells: int,
    step_min: float,
    horizontal_min: float,
    sums: _Float64s,
    visited: _Bools,
    turn_sin: _Float64s,
    turn_cos: _Float64s,
    directions: _Float64s,
    moved: _Bools,
    centred: _Float64s,
    msd_squares: _Float64s,
    heading_series: _Float64s,
    turn_counts: _Int64s,
    lift_counts: _Int64s,
) -> None:
    """The first pass: everything but what needs the heading's turn angles.

    Adds to `sums` (float64, PATH_SUMS): speeds of own samples; step lengths, their squares
    and count; 1 - cos of the 3D turn between consecutive steps and the pairs it is defined
    for (both steps longer than step_min); the sine of the horizontal turn angle and its
    count, over those pairs whose steps both have a horizontal part longer than
    horizontal_min times their length (a vertical step has no azimuth); each agent's
    straightness (net displacement / path length) and the agents it is defined for; own
    samples within `margin` of a wall (none when margin is not finite). Sets `visited[cell]`
    for the cells^3 cells of the box [low, high] any own sample is in (axes without extent
    one cell thick).

    Writes, for n = len(lengths) agents: turn_sin, turn_cos (n, T - 1): |h_k x h_k+1| and
    h_k . h_k+1; directions (n, 3, T - 1) the unit step directions and moved (n, T - 1) where
    they are defined; centred (n, 3, T) each agent's positions less their mean over its own
    samples; msd_squares (L + 1,) += the MSD's sum over agents and k of |p_k|^2 + |p_k+m|^2
    for every lag m <= L of the centred positions; with curves (heading_series not empty):
    heading_series (n, 3, T) the headings, and turn_counts, lift_counts += the histograms of
    the horizontal turn and lift angles over len(turn_counts) bins from -180 to 180 deg (the
    turn over the pairs of the sine, the lift over those of the 1 - cos).
    """
    t = headings.shape[0]
    lags = msd_squares.shape[0] - 1
    curves = heading_series.shape[0] > 0
    bins = turn_counts.shape[0]
    span = np.empty(3)
    for axis in range(3):
        span[axis] = high[axis] - low[axis] if high[axis] > low[axis] else 1.0
    band = math.isfinite(margin)
    cumulative = np.empty(t + 1)
    azimuth = np.empty(t)
    elevation = np.empty(t)
    for i in range(lengths.shape[0]):
        a = first + i
        n_own = lengths[i]
        # Speeds, the wall band and the coverage cells, over own samples.
        for k in range(n_own):
            sums[SPEED] += speeds[k, a]
            x = np.float64(positions[k, a, 0])
            y = np.float64(positions[k, a, 1])
            z = np.float64(positions[k, a, 2])
            if band:
                if (
                    x - low[0] < margin
                    or high[0] - x < margin
                    or y - low[1] < margin
                    or high[1] - y < margin
                    or z - low[2] < margin
                    or high[2] - z < margin
                ):
                    sums[IN_BAND] += 1.0
            cell = 0
            for axis, value in enumerate((x, y, z)):
                index = math.floor((value - low[axis]) / span[axis] * cells)
                cell = cell * cells + min(max(index, 0), cells - 1)
            visited[cell] = True
        # The heading's turn per interval: sine and cosine, for numpy's arctan2.
        for k in range(t - 1):
            c0, c1, c2, dot = _heading_turn(headings, k, a)
            turn_sin[i, k] = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
            turn_cos[i, k] = dot
        # Centred positions (the mean over own samples, added in time order as numpy's sum
        # over the time axis does) and the cumulative sums of their squares, for the MSD.
        for axis in range(3):
            total = 0.0
            for k in range(n_own):
                total += np.float64(positions[k, a, axis])
            mean = total / max(n_own, 1)
            for k in range(t):
                own = k < n_own
                centred[i, axis, k] = np.float64(positions[k, a, axis]) - mean if own else 0.0
                if curves:
                    heading_series[i, axis, k] = headings[k, a, axis] if own else 0.0
        cumulative[0] = 0.0
        for k in range(t):
            q0, q1, q2 = centred[i, 0, k], centred[i, 1, k], centred[i, 2, k]
            cumulative[k + 1] = cumulative[k] + (q0 * q0 + q1 * q1 + q2 * q2)
        for m in range(lags + 1):
            head = cumulative[max(n_own - m, 0)]
            tail = cumulative[n_own] - cumulative[min(m, n_own)]
            msd_squares[m] += head + tail
        # The steps: directions, lengths, and the turns between consecutive ones.
        path = 0.0
        previous_length = 0.0
        p0 = p1 = p2 = 0.0  # the previous step
        previous_sin = previous_cos = 0.0  # its horizontal direction's sine and cosine
        previous_level = False  # whether it has one
        for k in range(n_own - 1):
            s0 = np.float64(positions[k + 1, a, 0]) - np.float64(positions[k, a, 0])
            s1 = np.float64(positions[k + 1, a, 1]) - np.float64(positions[k, a, 1])
            s2 = np.float64(positions[k + 1, a, 2]) - np.float64(positions[k, a, 2])
            length = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
            path += length
            sums[STEP_LENGTH] += length
            sums[STEP_SQUARE] += length * length
            if length > step_min:
                directions[i, 0, k] = s0 / length
                directions[i, 1, k] = s1 / length
                directions[i, 2, k] = s2 / length
                moved[i, k] = True
            horizontal = math.sqrt(s0 * s0 + s2 * s2)
            # The azimuth atan2(s_x, s_z) as its sine and cosine, where the step has one
            # (a vertical step's would be atan2's of signed zeros: 0 or 180 degrees).
            level = horizontal > horizontal_min * length
            sin_azimuth = s0 / horizontal if level else 0.0
            cos_azimuth = s2 / horizontal if level else 0.0
            if curves:
                azimuth[k] = math.atan2(s0, s2) * _DEGREES
                elevation[k] = math.atan2(s1, horizontal) * _DEGREES
            if k > 0 and length > step_min and previous_length > step_min:
                # 1 - cos of the turn without a cosine near 1: sin^2 / (1 + cos) where the
                # turn is under 90 degrees, 1 - cos where it is over (no cancellation there).
                dot = p0 * s0 + p1 * s1 + p2 * s2
                c0 = p1 * s2 - p2 * s1
                c1 = p2 * s0 - p0 * s2
                c2 = p0 * s1 - p1 * s0
                r = previous_length * length
                if dot >= 0.0:
                    sums[VERSINE] += (c0 * c0 + c1 * c1 + c2 * c2) / (r * (r + dot))
                else:
                    sums[VERSINE] += 1.0 - dot / r
                sums[PAIRS] += 1.0
                if curves:
                    _count(lift_counts, elevation[k] - elevation[k - 1], bins)
                if level and previous_level:
                    # sin(psi_k+1 - psi_k) from the two azimuths' sines and cosines.
                    sums[TURN_SIN] += sin_azimuth * previous_cos - cos_azimuth * previous_sin
                    sums[TURNS] += 1.0
                    if curves:
                        turn = ((azimuth[k] - azimuth[k - 1]) + 180.0) % 360.0 - 180.0
                        _count(turn_counts, turn, bins)
            p0, p1, p2 = s0, s1, s2
            previous_length = length
            previous_sin, previous_cos = sin_azimuth, cos_azimuth
            previous_level = level
        sums[STEPS] += max(n_own - 1, 0)
        # Straightness: net displacement over path length (undefined for an agent that
        # never moved).
        if path > 0.0:
            last = max(n_own - 1, 0)
            d0 = np.float64(positions[last, a, 0]) - np.float64(positions[0, a, 0])
            d1 = np.float64(positions[last, a, 1]) - np.float64(positions[0, a, 1])
            d2 = np.float64(positions[last, a, 2]) - np.float64(positions[0, a, 2])
            sums[STRAIGHT] += math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) / path
            sums[STRAIGHT_AGENTS] += 1.0


@_jit
def _heading_turn(headings: _Samples, k: int, a: int) -> tuple[float, float, float, float]:
    """h_k x h_k+1 (three components) and h_k . h_k+1 of agent a's headings (T, N, 3), in
    float64."""
    h0 = np.float64(headings[k, a, 0])
    h1 = np.float64(headings[k, a, 1])
    h2 = np.float64(headings[k, a, 2])
    g0 = np.float64(headings[k + 1, a, 0])
    g1 = np.float64(headings[k + 1, a, 1])
    g2 = np.float64(headings[k + 1, a, 2])
    return h1 * g2 - h2 * g1, h2 * g0 - h0 * g2, h0 * g1 - h1 * g0, h0 * g0 + h1 * g1 + h2 * g2


@_jit
def _count(counts: _Int64s, angle: float, bins: int) -> None:
    """Add an angle (deg) to counts (bins,), the histogram of `bins` equal bins from -180 to
    180, as np.histogram bins it (its edges computed as np.linspace computes them; values
    outside [-180, 180] left out)."""
    if not (-180.0 <= angle <= 180.0):
        return
    step = 360.0 / bins
    index = min(int((angle + 180.0) / 360.0 * bins), bins - 1)
    # np.histogram corrects the scaled index against the edges themselves.
    if angle < -180.0 + index * step:
        index -= 1
    elif index < bins - 1 and angle >= -180.0 + (index + 1) * step:
        index += 1
    counts[index] += 1


@_jit
def turn_pass(
    headings: _Samples,
    first: int,
    lengths: _Int64s,
    turn_angle: _Float64s,
    turn_sin: _Float64s,
    interval: float,
    axis_min: float,
    window: int,
    cos_limit: float,
    limit: float,
    sums: _Float64s,
    axes: _Float64s,
    axes_defined: _Bools,
) -> None:
    """The second pass: what needs the heading's turn angles, turn_angle (n, T - 1) rad.

    Adds to `sums`: the turn rates (deg/s, angle / interval) of own intervals; the angular
    accelerations |omega_k+1 - omega_k| / interval (deg/s^2), omega_k the cross product
    h_k x h_k+1 scaled to length angle / interval; and the about-turns (a turn of more than
    acos(cos_limit) = `limit` rad within `window` samples, counted greedily in time order
    as `metrics.about_turn_counts` does). Writes the unit turning axes (n, 3, T - 1),
    defined (axes_defined) where the turn exceeds axis_min rad and is not an exact reversal.
    """
    t = headings.shape[0]
    turned = np.empty(t)
    for i in range(lengths.shape[0]):
        a = first + i
        n_own = lengths[i]
        o0 = o1 = o2 = 0.0  # the previous interval's angular velocity
        turned[0] = 0.0
        for k in range(t - 1):
            angle = turn_angle[i, k]
            turned[k + 1] = turned[k] + angle
            if k + 1 >= n_own:
                continue
            sums[TURN_RATE] += angle * _DEGREES / interval
            c0, c1, c2, _ = _heading_turn(headings, k, a)
            sine = turn_sin[i, k]
            scale = angle / (sine * interval) if sine > 0.0 else 0.0
            w0, w1, w2 = c0 * scale, c1 * scale, c2 * scale
            if k > 0:
                e0, e1, e2 = w0 - o0, w1 - o1, w2 - o2
                sums[ACCELERATION] += math.sqrt(e0 * e0 + e1 * e1 + e2 * e2) * _DEGREES / interval
            o0, o1, o2 = w0, w1, w2
            if angle > axis_min and sine > 0.0:  # an exact reversal has no axis
                axes[i, 0, k] = c0 / sine
                axes[i, 1, k] = c1 / sine
                axes[i, 2, k] = c2 / sine
                axes_defined[i, k] = True
        sums[ABOUT_TURNS] += _about_turns(headings, a, turned, n_own, window, cos_limit, limit)


@_jit
def _about_turns(
    headings: _Samples,
    a: int,
    turned: _Float64s,
    n_own: int,
    window: int,
    cos_limit: float,
    limit: float,
) -> int:
    """About-turns of agent a: from each sample in turn, the first sample within `window`
    whose heading is more than `limit` rad away (cosine below cos_limit) ends an event, and
    the next event starts there at the earliest. `turned` (T,): the cumulative turn angle
    (rad), which bounds how far the heading can have got (so most samples need no dot
    product)."""
    count = 0
    k = 0
    while k < n_own - 1:
        last = min(k + window, n_own - 1)
        end = -1
        if turned[last] - turned[k] > limit:
            h0 = np.float64(headings[k, a, 0])
            h1 = np.float64(headings[k, a, 1])
            h2 = np.float64(headings[k, a, 2])
            for j in range(k + 1, last + 1):
                if turned[j] - turned[k] > limit:
                    dot = (
                        h0 * np.float64(headings[j, a, 0])
                        + h1 * np.float64(headings[j, a, 1])
                        + h2 * np.float64(headings[j, a, 2])
                    )
                    if dot < cos_limit:
                        end = j
                        break
        if end >= 0:
            count += 1
            k = end
        else:
            k += 1
    return count
