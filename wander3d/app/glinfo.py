"""What OpenGL the window will get, asked before the canvas exists (its format is fixed then)."""

from __future__ import annotations

from PyQt6.QtGui import QOffscreenSurface, QOpenGLContext

#: Substrings of GL_RENDERER that mean the CPU rasterises (Mesa's llvmpipe, softpipe, swrast).
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software")


def renderer_name() -> str:
    """GL_RENDERER of a throwaway context, or "" if none can be made. Needs a QGuiApplication."""
    from vispy.gloo import gl

    surface = QOffscreenSurface()
    surface.create()
    context = QOpenGLContext()
    if not context.create() or not context.makeCurrent(surface):
        return ""
    try:
        return str(gl.glGetParameter(gl.GL_RENDERER))
    finally:
        context.doneCurrent()


def default_samples() -> int:
    """Multisampling for the canvas: 4x on a GPU; none when software renders, where it would
    halve the frame rate (screenshots are supersampled either way)."""
    name = renderer_name().lower()
    return 0 if any(s in name for s in SOFTWARE_RENDERERS) else 4
