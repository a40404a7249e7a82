"""Presenting path statistics: the metric definitions, a text table and a JSON document."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .metrics import ABOUT_TURN_ANGLE_DEG, ABOUT_TURN_WINDOW_S, ANGLE_BINS
from .sampling import SamplePlan
from .stats import COVERAGE_CELLS, GroupCurves, GroupStats
from .tracks import TrackCounts

#: What every number of `wander3d stats` means. Shown by `wander3d stats --help` and copied
#: into the README's "Path statistics" section. The numbers in it (10 Hz, 150 deg, 2 s, 20 s,
#: 20 samples, 16 cells) are the modules' constants; a test keeps them in step.
METRICS_HELP = """\
Every metric is computed per group from each agent's unit heading h_k and position p_k,
sampled every Ts seconds (Ts = 1 / --sample-rate, default 10 Hz, rounded to a whole number
of simulation steps; the table's title gives the rate used). Means are over all agents of
the group and all samples. angle(a, b) = atan2(|a x b|, a . b).

  speed         mean of |velocity| (units/s).
  turn rate     mean of angle(h_k, h_k+1) / Ts (deg/s).
  twitchiness   mean angular acceleration of the heading (deg/s^2): the mean of
                |w_k+1 - w_k| / Ts, where w_k is the heading's angular velocity over
                interval k (axis h_k x h_k+1, length angle(h_k, h_k+1) / Ts). A steady
                turn scores 0; changing how hard or which way the agent turns scores.
                It does not depend on dt, but it does on the sample rate: it converges
                for smooth steering (noise, seek) and grows like rate^0.5 for a random
                walk target (sphere, angle) and like rate^1.5 for a random force (white
                noise). Compare numbers taken at the same rate only.
  about-turns   turns of more than 150 deg completed within 2 s, per agent per minute.
                One starts at sample k when some sample j in (k, k + 2 s] has
                angle(h_k, h_j) > 150 deg, and ends at the first such j. Events are
                counted in time order and never overlap (the next can start at j at the
                earliest), so one U-turn counts once.
  persistence   how long a turn lasts (s): the lag at which the autocorrelation of the
                unit turning axis u_k = w_k / |w_k|, C(lag) = mean of u_k . u_k+lag
                (pairs where either interval has no turn left out), first drops below
                1/e, interpolated linearly between samples (C = exp(-t/T) gives T).
                '>' marks a lower bound: C stayed above 1/e up to the last lag computed
                (20 s or 20 samples, at most half the run), or --max-lag; n/a: no agent
                turned at all. About 0.63 * Ts means no persistence: the turning axis is
                uncorrelated from one sample to the next.
  coverage      share of the enclosure's 16 x 16 x 16 equal cells (the box's
                proportions) that some agent of the group was in at some sample (%).
  wall contact  share of agent-samples within the margin band of any wall, i.e. closer
                than the enclosure's margin to a face of the box (%).
Tracks of different lengths are measured in full: each sum runs over each track's own
samples, and the means divide by the pooled counts.

Path measures of movement ecology, from positions only, as for animal tracks: the steps
are the displacements s_k = p_k+1 - p_k between samples (length l_k), and the turning
angle a_k = angle(s_k, s_k+1) is in 3D (steps shorter than 1e-9 units left out). All
depend on Ts: a path looks straighter sampled more often.

  step          mean step length E[l] (units): the distance covered per sample.
  cos turn      c = mean of cos a_k, the mean cosine of the turning angle (1: straight),
                computed as 1 - mean of 2 sin^2(a_k / 2) so that tiny turns count.
  sin turn      s = mean of sin t_k, t_k the horizontal turn angle below (+ anticlockwise
                seen from above): 0 when left and right turns balance.
  persist CRW   persistence length of a correlated random walk, P_CRW = E[l] / (1 - c)
                (units): the mean projection of the whole future path on the current
                direction, E[l] (1 + c + c^2 + ...), if step directions correlate as c^k
                (the freely rotating chain's). Use it to compare with CRW models; n/a for a
                straight path.
  persist ACF   persistence length measured, P_ACF (units): the path length E[l] m at
                which the step-direction autocorrelation C(m) = mean of d_k . d_k+m
                (d_k = s_k / l_k) first falls below 1/e, interpolated linearly ('>': it
                never did within the lags computed, a lower bound). Equals about P_CRW
                for a CRW; use it for any other path: where turns persist (wander, real
                animals) the direction forgets faster than c^k says, and P_CRW overstates.
  MSD slope     slope of log MSD against log lag, the MSD at lag m Ts being the mean
                of |p_k+m - p_k|^2 over every pair of samples m apart, of every agent,
                each pair weighing alike (trackpy's emsd weighs each track's mean by
                its count of independent pairs instead: the same on tracks of one
                length, not on ragged ones), fitted over 20 log-spaced lags from Ts to
                the last lag computed (--max-lag): 2 ballistic, 1 diffusive, towards 0
                confined by the box.
  CRW slope     the same slope of the CRW's MSD (Kareiva & Shigesada 1983), valid in
                3D when turns are symmetric about the previous step:
                MSD(m) = m E[l^2] + 2 E[l]^2 c/(1-c) (m - (1 - c^m)/(1-c)),
                computed as an exact sum that keeps its digits as c -> 1 (a straight
                line is ballistic: slope 2). Below the MSD slope: turns persist longer
                than a CRW's; above: the box or anti-persistent turns hold the path back.
  sinuosity     Benhamou's (2004) general sinuosity, with the mean sine s (units^-1/2):
                S = 2 / sqrt(E[l] ((1 - c^2 - s^2) / ((1 - c)^2 + s^2) + b^2)),
                b = sd(l) / E[l]: the tortuosity of a random search path, independent
                of its length. Use it for real tracks, whose turns often favour one side;
                inf for a path that turns by the same angle every step (a circle).
  sinuos sym    the same with s = 0, S = 2 / sqrt(E[l] ((1 + c)/(1 - c) + b^2)), the
                form for symmetric turning (a CRW) most papers quote; it equals
                sinuosity when s = 0. Both n/a for a straight path. (Benhamou computes
                them after rediscretising the path to a constant step length; here the
                steps are the samples'.)
  straightness  mean over agents of |p_last - p_first| / path length, 0..1. Caveat:
                it falls as the path grows for any random search, so it compares only
                paths of the same duration; it suits oriented (goal-directed) paths
                (Benhamou 2004).
  turn / lift   distributions of the horizontal turn angle (change of the step's
  angles        azimuth atan2(s_x, s_z), + anticlockwise seen from above) and the lift
                angle (change of its elevation above the horizontal, +y up), in 1 deg
                bins from -180 to 180 (--json and --plot).

External tracks (--tracks) have no known enclosure unless they were written by 'wander3d
run': coverage then divides the tracks' bounding box, and wall contact is n/a."""


@dataclass(frozen=True)
class StatsReport:
    """Everything `wander3d stats` prints: the run's description and one row per group.

    seed, dt: None for tracks that no scene made, which `tracks` (how many were read) then
    describes; curves: each group's MSD and angle distributions, for the JSON (optional);
    counts: for tracks read from a file, the fixes read, gaps split and samples measured.
    """

    scene: str
    source: str | None
    seed: int | None
    dt: float | None
    plan: SamplePlan
    groups: Sequence[GroupStats]
    cells: int = COVERAGE_CELLS
    curves: Sequence[GroupCurves] | None = None
    tracks: int | None = None
    counts: TrackCounts | None = None


@dataclass(frozen=True)
class _Column:
    header: str
    unit: str
    width: int


_COLUMNS = (
    _Column("speed", "units/s", 8),
    _Column("turn rate", "deg/s", 9),
    _Column("twitchiness", "deg/s^2", 11),
    _Column("about-turns", "/agent/min", 11),
    _Column("persistence", "s", 11),
    _Column("coverage", "%", 8),
    _Column("wall contact", "%", 12),
)


_PATH_COLUMNS = (
    _Column("step", "units", 8),
    _Column("cos turn", "", 8),
    _Column("sin turn", "", 8),
    _Column("persist CRW", "units", 11),
    _Column("persist ACF", "units", 11),
    _Column("MSD slope", "", 9),
    _Column("CRW slope", "", 9),
    _Column("sinuosity", "units^-1/2", 10),
    _Column("sinuos sym", "units^-1/2", 10),
    _Column("straightness", "", 12),
)


def _fixed(x: float, digits: int, scale: float = 1.0) -> str:
    return f"{scale * x:.{digits}f}" if math.isfinite(x) else "n/a"


def _general(x: float, spec: str) -> str:
    # A circle's sinuosity is infinite (the JSON, which has no infinity, says null).
    return f"{x:{spec}}" if math.isfinite(x) else ("inf" if x == math.inf else "n/a")


def _path_cells(g: GroupStats) -> list[str]:
    acf = _general(g.persistence_length_acf, ".4g")
    return [
        _fixed(g.mean_step, 3),
        _fixed(g.mean_cos_turn, 4),
        _fixed(g.mean_sin_turn, 4),
        _general(g.persistence_length_crw, ".4g"),
        ">" + acf if g.persistence_length_acf_censored else acf,
        _fixed(g.msd_slope, 2),
        _fixed(g.crw_msd_slope, 2),
        _general(g.sinuosity, "#.3g"),
        _general(g.sinuosity_symmetric, "#.3g"),
        _fixed(g.straightness, 3),
    ]


def _cells(g: GroupStats) -> list[str]:
    persistence = f"{g.persistence:.2f}" if math.isfinite(g.persistence) else "n/a"
    if g.persistence_censored:
        persistence = ">" + persistence
    return [
        f"{g.mean_speed:.1f}",
        f"{g.mean_turn_rate:.1f}",
        f"{g.twitchiness:.1f}",
        f"{g.about_turns:.2f}",
        persistence,
        _fixed(g.coverage, 1, 100.0),
        _fixed(g.wall_contact, 1, 100.0),
    ]


def title(report: StatsReport) -> str:
    """One line saying what was measured and how."""
    plan = report.plan
    if report.dt is None:
        c = report.counts
        if c is not None and c.samples != c.tracks * plan.samples:
            total = (c.samples - c.tracks) * plan.interval
            return (
                f"{report.scene!r}: {report.tracks:,} tracks of up to {plan.seconds:.4g} s "
                f"({total:.4g} s in all), sampled at {plan.rate:.4g} Hz"
            )
        return (
            f"{report.scene!r}: {report.tracks:,} tracks, {plan.seconds:.4g} s each, "
            f"sampled at {plan.rate:.4g} Hz"
        )
    return (
        f"{report.scene!r}: {plan.seconds:.4g} s simulated (seed {report.seed}), sampled at "
        f"{plan.rate:.4g} Hz (every {plan.steps_per_sample} step"
        f"{'s' if plan.steps_per_sample != 1 else ''} of {report.dt:.4g} s)"
    )


def format_table(report: StatsReport) -> str:
    """The groups as a text table: a title line, two header lines (names, units), one row each;
    then, after a blank line, the path measures in the same form."""
    name_w = max(5, *(len(g.name) for g in report.groups))
    method_w = max(6, *(len(g.method) for g in report.groups))
    agents_w = max(6, *(len(f"{g.agents:,}") for g in report.groups))
    lead = [
        ("group", "", name_w, "<"),
        ("method", "", method_w, "<"),
        ("agents", "", agents_w, ">"),
    ]

    def line(parts: list[tuple[str, int, str]]) -> str:
        return "  ".join(f"{text:{align}{width}}" for text, width, align in parts).rstrip()

    lines = [title(report)]
    for columns, cells in ((_COLUMNS, _cells), (_PATH_COLUMNS, _path_cells)):
        if columns is _PATH_COLUMNS:
            lines.append("")
        head = [(h, w, a) for h, _u, w, a in lead] + [(c.header, c.width, ">") for c in columns]
        units = [(u, w, a) for _h, u, w, a in lead] + [(c.unit, c.width, ">") for c in columns]
        lines += [line(head), line(units)]
        for g in report.groups:
            row = [(g.name, name_w, "<"), (g.method, method_w, "<")]
            row += [(f"{g.agents:,}", agents_w, ">")]
            row += [(text, c.width, ">") for text, c in zip(cells(g), columns, strict=True)]
            lines.append(line(row))
    return "\n".join(lines)


#: The unit of each GroupStats field (the JSON's "units"; sweep columns and tune targets use
#: the same names). Fractions are 0..1.
METRIC_UNITS = {
    "mean_speed": "units/s",
    "mean_turn_rate": "deg/s",
    "twitchiness": "deg/s^2",
    "about_turns": "per agent per min",
    "persistence": "s",
    "coverage": "fraction",
    "wall_contact": "fraction",
    "mean_step": "units",
    "mean_cos_turn": "",
    "mean_sin_turn": "",
    "persistence_length_crw": "units",
    "persistence_length_acf": "units",
    "msd_slope": "",
    "crw_msd_slope": "",
    "sinuosity": "units^-1/2",
    "sinuosity_symmetric": "units^-1/2",
    "straightness": "",
}


def _value(x: Any) -> Any:
    """A GroupStats field for JSON: floats through `_number`, the rest as they are."""
    return _number(x) if isinstance(x, float) else x


def _number(x: float) -> float | None:
    """JSON has no NaN or infinity: those become null."""
    return x if math.isfinite(x) else None


def _numbers(a: Any) -> list[float | None]:
    return [_number(float(x)) for x in a]


def _curves_json(c: GroupCurves) -> dict[str, Any]:
    return {
        "lags_s": _numbers(c.lags),
        "msd_units2": _numbers(c.msd),
        "crw_msd_units2": _numbers(c.crw_msd),
        "direction_acf": _numbers(c.direction_acf),
        "turn_angle_counts": [int(x) for x in c.turn_counts],
        "lift_angle_counts": [int(x) for x in c.lift_counts],
    }


def to_json(report: StatsReport) -> dict[str, Any]:
    """The same numbers as the table, for scripts; fractions are 0..1 (the table shows %).

    With the report's curves, each group also has "curves": its MSD and the CRW's prediction
    at every lag, and its turn and lift angle counts in the bins "angle_bin_edges_deg".
    """
    plan = report.plan
    curves = report.curves if report.curves is not None else [None] * len(report.groups)
    return {
        "scene": report.scene,
        "source": report.source,
        "seed": report.seed,
        "dt_s": report.dt,
        # To the nanosecond: (samples - 1) * interval is 60.00012, not 60.000119999999995.
        "seconds": round(plan.seconds, 9),
        "sample_rate_hz": plan.rate,
        "sample_interval_s": round(plan.interval, 9),
        "steps_per_sample": plan.steps_per_sample if report.dt is not None else None,
        "samples": plan.samples,
        "tracks": report.tracks,
        "track_counts": dataclasses.asdict(report.counts) if report.counts else None,
        "about_turn_angle_deg": ABOUT_TURN_ANGLE_DEG,
        "about_turn_window_s": ABOUT_TURN_WINDOW_S,
        "coverage_cells_per_axis": report.cells,
        "angle_bin_edges_deg": _numbers(np.linspace(-180.0, 180.0, ANGLE_BINS + 1)),
        "units": METRIC_UNITS,
        "groups": [
            {
                **{f.name: _value(getattr(g, f.name)) for f in dataclasses.fields(g)},
                **({"curves": _curves_json(c)} if c is not None else {}),
            }
            for g, c in zip(report.groups, curves, strict=True)
        ],
    }
