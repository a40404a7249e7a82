"""The seam around vispy's private API: it still fits this vispy, what it does works, and no
GL entry point is resolved before a GL context exists."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import missing_extra
from gl_support import advance

pytest.importorskip("vispy", reason=missing_extra("render"))

from vispy import gloo
from vispy.gloo import gl, glir
from vispy.gloo.gl import gl2
from vispy.scene.cameras import ArcballCamera
from vispy.util.quaternion import Quaternion
from vispy.visuals import Visual

from wander3d.render import glcompat, vispy_private


def test_the_private_api_we_use_is_there():
    assert vispy_private.private_api_problems() == []


def test_the_qt_backend_api_the_app_canvas_uses_is_there():
    pytest.importorskip("PyQt6")
    assert vispy_private.qt_private_api_problems() == []


def test_a_vispy_without_it_is_reported(monkeypatch):
    import vispy.app

    monkeypatch.delattr(gl2, "_get_gl_func")
    monkeypatch.setattr(ArcballCamera, "_state_props", ())
    monkeypatch.setattr(vispy.app.Application, "backend_module", property(lambda self: None))
    monkeypatch.setattr(Visual, "draw", lambda self: None)
    monkeypatch.setattr(gloo.Program, "draw", lambda self, mode, indices=None: None)
    monkeypatch.setattr(glir, "as_enum", lambda enum: None)
    problems = vispy_private.private_api_problems()
    assert any("_get_gl_func" in p for p in problems)
    assert any("_quaternion" in p for p in problems)
    assert any("_backend_module.CanvasBackend" in p for p in problems)
    assert any("Visual.draw" in p for p in problems)
    assert any("Program.draw" in p for p in problems)
    assert any("FUNC" in p for p in problems)


def test_a_qt_backend_without_it_is_reported(monkeypatch):
    pytest.importorskip("PyQt6")
    from vispy.app.backends import _qt

    base = _qt.QtBaseCanvasBackend
    monkeypatch.setattr(base, "__init__", lambda self, vispy_canvas, **kwargs: None)
    monkeypatch.delattr(base, "screen_changed")
    monkeypatch.setattr(_qt, "_set_config", lambda c: _qt.QtGui.QSurfaceFormat())
    problems = vispy_private.qt_private_api_problems()
    assert any("_init_specific" in p for p in problems)
    assert any("screen_changed" in p for p in problems)
    assert any("_set_config" in p for p in problems)
    monkeypatch.setattr(vispy_private, "QT_SURFACE_CALLS", frozenset({"showNormal"}))
    assert any("other names on itself" in p for p in vispy_private.qt_private_api_problems())


@pytest.mark.gl
@pytest.mark.app
def test_instancing_entry_points_are_resolved_at_the_first_draw(gl_view, gl_session, monkeypatch):
    resolved: list[str] = []
    real = vispy_private.resolve_gl_function

    def spy(name, argtypes):
        resolved.append(name)
        return real(name, argtypes)

    monkeypatch.setattr(vispy_private, "resolve_gl_function", spy)
    for name in glcompat._NEEDED:
        monkeypatch.delattr(gl, name, raising=False)
    glcompat.ensure_instancing()
    assert resolved == []  # nothing asked of the driver yet
    assert isinstance(gl.glDrawArraysInstanced, glcompat.LazyGLFunction)
    advance(gl_session, 2)
    image = gl_view.render()
    assert "glVertexAttribDivisor" in resolved
    assert any(name.endswith("Instanced") for name in resolved)
    assert not isinstance(gl.glVertexAttribDivisor, glcompat.LazyGLFunction)
    assert np.mean(image[..., :3].max(axis=-1) > 90) > 0.001  # the agents were drawn


@pytest.mark.gl
@pytest.mark.app
def test_every_frame_starts_through_the_seam(gl_view, monkeypatch):
    starts: list[int] = []
    monkeypatch.setattr(type(gl_view.canvas), "frame_start", lambda canvas: starts.append(1))
    gl_view.canvas.render()
    assert starts


def test_arcball_rotation_is_set_through_the_seam():
    camera = ArcballCamera()
    q = Quaternion.create_from_axis_angle(np.pi / 2, 0.0, 1.0, 0.0)
    vispy_private.set_arcball_rotation(camera, q)
    angle, *_axis = camera.get_state()["_quaternion"].get_axis_angle()
    assert angle == pytest.approx(np.pi / 2)


def test_an_index_prefix_draws_the_first_indices_of_its_buffer(gl_view, monkeypatch):
    gl_view.canvas.set_current()
    program = gloo.Program(
        "attribute vec2 a_position; void main() { gl_Position = vec4(a_position, 0.0, 1.0); }",
        "void main() { gl_FragColor = vec4(1.0); }",
    )
    program["a_position"] = np.zeros((10, 2), np.float32)
    buffer = gloo.IndexBuffer(np.arange(10, dtype=np.uint32))
    queue = gl_view.canvas.context.glir
    commands: list[tuple] = []
    real = queue.command

    def command(*c):
        commands.append(c)
        return real(*c)

    monkeypatch.setattr(queue, "command", command)
    program.draw("lines", vispy_private.index_prefix(buffer, 4))
    draws = [c for c in commands if c[0] == "DRAW"]
    assert [d[3] for d in draws] == [(buffer.id, "UNSIGNED_INT", 4)]


def test_a_capability_is_switched_in_draw_order(gl_view):
    canvas = gl_view.canvas
    canvas.set_current()
    multisample = 0x809D
    for enabled in (False, True, False):
        vispy_private.set_gl_capability(multisample, enabled)
        canvas.context.flush_commands()
        assert bool(gl.glIsEnabled(multisample)) == enabled


def test_draw_visual_draws_only_a_shown_visual_after_its_preparation(gl_view, gl_session):
    node = gl_view.trails.groups[0].node
    calls: list[str] = []
    assert not vispy_private.draw_visual(node, lambda program: calls.append("drawn"))  # empty
    advance(gl_session, 5)
    gl_view.canvas.set_current()
    node.visible = False
    assert not vispy_private.draw_visual(node, lambda program: calls.append("drawn"))
    node.visible = True
    assert vispy_private.draw_visual(node, lambda program: calls.append(type(program).__name__))
    assert calls == ["ModularProgram"]
