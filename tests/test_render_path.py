"""The whole-path visual, built without a window, and the measures that colour it."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import missing_extra

pytest.importorskip("vispy", reason=missing_extra("render"))

from vispy.scene import Node

from wander3d.render.path import PATH_COLORMAP, PathLayer, path_colors, path_measures


def _circle(k: int, radius: float, turns_per_second: float, dt: float) -> np.ndarray:
    a = np.arange(k) * dt * turns_per_second * 2 * np.pi
    return np.stack([radius * np.cos(a), np.zeros(k), radius * np.sin(a)], axis=1)


def test_measures_of_a_steady_circle():
    dt = 0.01
    points = _circle(200, radius=5.0, turns_per_second=0.5, dt=dt)
    m = path_measures(points, np.zeros(200, bool), dt)
    chord = 2 * 5.0 * np.sin(np.pi * 0.5 * dt)  # one step's straight segment
    np.testing.assert_allclose(m["speed"], chord / dt, rtol=1e-9)
    np.testing.assert_allclose(m["turn rate"], 180.0, rtol=1e-6)  # half a turn per second


def test_a_wall_jump_is_not_motion():
    dt = 0.1
    points = np.array([[0, 0, 0], [1, 0, 0], [50, 0, 0], [51, 0, 0]], float)
    breaks = np.array([False, False, True, False])
    m = path_measures(points, breaks, dt)
    np.testing.assert_allclose(m["speed"], [10, 10, 10, 10])
    np.testing.assert_allclose(m["turn rate"], [0, 0, 0, 0])


def test_colours_span_the_middle_of_the_values():
    values = np.concatenate([np.linspace(0, 10, 99), [1000.0]])
    colors, low, high = path_colors(values)
    assert colors.shape == (100, 4) and colors.dtype == np.float32
    assert low == pytest.approx(0.2, abs=0.01) and high < 20  # the outlier is ignored
    np.testing.assert_allclose(colors[-1], PATH_COLORMAP.map(np.array([1.0]))[0])
    np.testing.assert_allclose(colors[0], PATH_COLORMAP.map(np.array([0.0]))[0])


def test_the_layer_builds_without_a_window_and_skips_breaks():
    root = Node()
    layer = PathLayer(root)
    assert not layer.visible
    points = np.arange(15, dtype=np.float32).reshape(5, 3)
    breaks = np.array([False, False, True, False, False])
    layer.set_path(points, breaks, values=np.arange(5.0))
    assert layer.visible and layer.line.parent is root
    np.testing.assert_array_equal(layer.line.pos, points)
    # Point 1 is not joined to point 2 (the jump); the last point joins nothing.
    np.testing.assert_array_equal(layer.line.connect, [True, False, True, True, False])
    assert layer.scale == pytest.approx((0.08, 3.92))
    layer.set_path(None)
    assert not layer.visible
    layer.remove()
    assert layer.line.parent is None
