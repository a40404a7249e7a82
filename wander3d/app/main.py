"""`run_app`: start Qt, open a scene (or the default one) and run the window until it closes."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from PyQt6.QtCore import QEventLoop, QSettings, QTimer
from PyQt6.QtWidgets import QApplication, QProgressDialog

from wander3d.engine.warmup import compile_kernel
from wander3d.scene import (
    MemoryFitError,
    Scene,
    SceneError,
    bundled_scene,
    check_fits,
    load_scene,
)

from .canvas_window import prefer_prompt_updates
from .errors import install_excepthook
from .glinfo import default_samples
from .theme import apply_dark_theme
from .window import MainWindow

ORGANIZATION = "wander3d"
APPLICATION = "wander3d"


def load_start_scene(path: Path | None) -> tuple[Scene, str | None]:
    """The scene to start with: `path`'s, or the bundled default (with why, if `path` failed:
    an invalid file, or a scene too big for this machine's memory)."""
    if path is not None:
        try:
            scene = load_scene(path)
            check_fits(scene)
            return scene, None
        except (SceneError, MemoryFitError) as e:
            return load_scene(bundled_scene()), str(e)
    return load_scene(bundled_scene()), None


def prepare_engine(app: QApplication) -> None:
    """Compile (or load from numba's cache) the engine's kernel without freezing the screen.

    The first launch ever compiles for about 20 s: a progress dialog says so and stays live
    while a thread compiles. Later launches load the cached code in about a second, before
    the dialog would even appear.
    """
    done = threading.Event()
    failure: list[BaseException] = []

    def work() -> None:
        try:
            compile_kernel()
        except BaseException as error:  # re-raised below, in the GUI thread
            failure.append(error)
        finally:
            done.set()

    threading.Thread(target=work, name="wander3d-compile", daemon=True).start()
    dialog = None
    shown_after = time.monotonic() + 1.0
    while not done.wait(0.03):
        if dialog is None and time.monotonic() > shown_after:
            dialog = QProgressDialog(
                "Compiling the simulation engine (first launch only, about 20 s)...", None, 0, 0
            )
            dialog.setWindowTitle("wander3d")
            dialog.setMinimumDuration(0)
            dialog.show()
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)
    if dialog is not None:
        dialog.close()
    if failure:
        raise failure[0]


def qt_application() -> QApplication:
    """Qt set up as the app runs it: vispy on PyQt6, prompt update requests, the dark theme
    (the QApplication already running, or a new one). Benchmarks and tests that open the
    main window start Qt this way too, so they measure and see what a user gets."""
    import vispy

    vispy.use(app="pyqt6")
    prefer_prompt_updates()
    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(sys.argv[:1])
    apply_dark_theme(app)
    return app


def run_app(scene_path: Path | None = None) -> int:
    """Open the desktop app on `scene_path` (None: the bundled default scene).

    Returns the exit status. A missing or invalid file opens the default scene and says why.
    """
    app = qt_application()
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    prepare_engine(app)
    scene, error = load_start_scene(scene_path)
    window = MainWindow(scene, QSettings(ORGANIZATION, APPLICATION), samples=default_samples())
    previous = install_excepthook(window, lambda: window.session.set_running(False))
    window.show()
    if error is not None:
        QTimer.singleShot(
            0,
            lambda: window.show_error(
                "Cannot open scene", f"{error}\n\nShowing the default scene."
            ),
        )
    if scene_path is not None and error is None:
        window.files.recent.add(Path(scene_path))
    try:
        return app.exec()
    finally:
        sys.excepthook = previous
