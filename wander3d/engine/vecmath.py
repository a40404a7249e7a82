"""Vectorised 3D vector helpers for (N, 3) arrays of float64.

Every normalisation here is guarded: a zero vector never produces NaN, it takes a fallback.
"""

from __future__ import annotations

import numpy as np

#: Below this length a vector is treated as having no direction.
TINY = 1e-12

Array = np.ndarray


def lengths(v: Array) -> Array:
    """(N, 3) -> (N,) Euclidean lengths."""
    return np.sqrt(np.einsum("ij,ij->i", v, v))


def dot(a: Array, b: Array) -> Array:
    """Row-wise dot product of two (N, 3) arrays -> (N,)."""
    return np.einsum("ij,ij->i", a, b)


def normalize(v: Array, fallback: Array) -> Array:
    """Unit vectors along the rows of `v`; rows shorter than TINY take `fallback`'s row.

    v, fallback: (N, 3); fallback rows must already be unit length.
    """
    n = lengths(v)
    ok = n > TINY
    out = np.where(ok[:, None], v / np.where(ok, n, 1.0)[:, None], fallback)
    return out


def truncate(v: Array, max_length: Array) -> Array:
    """Scale rows of `v` (N, 3) down to at most `max_length` (N,); shorter rows are unchanged."""
    n = lengths(v)
    scale = np.minimum(1.0, max_length / np.maximum(n, TINY))
    return v * scale[:, None]


def perpendicular(v: Array) -> Array:
    """Some unit vector perpendicular to each unit row of `v` (N, 3).

    Crosses with the world axis least aligned with the row, so the result is never degenerate
    (unlike crossing with a fixed up vector, which fails for vertical rows).
    """
    axis = np.zeros_like(v)
    axis[np.arange(len(v)), np.argmin(np.abs(v), axis=1)] = 1.0
    p = np.cross(v, axis)
    return p / lengths(p)[:, None]


def transport(vectors: Array, old: Array, new: Array) -> Array:
    """Rotate each row of `vectors` by the minimal rotation taking `old` onto `new`.

    vectors, old, new: (N, 3); old and new are unit rows. This is parallel transport: a vector
    fixed in the agent's frame stays fixed relative to the heading, with no reference to a world
    up axis, so nothing flips when the heading passes straight up or down. Exactly opposite
    headings (a 180 degree turn in one step) rotate half a turn about an axis perpendicular
    to `old`.
    """
    c = dot(old, new)
    k = np.cross(old, new)
    # Rodrigues' formula for the rotation with axis k/|k| and cos(angle) = c, written so that it
    # needs no normalised axis: R v = c v + k x v + (k . v) k / (1 + c).
    opposite = c < -1.0 + 1e-9
    inv = 1.0 / np.where(opposite, 1.0, 1.0 + c)
    rotated = c[:, None] * vectors + np.cross(k, vectors) + (dot(k, vectors) * inv)[:, None] * k
    if np.any(opposite):
        idx = np.nonzero(opposite)[0]
        u = perpendicular(old[idx])
        v = vectors[idx]
        rotated[idx] = 2.0 * dot(u, v)[:, None] * u - v
    return rotated


def random_unit(rng: np.random.Generator, n: int) -> Array:
    """(n, 3) directions uniform on the unit sphere."""
    v = rng.standard_normal((n, 3))
    ln = lengths(v)
    # A standard normal triple has length < TINY with probability ~1e-36; still, no NaN ever.
    bad = ln <= TINY
    if np.any(bad):
        v[bad] = (1.0, 0.0, 0.0)
        ln[bad] = 1.0
    return v / ln[:, None]


def random_in_ball(rng: np.random.Generator, n: int) -> Array:
    """(n, 3) points uniform in the unit ball (direction times u^(1/3), not a cube)."""
    return random_unit(rng, n) * np.cbrt(rng.random(n))[:, None]


def flatten_y(v: Array, vertical: Array) -> Array:
    """Scale the y (up) component of each row by `vertical` (N,) and return a new array."""
    out = v.copy()
    out[:, 1] *= vertical
    return out
