"""What the window tells the user: notes in the status bar, and dialogs for problems.

The scene's warnings (old keys converted, groups that cannot turn back within the margin, as
`wander3d check` says them) follow every note and stay longer.
"""

from __future__ import annotations

from PyQt6.QtWidgets import QMainWindow, QMessageBox

#: How long notes, and notes followed by the scene's warnings, stay (ms).
NOTE_MS = 4000
WARNING_MS = 30000


class Messages:
    """Status-bar notes and dialogs of `window`."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        bar = window.statusBar()  # made on first use, so never None
        assert bar is not None
        self.bar = bar
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
