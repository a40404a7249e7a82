"""Snapshot and restore: going back to a saved state and stepping on gives the run bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from wander3d.engine import Enclosure

from engine_support import group, simulation

BOX = Enclosure(min=(-40, -20, -40), max=(40, 20, 40), margin=6.0)


def _groups():
    return (
        group("sphere", count=30, trail_length=24),
        group("angle", count=20, trail_length=9),
        group("noise", count=20, trail_length=0),
        group("seek", count=10, trail_length=5),
        group("random", count=10, trail_length=7),
    )


def _state(sim) -> dict[str, np.ndarray]:
    state = {k: a.copy() for k, a in sim._state_arrays().items()}
    for g in range(len(sim.groups)):
        view = sim.trails(g)
        state[f"trail{g}"] = view.points
        state[f"connected{g}"] = view.connected
    return state


def _assert_same(a, b) -> None:
    assert a.step_count == b.step_count and a.groups == b.groups
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for key in sa:
        np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)


def test_restore_then_step_reproduces_the_run_bit_for_bit():
    run = simulation(*_groups(), enclosure=BOX)
    run.step(137)
    snap = run.snapshot()
    run.step(211)  # long enough to wrap every trail ring and hit walls

    other = simulation(*_groups(), enclosure=BOX)
    other.step(5)
    other.restore(snap)
    other.step(100)
    other.step(111)
    _assert_same(run, other)


def test_a_snapshot_carries_live_edits_and_the_method_rng():
    run = simulation(*_groups(), enclosure=BOX)
    run.step(40)
    run.update_wander(0, radius=2.5, jitter=30.0)
    snap = run.snapshot()
    # A method change draws a fresh starting state from the generator: it must match too.
    run.update_wander(1, method="seek", interval=0.5)
    run.step(90)

    other = simulation(*_groups(), enclosure=BOX)
    other.restore(snap)
    assert other.groups[0].wander.radius == 2.5
    other.update_wander(1, method="seek", interval=0.5)
    other.step(90)
    _assert_same(run, other)


def test_restoring_the_past_and_the_snapshot_is_not_shared():
    sim = simulation(*_groups(), enclosure=BOX)
    start = sim.snapshot()
    first = sim.positions.copy()
    sim.step(50)
    assert not np.array_equal(sim.positions, first)
    sim.restore(start)
    assert sim.step_count == 0 and sim.time == 0.0
    np.testing.assert_array_equal(sim.positions, first)
    sim.step(50)
    np.testing.assert_array_equal(start.arrays["_positions"], first)  # the copy is untouched
    assert start.nbytes > 0


def test_a_snapshot_of_another_scene_is_refused():
    sim = simulation(group("sphere", count=5))
    other = simulation(group("sphere", count=6))
    with pytest.raises(ValueError, match="different scene"):
        sim.restore(other.snapshot())


def test_restore_starts_a_new_trail_generation():
    sim = simulation(group("sphere", count=5, trail_length=8))
    sim.step(3)
    snap = sim.snapshot()
    sim.step(20)
    generation = sim.trail_buffers[0].generation
    sim.restore(snap)
    trail = sim.trail_buffers[0]
    assert trail.generation == generation + 1
    assert trail.samples_written == 3 // trail.every + 1
