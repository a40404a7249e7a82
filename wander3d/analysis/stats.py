"""Per-group path statistics of a sampled run (see `metrics` for each definition)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wander3d.engine import GroupParams

from . import metrics
from .sampling import Samples

Array = np.ndarray

#: Coverage divides the box into this many cells along each axis (COVERAGE_CELLS^3 in all).
COVERAGE_CELLS = 16
#: Autocorrelations are computed up to this lag (s), or half the run if that is shorter.
MAX_LAG_S = 20.0
#: At most this many per-sample turn rates are kept per group for the distribution plot.
_KEEP_TURN_RATES = 200_000
#: Agents per chunk: bounds the float64 temporaries for very large groups (a few hundred MB
#: at 600 samples).
_CHUNK_AGENTS = 2048


@dataclass(frozen=True)
class GroupStats:
    """The path metrics of one group (units in the field names' comments).

    name, method:      the group's name and wander method;
    agents:            agents in the group;
    mean_speed:        units/s;
    mean_turn_rate:    deg/s;
    twitchiness:       mean angular acceleration of the heading, deg/s^2;
    about_turns:       about-turns per agent per minute;
    persistence:       1/e time of the turning-axis autocorrelation, s;
    persistence_censored: True if the autocorrelation never fell below 1/e within the lags
                       computed, so `persistence` is a lower bound;
    coverage:          fraction of the box's cells visited by the group, 0..1;
    wall_contact:      fraction of agent-samples within the wall margin band, 0..1.
    """

    name: str
    method: str
    agents: int
    mean_speed: float
    mean_turn_rate: float
    twitchiness: float
    about_turns: float
    persistence: float
    persistence_censored: bool
    coverage: float
    wall_contact: float


@dataclass(frozen=True)
class GroupCurves:
    """What the plot shows of one group.

    lags:          (L + 1,) s;
    heading_acf:   (L + 1,) mean h_k . h_{k+l} at each lag;
    axis_acf:      (L + 1,) mean u_k . u_{k+l} of the unit turning axis at each lag;
    turn_rates:    (m,) a deterministic, evenly strided subset of the per-sample turn rates
                   (deg/s), at most a few hundred thousand, for the distribution.
    """

    lags: Array
    heading_acf: Array
    axis_acf: Array
    turn_rates: Array


def working_bytes(samples: int, agents: int) -> int:
    """About the most memory `compute_stats` needs beside the samples themselves (bytes).

    A chunk of agents in float64 and its temporaries (cross products, FFTs at twice the
    length): measured at about 400 bytes per agent-sample of the largest group chunk.
    """
    return 400 * samples * min(agents, _CHUNK_AGENTS)


def max_lag_samples(samples: Samples, max_lag_s: float = MAX_LAG_S) -> int:
    """Lags (in samples) the autocorrelations go up to: max_lag_s, at most half the run."""
    half = (samples.count - 1) // 2
    return max(1, min(round(max_lag_s / samples.interval), half))


def group_stats(
    samples: Samples,
    index: int,
    group: GroupParams,
    cells: int = COVERAGE_CELLS,
    max_lag_s: float = MAX_LAG_S,
) -> tuple[GroupStats, GroupCurves]:
    """The metrics of group `index` of `samples` (whose parameters are `group`).

    Works through the group's agents in chunks, adding up each metric's sums, so that memory
    stays bounded for groups of tens of thousands of agents.
    """
    sl = samples.group_slices[index]
    dt = samples.interval
    t = samples.count
    lags = max_lag_samples(samples, max_lag_s)
    n = sl.stop - sl.start
    sums = {"speed": 0.0, "turn": 0.0, "acc": 0.0, "about": 0}
    h_num = np.zeros(lags + 1)
    h_den = np.zeros(lags + 1)
    a_num = np.zeros(lags + 1)
    a_den = np.zeros(lags + 1)
    visited = np.zeros(cells**3, dtype=bool)
    in_band = 0
    kept: list[Array] = []
    stride = max(1, -(-(t - 1) * n // _KEEP_TURN_RATES))
    for start in range(sl.start, sl.stop, _CHUNK_AGENTS):
        chunk = slice(start, min(start + _CHUNK_AGENTS, sl.stop))
        h = samples.headings[:, chunk].astype(np.float64)
        p = samples.positions[:, chunk]
        sums["speed"] += float(samples.speeds[:, chunk].astype(np.float64).sum())
        rates = metrics.turn_rates_deg(h, dt)
        sums["turn"] += float(rates.sum())
        kept.append(rates.ravel()[::stride])
        sums["acc"] += float(metrics.angular_accelerations_deg(h, dt).sum())
        sums["about"] += int(metrics.about_turn_counts(h, dt).sum())
        num, den = metrics.lagged_sums(h, np.ones(h.shape[:2], dtype=bool), lags)
        h_num += num
        h_den += den
        axes, defined = metrics.turning_axes(h)
        num, den = metrics.lagged_sums(axes, defined, lags)
        a_num += num
        a_den += den
        visited[metrics.cell_indices(p, samples.low, samples.high, cells)] = True
        in_band += int(metrics.in_wall_band(p, samples.low, samples.high, samples.margin).sum())
    axis_acf = metrics.correlation_from_sums(a_num, a_den, lags)
    persistence, censored = metrics.decay_time(axis_acf, dt)
    minutes = (t - 1) * dt / 60.0
    stats = GroupStats(
        name=group.name,
        method=group.wander.method,
        agents=n,
        mean_speed=sums["speed"] / (t * n),
        mean_turn_rate=sums["turn"] / ((t - 1) * n),
        twitchiness=sums["acc"] / ((t - 2) * n) if t > 2 else 0.0,
        about_turns=sums["about"] / (n * minutes),
        persistence=persistence,
        persistence_censored=censored,
        coverage=float(visited.mean()),
        wall_contact=in_band / (t * n),
    )
    curves = GroupCurves(
        lags=np.arange(lags + 1) * dt,
        heading_acf=metrics.correlation_from_sums(h_num, h_den, lags),
        axis_acf=axis_acf,
        turn_rates=np.concatenate(kept),
    )
    return stats, curves


def compute_stats(
    samples: Samples,
    groups: Sequence[GroupParams],
    cells: int = COVERAGE_CELLS,
    max_lag_s: float = MAX_LAG_S,
) -> tuple[list[GroupStats], list[GroupCurves]]:
    """`group_stats` for every group, in order. Needs at least 3 samples."""
    if samples.count < 3:
        raise ValueError("need at least 3 samples (2 intervals) for angular acceleration")
    if len(groups) != len(samples.group_slices):
        raise ValueError("one GroupParams per group of the samples expected")
    results = [group_stats(samples, i, g, cells, max_lag_s) for i, g in enumerate(groups)]
    return [r[0] for r in results], [r[1] for r in results]
