"""The vector and noise helpers the kernel and the starting state are built from.

(The random streams themselves are tested in test_engine_random.py.)
"""

import numpy as np
import pytest

from wander3d.engine import kernel
from wander3d.engine.vecmath import dot, lengths, normalize, perpendicular, random_unit


def transport_rows(vectors, old, new):
    return np.array(
        [kernel.transport(*v, *a, *b) for v, a, b in zip(vectors, old, new, strict=True)]
    )


def test_normalize_never_returns_nan_for_zero_rows():
    v = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 4.0], [1e-300, 0.0, 0.0]])
    fallback = np.tile([0.0, 1.0, 0.0], (3, 1))
    out = normalize(v, fallback)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [[0.0, 1.0, 0.0], [0.6, 0.0, 0.8], [0.0, 1.0, 0.0]])


def test_perpendicular_is_unit_and_orthogonal_even_for_axis_vectors():
    rng = np.random.default_rng(1)
    v = np.vstack([np.eye(3), -np.eye(3), random_unit(rng, 100)])
    for p in (perpendicular(v), np.array([kernel.perpendicular(*row) for row in v])):
        np.testing.assert_allclose(lengths(p), 1.0)
        np.testing.assert_allclose(dot(p, v), 0.0, atol=1e-12)


def test_transport_maps_old_onto_new_and_preserves_angles():
    rng = np.random.default_rng(2)
    old, new, vec = random_unit(rng, 300), random_unit(rng, 300), random_unit(rng, 300)
    np.testing.assert_allclose(transport_rows(old, old, new), new, atol=1e-12)
    moved = transport_rows(vec, old, new)
    np.testing.assert_allclose(dot(moved, new), dot(vec, old), atol=1e-12)
    np.testing.assert_allclose(lengths(moved), 1.0)


@pytest.mark.parametrize("axis", range(3))
def test_transport_handles_exact_reversal(axis):
    old = np.zeros(3)
    old[axis] = 1.0
    vec = np.array([0.3, -0.5, 0.8]) / np.sqrt(0.98)
    moved = np.array(kernel.transport(*vec, *old, *-old))
    assert np.isfinite(moved).all()
    assert moved @ -old == pytest.approx(vec @ old, abs=1e-12)
    assert np.linalg.norm(moved) == pytest.approx(1.0)


def test_minimal_rotation_leaves_the_rotation_axis_alone():
    moved = kernel.transport(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
    np.testing.assert_allclose(moved, (0.0, 0.0, 1.0), atol=1e-15)


def test_gradient_noise_is_smooth_and_zero_on_the_lattice():
    key = np.uint64(12345)
    xs = np.linspace(0.0, 20.0, 20_001)
    values = np.array([kernel.gradient_noise(key, x) for x in xs])
    assert np.abs(values).max() <= 1.0
    assert values.std() > 0.1
    assert np.abs(np.diff(values)).max() < 0.01  # no jumps at step 0.001
    np.testing.assert_allclose([kernel.gradient_noise(key, float(k)) for k in range(20)], 0.0)


def test_starting_state_helpers_agree_with_the_kernel():
    # The starting state is drawn with numpy; the kernel carries it on. Both must mean the
    # same frame and the same angles, or a fresh agent's target would jump at its first step.
    from wander3d.engine.simulation import _direction_from_angles, _side_vectors

    rng = np.random.default_rng(7)
    headings = random_unit(rng, 200)
    sides = _side_vectors(headings)
    angles = np.stack([rng.uniform(-np.pi, np.pi, 200), rng.uniform(-1.5, 1.5, 200)], axis=1)
    ours = _direction_from_angles(angles, headings, sides)
    theirs = np.array(
        [
            kernel.direction_from_angles(*a, *h, *s)
            for a, h, s in zip(angles, headings, sides, strict=True)
        ]
    )
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    np.testing.assert_allclose(
        perpendicular(headings), [kernel.perpendicular(*h) for h in headings], atol=1e-12
    )
