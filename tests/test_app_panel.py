"""The side panel as a newcomer uses it: the wheel scrolls, values are exact and readable,
edits mark the scene modified and are not dropped without asking."""

from __future__ import annotations

import math

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import activate
from PyQt6.QtCore import QPoint, QPointF, Qt
from PyQt6.QtGui import QWheelEvent
from PyQt6.QtWidgets import QApplication, QMessageBox

from wander3d.app.controls import PARAMS, SLIDER_STEPS, ParamControl
from wander3d.scene import bundled_scene, load_scene


def wheel(widget, notches: int = -1) -> bool:
    """Turn the mouse wheel over `widget`; whether the widget took the event (an ignored one
    goes on to the parents, where the scroll area scrolls)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(
        centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def test_the_wheel_scrolls_the_panel_and_never_edits(make_window, qtbot):
    w = make_window(load_scene(bundled_scene("compare")))
    w.session.set_running(False)
    w.resize(1000, 500)
    qtbot.wait(50)
    bar = w.panel_scroll.verticalScrollBar()
    assert bar.maximum() > 0  # compare's panel is taller than the window
    values = {
        (g, k): c.value() for g, gc in enumerate(w.panel.groups) for k, c in gc.controls.items()
    }
    control = w.panel.groups[1].controls["distance"]
    for widget in (control.slider, control.spin):
        for _ in range(5):
            assert not wheel(widget)
    assert {
        (g, k): c.value() for g, gc in enumerate(w.panel.groups) for k, c in gc.controls.items()
    } == values
    assert not w.isWindowModified()
    # With the keyboard focus the wheel does edit it: the user chose that widget.
    activate(w, qtbot)
    control.spin.setFocus()
    qtbot.waitUntil(control.spin.hasFocus, timeout=2000)
    wheel(control.spin, +1)
    assert control.value() != values[(1, "distance")]


def test_values_outside_the_default_range_are_shown_exactly(qtbot):
    small = ParamControl(PARAMS["radius"], 0.02)
    assert small.value() == 0.02 and small.spin.text().startswith("0.02")
    assert small.slider.value() > 0  # the range stretched below it
    assert ParamControl(PARAMS["radius"], 0.2).spin.text() == "0.2 units"
    assert ParamControl(PARAMS["max_speed"], 40.0).spin.text() == "40.0 units/s"
    big = ParamControl(PARAMS["max_speed"], 1234.5)
    assert big.value() == 1234.5 and big.slider.value() < SLIDER_STEPS
    # Only values the scene format allows can be typed: a radius is > 0.
    assert 0 < small.spin.minimum() < 0.001
    # Typed beyond the slider's end: the slider's range follows.
    big.spin.setValue(5000.0)
    assert big.value() == 5000.0 and big.hi >= 5000.0


def test_parameters_that_span_decades_have_log_sliders_with_units(qtbot):
    control = ParamControl(PARAMS["max_force"], 50.0)
    assert control.spin.suffix() == " mass·units/s²"
    seen: list[float] = []
    control.valueChanged.connect(seen.append)
    control.slider.setValue(SLIDER_STEPS // 2)
    assert seen[-1] == pytest.approx(math.sqrt(control.lo * control.hi), rel=0.01)
    # Linear where zero is a meaningful value.
    assert not PARAMS["jitter"].log and PARAMS["jitter"].lo == 0.0
    assert ParamControl(PARAMS["distance"], 30.0).slider.minimumWidth() >= 160


def test_edits_mark_the_title_and_reset_or_save_clears_it(window, tmp_path, qtbot):
    assert not window.isWindowModified() and "[*]" in window.windowTitle()
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    qtbot.waitUntil(window.isWindowModified, timeout=5000)  # when the edit has landed
    window.commands.reset.trigger()  # the reset lands when the engine thread has done it
    qtbot.waitUntil(lambda: not window.isWindowModified(), timeout=5000)
    assert window.session.groups[0].wander.jitter != 9.5
    window.panel.trails_box.setChecked(False)
    assert window.isWindowModified()
    assert window.files.save_scene_as(tmp_path / "saved.toml")
    assert not window.isWindowModified()


@pytest.mark.parametrize(
    "answer, closed",
    [(QMessageBox.StandardButton.Cancel, False), (QMessageBox.StandardButton.Discard, True)],
)
def test_closing_with_edits_asks_first(window, monkeypatch, answer, closed):
    asked: list[str] = []

    def question(*args):
        asked.append(args[2])  # the question's text
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    assert window.close() is closed
    assert asked and "not saved" in asked[0].replace("\u00a0", " ")
    if not closed:
        assert window.isVisible() and window.session.groups[0].wander.jitter == 9.5


def test_opening_another_scene_asks_and_cancel_keeps_the_edits(window, monkeypatch, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text("[[groups]]\ncount = 3\n", encoding="utf-8")
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Cancel)
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    assert not window.files.open_scene(other)
    assert not window.files.reload_scene(dialog=True)
    assert window.session.groups[0].wander.jitter == 9.5
    saved = tmp_path / "answer.toml"
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Save)
    monkeypatch.setattr(
        "wander3d.app.scene_files.QFileDialog.getSaveFileName", lambda *a: (str(saved), "")
    )
    assert window.files.open_scene(other)
    assert load_scene(saved).groups[0].wander.jitter == 9.5 and window.session.agent_count == 3


def test_an_automatic_reload_never_drops_edits(window, small_scene_file, qtbot):
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    small_scene_file.write_text(
        small_scene_file.read_text().replace("count = 40", "count = 25"), encoding="utf-8"
    )
    qtbot.waitUntil(lambda: "unsaved" in window.statusBar().currentMessage(), timeout=5000)
    assert window.session.agent_count == 60 and window.session.groups[0].wander.jitter == 9.5


def test_method_steering_and_vertical_are_panel_controls(window, qtbot):
    from app_support import wait_engine_idle

    group = window.panel.groups[0]
    assert "vertical" in group.controls
    group.method_combo.setCurrentText("noise")
    group.method_combo.textActivated.emit("noise")  # as a user's choice does
    wait_engine_idle(window, qtbot)
    assert window.session.groups[0].wander.method == "noise"
    # The group's sliders are now the noise method's.
    group = window.panel.groups[0]
    assert "frequency" in group.controls and "jitter" not in group.controls
    assert group.method_combo.currentText() == "noise"
    group.steering_combo.textActivated.emit("desired")
    wait_engine_idle(window, qtbot)
    assert window.session.groups[0].wander.steering == "desired"
    group.controls["vertical"].spin.setValue(0.2)
    wait_engine_idle(window, qtbot)
    assert window.session.groups[0].wander.vertical == 0.2
    assert window.isWindowModified()


def test_checks_turn_back_warning_shows_live_as_a_slider_makes_it_true(window, qtbot):
    from app_support import wait_engine_idle

    group = window.panel.groups[0]
    warning = group.warning
    group.controls["max_speed"].spin.setValue(10.0)  # turns back well within the margin
    wait_engine_idle(window, qtbot)
    assert not warning.isVisibleTo(window)
    group.controls["max_speed"].spin.setValue(250.0)  # far too fast to turn within it
    wait_engine_idle(window, qtbot)
    assert warning.isVisibleTo(window)
    assert "turning back from max_speed 250" in warning.text() and "margin" in warning.text()


def test_agents_and_trail_length_restart_the_run_with_the_new_size(window, qtbot):
    group = window.panel.groups[0]
    before = window.session.agent_count
    count = window.session.groups[0].count
    group.spin_boxes["count"].setValue(count + 5)
    group.spin_boxes["count"].editingFinished.emit()
    qtbot.waitUntil(lambda: window.session.agent_count == before + 5, timeout=5000)
    assert window.session.step == 0 and window.isWindowModified()
    assert window.panel.groups[0].spin_boxes["count"].value() == count + 5
    group = window.panel.groups[0]
    group.spin_boxes["trail_length"].setValue(7)
    group.spin_boxes["trail_length"].editingFinished.emit()
    qtbot.waitUntil(lambda: window.session.groups[0].trail_length == 7, timeout=5000)
    assert window.session.agent_count == before + 5  # the count stays


def test_a_groups_controls_are_the_parameter_tables_rows(qtbot):
    from PyQt6.QtWidgets import QLabel

    from wander3d.app.panel import RESTART_NOTE, GroupControls
    from wander3d.engine import Enclosure, GroupParams, WanderParams
    from wander3d.scene import schema
    from wander3d.scene.tunables import tunable_keys

    group = GroupParams(count=7, trail_length=9, wander=WanderParams(method="angle"))
    controls = GroupControls(0, group, Enclosure())
    qtbot.addWidget(controls)
    assert list(controls.controls) == list(tunable_keys(group))
    spins = [k for k in schema.keys_of("groups").values() if isinstance(k.panel, schema.SpinBox)]
    assert list(controls.spin_boxes) == [k.name for k in spins] == ["count", "trail_length"]
    labels = {label.text() for label in controls.findChildren(QLabel)}
    for k in spins:
        assert isinstance(k.panel, schema.SpinBox)
        box = controls.spin_boxes[k.name]
        assert (box.minimum(), box.maximum(), box.value()) == (k.lo, k.hi, getattr(group, k.name))
        assert box.toolTip().startswith(k.doc)
        assert (RESTART_NOTE in box.toolTip()) == k.fixed
        assert box.suffix() == (f" {k.unit}" if k.panel.shows_unit else "")
        assert k.panel.label in labels
