"""What the window tells the user: notes in the status bar, and dialogs for problems.

The scene's warnings (old keys converted, groups that cannot turn back within the margin, as
`wander3d check` says them) follow every note and stay longer. The bar is one line: a note too
long for the width the figures leave is shortened in the middle ("…"), keeping how it starts
and how it ends, and its tooltip holds all of it (`MessageBar`). A note that wrapped instead
grew the bar, shrinking the view, or where the window could not give it the height, showed
two clipped lines.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtGui import QResizeEvent
from PyQt6.QtWidgets import QLabel, QMainWindow, QMessageBox, QSizePolicy, QStatusBar, QWidget

#: How long notes, and notes followed by the scene's warnings, stay (ms).
NOTE_MS = 4000
WARNING_MS = 30000


class ElidedLabel(QLabel):
    """A one-line label that shows as much of its text as its width holds, the middle
    replaced by "…" when it must be; `full_text()` and the tooltip give all of it."""

    def __init__(self) -> None:
        super().__init__()
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._fit()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        one_line = " ".join(self._full.split())
        elided = self.fontMetrics().elidedText(
            one_line, Qt.TextElideMode.ElideMiddle, max(0, self.contentsRect().width())
        )
        self.setText(elided)


class MessageBar(QStatusBar):
    """A status bar whose notes stay on its one line (see ElidedLabel), in the width the
    permanent figures leave. showMessage, clearMessage, currentMessage and messageChanged
    behave as QStatusBar's."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note_label = ElidedLabel()
        self.addWidget(self.note_label, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)

    def showMessage(self, text: str | None, msecs: int = 0) -> None:
        text = text or ""
        changed = text != self.note_label.full_text()
        self.note_label.set_full_text(text)
        self._timer.stop()
        if msecs > 0 and text:
            self._timer.start(msecs)
        if changed:
            self.messageChanged.emit(text)

    def clearMessage(self) -> None:
        self.showMessage("")

    def currentMessage(self) -> str:
        return self.note_label.full_text()


class Messages:
    """Status-bar notes and dialogs of `window` (whose status bar becomes a MessageBar)."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.bar = MessageBar(window)
        window.setStatusBar(self.bar)
        self.scene_warning = ""

    def set_scene_warnings(self, warnings: list[str]) -> None:
        """The running scene's warnings, shown with every note from now on."""
        self.scene_warning = " | ".join(warnings)

    def note(self, text: str, ms: int = NOTE_MS) -> None:
        """A status-bar note (nothing else)."""
        self.bar.showMessage(text, ms)

    def announce(self, text: str = "") -> None:
        """A status-bar note followed by the scene's warnings, if it has any."""
        if self.scene_warning:
            lead = f"{text}. Warning: " if text else "Warning: "
            self.note(lead + self.scene_warning, WARNING_MS)
        elif text:
            self.note(text)

    def clear(self) -> None:
        self.bar.clearMessage()

    def problem(self, title: str, text: str, dialog: bool = True) -> None:
        """A problem the user must see: a dialog, or a long status-bar note where a dialog
        would interrupt them for something they did not ask for (an automatic reload)."""
        if dialog:
            QMessageBox.warning(self.window, title, text)
        else:
            self.note(f"{title}: {text}", 15000)
