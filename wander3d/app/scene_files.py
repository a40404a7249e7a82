"""Scene files in the window: open, reload (by hand or when the file changes), save as, recent
files, drops, the title, and asking before edits are dropped.

A bad file never stops the running scene: opening or reloading one shows its SceneError and
the session keeps what it runs.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from PyQt6.QtCore import QMimeData, QObject, QSettings, QStandardPaths
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from wander3d.files import OutputError, output_file
from wander3d.scene import MemoryFitError, Scene, SceneError, load_scene, scenes_dir
from wander3d.session import Session

from .actions import Actions
from .file_dialogs import roomy
from .messages import Messages
from .recent import RecentFiles
from .watch import SceneWatcher

SCENE_FILTER = "Scene files (*.toml);;All files (*)"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "scene"


def unsaved_question(name: str, doing: str) -> str:
    """What the window asks before `doing` drops edits to the scene `name`. The words after
    the name never break apart (no-break spaces): a long name wrapped the sentence and left
    "saved." alone on its last line."""
    keep = "\u00a0".join
    return (
        f"The scene '{name}' {keep('has changes that are not saved.'.split())}\n"
        f"{keep(f'Save them before {doing}?'.split())}"
    )


def dropped_scene(mime: QMimeData | None) -> Path | None:
    """The first local .toml file among dropped URLs, if any."""
    if mime is None or not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(".toml"):
            return Path(url.toLocalFile())
    return None


def output_folder(scene: Scene, settings: QSettings) -> Path:
    """Where a dialog that writes something of `scene` starts (Save As, Export code, Share):
    the scene file's folder, else the last folder used, where the user may write and which
    is not wander3d's own scenes (a bundled scene saved over would change every user's
    default, and an installed package's data folder is no place for a user's files); else
    the user's documents folder, or home."""
    source = scene.source
    last = settings.value("last_dir")
    bundled = scenes_dir()
    for folder in (source.parent if source else None, Path(last) if last else None):
        if folder is None or not folder.is_dir() or not os.access(folder, os.W_OK):
            continue
        if bundled is not None and folder.resolve() == bundled.resolve():
            continue
        return folder
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


class SceneFiles(QObject):
    """The session's scene file, as the window shows and changes it."""

    def __init__(
        self,
        session: Session,
        window: QMainWindow,
        settings: QSettings,
        commands: Actions,
        messages: Messages,
    ) -> None:
        super().__init__(window)
        self.session = session
        self.window = window
        self.settings = settings
        self.commands = commands
        self.messages = messages
        self.recent = RecentFiles(settings)
        self.watcher = SceneWatcher(self)
        self.watcher.changed.connect(self._auto_reload)
        commands.open.triggered.connect(self.open_dialog)
        commands.reload.triggered.connect(lambda: self.reload_scene(dialog=True))
        commands.save_as.triggered.connect(self.save_dialog)
        commands.auto_reload.setChecked(settings.value("auto_reload", True, type=bool))
        commands.auto_reload.toggled.connect(self._toggle_auto_reload)
        session.events.scene_changed.connect(self._show_file)
        for signal in (session.events.groups_changed, session.events.display_changed):
            signal.connect(self.show_modified)
        self._rebuild_recent_menu()
        self._show_file(session.scene)

    # ------------------------------------------------------------------ modified
    def show_modified(self, *_: object) -> None:
        self.window.setWindowModified(self.session.modified)

    def confirm_discard(self, doing: str) -> bool:
        """Before `doing` (e.g. "opening another scene") drops edits: ask Save / Discard /
        Cancel. True when it may go on (saved, discarded, or nothing to lose)."""
        self.session.settle()  # edits still on their way count too
        if not self.session.modified:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self.window,
            "Unsaved changes",
            unsaved_question(self.session.scene.name, doing),
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
        if answer == buttons.Save:
            return self.save_dialog()
        return answer == buttons.Discard

    # ------------------------------------------------------------------ title and watching
    def _show_file(self, scene: Scene) -> None:
        """Title, Reload and the file watcher follow the scene's file."""
        source = scene.source
        where = f" — {source.name}" if source else ""
        # Qt shows "*" in place of "[*]" while the window is marked modified.
        self.window.setWindowTitle(f"{scene.name}{where}[*] — wander3d")
        self.commands.reload.setEnabled(source is not None)
        self.show_modified()
        self._watch()

    def _watch(self) -> None:
        source = self.session.scene.source
        on = self.commands.auto_reload.isChecked() and source is not None
        self.watcher.watch(source if on else None)

    def _toggle_auto_reload(self, on: bool) -> None:
        self.settings.setValue("auto_reload", bool(on))
        self._watch()

    # ------------------------------------------------------------------ open and reload
    def _start(self, scene: Scene, reloaded: bool) -> bool:
        """Run `scene` in place of the current one; False (and nothing changed) on failure."""
        try:
            self.session.open(scene, reloaded=reloaded)
        except MemoryFitError as e:
            self.messages.problem("Cannot open scene", str(e))
            return False
        except MemoryError:
            self.messages.problem(
                "Cannot open scene",
                "Not enough memory for this scene; try fewer agents or shorter trails.",
            )
            return False
        return True

    def open_scene(self, path: Path, dialog: bool = True) -> bool:
        """Open the scene at `path` (after asking about unsaved edits); an invalid file is
        reported and the current scene kept."""
        path = Path(path)
        if not self.confirm_discard("opening another scene"):
            return False
        try:
            scene = load_scene(path)
        except SceneError as e:
            self.messages.problem("Cannot open scene", str(e), dialog)
            if not path.exists():
                self.recent.remove(path)
                self._rebuild_recent_menu()
            return False
        if not self._start(scene, reloaded=False):
            return False
        self._remember(path)
        self.messages.announce(f"Opened {path}")
        return True

    def reload_scene(self, dialog: bool = True) -> bool:
        """Read the scene file again, keeping the camera; errors keep the running scene.

        dialog: asked by the user (ask about unsaved edits, errors in a dialog); False for an
        automatic reload, which never drops edits (it says so in the status bar instead).
        """
        source = self.session.scene.source
        if source is None:
            return False
        if dialog:
            if not self.confirm_discard("reloading the file"):
                return False
        elif self.session.modified:
            self.messages.note(
                f"{source.name} changed on disk; your unsaved edits are kept (Ctrl+R reloads)",
                15000,
            )
            return False
        try:
            scene = load_scene(source)
        except SceneError as e:
            self.messages.problem("Cannot reload scene", str(e), dialog)
            return False
        if not self._start(scene, reloaded=True):
            return False
        self.messages.announce(f"Reloaded {source.name}")
        return True

    def _auto_reload(self) -> None:
        source = self.session.scene.source
        try:
            text = source.read_text(encoding="utf-8") if source is not None else None
        except (OSError, UnicodeDecodeError):
            text = None  # let reload_scene report it
        # A change notification that leaves the file as we know it (our own save) is no news.
        if text is not None and text == self.session.scene.text:
            return
        self.reload_scene(dialog=False)

    # ------------------------------------------------------------------ save
    def save_scene_as(self, path: Path) -> bool:
        """Write the running scene to `path` as TOML, whole or not at all, with the umask's
        mode; it becomes the open file."""
        path = Path(path)
        if path.suffix.lower() != ".toml":
            path = path.with_suffix(".toml")
        try:
            self.session.settle()  # every edit asked for, even one made a moment ago
            scene = self.session.current_scene()
            text = scene.to_toml()
            with output_file(path) as temporary:
                temporary.write_text(text, encoding="utf-8")
        except (SceneError, OutputError, OSError) as e:
            self.messages.problem("Cannot save scene", f"Could not save {path}: {e}")
            return False
        self.session.mark_saved(dataclasses.replace(scene, source=path, text=text))
        self._remember(path)
        self.messages.note(f"Saved {path}")
        return True

    def _remember(self, path: Path) -> None:
        self.recent.add(path)
        self.settings.setValue("last_dir", str(path.resolve().parent))
        self._rebuild_recent_menu()

    # ------------------------------------------------------------------ dialogs and menus
    def open_dialog(self) -> None:
        path, _ = roomy(
            lambda: QFileDialog.getOpenFileName(
                self.window, "Open scene", self._last_dir(), SCENE_FILTER
            )
        )
        if path:
            self.open_scene(Path(path))

    def save_dialog(self) -> bool:
        """Ask where to save; True if the scene was saved."""
        start = str(self.save_dir() / f"{slug(self.session.scene.name)}.toml")
        path, _ = roomy(
            lambda: QFileDialog.getSaveFileName(self.window, "Save scene as", start, SCENE_FILTER)
        )
        return bool(path) and self.save_scene_as(Path(path))

    def save_dir(self) -> Path:
        """Where Save As starts (see `output_folder`)."""
        return output_folder(self.session.scene, self.settings)

    def _last_dir(self) -> str:
        source = self.session.scene.source
        if source is not None and not self.settings.contains("last_dir"):
            return str(source.parent)
        return str(self.settings.value("last_dir", str(Path.home())))

    def _rebuild_recent_menu(self) -> None:
        menu = self.commands.recent_menu
        menu.clear()
        paths = self.recent.paths()
        for i, path in enumerate(paths, start=1):
            act = QAction(f"&{i % 10} {path.name}", menu)
            menu.addAction(act)
            act.setToolTip(str(path))
            act.setStatusTip(str(path))
            act.triggered.connect(lambda _=False, p=path: self.open_scene(p))
        menu.setEnabled(bool(paths))
