"""Shared test configuration and fixtures: small scenes, isolated settings, GL views.

Imports nothing of Qt or vispy when loaded, so the suite runs in a core-only install; tests
marked `gl` or `app` skip there with the extra they need (see extras_support.py). The GL and
app tests draw through PyQt6 on the virtual X display pytest-xvfb starts (Mesa's llvmpipe),
never Qt's `offscreen` platform, which has no OpenGL.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from extras_support import MARKER_EXTRAS, missing_extra, skip_reason
from gl_support import close_view, draw_states

# Qt's xcb platform on pytest-xvfb's display, set before any QApplication: under a Wayland
# desktop Qt would otherwise pick wayland (the user's screen, not the virtual one). A value the
# user has set wins.
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")


@pytest.hookimpl(tryfirst=True)  # before pytest-xvfb's, which starts the display
def pytest_configure(config: pytest.Config) -> None:
    # With pytest-xvfb installed, ask for Xvfb itself (as `--xvfb-backend=xvfb` would), so that
    # a missing Xvfb fails loudly instead of the tests quietly drawing on whatever $DISPLAY is.
    if config.pluginmanager.hasplugin("xvfb") and config.getoption("xvfb_backend") is None:
        config.option.xvfb_backend = "xvfb"
    if missing_extra("app") is None:
        from wander3d.app.canvas_window import prefer_prompt_updates

        # Before pytest-qt's QApplication: the GL tests see Qt as the app configures it.
        prefer_prompt_updates()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests whose marker names an extra that is not installed, saying which."""
    for item in items:
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


@pytest.fixture(scope="session", autouse=True)
def compiled_kernel():
    """Compile (or load) the engine's kernel once, before any test waits on a running app.

    The app steps the engine on a worker thread, so a first-ever compile (tens of seconds on a
    fresh clone) would otherwise happen inside some test's short wait for the first step.
    """
    from wander3d.engine.warmup import compile_kernel

    compile_kernel()
