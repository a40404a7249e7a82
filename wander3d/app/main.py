"""`run_app`: start Qt, open a scene (or the default one) and run the window until it closes."""

from __future__ import annotations

import sys
from pathlib import Path

from PyQt6.QtCore import QSettings, QTimer
from PyQt6.QtWidgets import QApplication

from wander3d.scene import Scene, SceneError, bundled_scene, load_scene

from .errors import install_excepthook
from .glinfo import default_samples
from .theme import apply_dark_theme
from .window import MainWindow

ORGANIZATION = "wander3d"
APPLICATION = "wander3d"


def load_start_scene(path: Path | None) -> tuple[Scene, str | None]:
    """The scene to start with: `path`'s, or the bundled default (with why, if `path` failed)."""
    if path is not None:
        try:
            return load_scene(path), None
        except SceneError as e:
            return load_scene(bundled_scene()), str(e)
    return load_scene(bundled_scene()), None


def run_app(scene_path: Path | None = None) -> int:
    """Open the desktop app on `scene_path` (None: the bundled default scene).

    Returns the exit status. A missing or invalid file opens the default scene and says why.
    """
    import vispy

    vispy.use(app="pyqt6")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    apply_dark_theme(app)
    scene, error = load_start_scene(scene_path)
    window = MainWindow(scene, QSettings(ORGANIZATION, APPLICATION), samples=default_samples())
    previous = install_excepthook(window, lambda: window.set_running(False))
    window.show()
    if error is not None:
        QTimer.singleShot(
            0,
            lambda: window.show_error(
                "Cannot open scene", f"{error}\n\nShowing the default scene."
            ),
        )
    if scene_path is not None and error is None:
        window.recent.add(Path(scene_path))
    try:
        return app.exec()
    finally:
        sys.excepthook = previous
