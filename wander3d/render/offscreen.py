"""Rendering without a window, e.g. on a server: vispy's EGL backend on Mesa's surfaceless
platform by default, or any vispy backend by name."""

from __future__ import annotations

import os

import numpy as np

from wander3d.engine import Layout
from wander3d.scene import Scene
from wander3d.session import Session

from .view import SimulationView


def offscreen_view(
    scene: Scene,
    layout: Layout | None = None,
    size: tuple[int, int] = (1280, 720),
    backend: str = "egl",
) -> SimulationView:
    """A hidden SimulationView of a run of `scene` shaped as `layout` (the scene's own if
    None); it draws the states a session publishes (SimulationView.show_state).

    size: (width, height) pixels. backend: a vispy backend name; "egl" needs no display
    (EGL_PLATFORM defaults to "surfaceless" so Mesa does not look for one).
    """
    if backend == "egl":
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    if layout is None:
        layout = Layout.of(scene.run_spec)
    return SimulationView(scene, layout, size=size, app=backend)


def render_frame(
    session: Session, size: tuple[int, int] = (1280, 720), backend: str = "egl"
) -> np.ndarray:
    """One frame of `session`'s run as last collected, as (height, width, 4) uint8 RGBA."""
    view = offscreen_view(session.current_scene(), session.layout, size, backend)
    try:
        session.resend_trails()  # this view has seen none of the run's samples yet
        session.settle(timeout=None)
        view.show_state(session.state)
        return view.render()
    finally:
        view.close()
