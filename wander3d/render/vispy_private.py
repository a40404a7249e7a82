"""The one place wander3d reaches into vispy's private API, with a check that it still fits.

vispy (0.17, pinned in pyproject.toml) offers no public way to do these things we need, so
every use of a private vispy name, or of behaviour vispy does not document, is here:

- resolve an OpenGL entry point its ctypes "gl2" backend does not wrap (the instanced-drawing
  calls of OpenGL 3.3): `gl2._get_gl_func`. It may ask the driver (wglGetProcAddress on
  Windows), which needs a current GL context, so it is only called while one is current;
- give vispy's GL namespace such a function (`add_gl_function`): its GLIR interpreter looks
  `glVertexAttribDivisor` and the `gl*Instanced` calls up in `vispy.gloo.gl` as it runs them;
- run code at the start of every frame a SceneCanvas draws, on screen and offscreen alike:
  `SceneCanvas._draw_scene`;
- draw a visual with draw calls of our own (`draw_visual`: vispy's `Visual.draw` with its
  `_configure_gl_state` and `_program`), each of a prefix of an index buffer (`index_prefix`:
  `Program.draw` draws a whole IndexBuffer and reads only its `id`, `glir`, `dtype` and
  `size`), and switch a GL capability vispy's ES 2.0 names lack between them
  (`set_gl_capability`: a GLIR "FUNC" command with the enum as a number);
- set an ArcballCamera's orientation: its `_quaternion`;
- make a canvas draw into a framebuffer of our own (the frame benchmark's multisampled target):
  its backend's `_vispy_get_fb_bind_location`, which vispy asks each time it makes the canvas
  current;
- make a backend's canvases with a class of our own (the app's native canvas window): an
  Application's `_backend_module`, whose `CanvasBackend` a Canvas instantiates. That class
  builds on the Qt backend's `QtBaseCanvasBackend` (`qt_canvas_backend_base`: its `__init__`
  calls the subclass's `_init_specific(p, kwargs)`, which must set `_initialized`) and its
  `_set_config` (`qt_surface_format`).

`private_api_problems()` lists what no longer matches, and `qt_private_api_problems()` the Qt
backend's part (it imports PyQt6); tests/test_render_vispy_private.py runs both, so a vispy
upgrade that moves any of these fails a test instead of a user's window.

Only `qt_canvas_backend_base`, `qt_surface_format` and `qt_private_api_problems` import Qt
(through vispy's Qt backend), when called: the app calls them, nothing in the render layer does.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from collections.abc import Callable, Mapping
from typing import Any

import vispy.app
from vispy import gloo
from vispy import scene as vscene
from vispy.color import Color
from vispy.gloo.context import get_current_canvas
from vispy.scene.cameras import ArcballCamera
from vispy.util.quaternion import Quaternion
from vispy.visuals import Visual


def resolve_gl_function(name: str, argtypes: tuple[type, ...]) -> Callable[..., None]:
    """The driver's `name` (returning void) as a ctypes function, via vispy's loader.

    Call only while a GL context is current. Raises RuntimeError if the driver lacks it.
    """
    from vispy.gloo.gl import gl2

    return gl2._get_gl_func(name, None, argtypes)


def add_gl_function(name: str, function: Callable[..., Any]) -> None:
    """Make `function` vispy's GL function `name`, as its GLIR interpreter calls it."""
    from vispy.gloo import gl

    setattr(gl, name, function)


class FrameStartCanvas(vscene.SceneCanvas):
    """A SceneCanvas that calls `frame_start()` before each frame it draws (to the screen or
    through SceneCanvas.render) and `frame_cleared()` once the frame is cleared; subclasses
    override them. `draw_frame` draws a frame into whatever framebuffer is bound."""

    def frame_start(self) -> None:
        """Called with the canvas's context current, before the frame is cleared."""

    def frame_cleared(self) -> None:
        """Called after the frame is cleared, before anything is drawn."""

    def draw_frame(self, bgcolor: Color | str | tuple[float, ...] | None = None) -> None:
        """Clear to `bgcolor` (any colour vispy's Color takes; None: the canvas's) and draw
        the scene, with the hooks."""
        self.frame_start()
        self.context.clear(color=self.bgcolor if bgcolor is None else bgcolor, depth=True)
        self.frame_cleared()
        self.draw_visual(self.scene)

    def _draw_scene(self, bgcolor: Color | str | tuple[float, ...] | None = None) -> None:
        # vispy's own clears and draws the scene, nothing else (0.17).
        self.draw_frame(bgcolor)


def draw_visual(visual: Visual, draw: Callable[[gloo.Program], None]) -> bool:
    """Draw `visual` as vispy's Visual.draw does (not if hidden, or if its `_prepare_draw`
    returns False; its GL state set first), except that `draw(program)` issues the draw
    calls of the visual's program. Returns whether it drew."""
    if not visual.visible or visual._prepare_draw(view=visual) is False:
        return False
    visual._configure_gl_state()
    draw(visual._program)
    return True


class _IndexPrefix(gloo.IndexBuffer):
    """Stands for the first `size` indices of an IndexBuffer in Program.draw."""

    def __init__(self, base: gloo.IndexBuffer, size: int) -> None:  # no GL object of its own
        self._prefix_of = base
        self._prefix_size = size

    id = property(lambda self: self._prefix_of.id)
    glir = property(lambda self: self._prefix_of.glir)
    dtype = property(lambda self: self._prefix_of.dtype)
    size = property(lambda self: self._prefix_size)


def index_prefix(buffer: gloo.IndexBuffer, size: int) -> gloo.IndexBuffer:
    """The first `size` indices of `buffer`, for Program.draw (which draws a whole buffer):
    no copy and no GL object of its own; `buffer` must outlive it."""
    return _IndexPrefix(buffer, size)


def set_gl_capability(capability: int, enabled: bool) -> None:
    """glEnable or glDisable the GL enum `capability` (one vispy's GL ES 2.0 names lack, such
    as desktop GL's GL_MULTISAMPLE) in the current canvas, in order with its draw calls."""
    glir = get_current_canvas().context.glir
    glir.command("FUNC", "glEnable" if enabled else "glDisable", capability)


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
    module.__dict__["CanvasBackend"] = canvas_backend
    app._backend_module = module
    return app


def _qt_backend() -> types.ModuleType:
    """vispy's shared Qt backend module, set to PyQt6 (importing it imports PyQt6)."""
    from vispy.app.backends import (
        _pyqt6,  # noqa: F401  (first: it tells _qt to use PyQt6)
        _qt,
    )

    return _qt


def qt_canvas_backend_base() -> type:
    """vispy's base class of its Qt canvas backends, to build a canvas backend on another Qt
    surface (with the surface's class as the second base).

    Its `__init__` calls the subclass's `_init_specific(p, kwargs)`, which makes the surface
    (`p.parent`, `p.context.config` and `p.context.shared` describe it) and sets
    `self._initialized`; it then calls the QWidget methods QT_SURFACE_CALLS names, which a
    subclass on another surface must provide. Imports PyQt6.
    """
    return _qt_backend().QtBaseCanvasBackend


def qt_surface_format(config: Mapping[str, Any]) -> Any:
    """The QSurfaceFormat vispy's Qt backend asks for a context configured as `config` (a
    vispy context's `config`: buffer sizes, samples, double buffering, stereo). Imports PyQt6."""
    return _qt_backend()._set_config(config)


#: The names QtBaseCanvasBackend uses on itself that it does not define (vispy 0.17): the
#: Qt surface's methods and the state it keeps. A new one may be missing from a subclass whose
#: surface is not a QWidget (the app's QOpenGLWindow).
QT_SURFACE_CALLS = frozenset({
    "_double_click_supported", "_fullscreen", "_init_specific", "_initialized",
    "_native_gesture_rotation_values", "_native_gesture_scale_values",
    "_native_touch_total_rotation", "_native_touch_total_scale", "_physical_size",
    "_vispy_canvas", "devicePixelRatioF", "geometry", "hide", "mapFromGlobal", "move",
    "resize", "resizeGL", "setFixedSize", "setMouseTracking", "setWindowTitle",
    "showFullScreen", "showNormal", "size", "update", "window",
})  # fmt: skip
#: The backend methods a canvas backend of our own overrides: vispy calls them by these names.
_BACKEND_OVERRIDES = (
    "_vispy_close",
    "_vispy_set_current",
    "_vispy_swap_buffers",
    "_vispy_get_fb_bind_location",
    "_vispy_set_physical_size",
    "screen_changed",
)


def _source(function: Any) -> str:
    return textwrap.dedent(inspect.getsource(function))


def _self_names(cls: type) -> set[str]:
    """Attribute names `cls`'s own code uses on `self`."""
    return {
        node.attr
        for node in ast.walk(ast.parse(_source(cls)))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def private_api_problems() -> list[str]:
    """What of the private API above this vispy no longer has, Qt's part aside (empty when
    all is in place)."""
    from vispy.gloo import gl, glir
    from vispy.gloo.gl import gl2

    problems = []
    getter = getattr(gl2, "_get_gl_func", None)
    if getter is None or list(inspect.signature(getter).parameters) != [
        "name",
        "restype",
        "argtypes",
    ]:
        problems.append("vispy.gloo.gl.gl2._get_gl_func(name, restype, argtypes) is gone")
    interpreter = _source(glir)
    if glir.gl is not gl or not all(
        f"gl.{name}(" in interpreter
        for name in ("glVertexAttribDivisor", "glDrawArraysInstanced", "glDrawElementsInstanced")
    ):
        problems.append("GLIR no longer looks the instanced-drawing calls up in vispy.gloo.gl")
    draw = getattr(vscene.SceneCanvas, "_draw_scene", None)
    if draw is None or "bgcolor" not in inspect.signature(draw).parameters:
        problems.append("SceneCanvas._draw_scene(bgcolor) is gone")
    visual_draw = _source(Visual.draw)
    if not (
        "self._prepare_draw(view=self) is False" in visual_draw
        and "self._configure_gl_state()" in visual_draw
        and "self._program.draw(" in visual_draw
        and "self._program = " in _source(Visual.__init__)
    ):
        problems.append("Visual.draw no longer prepares, sets its GL state and draws _program")
    program_draw = _source(gloo.Program.draw)
    if (
        not all(f"indices.{name}" in program_draw for name in ("glir", "id", "dtype", "size"))
        or "isinstance(indices, IndexBuffer)" not in program_draw
    ):
        problems.append("Program.draw no longer draws an IndexBuffer by its id, dtype and size")
    if glir.as_enum(0x809D) != 0x809D or "'FUNC'" not in interpreter:
        problems.append("GLIR's FUNC command no longer takes a GL enum as a number")
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


def qt_private_api_problems() -> list[str]:
    """What of vispy's Qt backend that the app's canvas builds on this vispy no longer has
    (empty when all is in place). Imports PyQt6."""
    from vispy.app.base import BaseCanvasBackend
    from vispy.gloo.context import get_default_config

    qt = _qt_backend()
    problems = []
    base = getattr(qt, "QtBaseCanvasBackend", None)
    if not (isinstance(base, type) and issubclass(base, BaseCanvasBackend)):
        return ["vispy.app.backends._qt.QtBaseCanvasBackend is gone"]
    own_init = vars(base).get("__init__")
    init = _source(own_init) if own_init is not None else ""
    if "self._init_specific(p, kwargs)" not in init or "self._initialized" not in init:
        problems.append("QtBaseCanvasBackend.__init__ no longer calls _init_specific(p, kwargs)")
    parameters = _source(BaseCanvasBackend._process_backend_kwargs)
    if "'parent'" not in parameters or "'context'" not in parameters:
        problems.append("a canvas backend's parameters no longer include parent and context")
    if "self._vispy_canvas = " not in _source(BaseCanvasBackend.__init__):
        problems.append("a canvas backend no longer keeps its canvas as _vispy_canvas")
    missing = [name for name in _BACKEND_OVERRIDES if not callable(getattr(base, name, None))]
    if missing:
        problems.append(f"QtBaseCanvasBackend no longer has {', '.join(missing)}")
    inherited = set(dir(BaseCanvasBackend)) | set(vars(base))
    calls = {name for name in _self_names(base) if name not in inherited}
    if calls != QT_SURFACE_CALLS:
        changed = ", ".join(sorted(calls ^ QT_SURFACE_CALLS))
        problems.append(f"QtBaseCanvasBackend now uses other names on itself: {changed}")
    config = get_default_config() | {"samples": 4, "depth_size": 24}
    make = getattr(qt, "_set_config", None)
    glformat = make(config) if callable(make) else None
    if not isinstance(glformat, qt.QtGui.QSurfaceFormat):
        problems.append("_qt._set_config(config) no longer makes a QSurfaceFormat")
    elif glformat.samples() != 4 or glformat.depthBufferSize() != 24:
        problems.append("_qt._set_config(config) no longer follows the config")
    return problems
