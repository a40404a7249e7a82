"""The path metrics of one group, each computed at once over its whole (T, n, ...) arrays.

`compute_stats` adds them up over chunks of agents with the engine's compiled passes
(`wander3d.analysis.sums`); these whole-array forms state each metric from the numpy
definitions of `wander3d.analysis.metrics`, for tests with answers known in closed form, and
`group_sums` is the reference every compiled sum is held to (tests/test_path_passes.py).
Shapes and units are those of `metrics`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from wander3d.analysis import metrics
from wander3d.analysis.sampling import Samples

Array = np.ndarray


def mean_turn_rate(headings: Array, interval: float) -> float:
    """Mean over agents and sample intervals of angle(h_k, h_{k+1}) / interval, deg/s."""
    return float(np.mean(metrics.turn_rates_deg(headings, interval)))


def twitchiness(headings: Array, interval: float) -> float:
    """Mean angular acceleration of the heading, deg/s^2 (0 with under three samples)."""
    acc = metrics.angular_accelerations_deg(headings, interval)
    return float(np.mean(acc)) if acc.size else 0.0


def about_turn_rate(headings: Array, interval: float) -> float:
    """About-turns per agent per minute of the (T - 1) * interval s run."""
    t, n = np.shape(headings)[:2]
    minutes = (t - 1) * interval / 60.0
    if minutes <= 0 or n == 0:
        return 0.0
    return float(metrics.about_turn_counts(headings, interval).sum() / (n * minutes))


def lagged_correlation(vectors: Array, valid: Array, max_lag: int) -> Array:
    """Pooled autocorrelation C(l) of a vector series over valid pairs, l = 0..max_lag (NaN
    for lags the series is too short for)."""
    t = np.shape(valid)[0]
    if t == 0:
        return np.full(max_lag + 1, np.nan)
    num, den = metrics.lagged_sums(vectors, valid, min(max_lag, t - 1))
    return metrics.correlation_from_sums(num, den, max_lag)


def heading_autocorrelation(headings: Array, max_lag: int) -> Array:
    """Mean of h_k . h_{k+l} over agents and k, l = 0..max_lag."""
    return lagged_correlation(headings, np.ones(np.shape(headings)[:2], dtype=bool), max_lag)


def turning_axis_autocorrelation(headings: Array, max_lag: int) -> Array:
    """Mean of u_k . u_{k+l} over pairs of defined unit turning axes, l = 0..max_lag."""
    axes, defined = metrics.turning_axes(headings)
    return lagged_correlation(axes, defined, max_lag)


def persistence(headings: Array, interval: float, max_lag: int) -> tuple[float, bool]:
    """The 1/e time of the turning-axis autocorrelation, s, and whether it is censored."""
    return metrics.decay_time(turning_axis_autocorrelation(headings, max_lag), interval)


def coverage(positions: Array, low: Array, high: Array, cells: int) -> float:
    """Fraction of the box's cells^3 cells that any sampled position falls in."""
    visited = np.zeros(cells**3, dtype=bool)
    visited[metrics.cell_indices(positions, low, high, cells)] = True
    return float(visited.mean())


def wall_contact(positions: Array, low: Array, high: Array, margin: float) -> float:
    """Fraction of agent-samples within `margin` of any wall."""
    band = metrics.in_wall_band(positions, low, high, margin)
    return float(band.mean()) if band.size else 0.0


def mean_squared_displacement(positions: Array, lags: int) -> Array:
    """MSD at lags 0..lags samples, units^2."""
    num, den = metrics.msd_sums(positions, lags)
    return num / den


def group_sums(samples: Samples, index: int, cells: int, lags: int) -> dict[str, Any]:
    """What `compute_stats` adds up for group `index`, each from the numpy definitions in
    `metrics` at once over the group's whole arrays (ragged tracks' rows after their end left
    out by masks): the reference the compiled passes (wander3d.engine.pathsums) are held to.

    Keys: the sums (speed, turn_rate, acceleration, about_turns, step_length, step_square,
    steps, versine, pairs, turn_sin, turns, straight, straight_agents, in_band), `visited`
    (cells^3 bool), the lagged sums (num, den) "heading", "axis", "direction" and "msd", the
    turn-rate series `rates` (own intervals in time order) and the `turn_counts` and
    `lift_counts` histograms.
    """
    sl = samples.group_slices[index]
    t, dt = samples.count, samples.interval
    n = sl.stop - sl.start
    length = (
        np.full(n, t, dtype=np.int64)
        if samples.lengths is None
        else np.asarray(samples.lengths, dtype=np.int64)[sl]
    )
    # own[j][k, a]: sample k of agent a and the j samples after it are its own.
    own = [np.arange(t - j)[:, None] + j < length[None, :] for j in range(3)]
    h = samples.headings[:, sl].astype(np.float64)
    p = samples.positions[:, sl].astype(np.float64)
    turns = metrics.Turns.of(h)
    axes, defined_axes = metrics.turning_axes(turns)
    path = metrics.Steps.of(p)
    directions, moved = metrics.step_directions(path)
    versines, paired = metrics.step_turn_versines(path)
    turn, lift, turned, lifted = metrics.horizontal_turn_and_lift(path)
    paired &= own[2]
    turned &= own[2]
    lifted &= own[2]
    ratio = metrics.straightness(p, path)
    band = metrics.in_wall_band(p, samples.low, samples.high, samples.margin)
    visited = np.zeros(cells**3, dtype=bool)
    visited[metrics.cell_indices(p[own[0]], samples.low, samples.high, cells)] = True
    rates = metrics.turn_rates_deg(turns, dt)[own[1]]
    step_length = path.length[own[1]]
    return {
        "speed": float(samples.speeds[:, sl].astype(np.float64)[own[0]].sum()),
        "turn_rate": float(rates.sum()),
        "acceleration": float(metrics.angular_accelerations_deg(turns, dt)[own[2]].sum()),
        "about_turns": int(metrics.about_turn_counts(h, dt, turns=turns).sum()),
        "step_length": float(step_length.sum()),
        "step_square": float(np.dot(step_length, step_length)),
        "steps": step_length.size,
        "versine": float(versines[paired].sum()),
        "pairs": int(paired.sum()),
        "turn_sin": float(np.sin(np.radians(turn[turned])).sum()),
        "turns": int(turned.sum()),
        "straight": float(np.nansum(ratio)),
        "straight_agents": int(np.isfinite(ratio).sum()),
        "in_band": int(band[own[0]].sum()) if math.isfinite(samples.margin) else 0,
        "visited": visited,
        "heading": metrics.lagged_sums(h, own[0], lags),
        "axis": metrics.lagged_sums(axes, defined_axes & own[1], lags),
        "direction": metrics.lagged_sums(directions, moved & own[1], lags),
        "msd": metrics.msd_sums(p, lags, length),
        "rates": rates,
        "turn_counts": metrics.angle_histogram(turn, turned),
        "lift_counts": metrics.angle_histogram(lift, lifted),
    }
