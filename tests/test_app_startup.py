"""Start-up: the engine's first compile never freezes the screen."""

from __future__ import annotations

import threading
import time

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication, QProgressDialog

import wander3d.app.main as app_main

pytestmark = pytest.mark.app

#: Seconds a fake compile waits for the GUI thread before giving up (only when it is frozen).
LIVE_TIMEOUT = 60.0


def test_a_slow_compile_shows_a_live_progress_dialog(qtbot, monkeypatch):
    """The fake compile outlasts the dialog's delay and then runs until the GUI thread has
    shown the dialog and fired 20 timer ticks (or a long timeout passes): a frozen screen
    fails, and a busy machine only makes the test take longer."""
    dialogs: list[str] = []
    ticks: list[float] = []
    seen_enough = threading.Event()

    def slow_compile() -> None:
        time.sleep(1.6)
        seen_enough.wait(LIVE_TIMEOUT)

    def look() -> None:
        ticks.append(time.monotonic())
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QProgressDialog) and widget.isVisible():
                dialogs.append(widget.labelText())
        if dialogs and len(ticks) >= 20:
            seen_enough.set()

    monkeypatch.setattr(app_main, "compile_kernel", slow_compile)
    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(50)
    app_main.prepare_engine(QApplication.instance())
    timer.stop()
    assert any("first launch" in text for text in dialogs)
    # The event loop kept running while the thread compiled: timers fired all along.
    assert len(ticks) >= 20


def test_a_cached_kernel_starts_without_a_dialog(qtbot, monkeypatch):
    monkeypatch.setattr(app_main, "compile_kernel", lambda: time.sleep(0.05))
    start = time.monotonic()
    app_main.prepare_engine(QApplication.instance())
    assert time.monotonic() - start < 0.5
    assert not any(
        isinstance(w, QProgressDialog) and w.isVisible() for w in QApplication.topLevelWidgets()
    )


def test_a_failed_compile_is_raised_in_the_gui_thread(qtbot, monkeypatch):
    def fail() -> None:
        raise RuntimeError("no compiler")

    monkeypatch.setattr(app_main, "compile_kernel", fail)
    try:
        app_main.prepare_engine(QApplication.instance())
    except RuntimeError as error:
        assert "no compiler" in str(error)
    else:
        raise AssertionError("the failure was swallowed")
