"""The one place wander3d reaches into vispy's private API, with a check that it still fits.

vispy (0.17, pinned in pyproject.toml) offers no public way to do these things we need:

- resolve an OpenGL entry point its ctypes "gl2" backend does not wrap (the instanced-drawing
  calls of OpenGL 3.3): `gl2._get_gl_func`. It may ask the driver (wglGetProcAddress on
  Windows), which needs a current GL context, so it is only called while one is current;
- run code at the start of every frame a SceneCanvas draws, on screen and offscreen alike:
  `SceneCanvas._draw_scene`;
- set an ArcballCamera's orientation: its `_quaternion`;
- make a canvas draw into a framebuffer of our own (the frame benchmark's multisampled target):
  its backend's `_vispy_get_fb_bind_location`, which vispy asks each time it makes the canvas
  current;
- make a backend's canvases with a class of our own (the app's native canvas window): an
  Application's `_backend_module`, whose `CanvasBackend` a Canvas instantiates. That class
  builds on the Qt backend's `QtBaseCanvasBackend` and `_set_config`
  (`wander3d/app/canvas_window.py`, exercised by every app test).

`private_api_problems()` lists what no longer matches (tests/test_render_vispy_private.py runs
it), so a vispy upgrade that moves any of these fails a test instead of a user's window.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable

import vispy.app
from vispy import scene as vscene
from vispy.scene.cameras import ArcballCamera
from vispy.util.quaternion import Quaternion


def resolve_gl_function(name: str, argtypes: tuple[type, ...]) -> Callable[..., None]:
    """The driver's `name` (returning void) as a ctypes function, via vispy's loader.

    Call only while a GL context is current. Raises RuntimeError if the driver lacks it.
    """
    from vispy.gloo.gl import gl2

    return gl2._get_gl_func(name, None, argtypes)


class FrameStartCanvas(vscene.SceneCanvas):
    """A SceneCanvas that calls `frame_start()` before each frame it draws (to the screen or
    through SceneCanvas.render) and `frame_cleared()` once the frame is cleared; subclasses
    override them. `draw_frame` draws a frame into whatever framebuffer is bound."""

    def frame_start(self) -> None:
        """Called with the canvas's context current, before the frame is cleared."""

    def frame_cleared(self) -> None:
        """Called after the frame is cleared, before anything is drawn."""

    def draw_frame(self, bgcolor=None) -> None:
        """Clear to `bgcolor` (None: the canvas's) and draw the scene, with the hooks."""
        self.frame_start()
        self.context.clear(color=self.bgcolor if bgcolor is None else bgcolor, depth=True)
        self.frame_cleared()
        self.draw_visual(self.scene)

    def _draw_scene(self, bgcolor=None) -> None:
        # vispy's own clears and draws the scene, nothing else (0.17).
        self.draw_frame(bgcolor)


def set_arcball_rotation(camera: ArcballCamera, rotation: Quaternion) -> None:
    """Give `camera` the orientation `rotation` (vispy's arcball convention: the axis with y and
    z swapped); the caller calls camera.view_changed()."""
    camera._quaternion = rotation


def bind_canvas_framebuffer(canvas: vscene.SceneCanvas, framebuffer: int) -> None:
    """Make `canvas` bind the GL framebuffer `framebuffer` (a name) whenever it is made current,
    in place of its window's own."""
    canvas._backend._vispy_get_fb_bind_location = lambda: framebuffer


def application_with_canvas(backend: str, canvas_backend: type) -> vispy.app.Application:
    """A vispy Application on `backend` (e.g. "pyqt6") whose canvases are `canvas_backend`
    instances (a canvas backend class for it) in place of the backend's own."""
    app = vispy.app.Application(backend)
    module = types.ModuleType(app.backend_module.__name__)
    module.__dict__.update(app.backend_module.__dict__)
    module.CanvasBackend = canvas_backend  # type: ignore[attr-defined]
    app._backend_module = module
    return app


def private_api_problems() -> list[str]:
    """What of the private API above this vispy no longer has (empty when all is in place)."""
    from vispy.gloo.gl import gl2

    problems = []
    getter = getattr(gl2, "_get_gl_func", None)
    if getter is None or list(inspect.signature(getter).parameters) != [
        "name",
        "restype",
        "argtypes",
    ]:
        problems.append("vispy.gloo.gl.gl2._get_gl_func(name, restype, argtypes) is gone")
    draw = getattr(vscene.SceneCanvas, "_draw_scene", None)
    if draw is None or "bgcolor" not in inspect.signature(draw).parameters:
        problems.append("SceneCanvas._draw_scene(bgcolor) is gone")
    camera = ArcballCamera()
    if not isinstance(getattr(camera, "_quaternion", None), Quaternion):
        problems.append("ArcballCamera._quaternion is gone")
    elif "_quaternion" not in camera.get_state():
        problems.append("ArcballCamera._quaternion no longer sets its rotation")
    from vispy.app.base import BaseCanvasBackend

    if not callable(getattr(BaseCanvasBackend, "_vispy_get_fb_bind_location", None)):
        problems.append("a canvas backend's _vispy_get_fb_bind_location is gone")
    from vispy.app import canvas as app_canvas

    getter = inspect.getsource(vispy.app.Application.backend_module.fget)
    if "_backend_module" not in getter or "backend_module.CanvasBackend" not in inspect.getsource(
        app_canvas.Canvas
    ):
        problems.append("a Canvas no longer makes its Application's _backend_module.CanvasBackend")
    return problems
