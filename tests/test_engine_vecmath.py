import numpy as np
import pytest

from wander3d.engine.vecmath import (
    dot,
    lengths,
    normalize,
    perpendicular,
    random_in_ball,
    random_unit,
    transport,
    truncate,
)


def test_normalize_never_returns_nan_for_zero_rows():
    v = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 4.0], [1e-300, 0.0, 0.0]])
    fallback = np.tile([0.0, 1.0, 0.0], (3, 1))
    out = normalize(v, fallback)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [[0, 1, 0], [0.6, 0, 0.8], [0, 1, 0]])


def test_truncate_only_shortens():
    v = np.array([[3.0, 4.0, 0.0], [0.3, 0.4, 0.0], [0.0, 0.0, 0.0]])
    out = truncate(v, np.array([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(lengths(out), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(out[0], [0.6, 0.8, 0.0])


def test_perpendicular_is_unit_and_orthogonal_even_for_axis_vectors():
    rng = np.random.default_rng(1)
    v = np.vstack([np.eye(3), -np.eye(3), random_unit(rng, 100)])
    p = perpendicular(v)
    np.testing.assert_allclose(lengths(p), 1.0)
    np.testing.assert_allclose(dot(p, v), 0.0, atol=1e-12)


def test_transport_maps_old_onto_new_and_preserves_angles():
    rng = np.random.default_rng(2)
    old, new, vec = random_unit(rng, 500), random_unit(rng, 500), random_unit(rng, 500)
    np.testing.assert_allclose(transport(old, old, new), new, atol=1e-12)
    moved = transport(vec, old, new)
    np.testing.assert_allclose(dot(moved, new), dot(vec, old), atol=1e-12)
    np.testing.assert_allclose(lengths(moved), 1.0)


@pytest.mark.parametrize("axis", range(3))
def test_transport_handles_exact_reversal(axis):
    old = np.zeros((1, 3))
    old[0, axis] = 1.0
    vec = np.array([[0.3, -0.5, 0.8]]) / np.sqrt(0.98)
    moved = transport(vec, old, -old)
    assert np.isfinite(moved).all()
    np.testing.assert_allclose(dot(moved, -old), dot(vec, old), atol=1e-12)
    np.testing.assert_allclose(lengths(moved), 1.0)


def test_minimal_rotation_leaves_the_rotation_axis_alone():
    old = np.array([[1.0, 0.0, 0.0]])
    new = np.array([[0.0, 1.0, 0.0]])
    axis = np.array([[0.0, 0.0, 1.0]])
    np.testing.assert_allclose(transport(axis, old, new), axis, atol=1e-15)


def test_random_in_ball_is_uniform_in_volume():
    points = random_in_ball(np.random.default_rng(3), 200_000)
    r = lengths(points)
    assert r.max() <= 1.0
    # Uniform in a ball: P(r < 1/2) = 1/8 and E[r] = 3/4; a cube or a normalised Gaussian
    # of random length would give other values.
    assert abs(np.mean(r < 0.5) - 0.125) < 0.005
    assert abs(r.mean() - 0.75) < 0.005
    assert np.all(np.abs(points.mean(axis=0)) < 0.01)
