"""The metric table: one row per number `wander3d stats` measures, read by every layer that
shows or targets one.

Each `Metric` names its `GroupStats` field (the name of the JSON, sweep tables and tune
targets), its unit, what it means in a line, the numpy definition it follows
(`wander3d.analysis.metrics`), its definition in words (`wander3d stats --help` and the
README), whether `wander3d tune` can target it, and its column in the text table.

Readers: `GroupStats` (its fields are the table's, in its order: checked when this module
loads), the text table and the JSON's "units" (`report`), `METRICS_HELP` (`stats --help`, and
the README's copy, which `python -m wander3d.analysis README.md` refreshes), `tune`'s
metrics and its `--help`, and the sweep atlas's titles. Adding a metric is one row here, its
field in `GroupStats` and the line of `stats.group_stats` that computes it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wander3d.files import replace_block

from . import metrics
from .metrics import ABOUT_TURN_ANGLE_DEG, ABOUT_TURN_WINDOW_S, ANGLE_BINS
from .sampling import DEFAULT_SAMPLE_RATE
from .stats import COVERAGE_CELLS, MAX_LAG_S, MIN_LAGS, GroupStats


class Part(enum.Enum):
    """The two tables `wander3d stats` prints, one after the other."""

    #: From each agent's heading and position: how it turns and where it goes.
    HEADING = enum.auto()
    #: Movement ecology's path measures, from positions only, as for animal tracks.
    PATH = enum.auto()


#: The length unit of a scene's world, as the metric table writes units ("units/s").
WORLD_LENGTH = "units"
#: The length unit of geographic tracks, measured in metres.
METRES = "m"


def unit_text(unit: str, length: str = WORLD_LENGTH) -> str:
    """A unit of the metric table ("units/s", "units^-1/2") for lengths in `length`: "m/s",
    "m^-1/2" for geographic tracks; the same for WORLD_LENGTH."""
    return re.sub(rf"\b{WORLD_LENGTH}\b", length, unit)


#: A Column's spec for a number shown with at least SIGNIFICANT_DIGITS significant digits.
SIGNIFICANT = "3sig"
SIGNIFICANT_DIGITS = 3


def significant(x: float, width: int) -> str:
    """Finite `x` with at least SIGNIFICANT_DIGITS significant digits, in fixed point while
    that fits `width` characters (26.8, 371, 1306, 0.950, 0.0172), else in exponent form
    (1.23e+09): a slow track's speed is not 0.0, nor a ship's 0.95 m/s 1.0."""
    if x == 0.0:
        return "0"
    decimals = max(0, SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    if len(text) <= width:
        return text
    return f"{x:#.{SIGNIFICANT_DIGITS}g}"


@dataclass(frozen=True)
class Column:
    """A metric's column in `wander3d stats`' text table.

    header:  the column's name, also the name `stats --help` defines it under;
    unit:    the unit the table shows;
    width:   characters; part: which table;
    spec:    the format of the number: SIGNIFICANT for a quantity whose scale depends on the
             tracks' units and speed (`significant`), else a format spec (".4f") for one of a
             fixed scale (a cosine, a slope, a %);
    scale:   the number is multiplied by this before it is shown (100: a fraction in %).
    """

    header: str
    unit: str
    width: int
    spec: str
    part: Part
    scale: float = 1.0


@dataclass(frozen=True)
class Metric:
    """One path metric of a group.

    name:        its GroupStats field, as the JSON, sweep tables and `tune --target` spell it;
    unit:        its unit in the JSON ("fraction": 0..1; "" for none);
    meaning:     what it is, in a line (`tune --help`);
    formula:     the function of `wander3d.analysis.metrics` whose definition it follows;
    definition:  its definition in words, lines as `stats --help` shows them;
    column:      its column in the text table;
    target:      whether `wander3d tune` can aim at it;
    bound:       the GroupStats field (a bool) saying the value is only a lower bound, or None.
    """

    name: str
    unit: str
    meaning: str
    formula: Callable[..., Any]
    definition: str
    column: Column
    target: bool = True
    bound: str | None = None

    @property
    def title(self) -> str:
        """Its name and unit for a plot: "turn rate (deg/s)"."""
        return f"{self.column.header} ({self.unit})" if self.unit else self.column.header

    def cell(self, stats: GroupStats) -> str:
        """Its value in `stats` as the text table shows it: "n/a" where undefined, "inf" for an
        infinite value, ">" before a lower bound."""
        x = float(getattr(stats, self.name))
        if math.isfinite(x) and self.column.spec == SIGNIFICANT:
            text = significant(self.column.scale * x, self.column.width)
        elif math.isfinite(x):
            text = f"{self.column.scale * x:{self.column.spec}}"
        else:
            # A circle's sinuosity is infinite (the JSON, which has no infinity, says null).
            text = "inf" if x == math.inf else "n/a"
        return ">" + text if self.bound and getattr(stats, self.bound) else text


_H, _P = Part.HEADING, Part.PATH
# The constants the definitions state, as they show them.
_TURN, _WINDOW = f"{ABOUT_TURN_ANGLE_DEG:g}", f"{ABOUT_TURN_WINDOW_S:g}"
_CELLS, _RATE, _BIN = COVERAGE_CELLS, f"{DEFAULT_SAMPLE_RATE:g}", 360 // ANGLE_BINS

METRICS: tuple[Metric, ...] = (
    Metric(
        "mean_speed", "units/s", "mean speed", metrics.lengths,
        "mean of |velocity| (units/s).",
        Column("speed", "units/s", 8, SIGNIFICANT, _H),
    ),
    Metric(
        "mean_turn_rate", "deg/s", "mean rate at which the heading turns", metrics.turn_rates_deg,
        "mean of angle(h_k, h_k+1) / Ts (deg/s).",
        Column("turn rate", "deg/s", 9, SIGNIFICANT, _H),
    ),
    Metric(
        "twitchiness", "deg/s^2", "mean angular acceleration of the heading",
        metrics.angular_accelerations_deg,
        """mean angular acceleration of the heading (deg/s^2): the mean of
|w_k+1 - w_k| / Ts, where w_k is the heading's angular velocity over
interval k (axis h_k x h_k+1, length angle(h_k, h_k+1) / Ts). A steady
turn scores 0; changing how hard or which way the agent turns scores.
It does not depend on dt, but it does on the sample rate: it converges
for smooth steering (noise, seek) and grows like rate^0.5 for a random
walk target (sphere, angle) and like rate^1.5 for a random force (white
noise). Compare numbers taken at the same rate only.""",
        Column("twitchiness", "deg/s^2", 11, SIGNIFICANT, _H),
    ),
    Metric(
        "about_turns", "per agent per min",
        f"turns of more than {_TURN} deg within {_WINDOW} s",
        metrics.about_turn_counts,
        f"""turns of more than {_TURN} deg completed within {_WINDOW} s, per agent per minute.
One starts at sample k when some sample j in (k, k + {_WINDOW} s] has
angle(h_k, h_j) > {_TURN} deg, and ends at the first such j. Events are
counted in time order and never overlap (the next can start at j at the
earliest), so one U-turn counts once.""",
        Column("about-turns", "/agent/min", 11, SIGNIFICANT, _H),
    ),
    Metric(
        "persistence", "s", "how long a turn lasts",
        metrics.turning_axes,
        f"""how long a turn lasts (s): the lag at which the autocorrelation of the
unit turning axis u_k = w_k / |w_k|, C(lag) = mean of u_k . u_k+lag
(pairs where either interval has no turn left out), first drops below
1/e, interpolated linearly between samples (C = exp(-t/T) gives T).
'>' marks a lower bound: C stayed above 1/e up to the last lag computed
({MAX_LAG_S:g} s or {MIN_LAGS} samples, at most half the run), or --max-lag; n/a: no agent
turned at all. About 0.63 * Ts means no persistence: the turning axis is
uncorrelated from one sample to the next.""",
        Column("persistence", "s", 11, SIGNIFICANT, _H),
        bound="persistence_censored",
    ),
    Metric(
        "coverage", "fraction", "share of the box's cells the group visited",
        metrics.cell_indices,
        f"""share of the enclosure's {_CELLS} x {_CELLS} x {_CELLS} equal cells (the box's
proportions) that some agent of the group was in at some sample (%).""",
        Column("coverage", "%", 8, ".1f", _H, scale=100.0),
    ),
    Metric(
        "wall_contact", "fraction", "share of samples in a wall's margin band",
        metrics.in_wall_band,
        """share of agent-samples within the margin band of any wall, i.e. closer
than the enclosure's margin to a face of the box (%).""",
        Column("wall contact", "%", 12, ".1f", _H, scale=100.0),
    ),
    Metric(
        "mean_step", "units", "mean distance between consecutive samples", metrics.steps,
        "mean step length E[l] (units): the distance covered per sample.",
        Column("step", "units", 8, SIGNIFICANT, _P),
    ),
    Metric(
        "mean_cos_turn", "", "mean cosine of the 3D turning angle",
        metrics.step_turn_versines,
        """c = mean of cos a_k, the mean cosine of the turning angle (1: straight),
computed as 1 - mean of 2 sin^2(a_k / 2) so that tiny turns count.""",
        Column("cos turn", "", 8, ".4f", _P),
    ),
    Metric(
        "mean_sin_turn", "", "mean sine of the horizontal turn angle",
        metrics.horizontal_turn_and_lift,
        """s = mean of sin t_k, t_k the horizontal turn angle below (+ anticlockwise
seen from above): 0 when left and right turns balance.""",
        Column("sin turn", "", 8, ".4f", _P),
    ),
    Metric(
        "persistence_length_crw", "units", "persistence length of a matching CRW",
        metrics.persistence_length_crw,
        """persistence length of a correlated random walk, P_CRW = E[l] / (1 - c)
(units): the mean projection of the whole future path on the current
direction, E[l] (1 + c + c^2 + ...), if step directions correlate as c^k
(the freely rotating chain's). Use it to compare with CRW models; n/a for a
straight path.""",
        Column("persist CRW", "units", 11, SIGNIFICANT, _P),
    ),
    Metric(
        "persistence_length_acf", "units", "path length until the direction forgets",
        metrics.step_directions,
        """persistence length measured, P_ACF (units): the path length E[l] m at
which the step-direction autocorrelation C(m) = mean of d_k . d_k+m
(d_k = s_k / l_k) first falls below 1/e, interpolated linearly ('>': it
never did within the lags computed, a lower bound). Equals about P_CRW
for a CRW; use it for any other path: where turns persist (wander, real
animals) the direction forgets faster than c^k says, and P_CRW overstates.""",
        Column("persist ACF", "units", 11, SIGNIFICANT, _P),
        bound="persistence_length_acf_censored",
    ),
    Metric(
        "msd_slope", "", "log-log slope of the MSD against lag",
        metrics.msd_sums,
        """slope of log MSD against log lag, fitted over 20 log-spaced lags from
Ts to the last lag computed (--max-lag): 2 ballistic, 1 diffusive,
towards 0 confined by the box. The MSD at lag m Ts is the mean of
|p_k+m - p_k|^2 over every pair of samples m apart, of every agent,
each pair weighing alike: sum over agents a and k / sum of (L_a - m),
L_a the samples of a. --msd-weighting trackpy takes trackpy's emsd
instead: each agent's own MSD weighted by trackpy's count of its
independent measurements (Qian et al. 1991), each piece of a track
split at a gap an agent; the same on tracks of one length.""",
        Column("MSD slope", "", 9, ".2f", _P),
    ),
    Metric(
        "crw_msd_slope", "", "the same slope of a CRW's predicted MSD",
        metrics.crw_msd,
        """the same slope of the CRW's MSD (Kareiva & Shigesada 1983), valid in
3D when turns are symmetric about the previous step:
MSD(m) = m E[l^2] + 2 E[l]^2 c/(1-c) (m - (1 - c^m)/(1-c)),
computed as an exact sum that keeps its digits as c -> 1 (a straight
line is ballistic: slope 2). Below the MSD slope: turns persist longer
than a CRW's; above: the box or anti-persistent turns hold the path back.""",
        Column("CRW slope", "", 9, ".2f", _P),
    ),
    Metric(
        "sinuosity", "units^-1/2", "Benhamou's (2004) general sinuosity",
        metrics.sinuosity,
        """Benhamou's (2004) general sinuosity, with the mean sine s (units^-1/2):
S = 2 / sqrt(E[l] ((1 - c^2 - s^2) / ((1 - c)^2 + s^2) + b^2)),
b = sd(l) / E[l]: the tortuosity of a random search path, independent
of its length. Use it for real tracks, whose turns often favour one side;
inf for a path that turns by the same angle every step (a circle).""",
        Column("sinuosity", "units^-1/2", 10, SIGNIFICANT, _P),
    ),
    Metric(
        "sinuosity_symmetric", "units^-1/2", "sinuosity for symmetric turns (mean sine 0)",
        metrics.sinuosity,
        """the same with s = 0, S = 2 / sqrt(E[l] ((1 + c)/(1 - c) + b^2)), the
form for symmetric turning (a CRW) most papers quote; it equals
sinuosity when s = 0. Both n/a for a straight path. (Benhamou computes
them after rediscretising the path to a constant step length; here the
steps are the samples'.)""",
        Column("sinuos sym", "units^-1/2", 10, SIGNIFICANT, _P),
    ),
    Metric(
        "straightness", "", "mean net displacement / path length, 0..1",
        metrics.straightness,
        """mean over agents of |p_last - p_first| / path length, 0..1. Caveat:
it falls as the path grows for any random search, so it compares only
paths of the same duration; it suits oriented (goal-directed) paths
(Benhamou 2004).""",
        Column("straightness", "", 12, ".3f", _P),
    ),
)  # fmt: skip

#: GroupStats's fields before its metrics: which group it is.
GROUP_FIELDS = ("name", "method", "agents")

_BY_NAME = {m.name: m for m in METRICS}


def metric(name: str) -> Metric:
    """The row of the metric called `name` (a GroupStats field)."""
    return _BY_NAME[name]


def part(which: Part) -> tuple[Metric, ...]:
    """The metrics of one of the text table's two tables, in order."""
    return tuple(m for m in METRICS if m.column.part is which)


#: The unit of each metric (the JSON's "units"; sweep columns and tune targets use the same
#: names). Fractions are 0..1.
METRIC_UNITS = {m.name: m.unit for m in METRICS}
#: The metrics `wander3d tune --target` accepts, in the table's order.
TARGETS = tuple(m.name for m in METRICS if m.target)


def _check_against_group_stats() -> None:
    """Fail at import if GroupStats's fields and this table disagree (a coding error): the
    group's name, method and agents, then each metric (a float) and its bound (a bool)."""
    kinds = {}
    for m in METRICS:
        kinds[m.name] = "float"
        if m.bound is not None:
            kinds[m.bound] = "bool"
    found = {f.name: str(f.type) for f in dataclasses.fields(GroupStats)}
    expected = [*GROUP_FIELDS, *kinds]
    if list(found) != expected or any(found[name] != kind for name, kind in kinds.items()):
        raise RuntimeError(
            f"GroupStats's fields and the metric table disagree: {list(found)} != {expected} "
            "(each metric a float, each bound a bool)"
        )


_check_against_group_stats()


# ----------------------------------------------------------------------------- --help, README
_HEADING_INTRO = f"""\
Every metric is computed per group from each agent's unit heading h_k and position p_k,
sampled every Ts seconds (Ts = 1 / --sample-rate, default {_RATE} Hz, rounded to a whole number
of simulation steps; the table's title gives the rate used). Means are over all agents of
the group and all samples. angle(a, b) = atan2(|a x b|, a . b)."""

_HEADING_AFTER = """\
Tracks of different lengths are measured in full: each sum runs over each track's own
samples, and the means divide by the pooled counts."""

_PATH_INTRO = """\
Path measures of movement ecology, from positions only, as for animal tracks: the steps
are the displacements s_k = p_k+1 - p_k between samples (length l_k), and the turning
angle a_k = angle(s_k, s_k+1) is in 3D (steps shorter than 1e-9 units left out). All
depend on Ts: a path looks straighter sampled more often."""

# Not a metric but what the JSON and the plot show beside them: two distributions.
_ANGLES = f"""\
  turn / lift   distributions of the horizontal turn angle (change of the step's
  angles        azimuth atan2(s_x, s_z), + anticlockwise seen from above) and the lift
                angle (change of its elevation above the horizontal, +y up), in {_BIN} deg
                bins from -180 to 180 (--json and --plot); a vertical step has no turn."""

_TRACKS = f"""\
External tracks (--tracks) have no known enclosure unless they were written by 'wander3d
run': coverage then divides the tracks' bounding box, and wall contact is n/a. Lengths are
in the positions' {WORLD_LENGTH}; geographic tracks (longitude/latitude) are measured in metres,
and their table, JSON and plot say {METRES}, {unit_text("units/s", METRES)} and so on."""

#: The width of a definition's label, and the indent of its following lines.
_LABEL = 14
_INDENT = " " * (2 + _LABEL)


def _entry(m: Metric) -> str:
    """A metric's definition as `stats --help` lists it: its header, then the words."""
    first, *rest = m.definition.splitlines()
    return "\n".join([f"  {m.column.header:<{_LABEL}}{first}", *(_INDENT + r for r in rest)])


def _entries(which: Part) -> str:
    return "\n".join(_entry(m) for m in part(which))


#: What every number of `wander3d stats` means: `stats --help` shows it and the README's "Path
#: statistics" section copies it (between the metrics markers).
METRICS_HELP = "\n\n".join(
    [
        _HEADING_INTRO,
        f"{_entries(Part.HEADING)}\n{_HEADING_AFTER}",
        _PATH_INTRO,
        f"{_entries(Part.PATH)}\n{_ANGLES}",
        _TRACKS,
    ]
)


def target_help(width: int = 88) -> str:
    """The metrics `tune` can target, a line each (wrapped to `width`): name, unit, meaning."""
    targets = [m for m in METRICS if m.target]
    name_w = max(len(m.name) for m in targets)
    unit_w = max(len(m.unit) for m in targets)
    return "\n".join(
        textwrap.fill(
            f"  {m.name:<{name_w}}  {m.unit:<{unit_w}}  {m.meaning}",
            width=width,
            subsequent_indent=" " * (6 + name_w + unit_w),
        )
        for m in targets
    )


README_START = "<!-- metrics:start (generated by `python -m wander3d.analysis README.md`) -->"
README_END = "<!-- metrics:end -->"


def readme_block() -> str:
    """The README's copy of METRICS_HELP, markers included."""
    return f"{README_START}\n```\n{METRICS_HELP}\n```\n{README_END}"


def update_readme(path: Path) -> bool:
    """Replace the metrics block in a README; return True if the file changed."""
    return replace_block(path, README_START, README_END, readme_block())


def main(argv: list[str] | None = None) -> int:
    """Print METRICS_HELP, or refresh its block in the README files given as arguments."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.stdout.write(METRICS_HELP + "\n")
        return 0
    for name in args:
        changed = update_readme(Path(name))
        print(f"{name}: {'updated' if changed else 'up to date'}")
    return 0
