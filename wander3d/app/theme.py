"""A dark Fusion palette: the canvas is dark, and a bright frame around it would glare.

Fusion draws some things for a light palette whatever the palette says: its media icons
(play, pause, step...) are dark grey, an unticked check box's outline is the window colour
darkened, which on a dark window is nearly black, and slider handles and spin-box arrows are
about 2:1 against their background. `DarkStyle` tints those icons with the text colour,
outlines check boxes, draws slider handles light and spin-box arrows in the text colour on the
field's dark base (each at least 3:1, WCAG's bar for controls), and rings the handle of the
focused slider in the highlight colour: a slider takes the keys and the wheel only while it
has the focus, so the focus must show.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PyQt6.QtGui import QColor, QIcon, QPainter, QPalette, QPen, QPixmap, QPolygonF
from PyQt6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionComplex,
    QStyleOptionSlider,
    QStyleOptionSpinBox,
    QWidget,
)

_ROLES = {
    QPalette.ColorRole.Window: "#1b1f24",
    QPalette.ColorRole.WindowText: "#d7dce2",
    QPalette.ColorRole.Base: "#14171b",
    QPalette.ColorRole.AlternateBase: "#1f242a",
    QPalette.ColorRole.ToolTipBase: "#2a3038",
    QPalette.ColorRole.ToolTipText: "#e6e9ed",
    QPalette.ColorRole.Text: "#d7dce2",
    QPalette.ColorRole.Button: "#262b32",
    QPalette.ColorRole.ButtonText: "#d7dce2",
    QPalette.ColorRole.BrightText: "#ff6b6b",
    QPalette.ColorRole.Highlight: "#e0a400",
    QPalette.ColorRole.HighlightedText: "#101418",
    QPalette.ColorRole.Link: "#4cc9f0",
    QPalette.ColorRole.PlaceholderText: "#7d8590",
}


#: Icon colour (the text's) and the outline of check boxes: about 8:1 and 4.5:1 against the
#: window colour, where Fusion's own were below 2:1.
ICON_COLOR = "#d7dce2"
INDICATOR_OUTLINE = "#8b949e"
DISABLED_ICON_COLOR = "#6b7280"
#: Slider handles (about 7:1 against the window) with a dark outline, and the ring of the
#: focused one (the highlight colour).
HANDLE_COLOR = "#aeb6bf"
HANDLE_OUTLINE = "#0d1014"
FOCUS_RING = "#e0a400"
#: Spin-box arrows: the text colour on the field's base (about 13:1).
ARROW_COLOR = "#d7dce2"
ARROW_BACKGROUND = "#14171b"
#: Fusion's icons drawn for a light background, which DarkStyle tints.
TINTED = frozenset(
    (
        QStyle.StandardPixmap.SP_MediaPlay, QStyle.StandardPixmap.SP_MediaPause,
        QStyle.StandardPixmap.SP_MediaStop, QStyle.StandardPixmap.SP_MediaSkipForward,
        QStyle.StandardPixmap.SP_MediaSkipBackward, QStyle.StandardPixmap.SP_MediaSeekForward,
        QStyle.StandardPixmap.SP_MediaSeekBackward,
    )
)  # fmt: skip


def tinted(icon: QIcon, color: str, disabled: str = DISABLED_ICON_COLOR) -> QIcon:
    """`icon` in one colour (its shape kept by its alpha), dimmed when disabled."""
    result = QIcon()
    sizes = icon.availableSizes() or [QSize(16, 16), QSize(24, 24), QSize(32, 32)]
    for size in sizes:
        source = icon.pixmap(size)
        for mode, fill in ((QIcon.Mode.Normal, color), (QIcon.Mode.Disabled, disabled)):
            pixmap = QPixmap(source)
            painter = QPainter(pixmap)
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
            painter.fillRect(pixmap.rect(), QColor(fill))
            painter.end()
            result.addPixmap(pixmap, mode)
    return result


class DarkStyle(QProxyStyle):
    """Fusion with icons and check box outlines that read on a dark palette."""

    def __init__(self) -> None:
        super().__init__("Fusion")
        self._icons: dict[QStyle.StandardPixmap, QIcon] = {}

    def standardIcon(
        self,
        standardIcon: QStyle.StandardPixmap,
        option: QStyleOption | None = None,
        widget: QWidget | None = None,
    ) -> QIcon:
        icon = super().standardIcon(standardIcon, option, widget)
        if standardIcon not in TINTED:
            return icon
        if standardIcon not in self._icons:
            self._icons[standardIcon] = tinted(icon, ICON_COLOR)
        return self._icons[standardIcon]

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex | None,
        painter: QPainter | None,
        widget: QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        if painter is None:
            return
        if control == QStyle.ComplexControl.CC_Slider and isinstance(option, QStyleOptionSlider):
            self._draw_handle(option, painter, widget)
        elif control == QStyle.ComplexControl.CC_SpinBox and isinstance(
            option, QStyleOptionSpinBox
        ):
            self._draw_arrows(option, painter, widget)

    def _draw_handle(
        self, option: QStyleOptionSlider, painter: QPainter, widget: QWidget | None
    ) -> None:
        """A light handle over Fusion's, ringed in the highlight colour when focused."""
        rect = self.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, widget
        )
        enabled = bool(option.state & QStyle.StateFlag.State_Enabled)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = QRectF(rect).adjusted(1.5, 1.5, -1.5, -1.5)
        painter.setPen(QPen(QColor(HANDLE_OUTLINE), 1.0))
        painter.setBrush(QColor(HANDLE_COLOR if enabled else DISABLED_ICON_COLOR))
        painter.drawRoundedRect(box, 2, 2)
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(QPen(QColor(FOCUS_RING), 2.0))
            painter.setBrush(QColor(0, 0, 0, 0))
            painter.drawRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        painter.restore()

    def _draw_arrows(
        self, option: QStyleOptionSpinBox, painter: QPainter, widget: QWidget | None
    ) -> None:
        """Up and down arrows in the text colour on the field's base, dimmed at a limit."""
        if option.buttonSymbols != QAbstractSpinBox.ButtonSymbols.UpDownArrows:
            return
        step = QAbstractSpinBox.StepEnabledFlag
        live = bool(option.state & QStyle.StateFlag.State_Enabled)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for sub, up, flag in (
            (QStyle.SubControl.SC_SpinBoxUp, True, step.StepUpEnabled),
            (QStyle.SubControl.SC_SpinBoxDown, False, step.StepDownEnabled),
        ):
            rect = self.subControlRect(QStyle.ComplexControl.CC_SpinBox, option, sub, widget)
            if rect.isEmpty():
                continue
            enabled = live and bool(option.stepEnabled & flag)
            inner = rect.adjusted(1, 1 if up else 0, -1, 0 if up else -1)
            painter.fillRect(inner, QColor(ARROW_BACKGROUND))
            painter.setPen(QColor(0, 0, 0, 0))
            painter.setBrush(QColor(ARROW_COLOR if enabled else DISABLED_ICON_COLOR))
            painter.drawPolygon(_arrow(rect, up))
        painter.restore()

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption | None,
        painter: QPainter | None,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element == QStyle.PrimitiveElement.PE_IndicatorCheckBox and option and painter:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(QColor(INDICATOR_OUTLINE), 1.0))
            painter.setBrush(QColor(0, 0, 0, 0))
            painter.drawRoundedRect(QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5), 2, 2)
            painter.restore()


def drawn_icon(draw: Callable[[QPainter], None], color: str = ICON_COLOR) -> QIcon:
    """An icon drawn by `draw` on a 24 x 24 canvas with a pen and brush of `color`, at the
    toolbar's sizes, dimmed when disabled: for what Qt's standard icons lack."""
    icon = QIcon()
    for size in (16, 24, 32, 48):
        for mode, fill in ((QIcon.Mode.Normal, color), (QIcon.Mode.Disabled, DISABLED_ICON_COLOR)):
            pixmap = QPixmap(size, size)
            pixmap.fill(QColor(0, 0, 0, 0))
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.scale(size / 24, size / 24)
            pen = QPen(QColor(fill), 2.0)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.setBrush(QColor(0, 0, 0, 0))
            draw(painter)
            painter.end()
            icon.addPixmap(pixmap, mode)
    return icon


def draw_home(painter: QPainter) -> None:
    """A house (the Home key), as matplotlib's toolbar draws its view reset."""
    painter.drawPolyline(QPolygonF([QPointF(3, 12), QPointF(12, 4), QPointF(21, 12)]))
    painter.drawPolyline(
        QPolygonF([QPointF(6, 10), QPointF(6, 20), QPointF(18, 20), QPointF(18, 10)])
    )
    painter.drawRect(QRectF(10, 14, 4, 6))


def draw_follow(painter: QPainter) -> None:
    """A target: a ring with a centre and four ticks (the camera locked on an agent)."""
    painter.drawEllipse(QPointF(12, 12), 6.5, 6.5)
    for x1, y1, x2, y2 in ((12, 1, 12, 5), (12, 19, 12, 23), (1, 12, 5, 12), (19, 12, 23, 12)):
        painter.drawLine(QPointF(x1, y1), QPointF(x2, y2))
    painter.setBrush(painter.pen().color())
    painter.drawEllipse(QPointF(12, 12), 1.8, 1.8)


def draw_camera(painter: QPainter) -> None:
    """A camera (a screenshot)."""
    painter.drawRoundedRect(QRectF(2.5, 7, 19, 13), 2, 2)
    painter.drawPolyline(
        QPolygonF([QPointF(8, 7), QPointF(9.5, 4), QPointF(14.5, 4), QPointF(16, 7)])
    )
    painter.drawEllipse(QPointF(12, 13.5), 3.8, 3.8)


def _arrow(rect: QRect, up: bool) -> QPolygonF:
    """A triangle pointing up or down, centred in `rect`, 7 x 4 pixels at 96 dpi."""
    c = QRectF(rect).center()
    half, rise = 3.5, 2.0 if up else -2.0
    return QPolygonF(
        [QPointF(c.x() - half, c.y() + rise), QPointF(c.x() + half, c.y() + rise),
         QPointF(c.x(), c.y() - rise)]
    )  # fmt: skip


def apply_dark_theme(app: QApplication) -> None:
    # Once per QApplication: setStyle deletes the style it replaces, under widgets that may
    # still be drawing with it (tests and benchmarks start Qt through qt_application() again
    # while earlier windows wait to be deleted; a second DarkStyle there crashed in C++).
    if not isinstance(app.style(), DarkStyle):
        app.setStyle(DarkStyle())
    palette = QPalette()
    for role, color in _ROLES.items():
        palette.setColor(role, QColor(color))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b7280"))
    app.setPalette(palette)
