"""A dark Fusion palette: the canvas is dark, and a bright frame around it would glare."""

from __future__ import annotations

from PyQt6.QtGui import QColor, QPalette
from PyQt6.QtWidgets import QApplication

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


def apply_dark_theme(app: QApplication) -> None:
    app.setStyle("Fusion")
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
