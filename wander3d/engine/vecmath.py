"""Vectorised 3D vector helpers for (N, 3) arrays of float64, used to draw starting states.

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


def perpendicular(v: Array) -> Array:
    """Some unit vector perpendicular to each unit row of `v` (N, 3).

    Crosses with the world axis least aligned with the row, so the result is never degenerate
    (unlike crossing with a fixed up vector, which fails for vertical rows).
    """
    axis = np.zeros_like(v)
    axis[np.arange(len(v)), np.argmin(np.abs(v), axis=1)] = 1.0
    p = np.cross(v, axis)
    return p / lengths(p)[:, None]


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


def flatten_y(v: Array, vertical: Array) -> Array:
    """Scale the y (up) component of each row by `vertical` (N,) and return a new array."""
    out = v.copy()
    out[:, 1] *= vertical
    return out
