"""No traceback on the terminal while the window is open: unexpected errors become a dialog."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from types import TracebackType

from PyQt6.QtWidgets import QMessageBox, QWidget

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def install_excepthook(parent: QWidget, on_error: Callable[[], None]) -> ExceptHook:
    """Route uncaught exceptions (PyQt slots and virtuals included) to a dialog over `parent`.

    on_error runs first (the window pauses the simulation, so a fault that repeats every frame
    does not stack dialogs). Returns the previous hook, to restore when the window closes.
    """
    previous = sys.excepthook
    showing = False

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        nonlocal showing
        on_error()
        if showing:
            return
        showing = True
        try:
            box = QMessageBox(
                QMessageBox.Icon.Critical,
                "wander3d: unexpected error",
                f"{kind.__name__}: {error}\n\nThe simulation is paused; your scene is kept.",
                QMessageBox.StandardButton.Ok,
                parent,
            )
            box.setDetailedText("".join(traceback.format_exception(kind, error, tb)))
            box.exec()
        finally:
            showing = False

    sys.excepthook = hook
    return previous
