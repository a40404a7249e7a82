"""Ctrl+C in the terminal that started the app closes the window as its close button does.

Python runs a signal's handler in the main thread between two bytecodes, which inside Qt's
event loop may be in the middle of a Qt virtual (a canvas drawing a frame): the
KeyboardInterrupt it raises by default unwinds through Qt's C++ frames, and the app crashed
(exit -11). Here the handler does nothing but exist; Python's C-level handler writes the
signal's number to a socket (signal.set_wakeup_fd), and a QSocketNotifier on its other end
brings it to the event loop between two events, where the window is closed the normal way:
unsaved edits still ask (Save, Discard, Cancel), and Cancel keeps the app running.
"""

from __future__ import annotations

import signal
import socket

from PyQt6 import sip
from PyQt6.QtCore import QObject, QSocketNotifier, QTimer, pyqtSignal
from PyQt6.QtWidgets import QApplication, QDialog, QWidget

from wander3d.exit_status import EXIT_INTERRUPTED


class Interrupts(QObject):
    """SIGINT as a Qt signal, `interrupted`, emitted from the event loop (between events).

    `received` says whether one came at all (polled while no window is up yet). Installed
    only when SIGINT is not ignored: started in the background (`wander3d &` from a shell
    without job control) the app keeps ignoring it, as the shell asked. `restore()` puts
    back the handler and wake-up fd it found.
    """

    interrupted = pyqtSignal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.received = False
        self._installed = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
        if not self._installed:
            return
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)
        self._notifier = QSocketNotifier(
            sip.voidptr(self._reader.fileno()), QSocketNotifier.Type.Read, self
        )
        self._notifier.activated.connect(self._wake)
        self._handler = signal.signal(signal.SIGINT, _note)
        self._wakeup = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)

    def _wake(self) -> None:
        try:
            numbers = self._reader.recv(512)
        except BlockingIOError:
            return
        if signal.SIGINT in numbers:
            self.received = True
            self.interrupted.emit()

    def restore(self) -> None:
        if not self._installed:
            return
        self._installed = False
        signal.set_wakeup_fd(self._wakeup)
        signal.signal(signal.SIGINT, self._handler)
        self._notifier.setEnabled(False)
        self._reader.close()
        self._writer.close()


def _note(signum: int, frame: object) -> None:
    """SIGINT's Python-level handler: nothing, as anything here could run inside a Qt virtual
    (the socket written by Python's C-level handler carries the news)."""


class CloseOnInterrupt(QObject):
    """Closes `window` when `interrupts` fires, as its close button would; `status` is then
    EXIT_INTERRUPTED (130) if it closed, None while it has not (never interrupted, or the user
    chose Cancel when asked about unsaved edits).

    A modal dialog in the way (a file dialog, an error) is dismissed first, as Esc would. A
    second Ctrl+C while the window asks about unsaved edits leaves the question up: the
    answer is the user's.
    """

    def __init__(self, window: QWidget, interrupts: Interrupts) -> None:
        super().__init__(window)
        self.window = window
        self.status: int | None = None
        self._closing = False
        interrupts.interrupted.connect(self.close_window)

    def close_window(self) -> None:
        if self._closing:
            return
        modal = QApplication.activeModalWidget()
        if modal is not None and modal is not self.window:
            if isinstance(modal, QDialog):
                modal.reject()
            else:
                modal.close()
            # Once its event loop has returned to the window's.
            QTimer.singleShot(0, self.close_window)
            return
        self._closing = True
        try:
            if self.window.close():
                self.status = EXIT_INTERRUPTED
        finally:
            self._closing = False
