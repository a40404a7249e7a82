"""Presenting path statistics: the metric definitions, a text table and a JSON document."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .metrics import ABOUT_TURN_ANGLE_DEG, ABOUT_TURN_WINDOW_S
from .sampling import SamplePlan
from .stats import COVERAGE_CELLS, GroupStats

#: What every number of `wander3d stats` means. Shown by `wander3d stats --help` and copied
#: into the README's "Path statistics" section. The numbers in it (10 Hz, 150 deg, 2 s, 20 s,
#: 16 cells) are the modules' constants; a test keeps them in step.
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
                (20 s, or half the run); n/a: no agent turned at all. About 0.63 * Ts
                means no persistence: the turning axis is uncorrelated from one sample
                to the next.
  coverage      share of the enclosure's 16 x 16 x 16 equal cells (the box's
                proportions) that some agent of the group was in at some sample (%).
  wall contact  share of agent-samples within the margin band of any wall, i.e. closer
                than the enclosure's margin to a face of the box (%)."""


@dataclass(frozen=True)
class StatsReport:
    """Everything `wander3d stats` prints: the run's description and one row per group."""

    scene: str
    source: str | None
    seed: int
    dt: float
    plan: SamplePlan
    groups: Sequence[GroupStats]
    cells: int = COVERAGE_CELLS


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
        f"{100 * g.coverage:.1f}",
        f"{100 * g.wall_contact:.1f}",
    ]


def title(report: StatsReport) -> str:
    """One line saying what was measured and how."""
    plan = report.plan
    return (
        f"{report.scene!r}: {plan.seconds:.4g} s simulated (seed {report.seed}), sampled at "
        f"{plan.rate:.4g} Hz (every {plan.steps_per_sample} step"
        f"{'s' if plan.steps_per_sample != 1 else ''} of {report.dt:.4g} s)"
    )


def format_table(report: StatsReport) -> str:
    """The groups as a text table: a title line, two header lines (names, units), one row each."""
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

    head = [(h, w, a) for h, _u, w, a in lead] + [(c.header, c.width, ">") for c in _COLUMNS]
    units = [(u, w, a) for _h, u, w, a in lead] + [(c.unit, c.width, ">") for c in _COLUMNS]
    lines = [title(report), line(head), line(units)]
    for g in report.groups:
        row = [(g.name, name_w, "<"), (g.method, method_w, "<"), (f"{g.agents:,}", agents_w, ">")]
        row += [(text, c.width, ">") for text, c in zip(_cells(g), _COLUMNS, strict=True)]
        lines.append(line(row))
    return "\n".join(lines)


def _number(x: float) -> float | None:
    """JSON has no NaN or infinity: those become null."""
    return x if math.isfinite(x) else None


def to_json(report: StatsReport) -> dict[str, Any]:
    """The same numbers as the table, for scripts; fractions are 0..1 (the table shows %)."""
    plan = report.plan
    return {
        "scene": report.scene,
        "source": report.source,
        "seed": report.seed,
        "dt_s": report.dt,
        "seconds": plan.seconds,
        "sample_rate_hz": plan.rate,
        "sample_interval_s": plan.interval,
        "steps_per_sample": plan.steps_per_sample,
        "samples": plan.samples,
        "about_turn_angle_deg": ABOUT_TURN_ANGLE_DEG,
        "about_turn_window_s": ABOUT_TURN_WINDOW_S,
        "coverage_cells_per_axis": report.cells,
        "groups": [
            {
                "name": g.name,
                "method": g.method,
                "agents": g.agents,
                "mean_speed_units_per_s": _number(g.mean_speed),
                "mean_turn_rate_deg_per_s": _number(g.mean_turn_rate),
                "twitchiness_deg_per_s2": _number(g.twitchiness),
                "about_turns_per_agent_per_min": _number(g.about_turns),
                "persistence_s": _number(g.persistence),
                "persistence_is_lower_bound": g.persistence_censored,
                "coverage_fraction": _number(g.coverage),
                "wall_contact_fraction": _number(g.wall_contact),
            }
            for g in report.groups
        ],
    }
