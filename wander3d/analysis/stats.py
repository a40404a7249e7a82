"""Per-group path statistics of a sampled run (see `metrics` for each definition)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wander3d.engine import GroupParams

from . import metrics
from .sampling import Samples

Array = np.ndarray

#: Coverage divides the box into this many cells along each axis (COVERAGE_CELLS^3 in all).
COVERAGE_CELLS = 16
#: Autocorrelations are computed up to this lag (s) or MIN_LAGS samples, whichever is longer
#: (tracks with a fix a minute still get a curve), and at most half the run.
MAX_LAG_S = 20.0
MIN_LAGS = 20
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
    wall_contact:      fraction of agent-samples within the wall margin band, 0..1 (NaN when
                       no enclosure is known, as for external tracks);
    mean_step:         mean distance between consecutive samples, units;
    mean_cos_turn:     mean cosine of the 3D turning angle between consecutive steps;
    mean_sin_turn:     mean sine of the horizontal turn angle (+ anticlockwise from above);
    persistence_length_crw: mean_step / (1 - mean_cos_turn), units: a CRW's persistence
                       length (NaN for a straight path);
    persistence_length_acf: the path length over which the step-direction autocorrelation
                       falls to 1/e, units: measured, for any path;
    persistence_length_acf_censored: True if that autocorrelation stayed above 1/e up to the
                       last lag, so `persistence_length_acf` is a lower bound;
    msd_slope:         log-log slope of the mean squared displacement against lag;
    crw_msd_slope:     the same slope of the correlated random walk's predicted MSD;
    sinuosity:         Benhamou's (2004) general sinuosity, with the mean sine, units^-1/2;
    sinuosity_symmetric: the same assuming symmetric turns (mean sine 0), units^-1/2;
    straightness:      mean over agents of net displacement / path length, 0..1.

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
    return 400 * samples * min(agents, _CHUNK_AGENTS)


def max_lag_samples(samples: Samples, max_lag_s: float = MAX_LAG_S) -> int:
    """Lags (in samples) the autocorrelations go up to: max_lag_s or MIN_LAGS samples,
    whichever is longer, at most half the run."""
    half = (samples.count - 1) // 2
    return max(1, min(max(round(max_lag_s / samples.interval), MIN_LAGS), half))


def group_stats(
    samples: Samples,
    index: int,
    group: GroupParams | GroupLabel,
    cells: int = COVERAGE_CELLS,
    max_lag_s: float = MAX_LAG_S,
) -> tuple[GroupStats, GroupCurves]:
    """The metrics of group `index` of `samples` (whose parameters, or name and method, are
    `group`).

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
    lags = max_lag_samples(samples, max_lag_s)
    n = sl.stop - sl.start
    all_lengths = (
        np.full(len(samples.speeds[0]), t, dtype=np.int64)
        if samples.lengths is None
        else np.asarray(samples.lengths, dtype=np.int64)
    )
    sums = {"speed": 0.0, "turn": 0.0, "acc": 0.0, "about": 0, "sin": 0.0, "versine": 0.0}
    acf = {name: (np.zeros(lags + 1), np.zeros(lags + 1)) for name in ("h", "a", "d", "msd")}
    visited = np.zeros(cells**3, dtype=bool)
    in_band = 0
    path = {"length": 0.0, "square": 0.0, "steps": 0, "pairs": 0, "turns": 0}
    straight = {"sum": 0.0, "agents": 0}
    turn_counts = np.zeros(metrics.ANGLE_BINS, dtype=np.int64)
    lift_counts = np.zeros(metrics.ANGLE_BINS, dtype=np.int64)
    kept: list[Array] = []
    stride = max(1, -(-(t - 1) * n // _KEEP_TURN_RATES))

    def add(name: str, sums_pair: tuple[Array, Array]) -> None:
        acf[name][0][:] += sums_pair[0]
        acf[name][1][:] += sums_pair[1]

    ragged = bool(np.any(all_lengths[sl] < t))
    for start in range(sl.start, sl.stop, _CHUNK_AGENTS):
        chunk = slice(start, min(start + _CHUNK_AGENTS, sl.stop))
        length = all_lengths[chunk]
        # valid[j][k, a]: sample k of agent a and the j samples after it are its own (all of
        # them unless the tracks are ragged: then the masks are applied).
        valid = [np.arange(t - j)[:, None] + j < length[None, :] for j in range(3)]
        masks: list[Array | None] = list(valid) if ragged else [None, None, None]
        h = samples.headings[:, chunk].astype(np.float64)
        p = samples.positions[:, chunk].astype(np.float64)
        speeds = samples.speeds[:, chunk].astype(np.float64)
        sums["speed"] += float(_own(speeds, masks[0]).sum())
        turns = metrics.Turns.of(h)  # shared by the heading's measures below
        rates = _own(metrics.turn_rates_deg(turns, dt), masks[1])
        sums["turn"] += float(rates.sum())
        kept.append(rates[::stride])
        sums["acc"] += float(_own(metrics.angular_accelerations_deg(turns, dt), masks[2]).sum())
        # A track's rows after its end repeat its last heading: no about-turn starts there.
        sums["about"] += int(metrics.about_turn_counts(h, dt, turns=turns).sum())
        add("h", metrics.lagged_sums(h, valid[0], lags))
        axes, defined = metrics.turning_axes(turns)
        add("a", metrics.lagged_sums(axes, _mask(defined, masks[1]), lags))
        inside = p[valid[0]] if ragged else p
        visited[metrics.cell_indices(inside, samples.low, samples.high, cells)] = True
        if math.isfinite(samples.margin):
            band = metrics.in_wall_band(p, samples.low, samples.high, samples.margin)
            in_band += int(_own(band, masks[0]).sum())
        path_steps = metrics.Steps.of(p)  # shared by the path's measures below
        directions, moved = metrics.step_directions(path_steps)
        add("d", metrics.lagged_sums(directions, _mask(moved, masks[1]), lags))
        step_length = _own(path_steps.length, masks[1])
        path["length"] += float(step_length.sum())
        path["square"] += float(np.dot(step_length, step_length))
        path["steps"] += step_length.size
        versines, defined = metrics.step_turn_versines(path_steps)
        defined = _mask(defined, masks[2])
        sums["versine"] += float(versines[defined].sum())
        path["pairs"] += int(defined.sum())
        ratio = metrics.straightness(
            p, path_steps
        )  # rows after a track's end repeat its last position
        straight["sum"] += float(np.nansum(ratio))
        straight["agents"] += int(np.isfinite(ratio).sum())
        add("msd", metrics.msd_sums(p, lags, length))
        turn, lift, defined = metrics.horizontal_turn_and_lift(path_steps)
        defined = _mask(defined, masks[2])
        sums["sin"] += float(np.sin(np.radians(turn[defined])).sum())
        path["turns"] += int(defined.sum())
        turn_counts += metrics.angle_histogram(turn, defined)
        lift_counts += metrics.angle_histogram(lift, defined)
    lengths = all_lengths[sl]
    axis_acf = metrics.correlation_from_sums(*acf["a"], lags)
    persistence, censored = metrics.decay_time(axis_acf, dt)
    minutes = float((lengths - 1).sum()) * dt / 60.0
    mean_step = path["length"] / path["steps"]
    mean_step_sq = path["square"] / path["steps"]
    versine = sums["versine"] / path["pairs"] if path["pairs"] else math.nan
    mean_sin = sums["sin"] / path["turns"] if path["turns"] else math.nan
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
        mean_speed=sums["speed"] / float(lengths.sum()),
        mean_turn_rate=sums["turn"] / intervals,
        twitchiness=sums["acc"] / float((lengths - 2).sum()) if t > 2 else 0.0,
        about_turns=sums["about"] / minutes,
        persistence=persistence,
        persistence_censored=censored,
        coverage=float(visited.sum() / cells**dims) if dims else math.nan,
        wall_contact=in_band / float(lengths.sum()) if math.isfinite(samples.margin) else math.nan,
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
        straightness=straight["sum"] / straight["agents"] if straight["agents"] else math.nan,
    )
    curves = GroupCurves(
        lags=lag_times,
        heading_acf=metrics.correlation_from_sums(*acf["h"], lags),
        axis_acf=axis_acf,
        direction_acf=direction_acf,
        turn_rates=np.concatenate(kept),
        msd=msd,
        crw_msd=crw,
        turn_counts=turn_counts,
        lift_counts=lift_counts,
    )
    return stats, curves


def _own(values: Array, valid: Array | None) -> Array:
    """The values of the agents' own samples (all of them when valid is None), flat."""
    return values.ravel() if valid is None else values[valid]


def _mask(defined: Array, valid: Array | None) -> Array:
    return defined if valid is None else defined & valid


def compute_stats(
    samples: Samples,
    groups: Sequence[GroupParams | GroupLabel],
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
