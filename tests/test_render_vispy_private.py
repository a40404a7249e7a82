"""The seam around vispy's private API: it still fits this vispy, and no GL entry point is
resolved before a GL context exists."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import missing_extra

pytest.importorskip("vispy", reason=missing_extra("render"))

from vispy.gloo import gl
from vispy.gloo.gl import gl2
from vispy.scene.cameras import ArcballCamera
from vispy.util.quaternion import Quaternion

from wander3d.render import glcompat, vispy_private


def test_the_private_api_we_use_is_there():
    assert vispy_private.private_api_problems() == []


def test_a_vispy_without_it_is_reported(monkeypatch):
    import vispy.app

    monkeypatch.delattr(gl2, "_get_gl_func")
    monkeypatch.setattr(ArcballCamera, "_state_props", ())
    monkeypatch.setattr(vispy.app.Application, "backend_module", property(lambda self: None))
    problems = vispy_private.private_api_problems()
    assert any("_get_gl_func" in p for p in problems)
    assert any("_quaternion" in p for p in problems)
    assert any("_backend_module.CanvasBackend" in p for p in problems)


@pytest.mark.gl
@pytest.mark.app
def test_instancing_entry_points_are_resolved_at_the_first_draw(gl_view, monkeypatch):
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
    gl_view.sim.step(2)
    gl_view.update()
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
