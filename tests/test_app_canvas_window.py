"""The app's canvas is a native OpenGL window embedded in the main window, which stays a
plain (raster) window: Qt composes a window that holds a QOpenGLWidget with OpenGL, all of
it, every frame, which on a software renderer cost more than drawing the default scene."""

from __future__ import annotations

import os

import numpy as np
from PyQt6.QtGui import QImage, QSurface
from PyQt6.QtOpenGL import QOpenGLWindow

from wander3d.app.canvas_window import prefer_prompt_updates


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    data = np.frombuffer(image.constBits().asstring(image.sizeInBytes()), np.uint8)
    return data.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width()]


def test_the_canvas_draws_in_its_own_gl_window_and_the_main_window_stays_raster(window, qtbot):
    native = window.view.canvas.native
    assert isinstance(native, QOpenGLWindow)
    assert window.centralWidget() is native.container
    assert window.windowHandle().surfaceType() == QSurface.SurfaceType.RasterSurface
    assert native.container.size() == native.size()
    assert native.format().swapInterval() == 1  # in step with the display, no tearing
    assert window.view.canvas.physical_size == (native.width(), native.height())
    # What the window shows is the scene: the agents and trails lit on the background.
    shown = _pixels(native.grabFramebuffer())
    assert shown.shape[:2] == (native.height(), native.width())
    assert np.mean(shown[..., :3].max(axis=-1) > 90) > 0.001


def test_a_resized_window_resizes_the_canvas(window, qtbot):
    native = window.view.canvas.native
    before = native.size()
    window.resize(window.width() - 120, window.height() - 60)
    qtbot.waitUntil(lambda: native.width() == before.width() - 120, timeout=3000)
    assert native.height() == before.height() - 60
    qtbot.waitUntil(
        lambda: window.view.canvas.physical_size == (native.width(), native.height()),
        timeout=3000,
    )


def test_prompt_updates_unless_the_user_chose_a_delay(monkeypatch):
    monkeypatch.delenv("QT_QPA_UPDATE_IDLE_TIME", raising=False)
    prefer_prompt_updates()
    assert os.environ["QT_QPA_UPDATE_IDLE_TIME"] == "0"
    monkeypatch.setenv("QT_QPA_UPDATE_IDLE_TIME", "8")
    prefer_prompt_updates()
    assert os.environ["QT_QPA_UPDATE_IDLE_TIME"] == "8"
