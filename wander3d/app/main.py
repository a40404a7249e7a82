"""`run_app`: start Qt, open a scene (or the default one) and run the window until it closes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PyQt6.QtCore import QCoreApplication, QEvent, QEventLoop, QSettings, QTimer
from PyQt6.QtWidgets import QApplication, QProgressDialog

from wander3d.engine.warmup import compile_kernel, load_cached_kernel
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
from .interrupt import EXIT_INTERRUPTED, CloseOnInterrupt, Interrupts
from .theme import apply_dark_theme
from .window import MainWindow

T = TypeVar("T")

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


#: The dialog's text while the engine compiles; {seconds} counts up.
COMPILING = (
    "Compiling the simulation engine (first launch only)...\n"
    "About 20 s on two idle cores, longer on a busy machine: {seconds} s so far."
)
#: The child process that compiles the kernel into numba's cache.
WARMUP_COMMAND = (sys.executable, "-m", "wander3d.engine.warmup")


def prepare_engine(app: QApplication, interrupts: Interrupts | None = None) -> bool:
    """Load the engine's kernel from numba's cache, or compile it, keeping the screen live.

    A launch with the kernel cached loads it in about a second, with no dialog. The first
    launch ever compiles it in a child process (`python -m wander3d.engine.warmup`), which
    holds none of this process's interpreter, so the dialog that says so counts the seconds
    and the window answers all along; the kernel is then loaded from the cache the child
    wrote (or compiled here, should the child have failed: its error is raised here, in the
    GUI thread). Returns False, having stopped the child, if Ctrl+C came (`interrupts`).
    """

    def stopped() -> bool:
        return interrupts is not None and interrupts.received

    cached = _in_thread(app, load_cached_kernel, stopped)
    if stopped():
        return False
    if cached:
        return True
    dialog = QProgressDialog(COMPILING.format(seconds=0), None, 0, 0)
    dialog.setWindowTitle("wander3d")
    dialog.setMinimumDuration(0)
    dialog.show()
    start = time.monotonic()
    child = subprocess.Popen(
        WARMUP_COMMAND,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while child.poll() is None and not stopped():
            dialog.setLabelText(COMPILING.format(seconds=round(time.monotonic() - start)))
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)
            time.sleep(0.02)
        if stopped():
            return False
        _in_thread(app, compile_kernel, stopped)
        return not stopped()
    finally:
        if child.poll() is None:
            child.terminate()
            child.wait()
        dialog.close()


def _in_thread(app: QApplication, work: Callable[[], T], stopped: Callable[[], bool]) -> T | None:
    """`work()` on a thread while the GUI thread handles events; its result, or its exception
    raised here. Returns None at once when `stopped()` becomes true."""
    done = threading.Event()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # re-raised below, in the GUI thread
            failure.append(error)
        finally:
            done.set()

    threading.Thread(target=run, name="wander3d-compile", daemon=True).start()
    while not done.wait(0.03):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 30)
        if stopped():
            return None
    if failure:
        raise failure[0]
    return outcome[0]


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

    Returns the exit status: 0, or 130 when Ctrl+C in the terminal closed the window (or
    came before it opened). A missing or invalid file opens the default scene and says why.
    """
    app = qt_application()
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    interrupts = Interrupts(app)
    try:
        if not prepare_engine(app, interrupts):
            return EXIT_INTERRUPTED
        return _run_window(app, scene_path, interrupts)
    finally:
        interrupts.restore()


def _run_window(app: QApplication, scene_path: Path | None, interrupts: Interrupts) -> int:
    scene, error = load_start_scene(scene_path)
    window = MainWindow(scene, QSettings(ORGANIZATION, APPLICATION), samples=default_samples())
    previous = install_excepthook(window, lambda: window.session.set_running(False))
    closer = CloseOnInterrupt(window, interrupts)
    if interrupts.received:  # while the window was being built
        QTimer.singleShot(0, closer.close_window)
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
        status = app.exec()
    finally:
        sys.excepthook = previous
    ended = closer.status if closer.status is not None else status
    # Delete the window and all it holds now, while Qt runs: left to PyQt's clean-up at
    # interpreter exit, a window closed as it was first shown made that clean-up meet a
    # freed wrapper (a segfault after a clean exit, 3 in 6 quick Ctrl+Q or Ctrl+C).
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return ended
