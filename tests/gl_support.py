"""Ending GL views in tests."""

from __future__ import annotations


def close_view(view) -> None:
    """Close a SimulationView and destroy its Qt widget now, not whenever Python gets to it.

    A closed vispy canvas keeps its QOpenGLWidget (with GL contexts and X windows) alive for
    as long as anything references it, and pytest keeps fixtures' values referenced: every
    view of a test run used to stay alive to its end. On a busy machine a later canvas then
    now and then drew its first frame with no current GL context (vispy: "OpenGL version
    could not be determined", shader compilation errors with empty logs, reported as
    exceptions in the Qt event loop: a test "failed" and "errored" at once) or crashed in
    QOpenGLContext::functions() while being shown. The first six tests of test_render_view.py
    under gdb crashed in 7 of 14 runs that way, and in none of 14 with each widget destroyed
    when its test ends.
    """
    from PyQt6.QtCore import QCoreApplication, QEvent

    widget = view.canvas.native
    view.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def draw_states(view, session) -> None:
    """Have `view` draw every state `session` publishes from now on, as the app's frame loop
    has it do, starting with the session's state now (its trails whole)."""
    session.resend_trails()
    session.settle()
    view.show_state(session.state)
    session.events.state_changed.connect(lambda: view.show_state(session.state))


def advance(session, steps: int) -> None:
    """Step `session`'s run `steps` times and collect it (the views drawing it follow)."""
    session.advance(steps)
    session.settle()
