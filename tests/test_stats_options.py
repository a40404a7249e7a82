"""`wander3d stats` options that say how to measure: the analysis window (--max-lag), where
the headings come from (--headings), one row per track (--per-track); and what it says when
it measures otherwise than asked (a sample rate faster than the steps) or than `check`
describes (walls)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from wander3d import cli
from wander3d.analysis import compute_stats, sample_spec
from wander3d.analysis.tracks import headings_from_positions
from wander3d.scene import bundled_scene, load_scene
from wander3d.scene.feel import scene_feel


def stats(args: list[str], capsys) -> tuple[dict, str]:
    code = cli.main(["stats", "--json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), captured.err


def long_tracks(path, seconds: float = 200.0) -> None:
    """Two correlated random walks, a fix every 0.5 s."""
    rng = np.random.default_rng(3)
    rows = ["id,t,x,y"]
    for p in ("a", "b"):
        heading = np.cumsum(rng.normal(0, 0.3, int(seconds * 2)))
        xy = np.cumsum(np.stack([np.cos(heading), np.sin(heading)], 1), 0)
        rows += [f"{p},{k * 0.5},{x:.5f},{y:.5f}" for k, (x, y) in enumerate(xy)]
    path.write_text("\n".join(rows) + "\n")


def test_max_lag_sets_the_analysis_window(tmp_path, capsys):
    long_tracks(tmp_path / "walks.csv")
    args = ["--tracks", str(tmp_path / "walks.csv"), "--sample-rate", "2"]
    default, _ = stats(args, capsys)
    assert default["groups"][0]["curves"]["lags_s"][-1] == 20.0  # 20 s or 20 samples
    wide, _ = stats([*args, "--max-lag", "80"], capsys)
    assert wide["groups"][0]["curves"]["lags_s"][-1] == 80.0
    short, _ = stats([*args, "--max-lag", "2"], capsys)
    assert short["groups"][0]["curves"]["lags_s"][-1] == 2.0  # not stretched to 20 samples
    assert wide["groups"][0]["msd_slope"] != default["groups"][0]["msd_slope"]


def test_per_track_gives_a_row_per_particle(tmp_path, capsys):
    long_tracks(tmp_path / "walks.csv")
    doc, _ = stats(["--tracks", str(tmp_path / "walks.csv"), "--per-track"], capsys)
    assert [g["name"] for g in doc["groups"]] == ["a", "b"]
    assert all(g["agents"] == 1 for g in doc["groups"])


def test_headings_from_positions_measure_a_scene_as_tracks_are(capsys):
    scene = load_scene(bundled_scene("default"))
    doc, _ = stats(["default", "--seconds", "4", "--headings", "positions"], capsys)
    samples = headings_from_positions(sample_spec(scene.run_spec, 4.0, 10.0))
    (expected,), _ = compute_stats(samples, scene.groups)
    assert doc["groups"][0]["mean_turn_rate"] == pytest.approx(expected.mean_turn_rate, rel=1e-9)
    velocity, _ = stats(["default", "--seconds", "4"], capsys)
    assert velocity["groups"][0]["mean_turn_rate"] != doc["groups"][0]["mean_turn_rate"]


def test_a_sample_rate_faster_than_the_steps_is_said(capsys):
    doc, err = stats(["default", "--seconds", "1", "--sample-rate", "1000"], capsys)
    assert "--sample-rate 1000 is faster than the scene steps" in err
    assert "sampling every step, at 60 Hz" in err and doc["sample_rate_hz"] < 61


def test_check_and_stats_agree_once_walls_are_counted(capsys):
    """`check` states the wander's own turn rate and decorrelation; `stats` measures agents
    in their box. Without walls the compare scene's sphere group turns below `check`'s
    sharpest turn and persists as long as its decorrelation time; in its box the walls turn
    it harder and sooner, and `check` says so."""
    scene = load_scene(bundled_scene("compare"))
    (group,) = scene.groups[:1]
    feel = scene_feel(scene.replace(groups=(group,)).run_spec)[0]
    huge = dataclasses.replace(scene.enclosure, min=(-1e5,) * 3, max=(1e5,) * 3)
    free = scene.replace(groups=(group,), enclosure=huge)
    (alone,), _ = compute_stats(sample_spec(free.run_spec, 40.0, 10.0), free.groups)
    assert feel.sharpest_turn is not None  # it moves
    assert alone.mean_turn_rate < feel.sharpest_turn
    assert alone.persistence == pytest.approx(feel.decorrelation_s, rel=0.15)
    assert cli.main(["check", "compare"]) == 0
    assert "away from walls: walls turn agents harder and sooner" in capsys.readouterr().out


def test_a_log_axis_under_two_decades_has_plain_labels_not_overlapping_minor_ones():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from wander3d.analysis.plot import plain_log_ticks

    fig = Figure()
    ax = fig.subplots()
    ax.plot([1, 2, 3], [6e-4, 2e-3, 6.5e-3])
    ax.set_yscale("log")
    plain_log_ticks(ax)
    fig.canvas.draw()
    minor = [t.get_text() for t in ax.yaxis.get_minorticklabels()]
    major = [t.get_text() for t in ax.yaxis.get_majorticklabels() if t.get_text()]
    assert not any(minor)
    assert {"0.001", "0.002", "0.005"} <= set(major)
