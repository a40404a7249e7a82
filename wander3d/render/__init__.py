"""Drawing a simulation with vispy: no Qt, so the same code runs in the app and headless.

`SimulationView` owns a vispy SceneCanvas and one visual per kind of thing drawn (agents and
trails per group, the enclosure, the debug overlay). `offscreen_view` and `render_frame` build
one without a window (vispy's EGL backend by default).

It imports vispy, numpy, imageio (recordings) and the engine and scene layers. Every use of
vispy's private API is in `vispy_private`, whose Qt helpers (for the app's canvas) are the
only code here that loads Qt, through vispy's Qt backend, and only when the app calls them.
"""

from .agents import POINTS_THRESHOLD
from .camera import CAMERA_MODES
from .offscreen import offscreen_view, render_frame
from .view import SimulationView

__all__ = ["CAMERA_MODES", "POINTS_THRESHOLD", "SimulationView", "offscreen_view", "render_frame"]
