"""The dark theme reads: the toolbar's icons and an unticked check box stand out from the window
(measured as WCAG contrast ratios of the pixels drawn, as a user's eye would judge them)."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from PyQt6.QtCore import QSize
from PyQt6.QtGui import QImage, QPalette
from PyQt6.QtWidgets import QApplication, QStyle

from wander3d.app.controls import PanelCheckBox
from wander3d.app.main import qt_application


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB colours (..., 3) in 0..255."""
    c = rgb / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    la, lb = luminance(a), luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def pixels(image: QImage) -> np.ndarray:
    """(h, w, 4) RGBA of `image`."""
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    data = np.frombuffer(image.constBits().asstring(image.sizeInBytes()), np.uint8)
    return data.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width()]


@pytest.fixture
def app(qtbot) -> QApplication:
    return qt_application()


def window_color(app: QApplication) -> np.ndarray:
    color = app.palette().color(QPalette.ColorRole.Window)
    return np.array([color.red(), color.green(), color.blue()], float)


@pytest.mark.parametrize(
    "icon",
    [
        QStyle.StandardPixmap.SP_MediaPause,
        QStyle.StandardPixmap.SP_MediaPlay,
        QStyle.StandardPixmap.SP_MediaSkipForward,
        QStyle.StandardPixmap.SP_MediaSkipBackward,
        QStyle.StandardPixmap.SP_MediaSeekBackward,
        QStyle.StandardPixmap.SP_MediaSeekForward,
    ],
)
def test_toolbar_icons_stand_out_from_the_dark_window(app, icon):
    style = app.style()
    assert style is not None
    rgba = pixels(style.standardIcon(icon).pixmap(QSize(24, 24)).toImage()).astype(float)
    opaque = rgba[..., 3] > 200
    assert opaque.sum() > 20
    ratio = contrast(rgba[opaque][:, :3].mean(axis=0), window_color(app))
    assert ratio > 4.5  # Fusion's own dark grey was about 1.6


def test_an_unticked_check_box_is_visible(app, qtbot):
    box = PanelCheckBox("Overlay on every agent")
    qtbot.addWidget(box)
    box.setChecked(False)
    box.resize(box.sizeHint())
    rgba = pixels(box.grab().toImage()).astype(float)
    style = app.style()
    assert style is not None
    width = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth) + 2  # the box, not the text
    indicator = rgba[:, :width, :3].reshape(-1, 3)
    best = contrast(indicator, window_color(app)).max()
    assert best > 3.0, best  # Fusion's outline on this palette was about 1.2
