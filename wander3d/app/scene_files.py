"""Scene files in the window: open, reload (by hand or when the file changes), save as, recent
files, drag and drop, and asking before edits are dropped.

A mixin for MainWindow. A bad file never stops the running scene: opening or reloading one
shows its SceneError and keeps what was there.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from PyQt6.QtGui import QDragEnterEvent, QDropEvent
from PyQt6.QtWidgets import QFileDialog, QMessageBox

from wander3d.engine import Simulation
from wander3d.files import OutputError, output_file
from wander3d.scene import Scene, SceneError, load_scene

SCENE_FILTER = "Scene files (*.toml);;All files (*)"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "scene"


class SceneFiles:
    """Mixin for MainWindow: the scene's file and the user's unsaved edits."""

    # ------------------------------------------------------------------ modified
    @property
    def modified(self) -> bool:
        """Whether the running scene differs from its file (sliders or display toggles)."""
        return self.current_scene().to_toml() != self.scene.to_toml()

    def _show_modified(self) -> None:
        self.setWindowModified(self.modified)

    def confirm_discard(self, doing: str) -> bool:
        """Before `doing` (e.g. "opening another scene") drops edits: ask Save / Discard /
        Cancel. True when it may go on (saved, discarded, or nothing to lose)."""
        if not self.modified:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"The scene '{self.scene.name}' has changes that are not saved.\n"
            f"Save them before {doing}?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
        if answer == buttons.Save:
            return self._save_dialog()
        return answer == buttons.Discard

    # ------------------------------------------------------------------ title and watching
    def _show_file(self) -> None:
        """Title, Reload and the file watcher follow the scene's file."""
        source = self.scene.source
        where = f" — {source.name}" if source else ""
        # Qt shows "*" in place of "[*]" while the window is marked modified.
        self.setWindowTitle(f"{self.scene.name}{where}[*] — wander3d")
        self.reload_action.setEnabled(source is not None)
        self._show_modified()
        self._watch()

    def _watch(self) -> None:
        on = self.auto_reload_action.isChecked() and self.scene.source is not None
        self.watcher.watch(self.scene.source if on else None)

    def _toggle_auto_reload(self, on: bool) -> None:
        self.settings.setValue("auto_reload", bool(on))
        self._watch()

    # ------------------------------------------------------------------ open and reload
    def _replace_scene(self, scene: Scene, keep_camera: bool) -> bool:
        """Start `scene` in place of the current one; False (and nothing changed) on failure."""
        try:
            sim = Simulation(scene)
        except MemoryError:
            self._report("Not enough memory for this scene; try fewer agents or shorter trails.")
            return False
        self.scene, self.sim = scene, sim
        self._file_text = scene.text
        self.view.set_simulation(scene, sim, keep_camera=keep_camera)
        self.frames.set_simulation(sim)
        self._show_scene()
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
            self._report(str(e), dialog, title="Cannot open scene")
            if not path.exists():
                self.recent.remove(path)
                self._rebuild_recent_menu()
            return False
        if not self._replace_scene(scene, keep_camera=False):
            return False
        self.recent.add(path)
        self.settings.setValue("last_dir", str(path.resolve().parent))
        self._rebuild_recent_menu()
        self._announce(f"Opened {path}")
        return True

    def reload_scene(self, dialog: bool = True) -> bool:
        """Read the scene file again, keeping the camera; errors keep the running scene.

        dialog: asked by the user (ask about unsaved edits, errors in a dialog); False for an
        automatic reload, which never drops edits (it says so in the status bar instead).
        """
        source = self.scene.source
        if source is None:
            return False
        if dialog:
            if not self.confirm_discard("reloading the file"):
                return False
        elif self.modified:
            self.statusBar().showMessage(
                f"{source.name} changed on disk; your unsaved edits are kept (Ctrl+R reloads)",
                15000,
            )
            return False
        try:
            scene = load_scene(source)
        except SceneError as e:
            self._report(str(e), dialog, title="Cannot reload scene")
            return False
        if not self._replace_scene(scene, keep_camera=True):
            return False
        self._announce(f"Reloaded {source.name}")
        return True

    def _auto_reload(self) -> None:
        source = self.scene.source
        try:
            text = source.read_text(encoding="utf-8") if source is not None else None
        except (OSError, UnicodeDecodeError):
            text = None  # let reload_scene report it
        if text is not None and text == self._file_text:
            return
        self.reload_scene(dialog=False)

    # ------------------------------------------------------------------ save
    def current_scene(self) -> Scene:
        """The scene as it runs now: live parameter edits and display toggles included."""
        view = dataclasses.replace(
            self.scene.view,
            show_trails=self.view.trails_visible,
            show_enclosure=self.view.enclosure_visible,
        )
        return self.scene.replace(groups=self.sim.groups, view=view)

    def save_scene_as(self, path: Path) -> bool:
        """Write the current scene to `path` as TOML, whole or not at all, with the umask's
        mode; it becomes the open file."""
        path = Path(path)
        if path.suffix.lower() != ".toml":
            path = path.with_suffix(".toml")
        try:
            scene = self.current_scene()
            text = scene.to_toml()
            with output_file(path) as temporary:
                temporary.write_text(text, encoding="utf-8")
        except (SceneError, OutputError, OSError) as e:
            self._report(f"Could not save {path}: {e}", title="Cannot save scene")
            return False
        self.scene = dataclasses.replace(scene, source=path, text=text)
        self.sim.adopt_current_groups()  # R now resets to the saved scene's start
        self._file_text = text
        self.recent.add(path)
        self.settings.setValue("last_dir", str(path.resolve().parent))
        self._rebuild_recent_menu()
        self._show_file()
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    # ------------------------------------------------------------------ dialogs and menus
    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scene", self._last_dir(), SCENE_FILTER)
        if path:
            self.open_scene(Path(path))

    def _save_dialog(self) -> bool:
        """Ask where to save; True if the scene was saved."""
        start = str(Path(self._last_dir()) / f"{slug(self.scene.name)}.toml")
        path, _ = QFileDialog.getSaveFileName(self, "Save scene as", start, SCENE_FILTER)
        return bool(path) and self.save_scene_as(Path(path))

    def _last_dir(self) -> str:
        if self.scene.source is not None and not self.settings.contains("last_dir"):
            return str(self.scene.source.parent)
        return str(self.settings.value("last_dir", str(Path.home())))

    def _rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = self.recent.paths()
        for i, path in enumerate(paths, start=1):
            act = menu.addAction(f"&{i % 10} {path.name}")
            act.setToolTip(str(path))
            act.setStatusTip(str(path))
            act.triggered.connect(lambda _=False, p=path: self.open_scene(p))
        menu.setEnabled(bool(paths))

    def _report(self, message: str, dialog: bool = True, title: str = "wander3d") -> None:
        """Tell the user about a problem: a dialog, or a status bar message (auto-reload)."""
        if dialog:
            QMessageBox.warning(self, title, message)
        else:
            self.statusBar().showMessage(f"{title}: {message}", 15000)

    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def _dropped_scene(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".toml"):
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_scene(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_scene(event)
        if path is not None:
            event.acceptProposedAction()
            self.open_scene(path)
