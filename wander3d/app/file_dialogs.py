"""Qt's own file dialogs (Open, Save As, Share as web page, Export code's folder) at a size
that shows their columns whole.

Where no desktop offers a native dialog, Qt draws its own at a default size that elided every
column ("820...tes", "TO...nt", "27 11 2...6 20:36"). `roomy()` wraps a call that opens one
(QFileDialog's static functions): once the dialog is up, it is sized, with the name column
taking what the others leave. (An application-wide event filter did the same from a QObject
that outlived the window, which PyQt's clean-up at exit then met freed: a segfault.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication, QFileDialog, QHeaderView, QTreeView

T = TypeVar("T")

#: The size a file dialog opens at (logical pixels), at most this share of the screen.
SIZE = (900, 540)
SCREEN_SHARE = 0.9


def roomy(open_dialog: Callable[[], T]) -> T:
    """`open_dialog()` (which runs a modal file dialog), the dialog sized by `fit` as it
    shows; its result."""
    QTimer.singleShot(0, _fit_active)
    return open_dialog()


def _fit_active() -> None:
    dialog = QApplication.activeModalWidget()
    if isinstance(dialog, QFileDialog):
        fit(dialog)


def fit(dialog: QFileDialog) -> None:
    """Size `dialog` to SIZE (within its screen) and its detail view's columns to their
    contents, the name column stretching."""
    screen = dialog.screen()
    width, height = SIZE
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, int(room.width() * SCREEN_SHARE))
        height = min(height, int(room.height() * SCREEN_SHARE))
    dialog.resize(max(width, dialog.minimumWidth()), max(height, dialog.minimumHeight()))
    view = dialog.findChild(QTreeView)
    header = view.header() if view is not None else None
    if header is None:
        return
    header.setStretchLastSection(False)
    for column in range(header.count()):
        mode = (
            QHeaderView.ResizeMode.Stretch
            if column == 0
            else (QHeaderView.ResizeMode.ResizeToContents)
        )
        header.setSectionResizeMode(column, mode)
