"""The timeline (no Qt): seeking re-simulates from checkpoints bit for bit, edits included."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from wander3d.engine import Enclosure, Simulation
from wander3d.session import PathTracer, Timeline

from engine_support import group, run_spec, simulation

BOX = Enclosure(min=(-40, -20, -40), max=(40, 20, 40), margin=6.0)
GROUPS = (group("sphere", count=20, trail_length=12), group("noise", count=10, trail_length=5))
# step -> (group, changes to its wander parameters: each field's own type)
EDITS: dict[int, tuple[int, dict[str, Any]]] = {
    37: (0, {"radius": 2.0, "jitter": 25.0}),
    90: (1, {"method": "seek", "interval": 0.3}),
}


def _sim():
    return simulation(*GROUPS, enclosure=BOX, dt=1 / 30)


def _edit(target, step: int) -> None:
    g, changes = EDITS[step]
    params = target.sim.groups[g] if hasattr(target, "sim") else target.groups[g]
    params = dataclasses.replace(params, wander=dataclasses.replace(params.wander, **changes))
    if hasattr(target, "sim"):
        target.edit(g, params)
    else:
        target.update_group(g, params)


def _reference(until: int, edits: bool = True) -> dict[int, dict[str, np.ndarray]]:
    """States of a plain run (with EDITS if `edits`), at every step up to `until`."""
    sim = _sim()
    states = {}
    for s in range(until + 1):
        if edits and s in EDITS:
            _edit(sim, s)
        states[s] = _state(sim)
        sim.step(1)
    return states


def _state(sim) -> dict[str, np.ndarray]:
    state = {k: a.copy() for k, a in sim._state_arrays().items()}
    state["trail"] = sim.trails(0).points
    return state


def _assert_state(sim, expected) -> None:
    got = _state(sim)
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def _recorded(until: int, seconds: float = 0.5) -> Timeline:
    timeline = Timeline(_sim(), seconds=seconds)
    while timeline.sim.step_count < until:
        s = timeline.sim.step_count
        if s in EDITS:
            _edit(timeline, s)
        stop = min([s + 7, until] + [e for e in EDITS if e > s])
        timeline.advance(stop - s)
    return timeline


def test_seeking_anywhere_gives_the_run_bit_for_bit():
    reference = _reference(160)
    timeline = _recorded(160)
    assert timeline.head == 160 and len(timeline.checkpoints) == 11  # every 15 steps
    for step in (0, 3, 37, 36, 90, 91, 160, 15, 89, 120, 44):
        assert timeline.seek(step) == step
        _assert_state(timeline.sim, reference[step])
        assert timeline.sim.groups == reference_groups(step)


def reference_groups(step: int):
    sim = _sim()
    for s in sorted(EDITS):
        if s <= step:
            _edit(sim, s)
    return sim.groups


def test_playing_from_the_past_replays_the_recorded_edits():
    reference = _reference(160)
    timeline = _recorded(160)
    timeline.seek(20)
    timeline.advance(140)
    _assert_state(timeline.sim, reference[160])
    assert timeline.head == 160


def test_an_edit_in_the_past_truncates_the_timeline_there():
    timeline = _recorded(160)
    timeline.seek(50)
    version = timeline.version
    params = dataclasses.replace(timeline.sim.groups[0], max_speed=7.0)
    timeline.edit(0, params)
    assert timeline.head == 50 and timeline.version == version + 1
    assert max(timeline.checkpoints) <= 50
    assert [e.step for e in timeline.edits] == [37, 50]
    assert timeline.seek(140) == 50  # the dropped future is gone
    timeline.advance(60)
    assert timeline.head == 110 and timeline.sim.groups[0].max_speed == 7.0
    # And the new history is itself reproducible.
    after = _state(timeline.sim)
    timeline.seek(45)
    timeline.seek(110)
    _assert_state(timeline.sim, after)


def test_checkpoints_thin_out_to_stay_within_the_budget():
    one = _sim().snapshot().nbytes
    timeline = Timeline(_sim(), seconds=0.1, budget=6 * one)
    timeline.advance(300)
    assert timeline.nbytes <= 6 * one
    assert timeline.interval > 3 and all(k % timeline.interval == 0 for k in timeline.checkpoints)
    states = _reference(300, edits=False)
    for step in (299, 11, 150):
        timeline.seek(step)
        _assert_state(timeline.sim, states[step])


def test_a_scene_too_big_for_the_budget_has_no_timeline():
    timeline = Timeline(_sim(), budget=100)
    assert not timeline.enabled and not timeline.checkpoints
    timeline.advance(20)
    assert timeline.seek(3) == 20 and timeline.head == 20


def test_the_path_tracer_records_every_step_of_one_agent():
    agent = 24  # in the second group, which changes method at step 90
    timeline = _recorded(160)
    tracer = PathTracer(timeline, agent)
    while not tracer.done:
        tracer.trace(1.0)
    reference = _reference(160)
    expected = np.array([reference[s]["_positions"][agent] for s in range(161)], np.float32)
    np.testing.assert_array_equal(tracer.points, expected)
    assert tracer.breaks.shape == (161,)


def test_the_path_tracer_needs_a_timeline_from_the_start():
    sim = _sim()
    sim.step(3)
    with pytest.raises(ValueError):
        PathTracer(Timeline(sim), 0)


def test_the_path_tracer_steps_on_the_live_simulations_threads():
    live = Simulation(run_spec(*GROUPS, enclosure=BOX, dt=1 / 30), threads=1)
    assert PathTracer(Timeline(live), 0).sim.threads == 1
