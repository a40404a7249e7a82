"""The path metrics of one group, each computed at once over its whole (T, n, ...) arrays.

`compute_stats` adds them up over chunks of agents from the per-sample pieces of
`wander3d.analysis.metrics`; these whole-array forms state each metric in one line, for tests
with answers known in closed form. Shapes and units are those of `metrics`.
"""

from __future__ import annotations

import numpy as np

from wander3d.analysis import metrics

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
