"""Instanced drawing with vispy's default GL backend, resolved only once a context exists.

vispy's gloo supports instanced attributes (`VertexBuffer(divisor=1)`), but its default
ctypes backend ("gl2", the OpenGL ES 2.0 subset) lacks the OpenGL 3.3 entry points that
drawing them needs; vispy's alternative ("gl+") requires PyOpenGL, which on headless EGL must
also be configured before import. `ensure_instancing` gives `vispy.gloo.gl` a stand-in for each:
vispy calls them only while executing GL commands, with the canvas's context current, and the
first call resolves the real function (through `vispy_private.resolve_gl_function`) and puts
it in the stand-in's place. Nothing is asked of the driver before a context exists, which
Windows (wglGetProcAddress) requires.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from vispy.gloo import gl

from . import vispy_private

_NEEDED = {
    "glDrawArraysInstanced": (ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int),
    "glDrawElementsInstanced": (
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_void_p,
        ctypes.c_int,
    ),
    "glVertexAttribDivisor": (ctypes.c_uint, ctypes.c_uint),
}


class LazyGLFunction:
    """Stands in for the GL function `name` until its first call, which resolves it."""

    def __init__(self, name: str, argtypes: tuple[type, ...]) -> None:
        self.name = name
        self.argtypes = argtypes

    def __call__(self, *args):
        real: Callable = vispy_private.resolve_gl_function(self.name, self.argtypes)
        setattr(gl, self.name, real)
        return real(*args)


def ensure_instancing() -> None:
    """Make `vispy.gloo.gl` able to draw instanced attributes (idempotent; no GL calls).

    Raises RuntimeError if the active backend is neither gl2 nor one that already has them.
    """
    missing = [name for name in _NEEDED if not hasattr(gl, name)]
    if not missing:
        return
    from vispy.gloo.gl import gl2

    if gl.current_backend is not gl2:
        raise RuntimeError(
            f"vispy's GL backend {gl.current_backend.__name__} cannot draw instances; "
            "use the default 'gl2' backend"
        )
    for name in missing:
        setattr(gl, name, LazyGLFunction(name, _NEEDED[name]))
