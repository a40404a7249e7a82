"""Helpers for tests of the desktop app's window."""

from __future__ import annotations


def wait_engine_idle(window, qtbot) -> None:
    """Wait until the engine thread has done (and the window collected) every queued job, so
    that a step or edit asked for has landed, and one that was not asked for cannot land."""
    qtbot.waitUntil(lambda: not window.session.busy, timeout=5000)


def activate(window, qtbot):
    """Make `window` the active window, as shortcuts and keyboard focus need; returns it."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window
