"""Qt's own file dialogs (Open, Save As, Share as web page, Export code's folder) at a size
that shows their columns whole.

Where no desktop offers a native dialog, Qt draws its own at a default size that elided every
column ("820...tes", "TO...nt", "27 11 2...6 20:36"). An application-wide event filter sizes
each one as it first shows, with the name column taking what the others leave.
"""

from __future__ import annotations

from PyQt6.QtCore import QEvent, QObject
from PyQt6.QtWidgets import QApplication, QFileDialog, QHeaderView, QTreeView

#: The size a file dialog opens at (logical pixels), at most this share of the screen.
SIZE = (900, 540)
SCREEN_SHARE = 0.9
#: Marks a dialog already sized (the user may resize it after).
_SIZED = "wander3d_sized"


class RoomyFileDialogs(QObject):
    """The event filter; install with `install(app)`."""

    def eventFilter(self, obj: QObject | None, event: QEvent | None) -> bool:
        if (
            event is not None
            and event.type() == QEvent.Type.Show
            and isinstance(obj, QFileDialog)
            and not obj.property(_SIZED)
        ):
            obj.setProperty(_SIZED, True)
            fit(obj)
        return False


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


_FILTER: list[RoomyFileDialogs] = []


def install(app: QApplication) -> None:
    """Size every file dialog `app` shows from now on (once per application)."""
    if not _FILTER:
        _FILTER.append(RoomyFileDialogs(app))
        app.installEventFilter(_FILTER[0])
