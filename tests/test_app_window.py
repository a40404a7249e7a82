"""The main window, end to end with real OpenGL: files, controls, picking, screenshots."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import activate, wait_engine_idle
from PyQt6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PyQt6.QtGui import QDropEvent
from PyQt6.QtWidgets import QMessageBox

from wander3d.app.errors import install_excepthook
from wander3d.app.main import load_start_scene
from wander3d.engine import Simulation, max_threads
from wander3d.scene import bundled_scene, load_scene


def _lit(image: np.ndarray) -> float:
    return float(np.mean(image[..., :3].max(axis=-1) > 90))


def test_opens_the_default_scene_and_draws_it(make_window, qtbot):
    scene, error = load_start_scene(None)
    assert error is None and scene.source == bundled_scene()
    w = make_window(scene)
    qtbot.waitUntil(lambda: w.session.step > 0, timeout=5000)
    # The engine leaves a core to the GUI thread and the renderer.
    assert w.session.threads == max(1, max_threads() - 1)
    assert scene.name in w.windowTitle()
    assert len(w.panel.groups) == len(scene.groups)
    assert _lit(w.view.render()) > 0.005
    qtbot.waitUntil(lambda: "agents" in w.status_label.text(), timeout=2000)
    assert f"{scene.agent_count:,} agents" in w.status_label.text()


def test_missing_file_at_start_up_falls_back_to_the_default(tmp_path):
    scene, error = load_start_scene(tmp_path / "nope.toml")
    assert scene.source == bundled_scene()
    assert error is not None and "nope.toml" in error


def test_keyboard_shortcuts_drive_the_simulation(window, qtbot):
    canvas = window.view.canvas.native
    activate(window, qtbot)  # shortcuts need the active window
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Space)
    assert window.session.running
    qtbot.keyClick(canvas, Qt.Key.Key_Period)
    assert not window.session.running
    qtbot.waitUntil(lambda: not window.session.busy, timeout=3000)  # the engine's thread
    count = window.session.step
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: window.session.step == count + 1, timeout=3000)
    qtbot.keyClick(canvas, Qt.Key.Key_BracketRight)
    assert window.session.speed == 2.0
    qtbot.keyClick(canvas, Qt.Key.Key_BracketLeft)
    qtbot.keyClick(canvas, Qt.Key.Key_BracketLeft)
    assert window.session.speed == 0.5
    qtbot.keyClick(canvas, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: window.session.step == 0, timeout=3000)
    for action in (window.commands.play, window.commands.step, window.commands.screenshot):
        assert "(" in action.toolTip() and ")" in action.toolTip()


def test_an_invalid_scene_shows_the_error_and_keeps_the_current_one(
    window, dialogs, qtbot, tmp_path
):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[groups]]\ncount = 10\n[groups.wander]\nradious = 3\n", encoding="utf-8")
    run = window.session.generation
    assert not window.files.open_scene(bad)
    assert len(dialogs) == 1 and "radious" in dialogs[0][1] and "bad.toml" in dialogs[0][1]
    assert window.session.generation == run and window.session.scene.name == "Small"
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.session.step > 5, timeout=3000)


def test_reload_keeps_the_camera_and_auto_reload_reports_errors_in_the_status_bar(
    window, dialogs, qtbot, small_scene_file
):
    window.view.set_camera_angles(100.0, 15.0)
    matrix = np.array(window.view.rig.camera.transform.matrix)
    small_scene_file.write_text(
        small_scene_file.read_text().replace("count = 40", "count = 25"), encoding="utf-8"
    )
    qtbot.waitUntil(lambda: window.session.agent_count == 45, timeout=5000)  # the file watcher
    np.testing.assert_allclose(window.view.rig.camera.transform.matrix, matrix)
    run = window.session.generation
    small_scene_file.write_text("[[groups]]\ncount = 'many'\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "count" in window.statusBar().currentMessage(), timeout=5000)
    assert window.session.generation == run and not dialogs
    assert not window.files.reload_scene(dialog=True)
    assert dialogs and "count" in dialogs[0][1]


def test_save_as_then_open_gives_the_same_parameters(window, qtbot, tmp_path):
    window.panel.groups[0].controls["radius"].slider.setValue(700)
    window.panel.groups[1].controls["max_force"].spin.setValue(123.5)
    window.panel.trails_box.setChecked(False)
    path = tmp_path / "saved.toml"
    assert window.files.save_scene_as(path)  # at once: edits still on their way are saved
    live = window.session.groups
    saved = load_scene(path)
    assert saved.groups == live
    assert saved.groups[0].wander.radius == window.panel.groups[0].controls["radius"].value()
    assert saved.groups[1].max_force == 123.5
    assert saved.view.show_trails is False
    assert window.session.scene.source == path and "saved.toml" in window.windowTitle()
    window.session.reset()  # the saved file is now the scene: R returns to its start
    wait_engine_idle(window, qtbot)
    assert window.session.groups == live
    assert window.panel.groups[1].controls["max_force"].value() == 123.5
    assert window.files.open_scene(path)
    assert window.session.groups == live
    assert path.resolve() in window.files.recent.paths()


def test_sliders_change_the_engine_at_once(window, qtbot):
    controls = window.panel.groups[0].controls
    assert set(controls) == {"distance", "radius", "jitter", "vertical", "max_speed", "max_force"}
    seek = {"interval", "vertical", "max_speed", "max_force"}
    assert set(window.panel.groups[1].controls) == seek
    controls["radius"].slider.setValue(500)
    wait_engine_idle(window, qtbot)  # edits land on the engine's thread, by the next frame
    assert window.session.groups[0].wander.radius == pytest.approx(controls["radius"].value())
    assert window.session.groups[0].wander.radius != 6.0
    controls["max_speed"].spin.setValue(12.0)
    wait_engine_idle(window, qtbot)
    assert window.session.groups[0].max_speed == 12.0
    window.session.reset()  # back to the scene's parameters, sliders included
    qtbot.waitUntil(lambda: not window.session.busy, timeout=3000)  # the engine's thread
    assert window.session.groups[0].wander.radius == 6.0
    assert controls["radius"].value() == pytest.approx(6.0)


def test_clicking_an_agent_selects_it_and_shows_the_debug_overlay(window, qtbot):
    window.session.advance(10)
    window.session.settle()
    xy, in_front = window.view.project(window.session.state.current[0])
    w, h = window.view.canvas.size
    inside = (
        in_front & (xy[:, 0] > 10) & (xy[:, 0] < w - 10) & (xy[:, 1] > 10) & (xy[:, 1] < h - 10)
    )
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(len(xy)) * 1e9
    agent = int(np.flatnonzero(inside & (d.min(axis=1) > 8))[0])
    pos = QPoint(round(xy[agent, 0]), round(xy[agent, 1]))
    plain = window.view.render()
    qtbot.mouseClick(window.view.canvas.native, Qt.MouseButton.LeftButton, pos=pos)
    assert window.view.selected == agent
    # The overlay shows at once: no box to tick first (the README promises it).
    assert window.panel.debug_box.isChecked() and window.view.debug.lines.visible
    assert np.abs(window.view.render().astype(int) - plain).sum(axis=-1).astype(bool).sum() > 50
    window.commands.follow.trigger()
    assert window.view.following == agent
    window.commands.back.trigger()  # Esc: first stops following...
    assert window.view.selected == agent and window.view.following is None
    window.commands.back.trigger()  # ...then clears the selection
    assert window.view.selected is None
    assert not window.view.debug.lines.visible


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_save_as_honours_the_umask_and_is_atomic(window, tmp_path, monkeypatch, umask, dialogs):
    (tmp_path / "out").mkdir()
    path = tmp_path / "out" / "kept.toml"
    old = os.umask(umask)
    try:
        assert window.files.save_scene_as(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    before = path.read_text()
    window.panel.groups[0].controls["distance"].spin.setValue(42.0)

    def fail(self, text, encoding=None):  # a full disk halfway through
        with open(self, "w", encoding=encoding) as f:
            f.write(text[:20])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", fail)
    assert not window.files.save_scene_as(path)
    assert "No space left" in dialogs[-1][1]
    assert path.read_text() == before  # the old file is whole
    assert [p.name for p in path.parent.iterdir()] == ["kept.toml"]  # no temporary left


def test_screenshots_are_written(window, tmp_path, qtbot):
    window.session.advance(10)
    window.session.settle()
    window.commands.screenshot.trigger()
    shots = list((tmp_path / "shots").glob("wander3d-small-*.png"))
    assert len(shots) == 1 and shots[0].read_bytes()[:4] == b"\x89PNG"
    from vispy.io import read_png

    image = read_png(str(shots[0]))
    assert image.shape[:2] == (
        window.view.canvas.physical_size[1],
        window.view.canvas.physical_size[0],
    )
    assert _lit(image) > 0.003
    assert window.save_screenshot() != shots[0]  # a second one gets its own name


def test_group_and_display_toggles(window):
    window.panel.groups[1].visible_box.setChecked(False)
    assert not window.view.group_visible(1)
    window.panel.enclosure_box.setChecked(False)
    assert not window.view.enclosure_visible
    window.set_camera_mode("fly")
    assert window.view.camera_mode == "fly" and window.commands.camera_combo.currentText() == "Fly"
    window.reset_camera()
    assert window.view.camera_mode == "turntable"


def test_dropping_a_scene_file_opens_it(window, tmp_path):
    path = tmp_path / "dropped.toml"
    path.write_text("[scene]\nname = 'Dropped'\n[[groups]]\ncount = 7\n", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.session.scene.name == "Dropped" and window.session.agent_count == 7


def test_a_scene_that_cannot_turn_in_time_is_warned_about(window, tmp_path):
    path = tmp_path / "heavy.toml"
    path.write_text(
        "[[groups]]\nname = 'slow'\ncount = 3\nmass = 4.0\nmax_force = 20.0\nmax_speed = 15.0\n",
        encoding="utf-8",
    )
    assert window.files.open_scene(path)
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Opened {path}. Warning: slow: turning back from max_speed 15")
    assert "~22.5 units" in message


@pytest.mark.parametrize("width", [900, 1366])
def test_a_long_message_keeps_to_one_line_beside_the_figures(window, qtbot, width):
    """A long note wrapped onto lines the one-line bar clipped (or grew the bar into the
    view): now it is one line, shortened in the middle, and its tooltip holds all of it."""
    problem = (
        "/home/someone/projects/wander3d/scenes/a-rather-long-scene-file-name.toml: "
        "groups[0].count: 0 is out of range: must be >= 1 and <= 10,000,000"
    )
    window.resize(width, 700)
    window.frames._show_status()
    bar, label = window.messages.bar, window.messages.bar.note_label
    qtbot.wait(50)
    height = bar.height()
    window.messages.problem("Cannot reload scene", problem, dialog=False)
    qtbot.wait(50)
    whole = f"Cannot reload scene: {problem}"
    assert bar.currentMessage() == whole and label.toolTip() == whole
    shown = label.text()
    assert "\n" not in shown and label.isVisible()
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    if shown != whole:  # shortened in the middle: how it starts and how it ends stay
        head, _, tail = shown.partition("…")
        assert whole.startswith(head) and whole.endswith(tail) and len(tail) > 10
    assert bar.height() == height  # the view keeps its size
    figures = window.status_label
    assert label.geometry().right() < figures.geometry().left()
    assert figures.width() >= figures.sizeHint().width()  # the figures are not squeezed
    bar.clearMessage()
    assert bar.currentMessage() == "" and label.text() == ""


def test_save_as_starts_in_the_users_folder_not_the_bundled_scenes(
    make_window, monkeypatch, tmp_path, small_scene
):
    from PyQt6.QtWidgets import QFileDialog

    from wander3d.scene import scenes_dir

    shipped = scenes_dir()
    assert shipped is not None
    asked: list[str] = []

    def get_save_file_name(*args):
        asked.append(args[2])  # the folder or file the dialog starts at
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_save_file_name)
    window = make_window(load_scene(bundled_scene("default")))
    assert not window.files.save_dialog()
    start = Path(asked[-1])
    assert start.parent.resolve() != shipped.resolve() and start.parent.is_dir()
    window.files.open_scene(small_scene.source)  # the user's own file: beside it
    window.files.save_dialog()
    assert Path(asked[-1]).parent == small_scene.source.parent


def test_settings_persist_recent_files_and_geometry(make_window, small_scene, settings, tmp_path):
    window = make_window(small_scene)
    other = tmp_path / "other.toml"
    other.write_text("[[groups]]\ncount = 3\n", encoding="utf-8")
    assert window.files.open_scene(other)
    window.close()
    assert settings.value("geometry") is not None
    assert Path(settings.value("last_dir")) == tmp_path.resolve()
    again = make_window(small_scene)
    assert again.files.recent.paths()[0] == other.resolve()
    assert again.commands.recent_menu.actions()[0].toolTip() == str(other.resolve())


def test_uncaught_errors_become_a_dialog_and_pause(window, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()))
    window.session.set_running(True)
    previous = install_excepthook(window, lambda: window.session.set_running(False))
    try:
        sys.excepthook(ValueError, ValueError("boom"), None)
    finally:
        sys.excepthook = previous
    assert not window.session.running
    assert shown and "boom" in shown[0]


def test_two_slider_edits_within_one_frame_both_land(window, qtbot, monkeypatch):
    """A script, a preset or a fast user sets two parameters before the engine took the
    first: both must land (the window once rebuilt the group from what it last saw)."""
    original = Simulation.step

    def slow_step(sim, n=1):  # the engine is busy whenever an edit comes
        time.sleep(0.002)
        original(sim, n)

    monkeypatch.setattr(Simulation, "step", slow_step)
    controls = window.panel.groups[0].controls
    for jitter, radius in ((3.0, 4.0), (11.0, 2.5), (7.5, 9.0)):
        window.session.set_running(True)
        for _ in range(5):
            qtbot.wait(20)  # frames go by, the engine steps
            controls["jitter"].spin.setValue(jitter)
            controls["radius"].spin.setValue(radius)
        window.session.set_running(False)
        wait_engine_idle(window, qtbot)
        wander = window.session.groups[0].wander
        assert (wander.jitter, wander.radius) == (jitter, radius)


def test_a_scene_too_big_for_this_machine_gets_a_dialog_and_the_scene_runs_on(
    window, dialogs, tmp_path, monkeypatch, qtbot
):
    path = tmp_path / "huge.toml"
    path.write_text("[[groups]]\ncount = 5000\n", encoding="utf-8")
    monkeypatch.setattr("wander3d.scene.memory.memory_budget", lambda: (100_000, "a test budget"))
    assert not window.files.open_scene(path)
    assert dialogs and dialogs[-1][0] == "Cannot open scene"
    assert "huge.toml" in dialogs[-1][1] and "a test budget" in dialogs[-1][1]
    assert window.session.scene.name == "Small"
    window.session.single_step()
    wait_engine_idle(window, qtbot)
    assert window.session.step == 1


def test_every_toolbar_button_has_an_icon_of_its_own(window):
    """Reset view had Open scene's folder (SP_DirHomeIcon beside SP_DialogOpenButton), and
    Follow and Save screenshot, text alone, read as labels."""
    from PyQt6.QtCore import QBuffer, QSize

    images = {}
    for action in window.toolbar.actions():
        if action.isSeparator() or window.toolbar.widgetForAction(action) is None:
            continue
        if not action.text():  # a widget of its own (the speed, the camera mode)
            continue
        assert not action.icon().isNull(), action.text()
        buffer = QBuffer()
        buffer.open(QBuffer.OpenModeFlag.WriteOnly)
        action.icon().pixmap(QSize(24, 24)).toImage().save(buffer, "PNG")
        images[action.text()] = buffer.data().data()
    assert len(set(images.values())) == len(images), "two buttons share an icon"
    assert {"Reset view", "Follow", "Save s&creenshot"} <= set(images)


def test_the_toolbar_stays_put_when_pause_becomes_play(window, qtbot):
    bar = window.toolbar
    step = bar.widgetForAction(window.commands.step)
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.commands.play.text() == "Pause", timeout=3000)
    qtbot.wait(50)
    before = step.x()
    window.session.set_running(False)
    qtbot.waitUntil(lambda: window.commands.play.text() == "Play", timeout=3000)
    qtbot.wait(50)
    assert step.x() == before  # it moved 11 px left


def test_export_and_share_start_where_save_as_does(make_window, monkeypatch, small_scene):
    """They started in the last folder used, which may be the bundled scenes' (in an
    installed package, its data folder), where Save As never starts."""
    from PyQt6.QtWidgets import QDialog, QFileDialog

    from wander3d.app.code_export import ExportCodeDialog
    from wander3d.scene import scenes_dir

    shipped = scenes_dir()
    assert shipped is not None
    asked: list[Path] = []  # where each dialog starts

    def get_save_file_name(*args):
        asked.append(Path(args[2]))
        return "", ""

    def exec_dialog(dialog):
        asked.append(dialog.choice()[1])
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_save_file_name)
    monkeypatch.setattr(ExportCodeDialog, "exec", exec_dialog)
    window = make_window(load_scene(bundled_scene("default")))
    window.settings.setValue("last_dir", str(shipped))
    for dialog in (window.files.save_dialog, window.code_export.export_dialog,
                   window.web_share.share_dialog):  # fmt: skip
        dialog()
    folders = {path.parent for path in asked}
    assert len(asked) == 3 and len(folders) == 1
    assert folders.pop().resolve() != shipped.resolve()
    asked.clear()
    window.files.open_scene(small_scene.source)  # the user's own file: beside it
    for dialog in (window.files.save_dialog, window.code_export.export_dialog,
                   window.web_share.share_dialog):  # fmt: skip
        dialog()
    assert {path.parent for path in asked} == {small_scene.source.parent}


@pytest.mark.parametrize(
    ("timeline", "path", "said"),
    [(True, True, ""), (True, False, " no path above 200,000 agents"),
     (False, False, " no path without a timeline")],
)  # fmt: skip
def test_a_greyed_out_path_box_says_why(window, timeline, path, said):
    """Above 200,000 agents the Path box was greyed out with no word why."""
    bar = window.timeline_bar
    bar.set_enabled(timeline, path, 250_000 if not path else 300)
    assert bar.path_button.isEnabled() is path and bar.scale_label.text() == said
    if not path:
        assert "Not in this scene" in bar.path_button.toolTip()
        assert bar.scale_label.toolTip() == bar.path_button.toolTip()
        width = bar.scale_label.fontMetrics().horizontalAdvance(said)
        assert width <= bar.scale_label.width()  # all of it shows
    bar.set_enabled(True, True, 300)
    assert bar.scale_label.text() == "" and "Not in" not in bar.path_button.toolTip()


def test_another_scene_shows_the_panel_from_its_top(window, qtbot, dialogs):
    """The panel kept its scroll position, showing the new scene's groups from the middle;
    reloading the same scene keeps it."""
    window.resize(900, 420)  # a panel taller than its window
    scroll = window.panel_scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: scroll.maximum() > 0, timeout=3000)
    scroll.setValue(scroll.maximum())
    assert window.files.reload_scene(dialog=True)
    qtbot.wait(50)
    assert scroll.value() > 0
    assert window.files.open_scene(bundled_scene("compare"))
    qtbot.waitUntil(lambda: scroll.maximum() > 0, timeout=3000)
    assert scroll.value() == 0


def test_file_dialogs_show_their_columns_whole(window, qtbot, tmp_path):
    """Qt's own Open dialog elided every column at its default size ("820...tes")."""
    from PyQt6.QtCore import QTimer
    from PyQt6.QtWidgets import QApplication, QFileDialog, QTreeView

    for name in ("a.toml", "a-scene-with-a-long-name.toml"):
        (tmp_path / name).write_text("[[groups]]\ncount = 3\n", encoding="utf-8")
    window.settings.setValue("last_dir", str(tmp_path))
    seen: list[tuple[int, int]] = []
    sizes: list[tuple[int, int]] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        view = dialog.findChild(QTreeView) if isinstance(dialog, QFileDialog) else None
        model = None if view is None else view.model()
        if (
            not isinstance(dialog, QFileDialog)
            or view is None
            or model is None
            or model.rowCount(view.rootIndex()) < 2
        ):
            QTimer.singleShot(50, look)  # the folder is read in the background
            return
        QApplication.processEvents()
        sizes.append((dialog.width(), dialog.height()))
        header, metrics = view.header(), view.fontMetrics()
        assert header is not None
        for column in range(4):
            texts = [
                str(model.index(row, column, view.rootIndex()).data())
                for row in range(model.rowCount(view.rootIndex()))
            ]
            widest = max(metrics.horizontalAdvance(text) for text in texts)
            seen.append((header.sectionSize(column), widest))
        dialog.reject()

    QTimer.singleShot(0, look)
    window.files.open_dialog()
    assert len(seen) == 4
    assert all(shown >= needed for shown, needed in seen), seen
    # Whatever columns a user's Qt settings remember: the dialog opens at a roomy size
    # (Qt's own was about 630 x 430 pixels).
    screen = window.screen().availableGeometry()
    width, height = sizes[0]
    assert width >= min(880, 0.85 * screen.width()) and height >= min(520, 0.85 * screen.height())


@pytest.mark.parametrize(
    "name", ["Default", "Five methods compared", "Five methods compared side by"]
)
def test_the_unsaved_changes_question_leaves_no_word_alone_on_a_line(qtbot, name):
    """The compare scene's name wrapped the question and left "saved." alone on a line."""
    from PyQt6.QtGui import QTextLayout
    from PyQt6.QtWidgets import QLabel

    from wander3d.app.scene_files import unsaved_question

    text = unsaved_question(name, "closing")
    buttons = QMessageBox.StandardButton
    box = QMessageBox(QMessageBox.Icon.Question, "Unsaved changes", text,
                      buttons.Save | buttons.Discard | buttons.Cancel)  # fmt: skip
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    label = box.findChild(QLabel, "qt_msgbox_label")
    assert label is not None
    lines = []
    for paragraph in text.split("\n"):
        layout = QTextLayout(paragraph, label.font())
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(label.contentsRect().width())
            lines.append(paragraph[line.textStart() : line.textStart() + line.textLength()])
        layout.endLayout()
    assert all(len(line.split()) > 1 for line in lines), lines
    box.close()
