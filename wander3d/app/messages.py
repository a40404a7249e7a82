"""What the window tells the user: notes in the status bar, and dialogs for problems.

The scene's warnings (old keys converted, groups that cannot turn back within the margin, as
`wander3d check` says them) follow every note and stay longer. A note too long for one line
wraps onto more (`MessageBar`): a problem is read whole, never cut off at the window's edge.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtWidgets import QLabel, QMainWindow, QMessageBox, QSizePolicy, QStatusBar, QWidget

#: A note wraps onto at most this many lines (the whole of a longer one is in its tooltip),
#: so that a long warning never takes much of the view's height.
MAX_NOTE_LINES = 3
#: How long notes, and notes followed by the scene's warnings, stay (ms).
NOTE_MS = 4000
WARNING_MS = 30000


class MessageBar(QStatusBar):
    """A status bar whose notes wrap onto the lines they need (up to MAX_NOTE_LINES).

    QStatusBar paints a note on one line, cut off where the permanent figures start; here a
    note is a word-wrapped label that takes the width left beside them (the bar grows a line
    for a long one; the tooltip has all of it). showMessage, clearMessage, currentMessage and
    messageChanged behave as QStatusBar's.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note_label = QLabel()
        self.note_label.setWordWrap(True)
        self.note_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        lines = self.note_label.fontMetrics().lineSpacing() * MAX_NOTE_LINES
        self.note_label.setMaximumHeight(lines + 2)
        self.addWidget(self.note_label, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)

    def showMessage(self, text: str | None, msecs: int = 0) -> None:
        text = text or ""
        changed = text != self.note_label.text()
        self.note_label.setText(text)
        self.note_label.setToolTip(text)
        self._timer.stop()
        if msecs > 0 and text:
            self._timer.start(msecs)
        if changed:
            self.messageChanged.emit(text)

    def clearMessage(self) -> None:
        self.showMessage("")

    def currentMessage(self) -> str:
        return self.note_label.text()


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
