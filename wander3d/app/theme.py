"""A dark Fusion palette: the canvas is dark, and a bright frame around it would glare.

Fusion draws some things for a light palette whatever the palette says: its media icons
(play, pause, step...) are dark grey, and an unticked check box's outline is the window colour
darkened, which on a dark window is nearly black. `DarkStyle` tints those icons with the text
colour and outlines check boxes in a colour that stands out.
"""

from __future__ import annotations

from PyQt6.QtCore import QRectF, QSize
from PyQt6.QtGui import QColor, QIcon, QPainter, QPalette, QPen, QPixmap
from PyQt6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

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


def apply_dark_theme(app: QApplication) -> None:
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
