"""What OpenGL the window will get, asked before the canvas exists (its format is fixed then)."""

from __future__ import annotations

from PyQt6.QtGui import QOffscreenSurface, QOpenGLContext

from wander3d.render.glcompat import is_software_renderer


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
    """Multisampling for the canvas: 4x on a GPU, for the agents' and the box's edges (the
    trails are rasterised once per pixel all the same: SimulationView turns multisampling
    off around them); none when software renders, where it would halve the frame rate
    (screenshots are supersampled either way)."""
    return 0 if is_software_renderer(renderer_name()) else 4
