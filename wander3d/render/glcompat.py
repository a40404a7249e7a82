"""Instanced drawing with vispy's default GL backend, resolved only once a context exists.

vispy's gloo supports instanced attributes (`VertexBuffer(divisor=1)`), but its default
ctypes backend ("gl2", the OpenGL ES 2.0 subset) lacks the OpenGL 3.3 entry points that
drawing them needs; vispy's alternative ("gl+") requires PyOpenGL, which on headless EGL must
also be configured before import. `ensure_instancing` gives `vispy.gloo.gl` a stand-in for each
(`vispy_private.add_gl_function`): vispy calls them only while executing GL commands, with the
canvas's context current, and the first call resolves the real function (through
`vispy_private.resolve_gl_function`) and puts it in the stand-in's place. Nothing is asked of
the driver before a context exists, which Windows (wglGetProcAddress) requires.
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

    def __call__(self, *args: object) -> None:
        real: Callable[..., None] = vispy_private.resolve_gl_function(self.name, self.argtypes)
        vispy_private.add_gl_function(self.name, real)
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
        vispy_private.add_gl_function(name, LazyGLFunction(name, _NEEDED[name]))


#: Substrings of GL_RENDERER that mean the CPU rasterises (Mesa's llvmpipe, softpipe, swrast).
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software")


def is_software_renderer(renderer: str) -> bool:
    """Whether a GL_RENDERER string names a software rasteriser."""
    name = renderer.lower()
    return any(s in name for s in SOFTWARE_RENDERERS)


GL_TIME_ELAPSED = 0x88BF
GL_QUERY_RESULT = 0x8866
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_RGBA8 = 0x8058
GL_DEPTH_COMPONENT24 = 0x81A6

_U32P = ctypes.POINTER(ctypes.c_uint)
_TIMER_FUNCS = {
    "glGenQueries": (ctypes.c_int, _U32P),
    "glDeleteQueries": (ctypes.c_int, _U32P),
    "glBeginQuery": (ctypes.c_uint, ctypes.c_uint),
    "glEndQuery": (ctypes.c_uint,),
    "glGetQueryObjectui64v": (ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_uint64)),
}
_TARGET_FUNCS = {
    "glGenFramebuffers": (ctypes.c_int, _U32P),
    "glDeleteFramebuffers": (ctypes.c_int, _U32P),
    "glGenRenderbuffers": (ctypes.c_int, _U32P),
    "glDeleteRenderbuffers": (ctypes.c_int, _U32P),
    "glBindFramebuffer": (ctypes.c_uint, ctypes.c_uint),
    "glBindRenderbuffer": (ctypes.c_uint, ctypes.c_uint),
    "glRenderbufferStorageMultisample": (
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_int,
    ),
    "glFramebufferRenderbuffer": (ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint),
    "glBlitFramebuffer": (ctypes.c_int,) * 8 + (ctypes.c_uint, ctypes.c_uint),
}


def _load(needed: dict[str, tuple]) -> dict[str, Callable[..., None]]:
    """GL entry points by name, resolved now: call only while a GL context is current."""
    return {name: vispy_private.resolve_gl_function(name, args) for name, args in needed.items()}


def gl_version() -> tuple[int, int]:
    """(major, minor) of the current context's desktop GL version; (0, 0) for OpenGL ES."""
    text = str(gl.glGetParameter(gl.GL_VERSION))
    if text.startswith("OpenGL ES"):
        return (0, 0)
    major, minor = text.split()[0].split(".")[:2]
    return int(major), int(minor)


class GpuTimer:
    """GPU time of the GL commands between `start` and `stop` (GL_TIME_ELAPSED queries).

    Needs desktop OpenGL 3.3 (Mesa's llvmpipe has it, as do GPU drivers); `available()`
    says whether the current context qualifies. Direct GL calls: flush vispy's command
    queue before `start` and before `stop`, so the query brackets the right commands.
    """

    @staticmethod
    def available() -> bool:
        return gl_version() >= (3, 3)

    def __init__(self) -> None:
        self._gl = _load(_TIMER_FUNCS)
        query = ctypes.c_uint(0)
        self._gl["glGenQueries"](1, ctypes.byref(query))
        self._query = query

    def start(self) -> None:
        self._gl["glBeginQuery"](GL_TIME_ELAPSED, self._query)

    def stop(self) -> float:
        """End the query and wait for its result: milliseconds."""
        self._gl["glEndQuery"](GL_TIME_ELAPSED)
        nanoseconds = ctypes.c_uint64(0)
        self._gl["glGetQueryObjectui64v"](self._query, GL_QUERY_RESULT, ctypes.byref(nanoseconds))
        return nanoseconds.value / 1e6

    def delete(self) -> None:
        self._gl["glDeleteQueries"](1, ctypes.byref(self._query))


class RenderTarget:
    """An offscreen framebuffer of (width, height) pixels with `samples`-fold multisampling
    (0: none), for drawing as the app's window would; `read` resolves and reads it back.

    Needs desktop OpenGL 3.0. vispy rebinds the canvas's own framebuffer whenever it makes
    the canvas current (which drawing does), so hand `framebuffer` to the canvas's backend as
    its bind location (see bench.frames) rather than binding it once.
    """

    def __init__(self, width: int, height: int, samples: int = 0) -> None:
        self.width, self.height, self.samples = width, height, samples
        self._gl = _load(_TARGET_FUNCS)
        self._fbos = (ctypes.c_uint * 2)()
        self._rbos = (ctypes.c_uint * 3)()
        self._gl["glGenFramebuffers"](2, self._fbos)
        self._gl["glGenRenderbuffers"](3, self._rbos)
        # Framebuffer 0 is drawn into (multisampled or not); framebuffer 1 holds the resolve.
        for fbo, color, depth, n in (
            (self._fbos[0], self._rbos[0], self._rbos[1], samples),
            (self._fbos[1], self._rbos[2], 0, 0),
        ):
            self._gl["glBindFramebuffer"](gl.GL_FRAMEBUFFER, fbo)
            for rbo, fmt, attach in (
                (color, GL_RGBA8, gl.GL_COLOR_ATTACHMENT0),
                (depth, GL_DEPTH_COMPONENT24, gl.GL_DEPTH_ATTACHMENT),
            ):
                if rbo:
                    self._gl["glBindRenderbuffer"](gl.GL_RENDERBUFFER, rbo)
                    self._gl["glRenderbufferStorageMultisample"](
                        gl.GL_RENDERBUFFER, n, fmt, width, height
                    )
                    self._gl["glFramebufferRenderbuffer"](
                        gl.GL_FRAMEBUFFER, attach, gl.GL_RENDERBUFFER, rbo
                    )
            if gl.glCheckFramebufferStatus(gl.GL_FRAMEBUFFER) != gl.GL_FRAMEBUFFER_COMPLETE:
                raise RuntimeError(f"cannot make a {samples}x multisampled framebuffer")
        self._gl["glBindFramebuffer"](gl.GL_FRAMEBUFFER, 0)

    @property
    def framebuffer(self) -> int:
        """GL name of the framebuffer to draw into."""
        return int(self._fbos[0])

    def read(self) -> bytes:
        """Resolve (if multisampled) and read back: RGBA bytes, bottom row first."""
        w, h = self.width, self.height
        self._gl["glBindFramebuffer"](GL_READ_FRAMEBUFFER, self._fbos[0])
        self._gl["glBindFramebuffer"](GL_DRAW_FRAMEBUFFER, self._fbos[1])
        self._gl["glBlitFramebuffer"](0, 0, w, h, 0, 0, w, h, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)
        self._gl["glBindFramebuffer"](gl.GL_FRAMEBUFFER, self._fbos[1])
        pixels = gl.glReadPixels(0, 0, w, h, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE)
        self._gl["glBindFramebuffer"](gl.GL_FRAMEBUFFER, self._fbos[0])
        return pixels

    def delete(self) -> None:
        self._gl["glBindFramebuffer"](gl.GL_FRAMEBUFFER, 0)
        self._gl["glDeleteFramebuffers"](2, self._fbos)
        self._gl["glDeleteRenderbuffers"](3, self._rbos)
