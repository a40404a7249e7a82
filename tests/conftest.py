"""Shared test configuration and fixtures: small scenes, isolated settings, GL views.

Imports nothing of Qt or vispy when loaded, so the suite runs in a core-only install. Each test
is marked `render`, `app` or `gl` from what it imports and the fixtures it uses (see
extras_support.py), and skips where the extra it needs is missing. The GL and app tests draw
through PyQt6 on the virtual X display pytest-xvfb starts (Mesa's llvmpipe), never Qt's
`offscreen` platform, which has no OpenGL.

Time: the engine's kernel and the path measures' passes are compiled (or loaded from numba's
cache) once, after collection and before the first test, outside every test's time bound: a
first compile on a busy machine takes minutes. The bound itself (pyproject.toml) fails the one
test that passes it and goes on; a test stuck in C code, which never returns to Python to
notice, ends the run after BACKSTOP_S more, with every thread's stack.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from extras_support import MARKER_EXTRAS, missing_extra, skip_reason
from gl_support import close_view, draw_states
from marking import derived_markers

#: Seconds past a test's time bound after which a test still running (a hang in C, where
#: pytest-timeout's signal cannot reach) ends the run, with every thread's stack.
BACKSTOP_S = 60.0
#: The terminal's stderr (a copy of file descriptor 2 made while pytest does not capture it).
_TERMINAL: list[TextIO] = []

# Qt's xcb platform on pytest-xvfb's display, set before any QApplication: under a Wayland
# desktop Qt would otherwise pick wayland (the user's screen, not the virtual one). A value the
# user has set wins.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


@pytest.hookimpl(tryfirst=True)  # before pytest-xvfb's, which starts the display
def pytest_configure(config: pytest.Config) -> None:
    # pytest captures nothing between loading the conftests and the first test.
    _TERMINAL.append(os.fdopen(os.dup(sys.stderr.fileno()), "w"))
    # With pytest-xvfb installed, ask for Xvfb itself (as `--xvfb-backend=xvfb` would), so that
    # a missing Xvfb fails loudly instead of the tests quietly drawing on whatever $DISPLAY is.
    if config.pluginmanager.hasplugin("xvfb") and config.getoption("xvfb_backend") is None:
        config.option.xvfb_backend = "xvfb"
    if missing_extra("app") is None:
        from wander3d.app.canvas_window import prefer_prompt_updates

        # Before pytest-qt's QApplication: the GL tests see Qt as the app configures it.
        prefer_prompt_updates()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with what it needs (from its imports and fixtures), then skip the tests
    whose marker names an extra that is not installed, saying which."""
    for item in items:
        function = getattr(item, "originalname", item.name)
        fixtures = getattr(item, "fixturenames", ())  # test functions have them
        for marker in sorted(derived_markers(item.path, function, fixtures)):
            if item.get_closest_marker(marker) is None:
                item.add_marker(marker)
        for marker in MARKER_EXTRAS:
            reason = skip_reason(marker) if item.get_closest_marker(marker) else None
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


#: A small two-group scene: cheap to draw with software GL, yet with trails, walls and methods.
SMALL_SCENE = """
[scene]
name = "Small"
seed = 11
dt = 0.02

[enclosure]
min = [-50, -30, -50]
max = [50, 30, 50]
margin = 8.0

[camera]
azimuth = 30.0
elevation = 25.0
fov = 45.0

[[groups]]
name = "amber"
count = 40
color = "#ffb000"
max_speed = 30.0
max_force = 50.0
trail_length = 32
trail_seconds = 0.64       # a point every step of 0.02 s

[groups.wander]
method = "sphere"
distance = 15.0
radius = 6.0
jitter = 8.0

[[groups]]
name = "cyan"
count = 20
color = "#4cc9f0"
trail_length = 16

[groups.wander]
method = "seek"
interval = 2.0
"""


@pytest.fixture
def small_scene_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_SCENE, encoding="utf-8")
    return path


@pytest.fixture
def small_scene(small_scene_file: Path):
    from wander3d.scene import load_scene

    return load_scene(small_scene_file)


@pytest.fixture
def settings(tmp_path: Path):
    """A QSettings in a temporary INI file, so tests never touch the user's settings."""
    from PyQt6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def gl_session(small_scene):
    """A Session running `small_scene`, paused (tests step it: gl_support.advance)."""
    from wander3d.session import Session

    with Session(small_scene) as session:
        yield session


@pytest.fixture
def gl_view(qtbot, gl_session):
    """A shown SimulationView (pyqt6 backend) of `gl_session`'s run, 480 x 360 logical pixels,
    drawing every state the session publishes (gl_support.draw_states)."""
    from wander3d.render import SimulationView

    view = SimulationView(gl_session.scene, gl_session.layout, size=(480, 360), app="pyqt6")
    draw_states(view, gl_session)
    widget = view.canvas.native
    widget.show()
    qtbot.waitExposed(widget)
    yield view
    close_view(view)


@pytest.fixture(scope="session")
def qapp():
    """pytest-qt's QApplication, made as the app makes it (the dark theme, prompt updates), so
    the tests see what users see. The style is set here once, before any widget exists:
    replacing a style later, under windows that earlier tests left waiting for deletion,
    crashed Qt."""
    from wander3d.app.main import qt_application

    return qt_application()


@pytest.fixture
def dialogs(monkeypatch):
    """Record QMessageBox.warning calls instead of blocking on a modal dialog; questions
    (unsaved edits) are answered Discard."""
    from PyQt6.QtWidgets import QMessageBox

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "warning", lambda parent, title, text, *a: shown.append((title, text))
    )

    def discard(parent, title, text, *a):
        shown.append((title, text))
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(QMessageBox, "question", discard)
    return shown


@pytest.fixture
def make_window(qtbot, settings, tmp_path, dialogs):
    """Build a shown MainWindow on a scene, with isolated settings and recorded dialogs."""
    from wander3d.app.window import MainWindow

    settings.setValue("screenshot_dir", str(tmp_path / "shots"))

    def make(scene) -> MainWindow:
        window = MainWindow(scene, settings)
        qtbot.addWidget(window)
        window.resize(900, 600)
        window.show()
        qtbot.waitExposed(window)
        return window

    return make


@pytest.fixture
def window(make_window, small_scene):
    """A shown MainWindow on `small_scene`, paused."""
    w = make_window(small_scene)
    w.session.set_running(False)  # tests step explicitly unless they test the loop
    return w


def pytest_collection_finish(session: pytest.Session) -> None:
    """Compile (or load) the kernel and the path passes before the first test starts.

    Outside every test's time bound, so a first compile (minutes on a busy machine) never
    fails one; and before any test waits on a running app, whose engine steps on a worker
    thread. Also what the test processes a test starts (the commands, sweep workers) load.
    """
    if session.config.option.collectonly or not session.items:
        return
    from wander3d.analysis.sums import compile_passes
    from wander3d.engine.warmup import compile_kernel

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def notice() -> None:
        if reporter is not None:
            reporter.write_line("compiling the engine before the tests (first run only)...")

    compile_kernel(on_slow=notice)
    compile_passes()


def _time_bound(item: pytest.Item) -> float:
    """The item's bound from pytest-timeout's marker, option or setting (0: none)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0] or 0)
    option = item.config.getoption("timeout", None)
    if option is not None:
        return float(option)
    try:
        return float(item.config.getini("timeout") or 0)
    except ValueError:  # pytest-timeout not installed
        return 0.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """The backstop for a hang in C: past the bound plus BACKSTOP_S, faulthandler (a C
    thread) writes every thread's stack to the terminal and ends the run."""
    bound = _time_bound(item)
    if bound > 0:
        faulthandler.dump_traceback_later(bound + BACKSTOP_S, exit=True, file=_TERMINAL[0])
    try:
        yield
    finally:
        if bound > 0:
            faulthandler.cancel_dump_traceback_later()
