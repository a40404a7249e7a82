"""Drawing a simulation with vispy: no Qt, so the same code runs in the app and headless.

`SimulationView` owns a vispy SceneCanvas and one visual per kind of thing drawn (agents and
trails per group, the enclosure, the debug overlay). `offscreen_view` and `render_frame` build
one without a window (vispy's EGL backend by default).
"""

from .agents import POINTS_THRESHOLD
from .camera import CAMERA_MODES
from .offscreen import offscreen_view, render_frame
from .view import SimulationView

__all__ = ["CAMERA_MODES", "POINTS_THRESHOLD", "SimulationView", "offscreen_view", "render_frame"]
