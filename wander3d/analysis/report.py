"""Presenting path statistics: a text table and a JSON document, laid out by the metric table
(`metric_table`: each metric's column, unit and definition)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .metric_table import METRIC_UNITS, METRICS_HELP, WORLD_LENGTH, Part, part, unit_text
from .metrics import ABOUT_TURN_ANGLE_DEG, ABOUT_TURN_WINDOW_S, ANGLE_BINS
from .sampling import SamplePlan
from .stats import COVERAGE_CELLS, GroupCurves, GroupStats
from .tracks import TrackCounts

# METRICS_HELP and METRIC_UNITS: the metric table's, re-exported for `stats` and scripts.
__all__ = ["METRICS_HELP", "METRIC_UNITS", "StatsReport", "format_table", "title", "to_json"]


@dataclass(frozen=True)
class StatsReport:
    """Everything `wander3d stats` prints: the run's description and one row per group.

    seed, dt: None for tracks that no scene made, which `tracks` (how many were read) then
    describes; curves: each group's MSD and angle distributions, for the JSON (optional);
    counts: for tracks read from a file, the fixes read, gaps split and samples measured;
    msd_weighting: how the MSD weighs tracks (`metrics.MSD_WEIGHTINGS`);
    length_unit: what the positions' lengths are in: a world's "units", or metres ("m") for
    geographic tracks; the table, JSON and plot label the metrics so (`unit_text`).
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
    msd_weighting: str = "pairs"
    length_unit: str = WORLD_LENGTH


def title(report: StatsReport) -> str:
    """One line saying what was measured and how."""
    if report.msd_weighting == "trackpy":
        return _title(report) + "; MSD weighted as trackpy's emsd"
    return _title(report)


def _title(report: StatsReport) -> str:
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
    for which in Part:
        if which is not Part.HEADING:
            lines.append("")
        columns = part(which)
        head = [(h, w, a) for h, _u, w, a in lead]
        head += [(m.column.header, m.column.width, ">") for m in columns]
        units = [(u, w, a) for _h, u, w, a in lead]
        units += [(unit_text(m.column.unit, report.length_unit), m.column.width, ">")
                  for m in columns]  # fmt: skip
        lines += [line(head), line(units)]
        for g in report.groups:
            row = [(g.name, name_w, "<"), (g.method, method_w, "<")]
            row += [(f"{g.agents:,}", agents_w, ">")]
            row += [(m.cell(g), m.column.width, ">") for m in columns]
            lines.append(line(row))
    return "\n".join(lines)


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
    "units" gives each metric's unit with lengths in "length_unit" (the curves' "units2" too).

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
        "msd_weighting": report.msd_weighting,
        "angle_bin_edges_deg": _numbers(np.linspace(-180.0, 180.0, ANGLE_BINS + 1)),
        "length_unit": report.length_unit,
        "units": {name: unit_text(unit, report.length_unit) for name, unit in METRIC_UNITS.items()},
        "groups": [
            {
                **{f.name: _value(getattr(g, f.name)) for f in dataclasses.fields(g)},
                **({"curves": _curves_json(c)} if c is not None else {}),
            }
            for g, c in zip(report.groups, curves, strict=True)
        ],
    }
