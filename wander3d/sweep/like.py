"""`wander3d tune --like TRACKS`: the targets a group must meet to move like recorded tracks.

The tracks are measured as `wander3d stats --tracks` measures them (all of a file's tracks
pooled as one group), at the sample rate the fit measures its trials at. The targets are their
own measures, LIKE_METRICS, and the distance between their turn-angle distribution and the
group's (`turn_distance`, target 0). Measures the tracks leave undefined (a persistence of n/a:
no turning; a lower bound) are not targeted, and the reason is kept for the report.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from wander3d.analysis import GroupStats, compute_stats, sample_spec
from wander3d.analysis.stats import GroupCurves, GroupLabel, sampling_errors
from wander3d.analysis.tracks import Tracks, headings_from_positions
from wander3d.scene import Scene, check_fits

Array = np.ndarray

#: The scalar measures a fit to tracks targets (GroupStats fields).
LIKE_METRICS = ("mean_speed", "mean_turn_rate", "twitchiness", "persistence", "msd_slope")
#: The target name of the turn-angle distribution's distance (see `turn_distance`).
TURN_DISTANCE = "turn_angles"


@dataclass(frozen=True)
class Profile:
    """What a fit compares besides the scalar measures, and what `--plot` draws.

    turn_counts: (ANGLE_BINS,) step pairs per horizontal turn-angle bin (edges from -180 to
    180 deg); lags: (L + 1,) s; msd: (L + 1,) mean squared displacement, units^2.
    """

    turn_counts: Array
    lags: Array
    msd: Array

    @staticmethod
    def of(curves: GroupCurves) -> Profile:
        return Profile(curves.turn_counts, curves.lags, curves.msd)


@dataclass(frozen=True)
class TrackTargets:
    """The targets taken from tracks: metric -> value (TURN_DISTANCE -> 0), the tracks'
    profile, the measures not targeted (metric -> why), the tracks' full stats, whether
    their headings came from positions (then the trials' must too: `measure_profile`), and
    whether they move in 3D (False: flat, in the horizontal plane), and how far a track
    ranges along x, y and z (units: the median over tracks of its bounding box's sides);
    floors: how far the tracks are from themselves on a measure no group can match exactly
    (TURN_DISTANCE: the distance between the turn angles of their two halves, even and odd
    tracks), which a fit's error is not held to; noise: each scalar target's standard error
    in the tracks (`analysis.stats.sampling_errors`: how far their value may be from that of
    many more tracks moving alike), in its units; bounds: the lowest and highest corner of
    the box the tracks' samples fill (units), None when they share no box (geographic
    tracks, each in its own local frame)."""

    targets: dict[str, float]
    profile: Profile
    skipped: dict[str, str]
    stats: GroupStats
    from_positions: bool
    three_d: bool = True
    extent: tuple[float, float, float] = (math.inf, math.inf, math.inf)
    floors: dict[str, float] = dataclasses.field(default_factory=dict)
    noise: dict[str, float] = dataclasses.field(default_factory=dict)
    bounds: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None


def turn_distance(counts: Array, reference: Array) -> float:
    """How far a turn-angle distribution is from the reference one, relative to its spread.

    Both are histograms over equal bins from -180 to 180 deg. The distance is the first
    Wasserstein (earth mover's) distance between the two, sum |F - F_ref| * bin width (deg),
    divided by the reference's mean |turn angle| (deg): 0 for the same distribution, about
    0.1 when the typical turn is 10% off. NaN if either histogram is empty.
    """
    a = np.asarray(counts, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    if a.sum() <= 0 or b.sum() <= 0:
        return math.nan
    width = 360.0 / len(b)
    gap = np.abs(np.cumsum(a / a.sum()) - np.cumsum(b / b.sum())).sum() * width
    return float(gap / _spread(b))


def _spread(counts: Array) -> float:
    """A histogram's mean |angle| (deg), at least half a bin."""
    c = np.asarray(counts, dtype=np.float64)
    width = 360.0 / len(c)
    centres = -180.0 + width * (np.arange(len(c)) + 0.5)
    return max(float((np.abs(centres) * c).sum() / max(c.sum(), 1.0)), width / 2)


def pooled(tracks: Tracks) -> Tracks:
    """The tracks as one group (a fit has one group to match), labelled by the first."""
    n = tracks.samples.headings.shape[1]
    samples = dataclasses.replace(tracks.samples, group_slices=(slice(0, n),))
    label = GroupLabel(tracks.groups[0].name, tracks.groups[0].method)
    return dataclasses.replace(tracks, samples=samples, groups=(label,))


def track_targets(tracks: Tracks) -> TrackTargets:
    """The targets for a group to move like `tracks` (pooled into one group)."""
    one = pooled(tracks)
    (stats,), (curves,) = compute_stats(one.samples, one.groups)
    targets: dict[str, float] = {}
    skipped: dict[str, str] = {}
    for metric in LIKE_METRICS:
        value = float(getattr(stats, metric))
        if not math.isfinite(value):
            skipped[metric] = "n/a in the tracks"
        elif metric == "persistence" and stats.persistence_censored:
            skipped[metric] = f"only a lower bound in the tracks (> {value:.3g} s)"
        else:
            targets[metric] = value
    targets[TURN_DISTANCE] = 0.0
    samples = tracks.samples
    three_d = bool(np.asarray(samples.high)[1] > np.asarray(samples.low)[1])
    # Samples after a track's end repeat its last one: within its box.
    lows, highs = samples.positions.min(axis=0), samples.positions.max(axis=0)  # (n, 3)
    median = np.median(highs - lows, axis=0)
    extent = (float(median[0]), float(median[1]), float(median[2]))
    floors = {TURN_DISTANCE: _turn_floor(one)}
    errors = sampling_errors(one.samples, 0, one.groups[0])
    noise = {m: errors[m] for m in targets if m in errors and math.isfinite(errors[m])}
    bounds = None if tracks.geographic else (_corner(lows.min(axis=0)), _corner(highs.max(axis=0)))
    return TrackTargets(
        targets,
        Profile.of(curves),
        skipped,
        stats,
        not tracks.velocities,
        three_d,
        extent,
        floors,
        noise,
        bounds,
    )


def _corner(values: Array) -> tuple[float, float, float]:
    return (float(values[0]), float(values[1]), float(values[2]))


def _turn_floor(one: Tracks) -> float:
    """The turn-angle distance between the even and the odd tracks of `one` (one group): how
    far two samples of the same motion are apart (0 for fewer than two tracks)."""
    samples = one.samples
    n = samples.headings.shape[1]
    if n < 2:
        return 0.0
    halves = []
    for columns in (np.arange(0, n, 2), np.arange(1, n, 2)):
        half = dataclasses.replace(
            samples,
            headings=samples.headings[:, columns],
            positions=samples.positions[:, columns],
            speeds=samples.speeds[:, columns],
            group_slices=(slice(0, len(columns)),),
            lengths=None if samples.lengths is None else samples.lengths[columns],
        )
        _stats, (curves,) = compute_stats(half, one.groups)
        halves.append(curves.turn_counts)
    distance = turn_distance(halves[0], halves[1])
    return distance if math.isfinite(distance) else 0.0


def reach(found: TrackTargets, seconds: float) -> float:
    """How far the tracks move in `seconds` (units, root mean square): their MSD at that lag,
    interpolated on log-log axes, or beyond their last lag extrapolated with their MSD
    slope (at most ballistic, 2)."""
    lags, msd = found.profile.lags, found.profile.msd
    ok = (lags > 0) & np.isfinite(msd) & (msd > 0)
    if not ok.any():
        return 0.0
    lags, msd = lags[ok], msd[ok]
    if seconds <= lags[-1]:
        value = np.exp(np.interp(np.log(seconds), np.log(lags), np.log(msd)))
    else:
        slope = found.stats.msd_slope if math.isfinite(found.stats.msd_slope) else 2.0
        value = msd[-1] * (seconds / lags[-1]) ** min(max(slope, 0.0), 2.0)
    return float(np.sqrt(value))


def measure_profile(
    scene: Scene, seconds: float, sample_rate: float, from_positions: bool = False
) -> list[Any]:
    """`execute.measure` with each group's profile: [(GroupStats, Profile)] per group. With
    from_positions, headings and speeds come from the sampled positions, as for tracks
    without velocities (`headings_from_positions`)."""
    check_fits(scene)
    samples = sample_spec(scene.run_spec, seconds, sample_rate, threads=1)
    if from_positions:
        samples = headings_from_positions(samples)
    stats, curves = compute_stats(samples, scene.groups)
    return [(s, Profile.of(c)) for s, c in zip(stats, curves, strict=True)]


def measure_checked(
    scene: Scene, seconds: float, sample_rate: float, index: int, from_positions: bool = False
) -> tuple[GroupStats, Profile, dict[str, float]]:
    """Group `index` of `scene` measured as `wander3d stats SCENE` measures it (with
    from_positions, as `--headings positions` does): its GroupStats, its profile, and the
    standard error of each measure (`sampling_errors`)."""
    check_fits(scene)
    samples = sample_spec(scene.run_spec, seconds, sample_rate, threads=1)
    if from_positions:
        samples = headings_from_positions(samples)
    stats, curves = compute_stats(samples, scene.groups)
    errors = sampling_errors(samples, index, scene.groups[index])
    return stats[index], Profile.of(curves[index]), errors


def write_plot(
    out: IO[bytes], tracks: Profile, fitted: Profile, label: str, file_format: str = "png"
) -> None:
    """Side by side: the tracks' and the fitted group's turn-angle distributions (probability
    per degree against degrees) and MSD curves (units^2 against s, log-log), in `file_format`
    ("png", "svg" or "pdf"), dark as `stats --plot`'s."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from wander3d.analysis import plot

    fig = Figure(figsize=(10, 4), layout="constrained", facecolor=plot.BACKGROUND)
    turns, msd = fig.subplots(1, 2)
    colors = ("#ffb000", "#4fc3f7")
    for profile, name, style, color in (
        (tracks, "tracks", "-", colors[0]),
        (fitted, label, "--", colors[1]),
    ):
        counts = np.asarray(profile.turn_counts, dtype=np.float64)
        width = 360.0 / len(counts)
        centres = -180.0 + width * (np.arange(len(counts)) + 0.5)
        density = counts / max(counts.sum(), 1.0) / width
        turns.plot(centres, density, style, label=name, color=color, linewidth=1.8)
        ok = (profile.lags > 0) & np.isfinite(profile.msd) & (profile.msd > 0)
        msd.loglog(profile.lags[ok], profile.msd[ok], style, label=name, color=color, linewidth=1.8)
    # Most turns between samples are small: show the range that holds nearly all of them.
    counts = np.asarray(tracks.turn_counts, dtype=np.float64)
    edges = np.linspace(-180.0, 180.0, len(counts) + 1)
    cumulative = np.cumsum(counts) / max(counts.sum(), 1.0)
    low = edges[int(np.searchsorted(cumulative, 0.005))]
    high = edges[min(int(np.searchsorted(cumulative, 0.995)) + 1, len(counts))]
    span = max(abs(low), abs(high), 2.0)
    turns.set_xlim(-span, span)
    plot.style_axes(turns, "turn angle between steps (deg)", "probability density (1/deg)",
                    "Turn-angle distribution")  # fmt: skip
    plot.style_axes(msd, "lag (s, log scale)", "mean squared displacement (units², log scale)",
                    "Mean squared displacement")  # fmt: skip
    plot.plain_log_ticks(msd)
    for ax in (turns, msd):
        plot.style_legend(ax)
    fig.savefig(out, format=file_format, dpi=100, facecolor=plot.BACKGROUND)


__all__ = [
    "LIKE_METRICS",
    "TURN_DISTANCE",
    "Profile",
    "TrackTargets",
    "measure_checked",
    "measure_profile",
    "pooled",
    "reach",
    "track_targets",
    "turn_distance",
    "write_plot",
]
