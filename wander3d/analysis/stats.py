"""Per-group path statistics of a sampled run (each metric's row: `metric_table`; its numpy
definition: `metrics`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wander3d.engine import GroupParams, pathsums

from . import metrics
from .sampling import Samples
from .sums import WORKING_BYTES_PER_SAMPLE, chunk_agents, group_sums

Array = np.ndarray

#: Coverage divides the box into this many cells along each axis (COVERAGE_CELLS^3 in all).
COVERAGE_CELLS = 16
#: Autocorrelations are computed up to this lag (s) or MIN_LAGS samples, whichever is longer
#: (tracks with a fix a minute still get a curve), and at most half the run.
MAX_LAG_S = 20.0
MIN_LAGS = 20
#: At most this many per-sample turn rates are kept per group for the distribution plot.
_KEEP_TURN_RATES = 200_000


@dataclass(frozen=True)
class GroupStats:
    """The path metrics of one group: its name, wander method and agents, then one float per
    row of the metric table (`metric_table.METRICS`: its unit, meaning and definition), in the
    table's order, each followed by the bool its row names as its `bound` (True: the value is
    only a lower bound). The table checks these fields against itself when it loads.

    Every field is a plain str, int, bool or float (NaN where undefined), so tools can iterate
    over them with dataclasses.fields.
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
    mean_step: float
    mean_cos_turn: float
    mean_sin_turn: float
    persistence_length_crw: float
    persistence_length_acf: float
    persistence_length_acf_censored: bool
    msd_slope: float
    crw_msd_slope: float
    sinuosity: float
    sinuosity_symmetric: float
    straightness: float


@dataclass(frozen=True)
class GroupLabel:
    """Name and method of a group of tracks that no scene describes (`wander3d stats --tracks`)."""

    name: str
    method: str


def _name_and_method(group: GroupParams | GroupLabel) -> tuple[str, str]:
    if isinstance(group, GroupLabel):
        return group.name, group.method
    return group.name, group.wander.method


@dataclass(frozen=True)
class GroupCurves:
    """What the plot shows of one group.

    lags:          (L + 1,) s;
    heading_acf:   (L + 1,) mean h_k . h_{k+l} at each lag;
    axis_acf:      (L + 1,) mean u_k . u_{k+l} of the unit turning axis at each lag;
    direction_acf: (L + 1,) mean d_k . d_{k+l} of the unit step direction at each lag;
    turn_rates:    (m,) a deterministic, evenly strided subset of the per-sample turn rates
                   (deg/s), at most a few hundred thousand, for the distribution;
    msd:           (L + 1,) mean squared displacement at each lag, units^2;
    crw_msd:       (L + 1,) the correlated random walk's prediction of it, units^2;
    turn_counts, lift_counts: (ANGLE_BINS,) how many step pairs turned (horizontally) or
                   lifted by an angle in each of the bins `angle_edges` (deg).
    """

    lags: Array
    heading_acf: Array
    axis_acf: Array
    direction_acf: Array
    turn_rates: Array
    msd: Array
    crw_msd: Array
    turn_counts: Array
    lift_counts: Array

    @property
    def angle_edges(self) -> Array:
        """(ANGLE_BINS + 1,) bin edges of turn_counts and lift_counts, deg."""
        return np.linspace(-180.0, 180.0, len(self.turn_counts) + 1)


def working_bytes(samples: int, agents: int) -> int:
    """About the most memory `compute_stats` needs beside the samples themselves (bytes).

    A chunk of agents in float64 and its temporaries (cross products, FFTs at twice the
    length): measured at about 400 bytes per agent-sample of the largest group chunk.
    """
    return WORKING_BYTES_PER_SAMPLE * samples * min(agents, chunk_agents(samples))


def max_lag_samples(
    samples: Samples, max_lag_s: float = MAX_LAG_S, min_lags: int = MIN_LAGS
) -> int:
    """Lags (in samples) the autocorrelations go up to: max_lag_s or min_lags samples,
    whichever is longer, at most half the run."""
    half = (samples.count - 1) // 2
    return max(1, min(max(round(max_lag_s / samples.interval), min_lags), half))


def group_stats(
    samples: Samples,
    index: int,
    group: GroupParams | GroupLabel,
    cells: int = COVERAGE_CELLS,
    max_lag_s: float = MAX_LAG_S,
    curves: bool = True,
    min_lags: int = MIN_LAGS,
    msd_weighting: str = "pairs",
) -> tuple[GroupStats, GroupCurves | None]:
    """The metrics of group `index` of `samples` (whose parameters, or name and method, are
    `group`), and with `curves` what the plot shows of it (else None); the MSD (and its slope)
    weighs tracks as `msd_weighting` says (`metrics.MSD_WEIGHTINGS`: "pairs", every pair of
    samples alike; "trackpy", as trackpy's emsd).

    Works through the group's agents in chunks, adding up each metric's sums, so that memory
    stays bounded for groups of tens of thousands of agents. Ragged tracks (samples.lengths)
    are measured in full: every sum runs over each agent's own samples, and the means divide
    by the pooled counts. Coverage divides only the axes along which the box has extent (2D
    tracks: cells^2 cells); wall contact is NaN when the samples' margin is (no enclosure
    known).
    """
    sl = samples.group_slices[index]
    dt = samples.interval
    t = samples.count
    lags = max_lag_samples(samples, max_lag_s, min_lags)
    n = sl.stop - sl.start
    all_lengths = (
        np.full(len(samples.speeds[0]), t, dtype=np.int64)
        if samples.lengths is None
        else np.asarray(samples.lengths, dtype=np.int64)
    )
    stride = max(1, -(-(t - 1) * n // _KEEP_TURN_RATES))
    total = group_sums(samples, sl, all_lengths[sl], cells, lags, curves, stride, msd_weighting)
    sums, acf = total.sums, total.lagged
    lengths = all_lengths[sl]
    axis_acf = metrics.correlation_from_sums(*acf["a"], lags)
    persistence, censored = metrics.decay_time(axis_acf, dt)
    minutes = float((lengths - 1).sum()) * dt / 60.0
    mean_step = sums[pathsums.STEP_LENGTH] / sums[pathsums.STEPS]
    mean_step_sq = sums[pathsums.STEP_SQUARE] / sums[pathsums.STEPS]
    pairs, turns = sums[pathsums.PAIRS], sums[pathsums.TURNS]
    versine = sums[pathsums.VERSINE] / pairs if pairs else math.nan
    mean_sin = sums[pathsums.TURN_SIN] / turns if turns else math.nan
    lag_times = np.arange(lags + 1) * dt
    msd = metrics.correlation_from_sums(*acf["msd"], lags)
    crw = metrics.crw_msd(np.arange(lags + 1), mean_step, mean_step_sq, versine)
    direction_acf = metrics.correlation_from_sums(*acf["d"], lags)
    # The 1/e decay of the direction autocorrelation, in path length: lags times the step.
    acf_length, acf_censored = metrics.decay_time(direction_acf, mean_step)
    # Only the axes along which the box has extent are divided (2D tracks: a square grid).
    dims = int(np.count_nonzero(np.asarray(samples.high) > np.asarray(samples.low)))
    name, method = _name_and_method(group)
    intervals = float((lengths - 1).sum())
    stats = GroupStats(
        name=name,
        method=method,
        agents=n,
        mean_speed=sums[pathsums.SPEED] / float(lengths.sum()),
        mean_turn_rate=sums[pathsums.TURN_RATE] / intervals,
        twitchiness=sums[pathsums.ACCELERATION] / float((lengths - 2).sum()) if t > 2 else 0.0,
        about_turns=sums[pathsums.ABOUT_TURNS] / minutes,
        persistence=persistence,
        persistence_censored=censored,
        coverage=float(total.visited.sum() / cells**dims) if dims else math.nan,
        wall_contact=(
            sums[pathsums.IN_BAND] / float(lengths.sum())
            if math.isfinite(samples.margin)
            else math.nan
        ),
        mean_step=mean_step,
        mean_cos_turn=1.0 - versine,
        mean_sin_turn=mean_sin,
        persistence_length_crw=metrics.persistence_length_crw(mean_step, versine),
        persistence_length_acf=acf_length,
        persistence_length_acf_censored=acf_censored,
        msd_slope=metrics.log_log_slope(lag_times, msd),
        crw_msd_slope=metrics.log_log_slope(lag_times, crw),
        sinuosity=metrics.sinuosity(mean_step, mean_step_sq, versine, mean_sin),
        sinuosity_symmetric=metrics.sinuosity(mean_step, mean_step_sq, versine),
        straightness=(
            sums[pathsums.STRAIGHT] / sums[pathsums.STRAIGHT_AGENTS]
            if sums[pathsums.STRAIGHT_AGENTS]
            else math.nan
        ),
    )
    if not curves:
        return stats, None
    return stats, GroupCurves(
        lags=lag_times,
        heading_acf=metrics.correlation_from_sums(*acf["h"], lags),
        axis_acf=axis_acf,
        direction_acf=direction_acf,
        turn_rates=total.rates,
        msd=msd,
        crw_msd=crw,
        turn_counts=total.turn_counts,
        lift_counts=total.lift_counts,
    )


def compute_stats(
    samples: Samples,
    groups: Sequence[GroupParams | GroupLabel],
    cells: int = COVERAGE_CELLS,
    max_lag_s: float = MAX_LAG_S,
    curves: bool = True,
    min_lags: int = MIN_LAGS,
    msd_weighting: str = "pairs",
) -> tuple[list[GroupStats], list[GroupCurves]]:
    """`group_stats` for every group, in order. Needs at least 3 samples.

    With curves=False the second list is empty: the measures alone, without what only plots
    and reports show (the heading autocorrelation, the turn-rate subset, the angle
    histograms), which saves a sweep cell about a sixth of its metrics' time. The
    autocorrelations and the MSD go up to `max_lag_samples(samples, max_lag_s, min_lags)`;
    the MSD weighs tracks as `msd_weighting` says (`group_stats`).
    """
    if samples.count < 3:
        raise ValueError("need at least 3 samples (2 intervals) for angular acceleration")
    if len(groups) != len(samples.group_slices):
        raise ValueError("one GroupParams per group of the samples expected")
    if msd_weighting not in metrics.MSD_WEIGHTINGS:
        raise ValueError(f"msd_weighting: one of {', '.join(metrics.MSD_WEIGHTINGS)}")
    results = [
        group_stats(samples, i, g, cells, max_lag_s, curves, min_lags, msd_weighting)
        for i, g in enumerate(groups)
    ]
    return [r[0] for r in results], [r[1] for r in results if r[1] is not None]


#: `sampling_errors` deals a group's agents into this many interleaved parts.
SAMPLING_PARTS = 8


def sampling_errors(
    samples: Samples, index: int, group: GroupParams | GroupLabel, parts: int = SAMPLING_PARTS
) -> dict[str, float]:
    """The standard error of each of group `index`'s measures (GroupStats' float fields, in
    their units): how far a measure of these agents may be from one of many more agents
    moving alike, by sampling alone. The delete-a-group jackknife: the agents are dealt into
    `parts` interleaved parts (fewer for fewer agents), the group is measured without each
    part in turn, and the error is sqrt((G - 1) / G * sum of (value without part g - their
    mean)^2) over the G parts. NaN where fewer than two of those have the measure."""
    names = [f.name for f in dataclasses.fields(GroupStats) if f.type in ("float", float)]
    sl = samples.group_slices[index]
    agents = np.arange(sl.start, sl.stop)
    parts = min(parts, len(agents))
    if parts < 2:  # one agent (one track): none can be left out and the rest still measured
        return dict.fromkeys(names, math.nan)
    values: dict[str, list[float]] = {}
    for part in range(parts):
        columns = agents[np.arange(len(agents)) % parts != part]
        subset = Samples(
            interval=samples.interval,
            times=samples.times,
            headings=samples.headings[:, columns],
            positions=samples.positions[:, columns],
            speeds=samples.speeds[:, columns],
            group_slices=(slice(0, len(columns)),),
            low=samples.low,
            high=samples.high,
            margin=samples.margin,
            lengths=None if samples.lengths is None else np.asarray(samples.lengths)[columns],
        )
        stats, _ = group_stats(subset, 0, group, curves=False)
        for name, value in vars(stats).items():
            if isinstance(value, float) and math.isfinite(value):
                values.setdefault(name, []).append(value)
    errors = {}
    for name in names:
        v = np.asarray(values.get(name, ()))
        g = len(v)
        errors[name] = (
            float(np.sqrt((g - 1) / g * ((v - v.mean()) ** 2).sum())) if g >= 2 else math.nan
        )
    return errors
