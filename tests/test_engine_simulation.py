"""Seeded engine tests: every rule the engine promises, on small fast runs."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wander3d.engine import METHODS, Enclosure
from wander3d.engine.vecmath import dot, lengths, normalize

from engine_support import (
    OPEN_SPACE,
    group,
    sample_headings,
    simulation,
    turn_rates,
    yaw_rates,
)

SMALL_BOX = Enclosure(min=(-40.0, -20.0, -30.0), max=(40.0, 20.0, 30.0), margin=8.0)


def all_methods(count=60, **kwargs):
    return tuple(group(m, count=count, **kwargs) for m in METHODS)


@pytest.mark.parametrize("steering", ["force", "desired"])
def test_no_agent_ever_ends_a_step_outside_the_box(steering):
    groups = all_methods(count=60, steering=steering)
    # Fast agents in a small box with a coarse step hit the walls often.
    groups = tuple(dataclasses.replace(g, max_speed=90.0, max_force=40.0) for g in groups)
    sim = simulation(*groups, enclosure=SMALL_BOX, dt=0.05, seed=3)
    low, high = sim.bounds
    for _ in range(1500):
        sim.step()
        assert np.all(sim.positions >= low) and np.all(sim.positions <= high)
    assert np.isfinite(sim.velocities).all()


def test_containment_turns_agents_before_the_wall():
    # The default box, margin and vehicle leave room to turn: walls are felt, never touched.
    sim = simulation(*all_methods(count=80), enclosure=Enclosure(), seed=4)
    reflections = 0
    for _ in range(1200):
        before = sim.velocities.copy()
        sim.step()
        # A reflection is the only way a velocity component changes sign in one step at speed.
        flipped = (np.sign(before) * np.sign(sim.velocities) < 0) & (np.abs(before) > 20.0)
        reflections += int(flipped.any(axis=1).sum())
    near_wall = np.abs(sim.positions) > np.array(sim.enclosure.max) - 20.0
    assert near_wall.any(), "the run must reach the walls to test them"
    assert reflections / (1200 * sim.count) < 1e-5


def test_speed_and_force_limits_hold_every_step():
    groups = tuple(
        dataclasses.replace(g, max_speed=25.0 + 5 * i, max_force=10.0 + 20 * i, mass=0.5 + i)
        for i, g in enumerate(all_methods(count=50))
    )
    sim = simulation(*groups, enclosure=SMALL_BOX, seed=5)
    max_speed = np.repeat([g.max_speed for g in groups], 50)
    max_force = np.repeat([g.max_force for g in groups], 50)
    for _ in range(600):
        sim.step()
        assert np.all(lengths(sim.velocities) <= max_speed * (1 + 1e-12))
        assert np.all(lengths(sim.forces) <= max_force * (1 + 1e-12))


def test_sphere_target_stays_on_the_sphere_surface():
    sim = simulation(group("sphere", count=300, jitter=40.0), enclosure=SMALL_BOX, seed=6)
    for _ in range(400):
        sim.step()
        distance = lengths(sim.wander_points - sim.wander_centers)
        np.testing.assert_allclose(distance, sim.wander_radii, rtol=1e-12)


@pytest.mark.parametrize(
    ("method", "still"), [("sphere", {"jitter": 0.0}), ("angle", {"rate": 0.0})]
)
def test_zero_jitter_keeps_the_target_angle_to_the_heading(method, still):
    sim = simulation(group(method, count=300, **still), enclosure=OPEN_SPACE, seed=8)

    def angle():
        offset = sim.wander_points - sim.positions
        return dot(offset, sim.headings) / lengths(offset)

    sim.step()
    start = angle()
    for _ in range(600):
        sim.step()
    np.testing.assert_allclose(angle(), start, atol=1e-9)


def test_heading_passes_straight_up_and_down_without_a_flip():
    sim = simulation(
        group("sphere", count=4, jitter=0.0, distance=10.0, radius=10.0), enclosure=OPEN_SPACE
    )
    # Start level along x with the target straight above: the agent loops in the x-y plane,
    # through straight up and straight down, the case that breaks frames built on world up.
    sim._headings[:] = (1.0, 0.0, 0.0)
    sim._velocities[:] = (20.0, 0.0, 0.0)
    sim._sides[:] = (0.0, 0.0, 1.0)
    sim._wander_dirs[:] = (0.0, 1.0, 0.0)
    sim.step()
    max_turn = 0.0
    reached = {"up": False, "down": False}
    first = None
    for _ in range(2000):
        before = sim.headings.copy()
        sim.step()
        offset = sim.wander_points - sim.positions
        cos = dot(offset, sim.headings) / lengths(offset)
        first = cos if first is None else first
        np.testing.assert_allclose(cos, first, atol=1e-9)
        max_turn = max(max_turn, float(np.arccos(np.clip(dot(before, sim.headings), -1, 1)).max()))
        reached["up"] |= bool((sim.headings[:, 1] > 0.9999).any())
        reached["down"] |= bool((sim.headings[:, 1] < -0.9999).any())
        assert np.abs(sim.headings[:, 2]).max() < 1e-9  # stays in its plane
    assert reached == {"up": True, "down": True}
    # Force 10 at speed 20 gives at most 0.5 rad/s: a flip would show as a large one-step turn.
    assert max_turn <= 0.5 * sim.dt * 1.05


def test_same_seed_gives_a_bit_identical_run_and_another_seed_does_not():
    def run(seed):
        sim = simulation(*all_methods(count=40, trail_length=20), enclosure=SMALL_BOX, seed=seed)
        sim.step(300)
        return sim

    a, b, c = run(11), run(11), run(12)
    for name in ("positions", "velocities", "wander_points", "forces", "headings"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for g in range(len(METHODS)):
        assert np.array_equal(a.trails(g).points, b.trails(g).points)
    assert not np.array_equal(a.positions, c.positions)


def test_reset_restarts_the_identical_run():
    sim = simulation(*all_methods(count=20), enclosure=SMALL_BOX, seed=13)
    sim.step(50)
    first = sim.positions.copy()
    sim.step(50)
    sim.reset()
    assert sim.step_count == 0 and sim.time == 0.0
    sim.step(50)
    assert np.array_equal(sim.positions, first)


@pytest.mark.parametrize("method", METHODS)
def test_turn_rate_does_not_depend_on_the_step_rate(method):
    def mean_turn_rate(dt):
        sim = simulation(group(method, count=400), enclosure=OPEN_SPACE, dt=dt, seed=21)
        return turn_rates(sample_headings(sim, seconds=12.0, interval=0.2), 0.2).mean()

    coarse, fine = mean_turn_rate(1 / 30), mean_turn_rate(1 / 120)
    assert coarse > 0.0
    assert abs(coarse - fine) / fine < 0.08


@pytest.mark.parametrize("steering", ["force", "desired"])
def test_agents_at_rest_start_moving_without_nan(steering):
    groups = tuple(
        dataclasses.replace(g, initial_speed=0.0) for g in all_methods(count=30, steering=steering)
    )
    sim = simulation(*groups, enclosure=SMALL_BOX, seed=9)
    assert np.all(sim.velocities == 0.0)
    assert np.isfinite(sim.wander_points).all()
    sim.step(120)
    for name in ("positions", "velocities", "headings", "wander_points", "forces"):
        assert np.isfinite(getattr(sim, name)).all(), name
    assert lengths(sim.velocities).min() > 1.0


def test_heading_survives_a_velocity_of_exactly_zero():
    sim = simulation(group("sphere", count=5, jitter=0.0), enclosure=OPEN_SPACE)
    sim._velocities[:] = 0.0
    sim._forces[:] = 0.0
    before = sim.headings.copy()
    # With zero force and zero velocity nothing moves; the heading must be kept, not NaN.
    sim.update_group(0, dataclasses.replace(sim.groups[0], max_force=1e-300))
    sim.step()
    assert np.isfinite(sim.headings).all()
    np.testing.assert_allclose(lengths(sim.headings), 1.0)
    np.testing.assert_allclose(sim.headings, before, atol=1e-12)


@pytest.mark.parametrize("steering", ["force", "desired"])
def test_steering_modes_compute_the_documented_force(steering):
    # Without jitter the target a step steers by is the one shown before the step.
    sim = simulation(
        group("sphere", count=100, steering=steering, jitter=0.0), enclosure=OPEN_SPACE
    )
    g = sim.groups[0]
    for _ in range(5):
        pos, vel, heading = sim.positions.copy(), sim.velocities.copy(), sim.headings.copy()
        to_target = sim.wander_points - pos
        sim.step()
        if steering == "force":
            expected = to_target
        else:
            expected = normalize(to_target, heading) * g.max_speed - vel
        expected *= np.minimum(1.0, g.max_force / lengths(expected))[:, None]
        np.testing.assert_allclose(sim.forces, expected, rtol=1e-9, atol=1e-9)


def test_vertical_damping_flattens_paths_from_the_start_and_keeps_turning_lively():
    def run(vertical):
        sim = simulation(
            group("sphere", count=1000, vertical=vertical), enclosure=OPEN_SPACE, seed=2
        )
        headings = sample_headings(sim, seconds=10.0, interval=0.1)
        return np.abs(headings[:20, :, 1]).mean(), np.abs(yaw_rates(headings, 0.1)).mean()

    tall_vertical, tall_yaw = run(1.0)
    flat_vertical, flat_yaw = run(0.2)
    assert flat_vertical < 0.3 * tall_vertical
    assert flat_yaw >= 0.9 * tall_yaw


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("vertical", [1.0, 0.2])
def test_turning_has_no_preferred_side(method, vertical):
    sim = simulation(group(method, count=1000, vertical=vertical), enclosure=OPEN_SPACE, seed=17)
    yaw = yaw_rates(sample_headings(sim, seconds=15.0, interval=0.1), 0.1)
    per_agent = yaw.mean(axis=0)
    standard_error = per_agent.std() / np.sqrt(len(per_agent))
    # A real bias (a preferred side) shows as a drift of a good fraction of the turn rate;
    # chance alone stays within a few standard errors.
    assert abs(per_agent.mean()) < 4 * standard_error + 1e-9
    assert abs(per_agent.mean()) < 0.1 * np.abs(yaw).mean()


def test_vertical_zero_keeps_agents_level():
    sim = simulation(*all_methods(count=30, vertical=0.0), enclosure=OPEN_SPACE, seed=5)
    sim.step(300)
    np.testing.assert_allclose(sim.velocities[:, 1], 0.0, atol=1e-9)


def test_seek_repicks_its_target_every_interval():
    sim = simulation(group("seek", count=50, interval=2.0), enclosure=SMALL_BOX, seed=3)
    changes = np.zeros(sim.count)
    previous = sim.wander_points.copy()
    for _ in range(round(10.0 / sim.dt)):
        sim.step()
        changes += np.any(sim.wander_points != previous, axis=1)
        previous = sim.wander_points.copy()
    assert np.all((changes >= 4) & (changes <= 6))
    low, high = sim.bounds
    assert np.all(previous >= low + 8.0) and np.all(previous <= high - 8.0)


def test_noise_target_moves_smoothly():
    sim = simulation(group("noise", count=200), enclosure=OPEN_SPACE, seed=3)
    steps = []
    previous = sim.wander_points - sim.wander_centers
    for _ in range(300):
        sim.step()
        offset = sim.wander_points - sim.wander_centers
        steps.append(lengths(offset - previous).max())
        previous = offset
    # At 0.3 Hz the target sweeps at most a few radians per second: tiny per 1/60 s step.
    assert max(steps) < 0.1 * sim.groups[0].wander.radius


def test_memory_does_not_grow_with_run_time():
    sim = simulation(*all_methods(count=40, trail_length=30), enclosure=SMALL_BOX)
    start = sim.nbytes
    sim.step(1000)
    assert sim.nbytes == start
    for g in range(len(METHODS)):
        assert sim.trails(g).points.shape == (40, 30, 3)


def test_trails_are_ordered_and_broken_at_reflections():
    g = dataclasses.replace(group("random", count=100, trail_length=50), max_speed=90.0)
    g = dataclasses.replace(g, trail_seconds=5.0)  # at dt 0.05: a point every 2 steps
    # No margin, no containment: agents reach the walls (containment would turn them in time).
    sim = simulation(g, enclosure=dataclasses.replace(SMALL_BOX, margin=0.0), dt=0.05)
    sim.step(400)
    trail = sim.trails(0)
    assert trail.points.shape == (100, 50, 3)
    np.testing.assert_allclose(trail.points[:, -1], sim.positions, rtol=1e-6, atol=1e-4)
    segment = lengths((trail.points[:, 1:] - trail.points[:, :-1]).reshape(-1, 3))
    connected = trail.connected.reshape(-1)
    # Joined segments cover at most two steps at max speed; reflections are broken, not drawn.
    assert segment[connected].max() <= 90.0 * 0.05 * 2 * (1 + 1e-5)
    assert (~connected).sum() > 0


def test_trail_fills_up_before_wrapping():
    g = dataclasses.replace(group("sphere", count=3, trail_length=10), trail_seconds=20 / 60)
    sim = simulation(g, enclosure=OPEN_SPACE)  # a point every 2 steps
    assert sim.trails(0).points.shape == (3, 1, 3)
    sim.step(4)
    assert sim.trails(0).points.shape == (3, 3, 3)
    sim.step(100)
    assert sim.trails(0).points.shape == (3, 10, 3)


def test_live_parameter_changes_apply_and_structural_ones_are_refused():
    sim = simulation(group("sphere", count=10), enclosure=SMALL_BOX)
    sim.update_wander(0, radius=5.0, distance=7.0)
    sim.step()
    np.testing.assert_allclose(lengths(sim.wander_points - sim.wander_centers), 5.0)
    np.testing.assert_allclose(lengths(sim.wander_centers - sim.positions), 7.0)
    sim.update_wander(0, method="seek")
    sim.step()
    assert np.isfinite(sim.positions).all()
    with pytest.raises(ValueError, match="count"):
        sim.update_group(0, dataclasses.replace(sim.groups[0], count=11))
    sim.reset()
    assert sim.groups[0].wander.method == "sphere"


@pytest.mark.parametrize("method", ["angle", "noise"])
def test_wall_turns_last_for_every_persistent_method(method):
    # A target turned inward at a wall must stay turned (the tutorials reset the wander angle),
    # not snap back and steer the agent into the wall again: no more time near the walls
    # than the sphere method spends.
    def near_wall_fraction(m):
        sim = simulation(group(m, count=200), enclosure=Enclosure(), seed=6)
        low, high = sim.bounds
        band = 15.0
        total = 0.0
        for _ in range(120):
            sim.step(10)
            near = (sim.positions < low + band) | (sim.positions > high - band)
            total += near.any(axis=1).mean()
        return total / 120

    assert near_wall_fraction(method) < 1.3 * near_wall_fraction("sphere")


@pytest.mark.parametrize("new_method", ["angle", "noise"])
def test_switching_to_a_framed_method_mid_run_starts_from_a_clean_frame(new_method):
    sim = simulation(group("sphere", count=50, jitter=30.0), enclosure=SMALL_BOX, seed=4)
    sim.step(500)  # sphere agents do not carry the side vector
    sim.update_wander(0, method=new_method)
    side, heading = sim._sides, sim.headings
    np.testing.assert_allclose(lengths(side), 1.0)
    np.testing.assert_allclose(dot(side, heading), 0.0, atol=1e-12)
    sim.step(200)
    np.testing.assert_allclose(dot(sim._sides, sim.headings), 0.0, atol=1e-9)
    np.testing.assert_allclose(lengths(sim.wander_points - sim.wander_centers), 12.0)


def _run_fingerprint(batches):
    sim = simulation(*all_methods(count=40, trail_length=16), enclosure=SMALL_BOX, seed=21)
    for n in batches:
        sim.step(n)
    return sim


def test_a_run_does_not_depend_on_how_steps_are_batched():
    one_by_one = _run_fingerprint([1] * 120)
    batched = _run_fingerprint([7, 60, 1, 52])
    for name in ("positions", "velocities", "headings", "wander_points", "forces"):
        assert np.array_equal(getattr(one_by_one, name), getattr(batched, name)), name
    for g in range(len(METHODS)):
        a, b = one_by_one.trails(g), batched.trails(g)
        assert np.array_equal(a.points, b.points) and np.array_equal(a.connected, b.connected)


def test_a_run_does_not_depend_on_the_thread_count():
    script = (
        "import sys; sys.path.insert(0, 'tests');"
        "import hashlib, numpy as np;"
        "from test_engine_simulation import _run_fingerprint;"
        "sim = _run_fingerprint([30, 30]);"
        "print(hashlib.sha256(sim.positions.tobytes() + sim.velocities.tobytes()).hexdigest())"
    )
    digests = set()
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=Path(__file__).parent.parent,
        )
        assert done.returncode == 0, done.stderr
        digests.add(done.stdout.strip())
    assert len(digests) == 1


def _target_turn_degrees(sim):
    """Largest one-step turn (degrees) of the target's direction from the sphere centre."""
    before = normalize(sim.wander_points - sim.wander_centers, sim.headings)
    sim.step()
    after = normalize(sim.wander_points - sim.wander_centers, sim.headings)
    return np.degrees(np.arccos(np.clip(dot(before, after), -1.0, 1.0))).max()


def test_changing_the_noise_frequency_keeps_each_target_where_it_is():
    sim = simulation(group("noise", count=200), enclosure=OPEN_SPACE, seed=2)
    sim.step(6000)  # 100 s in: a new frequency would move far along the noise curve
    sim.update_wander(0, frequency=0.35)
    assert _target_turn_degrees(sim) < 10.0


def test_parameter_changes_show_at_once_while_paused():
    sim = simulation(group("sphere", count=30), group("seek", count=30), enclosure=SMALL_BOX)
    sim.step(10)
    sim.update_wander(0, radius=25.0, distance=5.0)
    sl = sim.group_slices[0]
    np.testing.assert_allclose(lengths((sim.wander_points - sim.wander_centers)[sl]), 25.0)
    np.testing.assert_allclose(lengths((sim.wander_centers - sim.positions)[sl]), 5.0)


def test_a_shorter_seek_interval_applies_now():
    sim = simulation(group("seek", count=50, interval=20.0), enclosure=SMALL_BOX, seed=1)
    sim.step(10)
    sim.update_wander(0, interval=0.5)
    first = sim.wander_points.copy()
    sim.step(round(0.6 / sim.dt))
    assert np.all(np.any(sim.wander_points != first, axis=1))


def test_adopted_groups_are_what_reset_returns_to():
    sim = simulation(group("sphere", count=10), enclosure=SMALL_BOX)
    sim.update_wander(0, radius=4.0)
    edited = sim.groups
    sim.update_wander(0, radius=9.0)
    sim.adopt_groups(edited)
    sim.reset()
    assert sim.groups[0].wander.radius == 4.0
    with pytest.raises(ValueError, match="count"):
        sim.adopt_groups((dataclasses.replace(edited[0], count=11),))
