"""`wander3d tune`: reaches a reachable target, writes the tuned scene, rejects bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from wander3d.cli import main
from wander3d.scene import load_scene
from wander3d.sweep import open_client, tune
from wander3d.sweep.execute import measure

DEFAULT = Path(__file__).resolve().parent.parent / "scenes" / "default.toml"
SECONDS = 8.0
RATE = 10.0
AGENTS = 20


@pytest.fixture(scope="module")
def client():
    with open_client(workers=2, processes=False) as c:
        yield c


def test_tune_reaches_a_reachable_target_and_writes_the_tuned_scene(client, tmp_path):
    """The target is what jitter 30 measures; tuning jitter from 10 must come within 10%."""
    scene = load_scene(DEFAULT)
    small = tune.tuning_scene(scene, 0, AGENTS)
    reachable = tune.apply(
        small, [tune.make_knob(small, 0, "wander.jitter")], {"wander.jitter": 30.0}
    )
    target = measure(reachable, SECONDS, RATE)[0].mean_turn_rate
    knob = tune.make_knob(scene, 0, "wander.jitter=2:60")
    result = tune.tune(
        scene,
        0,
        {"mean_turn_rate": target},
        [knob],
        client,
        seconds=SECONDS,
        sample_rate=RATE,
        seeds=1,
        agents=AGENTS,
        trials=32,
        tolerance=0.05,
    )
    assert result.errors["mean_turn_rate"] <= 0.10, (result, target)
    assert abs(result.achieved["mean_turn_rate"] - target) <= 0.10 * target
    # The written scene: only the tuned key changed, the group's own count kept.
    path = tmp_path / "tuned.toml"
    path.write_text(tune.tuned_toml(result, [knob], "wanderers", "default"), encoding="utf-8")
    tuned = load_scene(path)
    assert tuned.groups[0].wander.jitter == result.values["wander.jitter"] != 10.0
    assert tuned.groups[0].count == scene.groups[0].count
    assert tuned.replace(groups=scene.groups) == scene
    assert path.read_text().startswith("# Tuned by `wander3d tune` from default: group")
    assert "groups[0].wander.jitter: 10 -> " in path.read_text()
    # The winner is measured again at the scene's own seed and 300 agents: exactly what
    # `wander3d stats TUNED` runs (a seed the search never used), and the file says so.
    assert result.checked_agents == scene.groups[0].count == 300 != AGENTS
    again = measure(tuned, SECONDS, RATE)[0].mean_turn_rate
    assert result.checked["mean_turn_rate"] == pytest.approx(again, rel=1e-12)
    assert "Checked at this scene's own seed and the group's 300 agents" in path.read_text()
    # `achieved` is the winner's mean over seeds the search never used.
    assert result.final_seeds == tune.FINAL_SEEDS * 1 and result.finalists >= 1


def test_knob_bounds_default_to_a_quarter_to_four_times_the_value():
    scene = load_scene(DEFAULT)
    knob = tune.make_knob(scene, 0, "wander.radius")
    assert (knob.low, knob.start, knob.high) == (3.0, 12.0, 48.0)
    assert tune.default_keys(scene, 0) == ["wander.distance", "wander.radius", "wander.jitter"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--group", "nobody"], "the scene has no group 'nobody' (groups: 'wanderers')"),
        (["--target", "wobble=3"], "unknown metric 'wobble'"),
        (["--vary", "wander.rate"], "--vary wander.rate: the group's method does not use"),
        (["--vary", "count"], "only decimal keys can be tuned"),
        (["--vary", "wander.jitter=5:x"], "expected KEY=LO:HI"),
        (["--vary", "wander.jitter=9:3"], "give positive bounds LO < HI"),
        (["--vary", "wander.jitter", "--vary", "wander.jitter=1:9"], "names a key twice"),
    ],
)
def test_bad_tune_input_is_one_line_and_exit_2(tmp_path, capsys, args, expected):
    base = ["tune", "default", "--group", "wanderers", "--target", "turn_rate=20"]
    argv = [*base, *args, "--out", str(tmp_path / "t.toml")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: ") and err.count("\n") == 1
    assert expected in err
    assert not (tmp_path / "t.toml").exists()


def test_out_must_name_a_toml_file(tmp_path, capsys):
    out = tmp_path / "t.parquet"
    argv = ["tune", "default", "--group", "wanderers", "--target", "turn_rate=20"]
    argv += ["--out", str(out)]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"wander3d: error: --out {out}: the tuned scene is TOML; name a .toml file\n"
    )
    assert not out.exists()


def valley_metrics(scene):
    """Metrics that depend on ratios of the wander keys, as the wander's own do (a larger
    sphere farther ahead turns alike): their level sets are curved valleys in log space."""
    from types import SimpleNamespace

    w = scene.groups[0].wander
    return SimpleNamespace(
        mean_turn_rate=w.jitter * w.radius / w.distance,
        persistence=(w.distance / w.radius) ** 1.5 + 0.2 * w.radius / w.jitter,
        twitchiness=w.jitter**0.5 * (1.0 + 0.05 * w.distance),
    )


def test_the_fine_search_follows_curved_valleys_to_the_targets_within_its_trials():
    """From a start 40-70% off in every key, the fine search (least squares on the
    residuals, Jacobian by steps in each key) meets three targets to 0.1% within 60 trials,
    and never runs more trials than it is given."""
    scene = tune.tuning_scene(load_scene(DEFAULT), 0, AGENTS)
    names = ("wander.distance", "wander.radius", "wander.jitter")
    knobs = [tune.make_knob(scene, 0, f"{name}=1:200") for name in names]
    truth = tune.apply(scene, knobs, dict(zip(names, (18.0, 10.0, 18.0), strict=True)))
    targets = vars(valley_metrics(truth))

    def run(tasks, on_result):
        for name, trial_scene in tasks:
            on_result(name, [valley_metrics(trial_scene)])

    for budget, enough in ((60, 0.001), (23, 0.0)):
        search = tune._Search(scene, knobs, targets, None, measure, 1, scene.seed)
        search.measure([dict(zip(names, (30.0, 6.0, 30.0), strict=True))], run)
        assert max(search.best_errors().values()) > 0.4
        tune._refine(search, budget, enough, run, lambda: None)
        assert search.done <= budget
        if enough:
            assert max(search.best_errors().values()) <= enough, search.best()
