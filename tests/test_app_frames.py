"""The frame loop in the window: real-time pacing, interpolation, the worker thread, the
timeline and the whole-path view (real OpenGL on the virtual display)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import wait_engine_idle
from PyQt6.QtCore import QTimer

from wander3d.app.frame_loop import MAX_FRAME_GAP, TIMELINE_INTERVAL
from wander3d.engine import Simulation
from wander3d.render import SimulationView
from wander3d.scene import load_scene

pytestmark = [pytest.mark.gl, pytest.mark.app]

#: Enough agents for the stride to have room (1 in up to 6), few enough to step fast.
CROWD_SCENE = """
[scene]
name = "Crowd"
seed = 5
dt = 0.02

[enclosure]
min = [-60, -30, -60]
max = [60, 30, 60]

[[groups]]
name = "crowd"
count = 30000
trail_length = 0
"""


def _positions(scene, steps: int) -> np.ndarray:
    """(steps + 1, N, 3) positions of a plain run, one row per step."""
    sim = Simulation(scene)
    out = [sim.positions.copy()]
    for _ in range(steps):
        sim.step(1)
        out.append(sim.positions.copy())
    return np.array(out)


def test_the_loop_runs_in_simulated_real_time(window, qtbot):
    dt = window.sim.dt
    window.single_step()  # the engine's first call loads the compiled kernel: not timed
    qtbot.waitUntil(lambda: window.frames.step == 1, timeout=10000)
    wait_engine_idle(window, qtbot)
    window.set_running(True)
    start = time.perf_counter()
    qtbot.wait(1000)
    elapsed = time.perf_counter() - start
    steps = window.frames.step
    # Never faster than real time (plus the frame the engine works ahead); and not much
    # slower, for a scene this small, even on a loaded machine.
    assert steps <= (elapsed + MAX_FRAME_GAP) / dt + 2
    assert steps >= 0.5 * elapsed / dt


def test_frames_with_a_fake_clock_step_exactly_and_draw_between_steps(window, small_scene):
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    window.view.last_draw_ms = 0.0  # drawing is fast enough to draw between steps
    loop.set_running(True)
    reference = _positions(small_scene, 60)
    alphas = []
    for _ in range(60):  # 16 ms frames against 20 ms steps
        clock[0] += 0.016
        loop._frame()
        loop.worker.wait(5.0)
        c = loop.step
        alpha = loop.clock.alpha(c)
        if c >= 1:
            expected = reference[c - 1] + alpha * (reference[c] - reference[c - 1])
            drawn = window.view._shown_agents[0]
            np.testing.assert_allclose(drawn, expected.astype(np.float32), rtol=0, atol=1e-3)
            alphas.append(alpha)
    assert 47 <= loop.step <= 49  # 0.96 s of 0.02 s steps, plus the step worked ahead
    # Drawn between steps, not on them: a frame every 0.8 steps falls at 0.2, 0.4, 0.6 and
    # 0.8 of the way (and on a step every fifth frame, 0.0 or 1.0 as rounding has it).
    assert {round(a, 3) for a in alphas if 0.0 < a < 1.0} == {0.2, 0.4, 0.6, 0.8}


def test_frames_chain_by_themselves_and_are_paced(window, qtbot):
    loop = window.frames
    loop._watchdog.stop()  # only the chain of frames may drive the loop now
    draws = []
    window.view.canvas.events.draw.connect(lambda e: draws.append(time.perf_counter()))
    wait_engine_idle(window, qtbot)
    window.set_running(True)
    start = time.perf_counter()
    qtbot.wait(800)
    elapsed = time.perf_counter() - start
    assert len(draws) >= 5 and loop.step > 5
    rate = window.view.canvas.native.screen().refreshRate() or 60.0
    assert len(draws) <= 1.25 * rate * elapsed + 3  # no faster than the display


def test_frames_without_anything_new_to_draw_keep_the_chain_going(window, qtbot):
    """With the engine ahead of the display a frame draws nothing and so never swaps; the
    frames must go on regardless, not stall until the watchdog restarts them (at 10 fps)."""
    loop = window.frames
    loop._watchdog.stop()
    wait_engine_idle(window, qtbot)
    window.set_running(True)
    qtbot.waitUntil(lambda: loop.step >= 3, timeout=5000)
    wait_engine_idle(window, qtbot)
    loop.clock.shown -= 10 * loop.sim.dt  # the display 10 steps behind the engine
    stalled_at = loop.step
    draws = []
    window.view.canvas.events.draw.connect(lambda e: draws.append(1))
    qtbot.waitUntil(lambda: loop.step >= stalled_at + 10 and len(draws) >= 5, timeout=3000)


def test_after_a_long_frame_the_engine_works_ahead_by_a_usual_frame(window):
    """One long frame (a stall) must not send the engine that far ahead of the display:
    the agents would stand still until the display caught up."""
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    loop.set_running(True)
    dt = loop.sim.dt
    for _ in range(30):  # 16 ms frames
        clock[0] += 0.016
        loop._frame()
        loop.worker.wait(5.0)
    clock[0] += MAX_FRAME_GAP  # one long frame
    loop._frame()
    loop.worker.wait(5.0)
    clock[0] += 0.016
    loop._frame()  # collects the work asked for by the long frame
    loop.worker.wait(5.0)
    ahead_of_display = loop.step - loop.clock.shown / dt
    assert ahead_of_display <= 3  # a frame of 16 ms and the step drawn from; 12.5 before


def test_while_running_the_timeline_bar_follows_at_its_own_pace(window, qtbot):
    """The bar's widgets repaint about 10 times a second, not at every frame; pausing shows
    the exact step at once."""
    loop = window.frames
    shown = []
    loop.timelineChanged.connect(lambda step, head: shown.append(step))
    draws = []
    window.view.canvas.events.draw.connect(lambda e: draws.append(1))
    wait_engine_idle(window, qtbot)
    window.set_running(True)
    qtbot.wait(1000)
    assert len(draws) >= 20  # frames came faster than the bar
    assert 3 <= len(shown) <= 1 / TIMELINE_INTERVAL + 2
    window.set_running(False)
    wait_engine_idle(window, qtbot)
    bar = window.timeline_bar
    assert bar.slider.value() == loop.step and bar.slider.maximum() == loop.head
    assert f"{loop.step * loop.sim.dt:.2f} /" in bar.time_label.text()


def test_a_frames_drawing_time_counts_until_it_reaches_the_window(window, qtbot):
    """A software renderer rasterises after the draw calls return, while Qt swaps the
    canvas's buffers: the time the frame stops the GUI thread counts as drawing (it decides
    how many agents a huge scene draws)."""
    native = window.view.canvas.native
    # After the view's own end-of-draw handler, before the swap: a slow rasteriser.
    window.view.canvas.events.draw.connect(lambda event: time.sleep(0.06), position="last")
    shown = []
    native.frameSwapped.connect(lambda: shown.append(window.view.last_draw_ms))
    window.view.update()
    qtbot.waitUntil(lambda: len(shown) >= 1, timeout=5000)
    window.view.update()
    qtbot.waitUntil(lambda: len(shown) >= 2, timeout=5000)
    assert min(shown) >= 60.0


def test_the_gui_answers_while_a_long_step_runs(window, qtbot, monkeypatch):
    threads = []
    original = Simulation.step

    def slow_step(sim, n=1):
        threads.append(threading.current_thread())
        time.sleep(0.8)
        original(sim, n)

    monkeypatch.setattr(Simulation, "step", slow_step)
    window.single_step()
    qtbot.waitUntil(lambda: window.frames.worker.busy, timeout=2000)
    fired = []
    QTimer.singleShot(30, lambda: fired.append(window.frames.worker.busy))
    qtbot.waitUntil(lambda: bool(fired), timeout=3000)
    assert fired == [True]  # the GUI thread ran a timer while the step was in flight
    window.toggle_running()
    assert window.running  # and took input
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_the_status_bar_says_the_speed_reached_when_the_machine_cannot_keep_up(
    window, qtbot, monkeypatch
):
    original = Simulation.step

    def slow_step(sim, n=1):
        time.sleep(0.03 * n)  # at most 33 steps/s against 100 asked at x2
        original(sim, n)

    monkeypatch.setattr(Simulation, "step", slow_step)
    window.change_speed(+1)
    window.set_running(True)
    qtbot.waitUntil(lambda: "of real time" in window.status_label.text(), timeout=6000)
    assert "(asked x2)" in window.status_label.text()
    assert window.speed_label.text() == "x2"


def test_seeking_shows_the_run_bit_for_bit_and_a_past_edit_truncates(window, qtbot, small_scene):
    window.frames.seek(0)
    for _ in range(3):
        window.change_speed(+1)
    window.set_running(True)
    qtbot.waitUntil(lambda: window.frames.head >= 150, timeout=15000)
    window.set_running(False)
    wait_engine_idle(window, qtbot)
    head = window.frames.head
    bar = window.timeline_bar
    assert bar.slider.maximum() == head and bar.slider.value() == window.frames.step
    bar.slider.setValue(100)  # as the user's drag or keys do
    wait_engine_idle(window, qtbot)
    assert window.frames.step == 100 and not window.running
    reference = Simulation(small_scene)
    reference.step(100)
    np.testing.assert_array_equal(window.sim.positions, reference.positions)
    np.testing.assert_array_equal(window.sim.velocities, reference.velocities)
    assert "2.00 /" in bar.time_label.text()
    window.panel.groups[0].controls["max_speed"].spin.setValue(12.0)
    wait_engine_idle(window, qtbot)
    assert window.frames.head == 100 and bar.slider.maximum() == 100


def test_slow_frames_draw_only_new_states(window, small_scene):
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    loop.set_running(True)
    for _ in range(30):
        window.view.last_draw_ms = 500.0  # a software renderer with a million agents
        clock[0] += 0.016
        loop._frame()
        loop.worker.wait(5.0)
        if loop._cur is not None and loop.step >= 1:
            np.testing.assert_array_equal(window.view._shown_agents[0], loop._cur[0])


def test_the_selected_agents_whole_path_is_shown(window, qtbot, small_scene):
    window.set_running(True)
    qtbot.waitUntil(lambda: window.frames.head >= 40, timeout=10000)
    window.set_running(False)
    wait_engine_idle(window, qtbot)
    window.select_agent(45)
    window.timeline_bar.path_button.setChecked(True)
    step = window.frames.step
    qtbot.waitUntil(lambda: window.view.path.visible, timeout=5000)
    reference = _positions(small_scene, step)[:, 45]
    np.testing.assert_array_equal(window.view.path.line.pos, reference.astype(np.float32))
    assert "blue ≤" in window.timeline_bar.scale_label.text()
    window.timeline_bar.measure_combo.setCurrentIndex(1)
    assert "°/s" in window.timeline_bar.scale_label.text()
    window.select_agent(None)
    qtbot.waitUntil(lambda: not window.view.path.visible, timeout=3000)


def test_a_slow_draw_thins_out_the_agents_and_fast_frames_bring_them_back(
    make_window, qtbot, monkeypatch, tmp_path
):
    # A renderer that takes `cost` ms per agent drawn: 90 ms for all 30,000 at first.
    cost = [3e-3]

    def frame_shown(view):
        view.last_draw_ms = cost[0] * view.agents.drawn

    monkeypatch.setattr(SimulationView, "frame_shown", frame_shown)
    path = tmp_path / "crowd.toml"
    path.write_text(CROWD_SCENE, encoding="utf-8")
    window = make_window(load_scene(path))
    view = window.view
    window.select_agent(5)
    qtbot.waitUntil(lambda: view.agent_stride > 1, timeout=10000)
    # 1 in 4 fits the 40 ms budget (22.5 ms); 1 in 3 (30 ms) would miss its 28 ms aim.
    qtbot.waitUntil(lambda: view.agent_stride == 4, timeout=5000)
    assert view.agents.drawn == 7500 + 1  # the selected agent too
    qtbot.waitUntil(lambda: "drawing 1 in 4 agents" in window.status_label.text(), timeout=3000)
    cost[0] = 1e-4  # a fast renderer: every agent again
    qtbot.waitUntil(lambda: view.agent_stride == 1, timeout=10000)
    qtbot.waitUntil(lambda: "drawing" not in window.status_label.text(), timeout=3000)
    assert view.agents.drawn == 30000
