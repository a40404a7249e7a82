"""Watching the open scene file, so edits made in a text editor show up at once."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QFileSystemWatcher, QObject, QTimer, pyqtSignal

#: Editors write a file in several steps (truncate, write, rename); wait for them to finish.
SETTLE_MS = 250


class SceneWatcher(QObject):
    """Emits `changed` once a watched file has changed on disk and stayed unchanged a moment."""

    changed = pyqtSignal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_change)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._fire)
        self._path: Path | None = None

    def watch(self, path: Path | None) -> None:
        """Watch `path` only (None: nothing)."""
        files = self._watcher.files()
        if files:
            self._watcher.removePaths(files)
        self._path = path
        self._settle.stop()
        if path is not None and path.exists():
            self._watcher.addPath(str(path))

    def _on_change(self, _name: str) -> None:
        self._settle.start()

    def _fire(self) -> None:
        # An editor that saves by replacing the file makes the watcher drop it; watch again.
        if self._path is not None and str(self._path) not in self._watcher.files():
            if self._path.exists():
                self._watcher.addPath(str(self._path))
        self.changed.emit()
