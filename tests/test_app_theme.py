"""The dark theme reads: the toolbar's icons, an unticked check box, slider handles and spin-box
arrows stand out, and a focused slider shows its focus (measured as WCAG contrast ratios of the
pixels drawn, as a user's eye would judge them)."""

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


def draw_control(app: QApplication, widget, control: QStyle.ComplexControl, focused: bool):
    """`widget` drawn by the app's style into an image, as focused or not: (pixels, option)."""
    from PyQt6.QtGui import QPainter
    from PyQt6.QtWidgets import QStyleOptionSlider, QStyleOptionSpinBox

    widget.resize(widget.sizeHint().expandedTo(QSize(200, 24)))
    option = (
        QStyleOptionSlider()
        if control == QStyle.ComplexControl.CC_Slider
        else (QStyleOptionSpinBox())
    )
    widget.initStyleOption(option)
    if focused:
        option.state |= QStyle.StateFlag.State_HasFocus
    else:
        option.state &= ~QStyle.StateFlag.State_HasFocus
    image = QImage(widget.size(), QImage.Format.Format_RGBA8888)
    image.fill(app.palette().color(QPalette.ColorRole.Window))
    painter = QPainter(image)
    style = app.style()
    assert style is not None
    style.drawComplexControl(control, option, painter, widget)
    painter.end()
    return pixels(image).astype(float)[..., :3], option


def region(rgb: np.ndarray, rect) -> np.ndarray:
    return rgb[rect.top() : rect.bottom() + 1, rect.left() : rect.right() + 1].reshape(-1, 3)


def test_slider_handles_stand_out_and_the_focused_one_shows_it(app):
    from wander3d.app.controls import PanelSlider

    slider = PanelSlider()
    slider.setRange(0, 100)
    slider.setValue(40)
    rgb, option = draw_control(app, slider, QStyle.ComplexControl.CC_Slider, focused=False)
    style = app.style()
    assert style is not None
    handle = style.subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    centre = region(rgb, handle.adjusted(3, 3, -3, -3)).mean(axis=0)
    assert contrast(centre, window_color(app)) > 3.0  # Fusion's handle was about 2:1
    focused, _ = draw_control(app, slider, QStyle.ComplexControl.CC_Slider, focused=True)
    # The ring: the handle's edge in the highlight colour, only when focused.
    highlight = np.array([0xE0, 0xA4, 0x00], float)
    edge = np.zeros(rgb.shape[:2], bool)
    edge[handle.top() : handle.bottom() + 1, handle.left() : handle.right() + 1] = True
    edge[handle.top() + 2 : handle.bottom() - 1, handle.left() + 2 : handle.right() - 1] = False
    ringed = (np.abs(focused[edge] - highlight).sum(axis=1) < 90).sum()
    plain = (np.abs(rgb[edge] - highlight).sum(axis=1) < 90).sum()
    assert ringed > 2 * handle.width() and ringed > 3 * plain, (ringed, plain)


def test_spin_box_arrows_stand_out(app):
    from wander3d.app.controls import PanelSpinBox

    box = PanelSpinBox()
    box.setRange(0.0, 100.0)
    box.setValue(50.0)  # both arrows live
    rgb, option = draw_control(app, box, QStyle.ComplexControl.CC_SpinBox, focused=False)
    style = app.style()
    assert style is not None
    for sub in (QStyle.SubControl.SC_SpinBoxUp, QStyle.SubControl.SC_SpinBoxDown):
        rect = style.subControlRect(QStyle.ComplexControl.CC_SpinBox, option, sub, box)
        colours = region(rgb, rect.adjusted(1, 1, -1, -1))
        ground = np.median(colours, axis=0)  # most of the button is its background
        glyph = colours[contrast(colours, ground) > 1.5]  # the arrow, its soft edge included
        # As the slider's value box's text reads: Fusion's grey arrows on a grey button
        # measured 3.2 here, about 2:1 against the field beside them.
        assert contrast(glyph.mean(axis=0), ground) > 4.5
