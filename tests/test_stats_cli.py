"""`wander3d stats`: the table, --json for scripts, --plot, and clean errors."""

from __future__ import annotations

import dataclasses
import json

import pytest
from scene_support import REPO
from scene_support import wander3d_cmd as wander3d

from wander3d import load_scene
from wander3d.analysis import METRICS_HELP, GroupStats, metric_table
from wander3d.analysis.report import METRIC_UNITS
from wander3d.cli import main

COMPARE = REPO / "scenes" / "compare.toml"
# One spelling per metric: the GroupStats field, as in sweep tables and tune targets.
GROUP_KEYS = {f.name for f in dataclasses.fields(GroupStats)} | {"curves"}
CURVE_KEYS = {
    "lags_s",
    "msd_units2",
    "crw_msd_units2",
    "direction_acf",
    "turn_angle_counts",
    "lift_angle_counts",
}


def run_main(args: list[str]) -> int:
    """main() in this process; argparse's own errors exit, which counts as the status too."""
    try:
        return main(args)
    except SystemExit as e:
        return int(e.code or 0)


def test_json_has_every_group_and_nothing_else_on_stdout():
    result = wander3d("stats", str(COMPARE), "--seconds", "3", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)  # the whole of stdout is one JSON document
    scene = load_scene(COMPARE)
    assert [g["name"] for g in doc["groups"]] == [g.name for g in scene.groups]
    assert [g["method"] for g in doc["groups"]] == [g.wander.method for g in scene.groups]
    for g in doc["groups"]:
        assert set(g) == GROUP_KEYS
        assert g["agents"] == 60
        assert 0.0 <= g["coverage"] <= 1.0
        assert 0.0 <= g["wall_contact"] <= 1.0
        assert g["mean_speed"] > 0
        assert set(g["curves"]) == CURVE_KEYS
        curves = g["curves"]
        assert len(curves["msd_units2"]) == len(curves["lags_s"])
        bins = len(doc["angle_bin_edges_deg"]) - 1
        assert len(curves["turn_angle_counts"]) == len(curves["lift_angle_counts"]) == bins
        # Every pair of consecutive steps (all of them move) has a turn and a lift angle.
        pairs = (doc["samples"] - 2) * g["agents"]
        assert sum(curves["turn_angle_counts"]) == sum(curves["lift_angle_counts"]) == pairs
    # Every numeric metric has its unit beside the groups.
    assert set(doc["units"]) == {k for k, v in doc["groups"][0].items() if isinstance(v, float)}
    assert doc["units"] == METRIC_UNITS
    assert doc["sample_rate_hz"] == pytest.approx(10.0, rel=1e-3)
    assert doc["seconds"] == pytest.approx(3.0, rel=1e-3)
    assert doc["scene"] == scene.name
    # Not a terminal: no progress bar, one final line on stderr.
    assert "\r" not in result.stderr
    assert "ran 180 steps" in result.stderr


def test_json_times_carry_no_float_noise(tmp_path, capsys):
    # 600 sample intervals of 6 steps of 0.0166667 s: 60.00012 s, not 60.000119999999995.
    scene = tmp_path / "odd_dt.toml"
    scene.write_text("[scene]\ndt = 0.0166667\n[[groups]]\ncount = 4\n")
    assert run_main(["stats", str(scene), "--seconds", "60", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"seconds": 60.00012,' in out and '"sample_interval_s": 0.1000002,' in out


def test_table_and_plot(tmp_path, capsys):
    png = tmp_path / "stats.png"
    args = ["stats", str(COMPARE), "--seconds", "4", "--sample-rate", "20", "--plot", str(png)]
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert "sampled at 20 Hz" in lines[0]
    for header in ("turn rate", "twitchiness", "about-turns", "persistence", "coverage"):
        assert header in lines[1]
    for unit in ("units/s", "deg/s", "deg/s^2", "/agent/min"):
        assert unit in lines[2]
    methods = ["sphere", "angle", "noise", "seek", "random"]
    rows = [line.split() for line in lines[3:8]]
    assert [r[:2] for r in rows] == [[m, m] for m in methods]
    assert all(len(r) == 10 for r in rows)
    # The path measures follow after a blank line, in the same layout.
    assert lines[8] == ""
    for header in ("cos turn", "persist CRW", "persist ACF", "MSD slope", "sinuos sym"):
        assert header in lines[9]
    rows = [line.split() for line in lines[11:]]
    assert [r[:2] for r in rows] == [[m, m] for m in methods]
    assert all(len(r) == 13 for r in rows)
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000


def test_help_defines_every_metric(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["stats", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert METRICS_HELP in out


def test_readme_states_the_same_definitions():
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if "## Path statistics" not in text:
        pytest.skip("the README has no Path statistics section")
    assert metric_table.readme_block() in text, (
        "README's metric definitions are out of date: run `python -m wander3d.analysis README.md`"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["stats", "no/such/scene.toml"], "no such file"),
        (["stats", "COMPARE", "--seconds", "0.1"], "too short"),
        (["stats", "COMPARE", "--plot", "TMP"], "is a directory"),
        (["stats", "COMPARE", "--plot", "TMP/missing/p.png"], "does not exist"),
        (["stats", "COMPARE", "--sample-rate", "-3"], "positive"),
        (["stats", "COMPARE", "--seconds", "nan"], "must be a number"),
        (["stats", "COMPARE", "--seconds", "1e308"], "must be a number"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, tmp_path, capsys):
    args = [a.replace("COMPARE", str(COMPARE)).replace("TMP", str(tmp_path)) for a in args]
    assert run_main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not list(tmp_path.glob("**/*.png"))  # nothing left behind


def test_invalid_scene_file_exits_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[scene]\ndt = -1\n[[groups]]\ncount = "many"\n', encoding="utf-8")
    result = wander3d("stats", str(bad), "--seconds", "1", "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("wander3d: error:")
    assert "Traceback" not in result.stderr


def test_a_run_too_large_for_memory_is_refused_before_it_starts(monkeypatch, capsys):
    monkeypatch.setattr(
        "wander3d.commands.stats.memory_budget", lambda: (1_000_000, "a test's limit")
    )
    assert run_main(["stats", str(COMPARE), "--seconds", "30"]) == 2
    err = capsys.readouterr().err
    assert "a test's limit" in err and "--sample-rate" in err
    assert "ran" not in err  # refused before simulating
