"""The session (no Qt): one owner of the running simulation, commands run in order on its
engine thread, events on the owner's thread, and no edit ever lost."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from scene_support import REPO, write

from wander3d.engine import GroupParams, Simulation
from wander3d.scene import MemoryFitError, SceneError, load_scene
from wander3d.session import Display, Session, TrailSamples

SCENE = """
[scene]
name = "Session"
seed = 4
dt = 0.02

[enclosure]
min = [-40, -20, -40]
max = [40, 20, 40]
margin = 6.0

[[groups]]
name = "a"
count = 30
trail_length = 10

[groups.wander]
method = "sphere"

[[groups]]
name = "b"
count = 12
trail_length = 4

[groups.wander]
method = "noise"
"""


@pytest.fixture
def scene(tmp_path):
    return load_scene(write(tmp_path, SCENE))


@pytest.fixture
def session(scene):
    s = Session(scene)
    yield s
    s.close()


@pytest.fixture
def built(monkeypatch) -> list[Simulation]:
    """The simulations sessions build from now on, newest last (no one outside the session
    may hold them: the test looks behind its back)."""
    simulations: list[Simulation] = []

    class Recorded(Simulation):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            simulations.append(self)

    monkeypatch.setattr("wander3d.session.session.Simulation", Recorded)
    return simulations


def test_the_session_steps_on_the_threads_it_was_given(scene, built):
    s = Session(scene, threads=1)
    try:
        assert built[-1].threads == 1 and s.threads == 1
        s.open(scene)
        assert len(built) == 2 and built[-1].threads == 1
    finally:
        s.close()


def _slow_steps(monkeypatch, seconds: float = 0.002) -> None:
    """Keep the engine busy: every kernel call takes at least `seconds`."""
    original = Simulation.step

    def slow(sim, n=1):
        time.sleep(seconds)
        original(sim, n)

    monkeypatch.setattr(Simulation, "step", slow)


def test_two_edits_within_one_frame_both_land_every_time(scene, built, monkeypatch):
    """The app once built each edit from the groups it had last seen: a second edit made
    before the first reached the engine put the first one's field back."""
    session = Session(scene)
    _slow_steps(monkeypatch)
    rng = np.random.default_rng(0)
    for _ in range(40):
        session.dispatch(steps=3)  # the engine is stepping while the edits come in
        jitter, radius = rng.uniform(1.0, 30.0, 2)
        session.edit(0, jitter=jitter)
        session.edit(0, radius=radius)
        session.edit(1, max_speed=jitter)
        session.settle()
        group, other = session.groups
        assert (group.wander.jitter, group.wander.radius) == (jitter, radius)
        assert other.max_speed == jitter
        # And they landed in the simulation itself, not only in what was published.
        assert built[-1].groups == session.groups
    session.close()


def test_commands_run_in_the_order_asked(session, scene):
    session.advance(10)
    session.edit(0, radius=3.0)
    session.advance(5)
    session.seek(10)
    session.settle()
    reference = Simulation(scene.run_spec)
    reference.step(10)
    assert session.step == 10 and session.head == 15
    positions, velocities = session.state.current
    np.testing.assert_array_equal(positions, reference.positions.astype(np.float32))
    np.testing.assert_array_equal(velocities, reference.velocities.astype(np.float32))
    # The edit was logged at step 10: the moment shown has it applied.
    assert session.groups[0].wander.radius == 3.0


def test_events_come_on_the_owners_thread_and_state_is_a_copy(session):
    threads, states = [], []
    session.events.state_changed.connect(lambda: threads.append(threading.current_thread()))
    session.events.state_changed.connect(lambda: states.append(session.state))
    session.advance(3)
    session.settle()
    assert threads and all(t is threading.main_thread() for t in threads)
    positions = states[-1].current[0]
    session.advance(3)
    session.settle()
    assert not np.array_equal(positions, session.state.current[0])  # the old copy kept


def test_groups_changed_fires_for_edits_and_resets_only(session):
    seen: list[tuple[GroupParams, ...]] = []
    session.events.groups_changed.connect(seen.append)
    session.advance(4)
    session.settle()
    assert seen == []
    session.edit(1, frequency=1.5)
    session.settle()
    assert seen[-1][1].wander.frequency == 1.5
    session.reset()
    session.settle()
    assert seen[-1] == session.scene.groups and session.step == 0


def test_bad_edits_are_refused_before_anything_is_queued(session):
    with pytest.raises(SceneError, match=r"groups\[0\]\.wander\.radius"):
        session.edit(0, radius=-1.0)
    with pytest.raises(ValueError, match="count cannot change"):
        session.edit(0, count=5)
    with pytest.raises(ValueError, match="not a group or wander parameter"):
        session.edit(0, colour="red")
    assert not session.busy


def test_a_lowered_speed_limit_takes_the_start_speed_down_with_it(session):
    session.edit(0, initial_speed=30.0)
    session.edit(0, max_speed=10.0)
    session.settle()
    assert session.groups[0].initial_speed == 10.0
    session.current_scene()  # still a valid scene


def test_the_path_of_the_selected_agent_is_traced_on_the_engine(session, scene):
    session.advance(40)
    session.settle()
    session.select(33)
    session.set_path(True)
    while session.wants_work:
        session.dispatch()
        session.wait(5.0)
        session.collect()
    points, _breaks = session.path
    reference = Simulation(scene.run_spec)
    expected = [reference.positions[33].copy()]
    for _ in range(40):
        reference.step(1)
        expected.append(reference.positions[33].copy())
    np.testing.assert_array_equal(points, np.array(expected, np.float32))
    session.select(None)
    assert session.path is None
    # Selected again while the engine idled: the traced path comes back (it never did, and
    # the session asked for tracing forever).
    session.select(33)
    for _ in range(20):
        if not session.wants_work:
            break
        session.dispatch()
        session.wait(5.0)
        session.collect()
    assert not session.wants_work and session.path is not None
    np.testing.assert_array_equal(session.path[0], points)


def test_display_toggles_are_part_of_the_running_scene(session):
    seen: list[Display] = []
    session.events.display_changed.connect(seen.append)
    assert not session.modified
    session.set_display(trails=False)
    session.set_group_visible(1, False)
    assert seen[-1].hidden_groups == {1} and not seen[-1].trails
    assert session.modified and session.current_scene().view.show_trails is False


def test_a_saved_scene_is_what_reset_returns_to(session):
    session.edit(0, jitter=3.0)
    session.settle()
    saved = session.current_scene()
    session.edit(0, jitter=7.0)  # made after the save: not what R returns to
    session.mark_saved(saved)
    session.settle()
    session.reset()
    session.settle()
    assert session.groups[0].wander.jitter == 3.0 and not session.modified


def test_opening_another_scene_drops_the_old_runs_work(session, scene, monkeypatch):
    _slow_steps(monkeypatch, 0.05)
    session.advance(5)  # in flight against the old simulation
    other = scene.replace(groups=scene.groups[:1])
    changed: list[bool] = []
    session.events.simulation_changed.connect(changed.append)
    session.open(other)
    session.settle()
    assert changed == [False] and session.agent_count == 30 and session.step == 0
    with pytest.raises(ValueError, match="no agent 30"):
        session.select(30)


def test_the_session_imports_no_gui():
    code = (
        "import sys, wander3d.session; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PyQt6', 'vispy')))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


def test_a_scene_too_big_for_this_machine_is_refused_and_the_old_one_kept(
    session, scene, monkeypatch
):
    monkeypatch.setattr("wander3d.scene.memory.memory_budget", lambda: (10_000, "a test budget"))
    with pytest.raises(MemoryFitError, match="a test budget"):
        session.open(scene.replace(name="Huge"))
    assert session.scene.name == "Session"
    session.advance(2)
    session.settle()
    assert session.step == 2


def test_resizing_a_group_restarts_the_run_and_counts_as_an_edit(session, scene):
    session.edit(1, jitter=3.0, method="sphere")  # a live edit first: it is kept
    session.advance(20)
    session.settle()
    seen = []
    session.events.groups_changed.connect(lambda groups: seen.append(session.modified))
    session.resize_group(0, count=50, trail_length=20)
    assert session.agent_count == 50 + 12 and session.step == 0
    assert session.groups[0].count == 50 and session.groups[0].trail_length == 20
    assert session.groups[1].wander.method == "sphere" and session.groups[1].wander.jitter == 3.0
    assert session.modified and seen[-1]
    assert session.scene.groups[0].count == 30  # the file's scene is unchanged
    saved = session.current_scene()
    assert saved.groups[0].count == 50 and saved.source == scene.source
    with pytest.raises(ValueError, match="edit it live"):
        session.resize_group(0, max_speed=3.0)
    with pytest.raises(SceneError):
        session.resize_group(0, count=0)
    assert session.agent_count == 62


def test_the_sessions_settings_are_read_only_outside(session):
    """Only the session's methods change what it shows and plays, and they announce it."""
    for name, value in [
        ("running", True),
        ("speed", 2.0),
        ("selected", 3),
        ("display", Display(trails=False)),
        ("state", None),
        ("path", None),
        ("layout", None),
    ]:
        with pytest.raises(AttributeError):
            setattr(session, name, value)
    seen: list[bool] = []
    session.events.running_changed.connect(seen.append)
    session.set_running(True)
    assert session.running and seen == [True]


def test_published_states_are_read_only_copies(session):
    session.select(3)
    session.advance(5)
    session.settle()
    state = session.state
    arrays = [*state.current, *state.previous, state.overlay.positions, state.overlay.forces]
    arrays += [a for t in state.trails for a in (t.points, t.breaks)]
    for array in arrays:
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[...] = 0
    kept = state.current[0].copy()
    session.advance(5)
    session.settle()
    np.testing.assert_array_equal(state.current[0], kept)  # the engine never wrote into it


def _mirror(rings: dict, state, layout) -> None:
    """Apply `state`'s trail publications to `rings` (per group: generation, written, ring)
    as a renderer does; a publication that does not follow on is an error."""
    for g, samples in enumerate(state.trails):
        if samples is None:
            continue
        capacity, _ = layout.trails[g]
        generation, written, ring = rings.get(g, (None, 0, None))
        if not samples.whole:
            assert (samples.generation, samples.first) == (generation, written), g
        else:
            ring = np.zeros((capacity, *samples.points.shape[1:]), np.float32)
        ring[np.arange(samples.first, samples.written) % capacity] = samples.points
        rings[g] = (samples.generation, samples.written, ring)


def _ring_of(sim: Simulation, group: int) -> np.ndarray:
    buffer = sim.trail_buffers[group]
    ring = np.zeros_like(buffer.slots)
    filled = buffer.ordered_slots()
    ring[filled] = buffer.slots[filled]
    return ring


def _trails(session: Session) -> tuple[TrailSamples, ...]:
    """Every group's trail publication in the session's last state (each must have one)."""
    trails = session.state.trails
    assert all(t is not None for t in trails), "a group published no trail"
    return tuple(t for t in trails if t is not None)


def test_trail_publications_rebuild_the_engines_rings(scene):
    """Each state brings the trail samples since the last (a hidden group none; it catches
    up when shown), or whole rings after a jump: applied in order, they are the rings."""
    a, b = scene.groups  # trails of a sample a step, 40 and 4 long
    a = dataclasses.replace(a, trail_length=40, trail_seconds=40 * scene.dt)
    b = dataclasses.replace(b, trail_length=4, trail_seconds=4 * scene.dt)
    scene = scene.replace(groups=(a, b))
    session = Session(scene)
    rings: dict = {}
    session.events.state_changed.connect(lambda: _mirror(rings, session.state, session.layout))
    _mirror(rings, session.state, session.layout)
    reference = Simulation(scene.run_spec)

    def check(step: int, shown: tuple[int, ...]) -> None:
        while reference.step_count < step:
            reference.step(1)
        for g in shown:
            assert session.state.trails[g] is not None
            np.testing.assert_array_equal(rings[g][2], _ring_of(reference, g), err_msg=str(g))

    for _ in range(6):
        session.advance(3)
    session.settle()
    check(18, (0, 1))
    assert not any(t.whole for t in _trails(session))
    assert len(_trails(session)[0].points) == 3
    session.set_group_visible(1, False)
    session.advance(2)
    session.settle()
    assert session.state.trails[1] is None
    check(20, (0,))
    session.set_group_visible(1, True)  # publishes at once, with the samples it missed
    session.settle()
    assert not _trails(session)[1].whole
    check(20, (0, 1))
    session.advance(30)  # more than group 1's ring holds: whole
    session.settle()
    assert _trails(session)[1].whole and not _trails(session)[0].whole
    check(50, (0, 1))
    session.seek(12)  # a jump back: the rings start again, whole
    session.settle()
    assert all(t.whole for t in _trails(session))
    reference = Simulation(scene.run_spec)
    check(12, (0, 1))
    session.resend_trails()
    session.settle()
    assert all(t.whole for t in _trails(session))
    session.close()


def test_toggles_and_selection_publish_the_overlay_they_ask_for(session):
    """Paused, a toggle or a selection is published at once: the overlay's arrays cover
    what is shown now (the selected agent; every agent of the groups of up to 64)."""
    session.select(7)
    session.settle()
    assert session.state.overlay.agents.tolist() == [7]
    session.set_display(overlay_all=True)
    session.settle()
    assert session.state.overlay.agents.tolist() == list(range(42))
    session.set_group_visible(0, False)
    session.settle()
    assert session.state.overlay.agents.tolist() == list(range(30, 42))
    session.set_display(overlay=False, overlay_all=False)
    session.settle()
    assert len(session.state.overlay.agents) == 0


def test_an_edit_that_no_longer_fits_the_live_groups_is_refused_on_the_engine(session):
    """Each edit was valid against the groups collected when it was asked for; applied
    after the one before it, the second is not (two groups of one name): the engine thread
    checks again, changes nothing and says why."""
    rejected: list[str] = []
    session.events.edit_rejected.connect(rejected.append)
    session.edit(0, name="twin")
    session.edit(1, name="twin")  # checked against group 0 still named "a"
    session.settle()
    assert [g.name for g in session.groups] == ["twin", "b"]
    assert len(rejected) == 1 and "duplicate group name" in rejected[0]
    session.current_scene()  # the running scene is still a valid one


def test_a_burst_of_seeks_runs_only_the_last(session, monkeypatch):
    from wander3d.session import jobs

    session.advance(30)
    session.settle()
    ran: list[int] = []
    original = jobs.Seek.apply

    def apply(job, run):
        ran.append(job.step)
        return original(job, run)

    monkeypatch.setattr(jobs.Seek, "apply", apply)
    _slow_steps(monkeypatch, 0.05)
    session.advance(2)  # in flight while the seeks come in
    for step in (5, 9, 14):
        session.seek(step)
    session.settle()
    assert ran == [14] and session.step == 14
