"""Keys, help and the camera a user drives: shortcuts never steal a focused widget's keys or the
fly camera's, T and Esc say and undo what they do, F1 lists everything."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import activate, wait_engine_idle
from PyQt6.QtCore import Qt

from wander3d.app.actions import key_text
from wander3d.appearance import LEGEND


@pytest.fixture
def active(window, qtbot):
    return activate(window, qtbot)  # shortcuts need the active window


def focus(widget, qtbot) -> None:
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def test_a_focused_slider_keeps_its_arrows_and_a_check_box_its_space(active, qtbot):
    slider = active.panel.groups[0].controls["distance"].slider
    focus(slider, qtbot)
    before, steps = slider.value(), active.session.step
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    wait_engine_idle(active, qtbot)
    assert slider.value() == before + 1 and active.session.step == steps
    qtbot.keyClick(slider, Qt.Key.Key_Home)
    assert slider.value() == 0 and active.view.camera_mode == "turntable"
    # Space is not a slider's key: it plays and pauses even with a slider focused.
    running = active.session.running
    qtbot.keyClick(slider, Qt.Key.Key_Space)
    assert active.session.running != running and slider.hasFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Space)
    assert active.session.running == running
    box = active.panel.trails_box
    focus(box, qtbot)
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert not box.isChecked() and not active.session.running
    # Elsewhere the same keys are the window's shortcuts.
    canvas = active.view.canvas.native
    focus(canvas, qtbot)
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    wait_engine_idle(active, qtbot)
    assert active.session.step == steps + 1
    qtbot.keyClick(canvas, Qt.Key.Key_Space)
    assert active.session.running


@pytest.mark.parametrize("box", ["value", "agents"])
def test_space_plays_and_pauses_from_a_focused_value_box(active, qtbot, box):
    """A value box's line edit took Space as text and dropped it: the key did nothing."""
    group = active.panel.groups[0]
    spin = group.controls["distance"].spin if box == "value" else group.spin_boxes["count"]
    focus(spin, qtbot)
    value, running = spin.value(), active.session.running
    qtbot.keyClick(spin, Qt.Key.Key_Space)
    assert active.session.running != running and spin.hasFocus() and spin.value() == value
    qtbot.keyClick(spin, Qt.Key.Key_Space)
    assert active.session.running == running
    if box == "value":  # its own keys stay its own: Up steps the value, not the simulation
        steps = active.session.step
        qtbot.keyClick(spin, Qt.Key.Key_Up)
        assert spin.value() != value and active.session.step == steps


def test_the_fly_camera_keeps_its_keys(active, qtbot):
    canvas = active.view.canvas.native
    active.set_camera_mode("fly")
    focus(canvas, qtbot)
    steps = active.session.step
    qtbot.keyClick(canvas, Qt.Key.Key_Space)  # the fly camera's brake
    qtbot.keyClick(canvas, Qt.Key.Key_Right)  # the fly camera's sideways thrust
    wait_engine_idle(active, qtbot)
    assert not active.session.running and active.session.step == steps
    qtbot.keyClick(canvas, Qt.Key.Key_Period)  # not a fly key: still a shortcut
    wait_engine_idle(active, qtbot)
    assert active.session.step == steps + 1


def test_t_with_nothing_selected_says_so(active, qtbot):
    qtbot.keyClick(active.view.canvas.native, Qt.Key.Key_T)
    assert "click an agent" in active.statusBar().currentMessage()
    assert active.view.following is None and not active.commands.follow.isChecked()


def test_fly_and_follow_is_a_chase_view_and_esc_gives_the_fly_camera_back(active, qtbot):
    active.set_camera_mode("fly")
    before = np.array(active.view.rig.camera.transform.matrix)
    active.select_agent(5)
    active.commands.follow.trigger()
    active.session.advance(10)
    active.session.settle()
    eye = np.array([0.0, 0.0, 0.0, 1.0]) @ np.asarray(active.view.rig.camera.transform.matrix)
    assert (
        np.linalg.norm(eye[:3] - active.session.state.current[0][5]) > 8 * active.view._agent_length
    )
    qtbot.keyClick(active.view.canvas.native, Qt.Key.Key_Escape)
    assert active.view.following is None and active.view.selected == 5
    assert active.view.camera_mode == "fly" and active.commands.camera_combo.currentText() == "Fly"
    np.testing.assert_allclose(active.view.rig.camera.transform.matrix, before, atol=1e-9)


def test_f1_lists_every_key_gesture_and_overlay_colour(active, qtbot):
    qtbot.keyClick(active.view.canvas.native, Qt.Key.Key_F1)
    dialog = active.help_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.browser.toPlainText()
    for _menu, actions in active.commands.menu_actions():
        for action in actions:
            assert key_text(action) in text
    for shortcut in ("Space", "Right", "F12", "Esc", "F1", "Home"):
        assert shortcut in text
    for gesture in ("Shift + drag", "Click an agent", "Wheel"):
        assert gesture in text
    for _color, name, _meaning in LEGEND:
        assert name in text
    for control in ("Timeline slider", "Path check box", "speed or turn rate"):
        assert control in text
    assert "button" not in text.partition("Path check box")[2].partition("What the")[0]
    # Every section's descriptions start at one x: keys, mouse, timeline, overlay.
    browser = dialog.browser
    starts = set()
    for description in (
        "Open scene — Open a scene file",
        "Reset — Back to the scene's start",
        "select it: its wander sphere",
        "drag it (or click it",
        "x, y (up) and z from the box's low corner",
    ):
        cursor = browser.document().find(description)
        assert not cursor.isNull(), description
        cursor.setPosition(cursor.selectionStart())
        starts.add(browser.cursorRect(cursor).left())
    assert len(starts) == 1, starts
    dialog.close()
