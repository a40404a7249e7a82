"""File ▸ Export code…: the running scene, slider edits included, as a port for a game engine.

Asks for the language and the folder, writes the port (wander3d.port) there and says where it
went; a failure is a dialog and the running scene goes on.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6.QtCore import QObject, QSettings
from PyQt6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QWidget,
)

from wander3d.files import OutputError
from wander3d.port import LANGUAGES, PortError, language, plan_port, write_port
from wander3d.scene import SceneError
from wander3d.session import Session

from .actions import Actions
from .file_dialogs import roomy
from .messages import Messages
from .scene_files import output_folder, slug


class ExportCodeDialog(QDialog):
    """Language and folder of a port; `choice()` after it is accepted."""

    def __init__(self, parent: QWidget, lang: str, folder: Path) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export code")
        self.languages = QComboBox()
        for name in LANGUAGES:
            self.languages.addItem(f"{language(name).title} ({name})", name)
        self.languages.setCurrentIndex(max(0, self.languages.findData(lang)))
        self.folder = QLineEdit(str(folder))
        self.folder.setMinimumWidth(360)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder)
        row.addWidget(browse)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Language:", self.languages)
        form.addRow("Folder:", row)
        form.addRow(buttons)

    def _browse(self) -> None:
        start = Path(self.folder.text()).parent
        chosen = roomy(
            lambda: QFileDialog.getExistingDirectory(self, "Export code into", str(start))
        )
        if chosen:
            self.folder.setText(str(Path(chosen) / Path(self.folder.text()).name))

    def choice(self) -> tuple[str, Path]:
        """(--lang value, folder)."""
        return str(self.languages.currentData()), Path(self.folder.text()).expanduser()


class CodeExport(QObject):
    """Wires File ▸ Export code… to writing the session's scene as a port."""

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
        commands.export_code.triggered.connect(self.export_dialog)

    def export_dialog(self) -> bool:
        """Ask for the language and folder, then export; True if a port was written."""
        lang = str(self.settings.value("export_code_lang", next(iter(LANGUAGES))))
        base = output_folder(self.session.scene, self.settings)
        folder = base / f"{slug(self.session.scene.name)}-{lang}"
        dialog = ExportCodeDialog(self.window, lang, folder)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        return self.export(*dialog.choice())

    def export(self, lang: str, folder: Path) -> bool:
        """Write the running scene's port in `lang` into `folder`; say where it went."""
        try:
            self.session.settle()  # every edit asked for, even one made a moment ago
            scene = self.session.current_scene()
            port = language(lang)
            write_port(plan_port(scene), port, folder)
        except (PortError, SceneError, OutputError, OSError) as e:
            self.messages.problem(
                "Cannot export code", f"Could not write the port to {folder}: {e}"
            )
            return False
        self.settings.setValue("export_code_lang", lang)
        self.messages.note(
            f"Wrote the {port.title} port of '{scene.name}' to {folder} (see its README.md)"
        )
        return True
