"""What `wander3d check` says a group feels like, measured on the engine; old trail keys."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scene_support import write

from wander3d import cli, load_scene
from wander3d.engine import Enclosure
from wander3d.engine.kernel import LOOKAHEAD
from wander3d.scene.feel import group_feel, scene_warnings, sharpest_turn, turn_back_distance

from engine_support import OPEN_SPACE, group, sample_headings, simulation, turn_rates


@pytest.mark.parametrize("steering", ["force", "desired"])
@pytest.mark.parametrize(("distance", "radius", "max_force"), [(30, 12, 60), (25, 20, 15)])
def test_the_sharpest_turn_check_states_is_the_engines(steering, distance, radius, max_force):
    g = dataclasses.replace(
        group("sphere", count=200, steering=steering, distance=distance, radius=radius),
        max_force=float(max_force),
    )
    stated = sharpest_turn(g)
    assert stated is not None  # max_speed > 0: not on the spot
    sim = simulation(g, enclosure=OPEN_SPACE, seed=1)
    sim.step(300)
    measured = np.degrees(turn_rates(sample_headings(sim, 60, 0.1), 0.1)).max()
    # The sharpest turn is reached (targets sweep every angle) and never exceeded.
    assert stated * 0.95 < measured < stated * 1.02


@pytest.mark.parametrize(("mass", "max_force"), [(1.0, 60.0), (4.0, 20.0)])
def test_turning_back_takes_the_distance_check_states(mass, max_force):
    """An agent heading into a wall at 40 units/s needs at least mass * 40^2 / (2 max_force)
    units to stop heading into it (physics), and containment starts early enough that it
    needs no more than that plus the margin band and the fixed look-ahead."""
    g = dataclasses.replace(
        group("sphere", count=1, distance=1.0, radius=1e-3, jitter=0.0),
        mass=mass, max_force=max_force, max_speed=40.0,
    )  # fmt: skip
    box = Enclosure(min=(-2000, -50, -50), max=(300, 50, 50), margin=15.0)
    sim = simulation(g, enclosure=box)
    sim._positions[:] = (0.0, 0.0, 0.0)
    sim._headings[:] = (1.0, 0.0, 0.0)
    sim._velocities[:] = (40.0, 0.0, 0.0)
    sim._wander_dirs[:] = (1.0, 0.0, 0.0)
    for _ in range(3000):  # until containment pushes back
        sim.step()
        if sim.forces[0, 0] < 0.0:
            break
    start = sim.positions[0, 0]
    for _ in range(3000):
        sim.step()
        if sim.velocities[0, 0] <= 0.0:
            break
    stated = turn_back_distance(g)
    travelled = sim.positions[0, 0] - start
    assert stated <= travelled <= stated + box.margin + 40.0 * LOOKAHEAD
    assert sim.positions[0, 0] < box.max[0] and sim.wall_reflections[0] == 0


def test_a_group_that_needs_more_than_the_margin_is_warned_with_the_numbers():
    heavy = dataclasses.replace(group("sphere"), name="groupers", mass=4.0, max_force=20.0,
                                max_speed=15.0)  # fmt: skip
    feel = group_feel(heavy, Enclosure(margin=15.0))
    assert feel.turn_back == pytest.approx(22.5)
    (warning,) = feel.warnings
    assert "groupers" in warning and "~22.5 units" in warning and "margin 15" in warning
    assert "reflections" not in warning  # the box (120 high) leaves room to turn
    hopeless = dataclasses.replace(heavy, max_speed=60.0)  # 360 units to turn back
    (warning,) = group_feel(hopeless, Enclosure(margin=15.0)).warnings
    assert "expect wall reflections" in warning
    assert group_feel(dataclasses.replace(heavy, max_force=30.0), Enclosure()).warnings == ()


def test_check_prints_each_groups_feel_and_warns(tmp_path, capsys):
    path = write(
        tmp_path,
        "[[groups]]\nname = 'slow'\ncount = 3\nmass = 4.0\nmax_force = 20.0\nmax_speed = 15.0\n",
        "heavy.toml",
    )
    assert cli.main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "  slow (sphere): turns decorrelate in ~7.2 s, sharpest wander turn ~" in out
    assert "needs 22.5 units to turn back (margin 15)" in out
    assert err.startswith("wander3d: warning: slow: turning back from max_speed 15 needs ~22.5")


def test_old_trail_every_loads_as_seconds_with_a_notice(tmp_path, capsys):
    text = "[scene]\ndt = 0.02\n[[groups]]\ncount = 3\ntrail_length = 150\ntrail_every = 3\n"
    path = write(tmp_path, text, "old.toml")
    scene = load_scene(path)
    assert scene.groups[0].trail_seconds == pytest.approx(9.0)  # 150 points * 3 steps * 0.02 s
    (notice,) = scene.notices
    assert "trail_every" in notice and "trail_seconds = 9 " in notice
    assert scene_warnings(scene) == [notice]
    # The same trail as before: 150 points, one every 3 steps.
    trail = simulation(*scene.groups, dt=scene.dt).trail_buffers[0]
    assert (trail.capacity, trail.every) == (150, 3)
    assert cli.main(["check", str(path)]) == 0
    assert f"wander3d: warning: {notice}" in capsys.readouterr().err
    # Saved again, it is written the new way and loads without a notice.
    again = write(tmp_path, scene.to_toml(), "new.toml")
    assert load_scene(again).notices == ()
    assert "trail_every" not in scene.to_toml()
