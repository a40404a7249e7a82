"""Measuring wander: sample a headless run at a fixed rate and compute path metrics per group.

    from wander3d import load_scene
    from wander3d.analysis import compute_stats, sample_spec
    scene = load_scene("scenes/compare.toml")
    stats, curves = compute_stats(sample_spec(scene.run_spec, seconds=60), scene.groups)

Runs are sampled by the engine's one recorder (wander3d.engine.recording); `sampling` keeps
its chunks in memory as `Samples`. Headless: numpy, wander3d.engine and wander3d.scene;
`tracks`, which reads anyone's tracks from CSV or Parquet, also pyarrow and wander3d.export (a
file's run record); matplotlib is imported lazily, and only to draw the plot (`plot`). What
each metric is: one table, `METRICS` (`metric_table`: name, unit, meaning, definition, column),
and the numpy definitions in `wander3d.analysis.metrics`.
"""

from .metric_table import METRICS, Metric
from .report import METRICS_HELP, StatsReport, format_table, to_json
from .sampling import (
    DEFAULT_SAMPLE_RATE,
    SamplePlan,
    Samples,
    plan_samples,
    sample_run,
    sample_spec,
)
from .stats import COVERAGE_CELLS, GroupCurves, GroupStats, compute_stats, group_stats

__all__ = [
    "COVERAGE_CELLS",
    "DEFAULT_SAMPLE_RATE",
    "METRICS",
    "METRICS_HELP",
    "GroupCurves",
    "GroupStats",
    "Metric",
    "SamplePlan",
    "Samples",
    "StatsReport",
    "compute_stats",
    "format_table",
    "group_stats",
    "plan_samples",
    "sample_run",
    "sample_spec",
    "to_json",
]
