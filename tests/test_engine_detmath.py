"""The engine's own sin, cos, atan2, asin and exp (engine/detmath.py) against numpy.

They exist so that the ports compute the same bits; these tests check they are also accurate:
at most 2 ulp from numpy over dense samples of the ranges the kernel uses and beyond, and
exactly right at the special points (zeros, poles, infinities, NaN).
"""

import math

import numba
import numpy as np
import pytest

from wander3d.engine import detmath


@numba.njit(cache=True)
def _apply(which, xs):
    out = np.empty_like(xs)
    for i in range(xs.size):
        x = xs[i]
        if which == 0:
            out[i] = detmath.sin(x)
        elif which == 1:
            out[i] = detmath.cos(x)
        elif which == 2:
            out[i] = detmath.asin(x)
        elif which == 3:
            out[i] = detmath.exp(x)
        else:
            out[i] = detmath.sincos(x)[0] - detmath.sin(x) + detmath.sincos(x)[1] - detmath.cos(x)
    return out


@numba.njit(cache=True)
def _atan2(ys, xs):
    out = np.empty_like(xs)
    for i in range(xs.size):
        out[i] = detmath.atan2(ys[i], xs[i])
    return out


def max_ulps(got, want):
    """Largest |got - want| in units of the last place of want."""
    spacing = np.spacing(np.abs(want))
    return float(np.max(np.abs(got - want) / np.maximum(spacing, 5e-324)))


RNG = np.random.default_rng(19)
ANGLES = np.concatenate(
    [
        np.linspace(-8.0, 8.0, 400_001),
        RNG.uniform(-1e4, 1e4, 50_000),
        RNG.uniform(-1e-6, 1e-6, 1000),
    ]
)


@pytest.mark.parametrize(("which", "reference"), [(0, np.sin), (1, np.cos)])
def test_sin_and_cos_are_within_two_ulp(which, reference):
    assert max_ulps(_apply(which, ANGLES), reference(ANGLES)) <= 2.0


def test_sincos_is_bit_for_bit_sin_and_cos():
    assert not np.any(_apply(4, ANGLES))


def test_asin_is_within_two_ulp_on_its_whole_domain():
    x = np.concatenate([np.linspace(-1.0, 1.0, 400_001), RNG.uniform(-1e-7, 1e-7, 1000)])
    assert max_ulps(_apply(2, x), np.arcsin(x)) <= 2.0
    assert detmath.asin(1.0) == math.pi / 2 and detmath.asin(-1.0) == -math.pi / 2
    assert math.isnan(detmath.asin(1.0000000000000002))


def test_exp_is_within_two_ulp_down_to_subnormals():
    x = np.concatenate(
        [np.linspace(-745.0, 709.7, 400_001), RNG.uniform(-1.0, 1.0, 50_000), [-1e-12, 0.0]]
    )
    assert max_ulps(_apply(3, x), np.exp(x)) <= 2.0
    assert detmath.exp(-746.0) == 0.0 and detmath.exp(710.0) == math.inf
    assert math.isnan(detmath.exp(math.nan))


def test_atan2_is_within_two_ulp_in_every_quadrant():
    turn = np.linspace(-4.0, 4.0, 100_001)
    ys = np.concatenate([RNG.normal(size=200_000), np.sin(turn), 1e-200 * RNG.normal(size=1000)])
    xs = np.concatenate([RNG.normal(size=200_000), np.cos(turn), RNG.normal(size=1000)])
    assert max_ulps(_atan2(ys, xs), np.arctan2(ys, xs)) <= 2.0


@pytest.mark.parametrize(
    ("y", "x"),
    [(0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (-0.0, 0.0), (1.0, 0.0), (-1.0, -0.0), (0.0, -1.0),
     (-0.0, -1.0), (math.inf, math.inf), (math.inf, -math.inf), (-math.inf, 1.0),
     (1.0, math.inf), (1.0, -math.inf), (-1.0, -math.inf), (1e300, 1e-300), (-1e-300, -1e300)],
)  # fmt: skip
def test_atan2_special_points_match_the_standard(y, x):
    got, want = detmath.atan2(y, x), math.atan2(y, x)
    assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize("k", [-1074, -1022, -1, 0, 1, 52, 1023])
def test_pow2_is_exact(k):
    assert detmath.pow2(float(k)) == math.ldexp(1.0, k)
