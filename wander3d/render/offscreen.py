"""Rendering without a window, e.g. on a server: vispy's EGL backend on Mesa's surfaceless
platform by default, or any vispy backend by name."""

from __future__ import annotations

import os

import numpy as np

from wander3d.engine import Simulation
from wander3d.scene import Scene

from .view import SimulationView


def offscreen_view(
    scene: Scene,
    sim: Simulation | None = None,
    size: tuple[int, int] = (1280, 720),
    backend: str = "egl",
) -> SimulationView:
    """A hidden SimulationView of `sim` (a fresh Simulation of `scene` if None).

    size: (width, height) pixels. backend: a vispy backend name; "egl" needs no display
    (EGL_PLATFORM defaults to "surfaceless" so Mesa does not look for one).
    """
    if backend == "egl":
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    return SimulationView(
        scene, sim if sim is not None else Simulation(scene.run_spec), size=size, app=backend
    )


def render_frame(
    scene: Scene,
    sim: Simulation | None = None,
    size: tuple[int, int] = (1280, 720),
    backend: str = "egl",
) -> np.ndarray:
    """One frame of `sim` (or of `scene` at its start) as (height, width, 4) uint8 RGBA."""
    view = offscreen_view(scene, sim, size, backend)
    try:
        return view.render()
    finally:
        view.close()
