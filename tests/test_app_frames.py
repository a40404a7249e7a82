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
from PyQt6.QtWidgets import QApplication

from wander3d.app.frame_loop import MAX_FRAME_GAP, TIMELINE_INTERVAL
from wander3d.engine import Simulation
from wander3d.render import SimulationView
from wander3d.scene import load_scene

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
    sim = Simulation(scene.run_spec)
    out = [sim.positions.copy()]
    for _ in range(steps):
        sim.step(1)
        out.append(sim.positions.copy())
    return np.array(out)


class FakeClock:
    """The frame loop's wall clock, moved by the test: frames at exact, chosen times."""

    def __init__(self, loop) -> None:
        self.t = loop.now()  # from where the real clock was: earlier marks stay earlier
        self.loop = loop
        loop.now = lambda: self.t
        loop._last_frame = self.t

    def frames(self, count: int, seconds: float, session) -> None:
        """`count` frames `seconds` apart, each waiting for the engine job it asked for."""
        for _ in range(count):
            self.t += seconds
            self.loop._frame()
            session.wait(5.0)


def test_frames_with_a_fake_clock_step_exactly_and_draw_between_steps(window, small_scene):
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    window.view.last_draw_ms = 0.0  # drawing is fast enough to draw between steps
    window.session.set_running(True)
    reference = _positions(small_scene, 60)
    alphas = []
    for _ in range(60):  # 16 ms frames against 20 ms steps
        clock[0] += 0.016
        loop._frame()
        window.session.wait(5.0)
        c = window.session.step
        alpha = loop.clock.alpha(c)
        if c >= 1:
            expected = reference[c - 1] + alpha * (reference[c] - reference[c - 1])
            drawn = window.view._shown_agents[0]
            np.testing.assert_allclose(drawn, expected.astype(np.float32), rtol=0, atol=1e-3)
            alphas.append(alpha)
    assert 47 <= window.session.step <= 49  # 0.96 s of 0.02 s steps, plus the step worked ahead
    # Drawn between steps, not on them: a frame every 0.8 steps falls at 0.2, 0.4, 0.6 and
    # 0.8 of the way (and on a step every fifth frame, 0.0 or 1.0 as rounding has it).
    fractions = {round(a, 3) for a in alphas}
    assert fractions - {0.0, 1.0} == {0.2, 0.4, 0.6, 0.8}


def test_frames_chain_by_themselves_and_are_paced(window, qtbot):
    loop = window.frames
    loop._watchdog.stop()  # only the chain of frames may drive the loop now
    draws = []
    window.view.canvas.events.draw.connect(lambda e: draws.append(time.perf_counter()))
    wait_engine_idle(window, qtbot)
    window.session.set_running(True)
    start = time.perf_counter()
    qtbot.wait(800)
    elapsed = time.perf_counter() - start
    assert len(draws) >= 5 and window.session.step > 5
    rate = window.view.canvas.native.screen().refreshRate() or 60.0
    assert len(draws) <= 1.25 * rate * elapsed + 3  # no faster than the display


def test_frames_without_anything_new_to_draw_keep_the_chain_going(window, qtbot):
    """With the engine ahead of the display a frame draws nothing and so never swaps; the
    frames must go on regardless, not stall until the watchdog restarts them (at 10 fps)."""
    loop = window.frames
    loop._watchdog.stop()
    wait_engine_idle(window, qtbot)
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.session.step >= 3, timeout=5000)
    wait_engine_idle(window, qtbot)
    loop.clock.shown -= 10 * window.session.dt  # the display 10 steps behind the engine
    stalled_at = window.session.step
    draws = []
    window.view.canvas.events.draw.connect(lambda e: draws.append(1))
    qtbot.waitUntil(
        lambda: window.session.step >= stalled_at + 10 and len(draws) >= 5, timeout=3000
    )


def test_after_a_long_frame_the_engine_works_ahead_by_a_usual_frame(window):
    """One long frame (a stall) must not send the engine that far ahead of the display:
    the agents would stand still until the display caught up."""
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    window.session.set_running(True)
    dt = window.session.dt
    for _ in range(30):  # 16 ms frames
        clock[0] += 0.016
        loop._frame()
        window.session.wait(5.0)
    clock[0] += MAX_FRAME_GAP  # one long frame
    loop._frame()
    window.session.wait(5.0)
    clock[0] += 0.016
    loop._frame()  # collects the work asked for by the long frame
    window.session.wait(5.0)
    ahead_of_display = window.session.step - loop.clock.shown / dt
    assert ahead_of_display <= 3  # a frame of 16 ms and the step drawn from; 12.5 before


def test_while_running_the_timeline_bar_follows_at_its_own_pace(window, qtbot):
    """The bar's widgets repaint about 10 times a second, not at every frame; pausing shows
    the exact step at once."""
    loop, session = window.frames, window.session
    shown = []
    loop.timelineChanged.connect(lambda step, head: shown.append(step))
    clock = FakeClock(loop)
    wait_engine_idle(window, qtbot)
    session.set_running(True)
    shown.clear()
    clock.frames(60, 1 / 60, session)  # one second of 60 fps frames
    # At the first frame after each interval: every 7th frame, not each of the 60.
    assert int(1 / (TIMELINE_INTERVAL + 1 / 60)) <= len(shown) <= 1 / TIMELINE_INTERVAL + 1
    session.set_running(False)
    wait_engine_idle(window, qtbot)
    bar = window.timeline_bar
    assert bar.slider.value() == session.step and bar.slider.maximum() == session.head
    assert f"{session.step * session.dt:.2f} /" in bar.time_label.text()


def test_a_frames_drawing_time_counts_until_it_reaches_the_window(window, qtbot):
    """A software renderer rasterises after the draw calls return, while Qt swaps the
    canvas's buffers: the time the frame stops the GUI thread counts as drawing (it decides
    how many agents a huge scene draws)."""
    native = window.view.canvas.native
    # After the view's own end-of-draw handler, before the swap: a slow rasteriser.
    window.view.canvas.events.draw.connect(lambda event: time.sleep(0.06), position="last")
    shown = []
    native.frameSwapped.connect(lambda: shown.append(window.view.last_draw_ms))
    window.view.canvas.update()
    qtbot.waitUntil(lambda: len(shown) >= 1, timeout=5000)
    window.view.canvas.update()
    qtbot.waitUntil(lambda: len(shown) >= 2, timeout=5000)
    assert min(shown) >= 60.0


def test_the_gui_answers_while_a_long_step_runs(window, qtbot, monkeypatch):
    threads = []
    release = threading.Event()
    original = Simulation.step

    def held_step(sim, n=1):  # a step that lasts until the test lets it finish
        threads.append(threading.current_thread())
        release.wait(10.0)
        original(sim, n)

    monkeypatch.setattr(Simulation, "step", held_step)
    window.session.single_step()
    qtbot.waitUntil(lambda: bool(threads), timeout=2000)
    fired = []
    QTimer.singleShot(30, lambda: fired.append(window.session.busy))
    qtbot.waitUntil(lambda: bool(fired), timeout=3000)
    assert fired == [True]  # the GUI thread ran a timer while the step was in flight
    window.session.toggle_running()
    assert window.session.running  # and took input
    release.set()
    assert all(t is not threading.main_thread() for t in threads)


def test_the_status_bar_says_the_speed_reached_when_the_machine_cannot_keep_up(window, qtbot):
    loop, session = window.frames, window.session
    clock = FakeClock(loop)
    loop.budget.cap = lambda steps: min(steps, 1)  # an engine that manages one step a frame
    session.change_speed(+1)
    session.set_running(True)
    # 60 fps frames at x2 ask 100 steps of 0.02 s per second; one a frame reaches x1.2.
    clock.frames(90, 1 / 60, session)
    loop._show_status()
    assert "x1.2 of real time (asked x2)" in window.status_label.text()
    assert window.commands.speed_label.text() == "x2"


def test_one_clock_on_screen_and_no_frame_rate_while_paused(window, qtbot):
    """The timeline bar is the clock (time and step); the status bar, refreshed at another
    pace, shows neither, so the two never disagree (45.70 s against 47.17 s at x8)."""
    loop, session = window.frames, window.session
    clock = FakeClock(loop)
    session.change_speed(+3)
    session.set_running(True)
    clock.frames(30, 1 / 60, session)
    loop._show_status()
    status = window.status_label.text()
    assert " s  ·" not in status and "step" not in status and " fps" in status
    session.set_running(False)
    wait_engine_idle(window, qtbot)
    loop._show_status()
    status = window.status_label.text()
    assert "fps" not in status and "paused" in status
    label = window.timeline_bar.time_label.text()
    assert f"{session.step * session.dt:.2f} / " in label and f"step {session.step:,}" in label


def test_seeking_shows_the_run_bit_for_bit_and_a_past_edit_truncates(window, qtbot, small_scene):
    window.session.seek(0)
    for _ in range(3):
        window.session.change_speed(+1)
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.session.head >= 150, timeout=15000)
    window.session.set_running(False)
    wait_engine_idle(window, qtbot)
    head = window.session.head
    bar = window.timeline_bar
    assert bar.slider.maximum() == head and bar.slider.value() == window.session.step
    bar.slider.setValue(100)  # as the user's drag or keys do
    wait_engine_idle(window, qtbot)
    assert window.session.step == 100 and not window.session.running
    reference = Simulation(small_scene.run_spec)
    reference.step(100)
    positions, velocities = window.session.state.current
    np.testing.assert_array_equal(positions, reference.positions.astype(np.float32))
    np.testing.assert_array_equal(velocities, reference.velocities.astype(np.float32))
    assert "2.00 /" in bar.time_label.text()
    window.panel.groups[0].controls["max_speed"].spin.setValue(12.0)
    wait_engine_idle(window, qtbot)
    assert window.session.head == 100 and bar.slider.maximum() == 100


def test_slow_frames_draw_only_new_states(window, small_scene):
    loop = window.frames
    clock = [100.0]
    loop.now = lambda: clock[0]
    loop._last_frame = clock[0]
    window.session.set_running(True)
    for _ in range(30):
        window.view.last_draw_ms = 500.0  # a software renderer with a million agents
        clock[0] += 0.016
        loop._frame()
        window.session.wait(5.0)
        if window.session.step >= 1:
            np.testing.assert_array_equal(
                window.view._shown_agents[0], window.session.state.current[0]
            )


def test_the_selected_agents_whole_path_is_shown(window, qtbot, small_scene):
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.session.head >= 40, timeout=10000)
    window.session.set_running(False)
    wait_engine_idle(window, qtbot)
    window.select_agent(45)
    bar = window.timeline_bar
    slider_width = bar.slider.width()
    # Choosing a colouring is enough: the path turns on (it took a click on the word).
    bar.measure_combo.setCurrentIndex(1)
    bar.measure_combo.activated.emit(1)
    assert bar.path_button.isChecked() and window.session.path_on
    step = window.session.step
    qtbot.waitUntil(lambda: window.view.path.visible, timeout=5000)
    reference = _positions(small_scene, step)[:, 45]
    np.testing.assert_array_equal(window.view.path.line.pos, reference.astype(np.float32))
    assert "blue ≤" in bar.scale_label.text() and "°/s" in bar.scale_label.text()
    bar.measure_combo.setCurrentIndex(0)
    assert "units/s" in bar.scale_label.text()
    QApplication.processEvents()
    assert bar.slider.width() == slider_width  # the scale appearing moved nothing
    window.select_agent(None)
    qtbot.waitUntil(lambda: not window.view.path.visible, timeout=3000)
    assert bar.scale_label.text() == ""  # no path, no scale
    window.select_agent(45)
    qtbot.waitUntil(lambda: "blue ≤" in bar.scale_label.text(), timeout=5000)
    assert window.files.open_scene(small_scene.source, dialog=False)
    assert not window.view.path.visible and bar.scale_label.text() == ""


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
