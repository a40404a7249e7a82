"""Start-up: the engine's first compile never freezes the screen, and a cached one shows no
dialog."""

from __future__ import annotations

import sys
import time
from typing import cast

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication, QProgressDialog

import wander3d.app.main as app_main
from wander3d.app.interrupt import Interrupts

#: A child that keeps its own interpreter busy for 2 s, as numba's compile does (in this
#: process it held the GIL for up to 2 s at a time, and the dialog stood still).
BUSY_CHILD = (sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 2: pass")


def qt_app() -> QApplication:
    """The tests' QApplication (pytest-qt's)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


def progress_dialogs() -> list[QProgressDialog]:
    return [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QProgressDialog) and w.isVisible()
    ]


class Ticks:
    """A 50 ms timer that records when it fired and what the compile dialog said."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.texts: list[str] = []
        self.timer = QTimer()
        self.timer.timeout.connect(self.look)
        self.timer.start(50)

    def look(self) -> None:
        self.times.append(time.monotonic())
        self.texts += [d.labelText() for d in progress_dialogs()]


def test_an_uncached_kernel_compiles_in_a_child_with_a_live_counting_dialog(qtbot, monkeypatch):
    monkeypatch.setattr(app_main, "load_cached_kernel", lambda: False)
    monkeypatch.setattr(app_main, "WARMUP_COMMAND", BUSY_CHILD)
    ticks = Ticks()
    assert app_main.prepare_engine(qt_app())
    ticks.timer.stop()
    assert any("first launch only" in text for text in ticks.texts)
    # The seconds count up, and the event loop ran all along: about 40 ticks in 2 s.
    assert any("1 s so far" in text for text in ticks.texts)
    assert len(ticks.times) >= 20
    assert not progress_dialogs()


def test_a_cached_kernel_starts_without_a_dialog(qtbot):
    ticks = Ticks()
    assert app_main.prepare_engine(qt_app())  # the session compiled it
    ticks.timer.stop()
    assert ticks.texts == []


def test_ctrl_c_while_compiling_stops_the_child(qtbot, monkeypatch):
    children = []
    real_popen = app_main.subprocess.Popen

    def popen(*args, **kwargs):
        children.append(real_popen(*args, **kwargs))
        return children[-1]

    class Interrupted:
        received = False

    interrupts = cast(Interrupts, Interrupted())  # prepare_engine polls only `received`
    monkeypatch.setattr(app_main, "load_cached_kernel", lambda: False)
    sleeper = (sys.executable, "-c", "import time; time.sleep(600)")
    monkeypatch.setattr(app_main, "WARMUP_COMMAND", sleeper)
    monkeypatch.setattr(app_main.subprocess, "Popen", popen)
    QTimer.singleShot(300, lambda: setattr(interrupts, "received", True))
    assert not app_main.prepare_engine(qt_app(), interrupts)
    assert children and children[0].poll() is not None, "the child was stopped"
    assert not progress_dialogs()


def test_a_failed_child_compile_is_raised_in_the_gui_thread(qtbot, monkeypatch):
    def fail() -> None:
        raise RuntimeError("no compiler")

    monkeypatch.setattr(app_main, "load_cached_kernel", lambda: False)
    monkeypatch.setattr(app_main, "WARMUP_COMMAND", (sys.executable, "-c", "exit(1)"))
    monkeypatch.setattr(app_main, "compile_kernel", fail)
    with pytest.raises(RuntimeError, match="no compiler"):
        app_main.prepare_engine(qt_app())
    assert not progress_dialogs()
