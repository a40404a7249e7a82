"""The metric table: every list of metrics (GroupStats, the text table, the JSON's units,
`stats --help`, the README, tune's targets and --help, the atlas) is the table's."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from scene_support import REPO

from wander3d.analysis import StatsReport, format_table, metric_table, metrics, to_json
from wander3d.analysis.metric_table import METRICS, METRICS_HELP, Part
from wander3d.analysis.sampling import SamplePlan
from wander3d.analysis.stats import GroupStats
from wander3d.cli import main


def fake_stats(name: str = "g", **values: float | bool) -> GroupStats:
    """GroupStats with every metric a distinct number (overridden by `values`), no bounds."""
    fields: dict[str, Any] = {"name": name, "method": "sphere", "agents": 12}
    for i, m in enumerate(METRICS):
        fields[m.name] = 0.125 + i
        if m.bound:
            fields[m.bound] = False
    fields.update(values)
    return GroupStats(**fields)


def report(*groups: GroupStats) -> StatsReport:
    plan = SamplePlan(steps_per_sample=6, samples=11, interval=0.1)
    return StatsReport(scene="s", source=None, seed=1, dt=1 / 60, plan=plan, groups=groups)


def test_group_stats_fields_are_the_table_rows_in_order():
    names = [f.name for f in dataclasses.fields(GroupStats)]
    expected = list(metric_table.GROUP_FIELDS)
    for m in METRICS:
        expected += [m.name] + ([m.bound] if m.bound else [])
    assert names == expected


def test_the_import_check_fails_when_a_row_has_no_field(monkeypatch):
    extra = dataclasses.replace(METRICS[0], name="mean_acceleration")
    monkeypatch.setattr(metric_table, "METRICS", (*METRICS, extra))
    with pytest.raises(RuntimeError, match="mean_acceleration"):
        metric_table._check_against_group_stats()


def test_the_import_check_fails_when_a_metric_is_not_a_float(monkeypatch):
    # The right names in the right order, but persistence_censored (a bool) made a metric.
    rows = []
    for m in METRICS:
        rows.append(dataclasses.replace(m, bound=None))
        if m.bound:
            rows.append(dataclasses.replace(m, name=m.bound, bound=None))
    monkeypatch.setattr(metric_table, "METRICS", tuple(rows))
    with pytest.raises(RuntimeError, match="each metric a float"):
        metric_table._check_against_group_stats()


def test_the_text_table_has_each_rows_column_in_order():
    lines = format_table(report(fake_stats())).splitlines()
    blank = lines.index("")
    for part, (head, units, row) in (
        (Part.HEADING, lines[1:4]),
        (Part.PATH, lines[blank + 1 : blank + 4]),
    ):
        columns = metric_table.part(part)
        assert columns, part
        # Every header, right-aligned in its width, in the table's order.
        expected = "  ".join(f"{m.column.header:>{m.column.width}}" for m in columns)
        assert head.endswith(expected)
        assert units.rstrip().endswith(
            "  ".join(f"{m.column.unit:>{m.column.width}}" for m in columns).rstrip()
        )
        cells = "  ".join(f"{m.cell(fake_stats()):>{m.column.width}}" for m in columns)
        assert row.endswith(cells)


def test_a_cell_follows_its_column_spec_scale_and_bound():
    persistence = metric_table.metric("persistence")
    assert persistence.cell(fake_stats(persistence=2.5)) == "2.50"
    assert persistence.cell(fake_stats(persistence=2.5, persistence_censored=True)) == ">2.50"
    cos_turn = metric_table.metric("mean_cos_turn")
    assert cos_turn.cell(fake_stats(mean_cos_turn=0.99876)) == "0.9988"  # its spec, .4f
    assert persistence.cell(fake_stats(persistence=math.nan)) == "n/a"
    coverage = metric_table.metric("coverage")
    assert coverage.cell(fake_stats(coverage=0.25)) == "25.0"  # a fraction shown in %
    sinuosity = metric_table.metric("sinuosity")
    assert sinuosity.cell(fake_stats(sinuosity=math.inf)) == "inf"


def test_quantities_keep_three_significant_digits_in_their_column():
    # A fish moving 0.0172 px/s or a ship at 0.95 m/s is not shown as 0.0 or 1.0; the usual
    # values keep their layout (26.8), large ones are not put in exponent form while they fit.
    speed = metric_table.metric("mean_speed")
    shown = {x: speed.cell(fake_stats(mean_speed=x)) for x in
             (0.0172, 0.95, 1.30538, 26.84, 371.3, 1306.2, 0.0, 2e-7, 4.2e9)}  # fmt: skip
    assert shown == {
        0.0172: "0.0172", 0.95: "0.950", 1.30538: "1.31", 26.84: "26.8", 371.3: "371",
        1306.2: "1306", 0.0: "0", 2e-7: "2.00e-07", 4.2e9: "4.20e+09",
    }  # fmt: skip
    assert all(len(text) <= speed.column.width for text in shown.values())
    turn_rate = metric_table.metric("mean_turn_rate")
    assert turn_rate.cell(fake_stats(mean_turn_rate=0.544408)) == "0.544"
    step = metric_table.metric("mean_step")
    assert step.cell(fake_stats(mean_step=0.00172)) == "0.00172"


def test_units_a_table_shows_in_percent_are_fractions():
    for m in METRICS:
        percent = m.column.unit == "%"
        assert percent == (m.unit == "fraction") == (m.column.scale == 100.0), m.name


def test_json_units_and_numbers_are_the_tables():
    doc = to_json(report(fake_stats()))
    assert doc["units"] == {m.name: m.unit for m in METRICS}
    group = doc["groups"][0]
    assert [k for k, v in group.items() if isinstance(v, float)] == [m.name for m in METRICS]


def test_help_defines_each_metric_under_its_column_header_in_order():
    # The entries' labels: lines indented by two, then the label's 14 characters.
    labels = [x[2:16].rstrip() for x in METRICS_HELP.splitlines() if x[:2] == "  " != x[:3]]
    headers = [m.column.header for m in METRICS]
    assert [label for label in labels if label in headers] == headers
    for m in METRICS:
        first = m.definition.splitlines()[0]
        assert f"  {m.column.header:<14}{first}\n" in METRICS_HELP


def test_each_formula_is_a_numpy_definition_of_the_metrics_module():
    for m in METRICS:
        assert getattr(metrics, m.formula.__name__) is m.formula, m.name
    assert len({m.name for m in METRICS}) == len(METRICS)
    assert len({m.column.header for m in METRICS}) == len(METRICS)
    assert all(m.meaning and "\n" not in m.meaning for m in METRICS)


def test_readme_block_is_refreshed_by_update_readme(tmp_path):
    readme = tmp_path / "README.md"
    start, end = metric_table.README_START, metric_table.README_END
    readme.write_text(f"intro\n{start}\nold\n{end}\noutro\n", encoding="utf-8")
    assert metric_table.update_readme(readme) is True
    text = readme.read_text(encoding="utf-8")
    assert text == f"intro\n{metric_table.readme_block()}\noutro\n"
    assert metric_table.update_readme(readme) is False
    (tmp_path / "other.md").write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="metrics:start"):
        metric_table.update_readme(tmp_path / "other.md")


def test_the_readme_carries_the_current_block():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert metric_table.readme_block() in text


def test_tune_targets_are_the_rows_marked_target(capsys):
    from wander3d.sweep import tune

    assert tune.metric_names() == [m.name for m in METRICS if m.target]
    with pytest.raises(SystemExit):
        main(["tune", "--help"])
    out = capsys.readouterr().out
    for m in METRICS:
        line = next((x for x in out.splitlines() if x.startswith(f"  {m.name} ")), None)
        assert (line is not None) == m.target, m.name
        if line is not None:
            assert m.unit in line and m.meaning.split()[0] in line


def test_atlas_titles_are_the_tables():
    from wander3d.sweep.plot import METRICS as ATLAS

    for name, title in ATLAS:
        m = metric_table.metric(name)
        assert title == f"{m.column.header} ({m.unit})"


def test_the_readmes_example_row_is_the_tables():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = metric_table.metric("mean_speed")
    c = m.column
    assert f'"{m.name}", "{m.unit}", "{m.meaning}", metrics.{m.formula.__name__},' in text
    assert f'"{m.definition}",' in text
    spec = "SIGNIFICANT" if c.spec == metric_table.SIGNIFICANT else f'"{c.spec}"'
    assert f'Column("{c.header}", "{c.unit}", {c.width}, {spec}, _H),' in text
