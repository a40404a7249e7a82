"""Ctrl+C in the terminal closes the app as its close button does: unsaved edits still ask,
and it exits with status 0 or 130, never a crash (it segfaulted in a canvas event)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication, QMessageBox

from wander3d.app.interrupt import EXIT_INTERRUPTED, CloseOnInterrupt, Interrupts
from wander3d.scene import bundled_scenes


@pytest.fixture
def interrupts():
    """Interrupts installed over Python's own SIGINT handler, whatever this test run's was (a
    run started in the background ignores SIGINT, which Interrupts would respect)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    handler = Interrupts()
    yield handler
    handler.restore()
    signal.signal(signal.SIGINT, previous)


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_sigint_reaches_the_event_loop_as_a_signal_and_restore_puts_python_back(interrupts, qtbot):
    with qtbot.waitSignal(interrupts.interrupted, timeout=5000):
        ctrl_c()
    assert interrupts.received
    interrupts.restore()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_sigint_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        handler = Interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        handler.restore()
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    ("answer", "closed"),
    [(QMessageBox.StandardButton.Cancel, False), (QMessageBox.StandardButton.Discard, True)],
)
def test_ctrl_c_with_unsaved_edits_asks_first(
    window, interrupts, qtbot, monkeypatch, answer, closed
):
    closer = CloseOnInterrupt(window, interrupts)
    asked = []

    def question(*args):
        asked.append(args[2])  # the question's text
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    ctrl_c()
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert "not saved" in asked[0].replace("\u00a0", " ")
    assert window.isVisible() is not closed
    assert closer.status == (EXIT_INTERRUPTED if closed else None)
    if not closed:
        assert window.session.groups[0].wander.jitter == 9.5


def test_a_second_ctrl_c_leaves_the_question_to_the_user(window, interrupts, qtbot, monkeypatch):
    closer = CloseOnInterrupt(window, interrupts)
    asked = []

    def question(*args):
        # The question's own event loop: another Ctrl+C comes while it is up.
        asked.append(args[2])
        ctrl_c()
        qtbot.wait(300)
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(QMessageBox, "question", question)
    window.panel.groups[0].controls["jitter"].spin.setValue(9.5)
    ctrl_c()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
    qtbot.wait(300)
    assert len(asked) == 1 and closer.status == EXIT_INTERRUPTED


def test_ctrl_c_dismisses_a_modal_dialog_then_closes(window, interrupts, qtbot):
    closer = CloseOnInterrupt(window, interrupts)
    box = QMessageBox(QMessageBox.Icon.Warning, "A problem", "Something", parent=window)
    QTimer.singleShot(200, ctrl_c)
    box.exec()  # returns when Ctrl+C dismisses it
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
    assert closer.status == EXIT_INTERRUPTED
    assert QApplication.activeModalWidget() is None


# --- the real app, in its own process --------------------------------------------------------

#: When the SIGINT comes: seconds after start (before any window), or after the main window
#: is listed on the display. Three per bundled scene: 21 runs.
MOMENTS = (("start", 1.0), ("window", 0.0), ("window", 2.5))


def xwininfo(*args: str) -> str:
    done = subprocess.run(["xwininfo", *args], capture_output=True, text=True, timeout=30)
    return done.stdout


def main_window_shown(scene: str) -> bool:
    """Whether a window titled as the app titles `scene`'s is on the screen (mapped)."""
    title = f'— {scene}.toml — wander3d"'
    for line in xwininfo("-root", "-tree").splitlines():
        if title in line and "IsViewable" in xwininfo("-id", line.split()[0]):
            return True
    return False


def restore_sigint() -> None:
    """In the child: SIGINT as a terminal delivers it (this test run may ignore it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("scene", bundled_scenes())
def test_ctrl_c_ends_the_real_app_cleanly(scene, tmp_path):
    if shutil.which("xwininfo") is None:
        pytest.fail("xwininfo (Debian's x11-utils, which scripts/bootstrap.sh installs) is missing")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "PYTHONFAULTHANDLER": "1"}
    for when, delay in MOMENTS:
        app = subprocess.Popen(
            [sys.executable, "-m", "wander3d", scene],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=restore_sigint,
        )
        try:
            if when == "window":
                deadline = time.monotonic() + 90
                while not main_window_shown(scene):
                    assert app.poll() is None, app.stdout.read().decode() if app.stdout else ""
                    assert time.monotonic() < deadline, "the main window never showed"
                    time.sleep(0.1)
            time.sleep(delay)
            app.send_signal(signal.SIGINT)
            status = app.wait(60)
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
        said = app.stdout.read().decode() if app.stdout else ""
        assert status in (0, EXIT_INTERRUPTED), f"{scene}, {when} + {delay} s: {status}\n{said}"
        assert "Traceback" not in said and "Fatal Python error" not in said, said
