"""Recently opened scene files, kept in QSettings (most recent first)."""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QSettings

MAX_RECENT = 10
_KEY = "recent_files"


class RecentFiles:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def paths(self) -> list[Path]:
        value = self.settings.value(_KEY, [])
        # QSettings gives a str for a one-element list in some formats.
        items = [value] if isinstance(value, str) else list(value or [])
        return [Path(p) for p in items if p]

    def add(self, path: Path) -> None:
        path = path.resolve()
        items = [p for p in self.paths() if p != path]
        self._store([path, *items][:MAX_RECENT])

    def remove(self, path: Path) -> None:
        path = path.resolve()
        self._store([p for p in self.paths() if p != path])

    def _store(self, paths: list[Path]) -> None:
        self.settings.setValue(_KEY, [str(p) for p in paths])
