"""The app's canvas is a native OpenGL window embedded in the main window, which stays a
plain (raster) window: Qt composes a window that holds a QOpenGLWidget with OpenGL, all of
it, every frame, which on a software renderer cost more than drawing the default scene.
Embedded, it still behaves as a widget of the window would: focus, wheel, dropped files."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import activate
from PyQt6.QtCore import QCoreApplication, QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PyQt6.QtGui import QDragEnterEvent, QDropEvent, QSurface, QWheelEvent
from PyQt6.QtOpenGL import QOpenGLWindow
from PyQt6.QtWidgets import QApplication
from vispy import gloo
from vispy.gloo import gl

from wander3d.app.canvas_window import CanvasWindow, prefer_prompt_updates
from wander3d.app.window import MainWindow


def _in_next_frame(window, qtbot, look):
    """What `look()` returns inside the canvas's next frame, after everything is drawn."""
    seen = []
    window.view.canvas.events.draw.connect(lambda event: seen.append(look()), position="last")
    window.view.canvas.update()
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    return seen[0]


def test_the_canvas_draws_in_its_own_gl_window_and_the_main_window_stays_raster(window, qtbot):
    native = window.view.canvas.native
    assert isinstance(native, CanvasWindow) and isinstance(native, QOpenGLWindow)
    container = native.container
    assert container is not None and window.centralWidget() is container
    assert window.windowHandle().surfaceType() == QSurface.SurfaceType.RasterSurface
    assert container.size() == native.size()
    assert window.view.canvas.physical_size == (native.width(), native.height())
    assert native.format().swapInterval() == 1  # in step with the display, no tearing
    # What the window shows is the scene: the agents and trails lit on the background.
    shown = _in_next_frame(window, qtbot, gloo.read_pixels)
    assert shown.shape[:2] == (native.height(), native.width())
    assert np.mean(shown[..., :3].max(axis=-1) > 90) > 0.001


def test_a_resized_window_resizes_the_canvas(window, qtbot):
    native = window.view.canvas.native
    window.messages.clear()  # a note wraps to the width: the status bar's height would change
    qtbot.wait(50)
    before = native.size()
    window.resize(window.width() - 120, window.height() - 60)
    qtbot.waitUntil(lambda: native.width() == before.width() - 120, timeout=3000)
    assert native.height() == before.height() - 60
    qtbot.waitUntil(
        lambda: window.view.canvas.physical_size == (native.width(), native.height()),
        timeout=3000,
    )


def test_a_multisampled_canvas_draws_with_its_samples(qtbot, settings, small_scene):
    """The window system need not offer a multisampled window: the frame is drawn into Qt's
    multisampled framebuffer and blitted."""
    window = MainWindow(small_scene, settings, samples=4)
    qtbot.addWidget(window)
    window.session.set_running(False)
    window.show()
    qtbot.waitExposed(window)
    samples = _in_next_frame(window, qtbot, lambda: gl.glGetParameter(gl.GL_SAMPLES))
    assert samples == 4


def test_tab_moves_the_focus_from_the_canvas_to_the_panel_and_back(window, qtbot):
    native = activate(window, qtbot).view.canvas.native
    native.setFocus()
    qtbot.waitUntil(native.hasFocus, timeout=2000)
    qtbot.keyClick(native, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: not native.hasFocus(), timeout=2000)
    focused = QApplication.focusWidget()
    assert focused is not None and window.dock.isAncestorOf(focused)
    qtbot.keyClick(focused, Qt.Key.Key_Backtab)
    qtbot.waitUntil(native.hasFocus, timeout=2000)


def test_the_wheel_focuses_the_canvas_and_zooms(window, qtbot):
    native = activate(window, qtbot).view.canvas.native
    slider = window.panel.groups[0].controls["distance"].slider
    slider.setFocus()
    qtbot.waitUntil(lambda: slider.hasFocus() and not native.hasFocus(), timeout=2000)
    before = np.array(window.view.rig.camera.transform.matrix)
    centre = QPointF(native.width() / 2, native.height() / 2)
    wheel = QWheelEvent(
        centre,
        QPointF(native.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QCoreApplication.sendEvent(native, wheel)
    qtbot.waitUntil(native.hasFocus, timeout=2000)  # so the arrow keys are the window's again
    assert not slider.hasFocus()
    assert not np.allclose(window.view.rig.camera.transform.matrix, before)


def test_a_scene_file_dropped_on_the_canvas_opens(window, qtbot, tmp_path: Path):
    path = tmp_path / "dropped.toml"
    path.write_text('[scene]\nname = "Dropped"\n[[groups]]\ncount = 7\n', encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    native = window.view.canvas.native
    at = QPointF(native.width() / 2, native.height() / 2)
    action = Qt.DropAction.CopyAction
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(at.toPoint(), action, mime, buttons, keys)
    QCoreApplication.sendEvent(native, enter)
    assert enter.isAccepted()
    QCoreApplication.sendEvent(native, QDropEvent(at, action, mime, buttons, keys))
    qtbot.waitUntil(lambda: window.session.scene.name == "Dropped", timeout=5000)
    assert window.session.agent_count == 7


def test_prompt_updates_unless_the_user_chose_a_delay(monkeypatch):
    monkeypatch.delenv("QT_QPA_UPDATE_IDLE_TIME", raising=False)
    prefer_prompt_updates()
    assert os.environ["QT_QPA_UPDATE_IDLE_TIME"] == "0"
    monkeypatch.setenv("QT_QPA_UPDATE_IDLE_TIME", "8")
    prefer_prompt_updates()
    assert os.environ["QT_QPA_UPDATE_IDLE_TIME"] == "8"


def test_a_new_display_scale_resizes_the_drawing(window, qtbot, monkeypatch):
    """Qt says so with DevicePixelRatioChange when the scale changes on the same screen."""
    change = getattr(QEvent.Type, "DevicePixelRatioChange", None)
    if change is None:
        pytest.skip("Qt before 6.6 has no DevicePixelRatioChange")
    native = window.view.canvas.native
    monkeypatch.setattr(native, "devicePixelRatio", lambda: 2.0)
    QCoreApplication.sendEvent(native, QEvent(change))
    assert window.view.canvas.physical_size == (2 * native.width(), 2 * native.height())
