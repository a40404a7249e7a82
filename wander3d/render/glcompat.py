"""Instanced drawing with vispy's default GL backend.

vispy's gloo supports instanced attributes (`VertexBuffer(divisor=1)`), but its default
ctypes backend ("gl2", the OpenGL ES 2.0 subset) lacks the OpenGL 3.3 entry points that
drawing them needs; vispy's alternative ("gl+") requires PyOpenGL, which on headless EGL must
also be configured before import. These functions are plain exports of every desktop OpenGL
3.3+ driver, so we load them with the same loader vispy uses for the rest of gl2.
"""

from __future__ import annotations

import ctypes

from vispy.gloo import gl

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


def ensure_instancing() -> None:
    """Make `vispy.gloo.gl` able to draw instanced attributes (idempotent).

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
        setattr(gl, name, gl2._get_gl_func(name, None, _NEEDED[name]))
