"""File ▸ Share as web page…: the running scene, slider edits included, as one web page.

Asks where to save, writes the page (wander3d.share) and says where it went; a failure is a
dialog and the running scene goes on.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject, QSettings
from PyQt6.QtWidgets import QFileDialog, QMainWindow

from wander3d.files import OutputError
from wander3d.port import PortError
from wander3d.scene import SceneError
from wander3d.session import Session
from wander3d.share import PAGE_SUFFIXES, write_page

from .actions import Actions
from .file_dialogs import roomy
from .messages import Messages
from .scene_files import output_folder, slug

PAGE_FILTER = "Web page (*.html)"


class WebShare(QObject):
    """Wires File ▸ Share as web page… to writing the session's scene as a page."""

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
        self.messages = messages
        commands.share_page.triggered.connect(self.share_dialog)

    def share_dialog(self) -> bool:
        """Ask where to save the page, then write it; True if it was written."""
        base = output_folder(self.session.scene, self.settings)
        start = base / f"{slug(self.session.scene.name)}.html"
        path, _ = roomy(
            lambda: QFileDialog.getSaveFileName(
                self.window, "Share as web page", str(start), PAGE_FILTER
            )
        )
        if not path:
            return False
        out = Path(path)
        return self.share(out if out.suffix.lower() in PAGE_SUFFIXES else out.with_suffix(".html"))

    def share(self, out: Path) -> bool:
        """Write the running scene (its groups as the sliders left them) as a page at `out`."""
        try:
            self.session.settle()  # every edit asked for, even one made a moment ago
            scene = self.session.current_scene()
            write_page(scene, out)
        except (PortError, SceneError, OutputError, OSError) as e:
            self.messages.problem("Cannot share", f"Could not write the web page {out}: {e}")
            return False
        self.settings.setValue("last_dir", str(out.resolve().parent))
        self.messages.note(f"Wrote '{scene.name}' as a web page: {out} (open it in any browser)")
        return True
