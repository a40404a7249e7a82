"""Drawing a simulation with vispy: no Qt, so the same code runs in the app and headless.

`SimulationView` owns a vispy SceneCanvas and one visual per kind of thing drawn (agents and
trails per group, the enclosure, the debug overlay), and draws only what a session published
(`wander3d.session.EngineState`), never a simulation. `offscreen_view` and `render_frame`
build one without a window (vispy's EGL backend by default); `record` drives a session and a
view to a picture or a video.

It imports vispy, numpy, imageio and Pillow (recordings, and a recording's legend and
caption), and the engine, scene and session layers. Every use of vispy's private API is in
`vispy_private`, whose Qt helpers (for the app's canvas) are the only code here that loads
Qt, through vispy's Qt backend, and only when the app calls them.
"""

from .agents import POINTS_THRESHOLD
from .camera import CAMERA_MODES
from .offscreen import offscreen_view, render_frame
from .view import SimulationView

__all__ = ["CAMERA_MODES", "POINTS_THRESHOLD", "SimulationView", "offscreen_view", "render_frame"]
