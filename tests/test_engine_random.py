"""The kernel's random numbers pass classic tests of uniformity and independence.

Every random number of a run is a hash of (seed, agent, step, draw) (wander3d.engine.kernel):
`uniform` feeds the angle and seek methods, `in_unit_ball` the sphere and random methods, and
the noise method's curves are `gradient_noise`, whose slope at each lattice point is a hashed
gradient. The streams are tested in the orders that matter: each agent's numbers in the order
the kernel consumes them (step after step, draw after draw within a step), and the same draw
across neighbouring agents, neighbouring steps and neighbouring draws.

The battery is Knuth's (TAOCP vol. 2, 3.3.2) plus Marsaglia's birthday spacings, with p-values
from scipy: equidistribution (chi-square over bins, and Kolmogorov-Smirnov), serial tests of
non-overlapping pairs and triples at every offset, the gap test, and birthday spacings on the
high and the low bits. No maintained package on PyPI wraps TestU01, PractRand or NIST SP 800-22
(nistrng and sp80022suite are sdists last released in 2021 and 2019), hence these.

The seeds are fixed, so every run sees the same numbers. A check fails when its p-value is
below ALPHA or above 1 - ALPHA (a stream that is too even is as suspicious as an uneven one);
for a good generator each check fails with probability 2e-6. The kernel's streams below come
no closer than 5e-4 to either end, and every test rejects the deliberately bad generators at the
end of this file with p-values within 1e-20 of an end.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numba
import numpy as np
import pytest
from scipy import stats

from wander3d.engine import kernel
from wander3d.engine.vecmath import lengths

ALPHA = 1e-6
#: A step of the noise coordinate small enough that gradient_noise(c + h) / (2 h) is the
#: gradient of cell c to about 1e-11 (the fade term is 10 h^3).
SLOPE_STEP = 2.0**-20


# ------------------------------------------------------------------ the kernel's streams
@numba.njit
def _uniforms(seed_key, agents, steps, draws):
    """(agents, steps, draws) of kernel.uniform, keyed exactly as kernel.advance keys them."""
    out = np.empty((agents, steps, draws))
    for a in range(agents):
        agent = kernel.agent_key(seed_key, a)
        for s in range(steps):
            key = kernel.stream_key(agent, s)
            for d in range(draws):
                out[a, s, d] = kernel.uniform(key, d)
    return out


@numba.njit
def _ball_points(seed_key, agents, steps):
    """(agents, steps, 3) of kernel.in_unit_ball, one point per agent and step."""
    out = np.empty((agents, steps, 3))
    for a in range(agents):
        agent = kernel.agent_key(seed_key, a)
        for s in range(steps):
            out[a, s, 0], out[a, s, 1], out[a, s, 2] = kernel.in_unit_ball(
                kernel.stream_key(agent, s)
            )
    return out


@numba.njit
def _gradients(keys, cells):
    """(len(keys), cells): the slope of each noise curve at the lattice points 0..cells-1."""
    out = np.empty((len(keys), cells))
    for i in range(len(keys)):
        for c in range(cells):
            out[i, c] = kernel.gradient_noise(keys[i], c + SLOPE_STEP) / (2.0 * SLOPE_STEP)
    return out


def seed_key(seed: int) -> np.uint64:
    """A run's key (Simulation salts and hashes its seed the same way)."""
    return np.uint64(kernel.mix(np.uint64(seed)))


def ball_uniforms(points: np.ndarray) -> np.ndarray:
    """(..., 3) points -> (..., 3) of r^3, (cos(polar angle) + 1) / 2 and azimuth / 2 pi.

    For points uniform in the unit ball these are independent and uniform in [0, 1): volume
    grows as r^3, and by Archimedes the cosine of the polar angle is uniform in [-1, 1].
    """
    r = np.linalg.norm(points, axis=-1)
    return np.stack(
        [
            r**3,
            (points[..., 2] / r + 1.0) / 2.0,
            (np.arctan2(points[..., 1], points[..., 0]) + np.pi) / (2.0 * np.pi),
        ],
        axis=-1,
    )


def _streams() -> dict[str, np.ndarray]:
    # Each agent's numbers in consumption order: the angle method draws 2 per step, seek 3.
    consumed = _uniforms(seed_key(1), 1024, 512, 3)
    # A block for the neighbour orders: the fastest-changing index is the one tested.
    block = _uniforms(seed_key(2), 256, 256, 16)
    ball = ball_uniforms(_ball_points(seed_key(3), 512, 512))
    # The noise method's curve keys come from numpy, as in Simulation.
    keys = np.random.default_rng(4).integers(0, 2**63, size=1024, dtype=np.uint64)
    octaves = np.stack([keys, keys ^ kernel._OCTAVE_SALT], axis=1).ravel()
    slopes = (_gradients(keys, 1024) + 1.0) / 2.0
    return {
        "angle draws in kernel order": consumed[:, :, :2].ravel(),
        "seek draws in kernel order": consumed.ravel(),
        "one draw across neighbouring agents": block.transpose(1, 2, 0).ravel(),
        "one draw across neighbouring steps": block.transpose(0, 2, 1).ravel(),
        "neighbouring draws of one step": block.ravel(),
        "ball points in kernel order": ball.ravel(),
        "ball points across neighbouring agents": ball.transpose(1, 2, 0).ravel(),
        "noise gradients along a curve": slopes.ravel(),
        "noise gradients across curves": slopes.T.ravel(),
        "noise gradients of both octaves": ((_gradients(octaves, 512) + 1.0) / 2.0).T.ravel(),
    }


@pytest.fixture(scope="module")
def streams() -> dict[str, np.ndarray]:
    return _streams()


UNIFORM_STREAMS = [
    "angle draws in kernel order",
    "seek draws in kernel order",
    "one draw across neighbouring agents",
    "one draw across neighbouring steps",
    "neighbouring draws of one step",
]
#: Values computed from the hashes (21-bit coordinates, slopes to 1e-11) rather than the
#: hashes' own 53 bits: every test but the bit-level birthday spacings applies.
DERIVED_STREAMS = [
    "ball points in kernel order",
    "ball points across neighbouring agents",
    "noise gradients along a curve",
    "noise gradients across curves",
    "noise gradients of both octaves",
]


# ------------------------------------------------------------------ the battery
def equidistribution(u: np.ndarray) -> list[float]:
    """Chi-square of the counts in 1024 equal bins."""
    return [stats.chisquare(np.bincount((u * 1024).astype(np.int64), minlength=1024)).pvalue]


def kolmogorov_smirnov(u: np.ndarray) -> list[float]:
    return [stats.kstest(u, "uniform").pvalue]


def _serial(u: np.ndarray, dims: int, bins: int) -> list[float]:
    """Chi-square of non-overlapping `dims`-tuples in bins^dims cells, at every offset."""
    p = []
    for offset in range(dims):
        n = (len(u) - offset) // dims
        cells = (u[offset : offset + n * dims] * bins).astype(np.int64).reshape(n, dims)
        index = np.ravel_multi_index(tuple(cells.T), (bins,) * dims)
        p.append(stats.chisquare(np.bincount(index, minlength=bins**dims)).pvalue)
    return p


def serial_pairs(u: np.ndarray) -> list[float]:
    return _serial(u, 2, 32)


def serial_triples(u: np.ndarray) -> list[float]:
    return _serial(u, 3, 16)


def _gap(u: np.ndarray, low: float, high: float) -> float:
    """Knuth's gap test: runs of values outside [low, high) are geometric, P(r) = p q^r."""
    p = high - low
    hits = np.flatnonzero((u >= low) & (u < high))
    gaps = np.diff(hits) - 1
    n = len(gaps)
    # Classes 0 .. t-1 and ">= t", each expected at least 20 times.
    t = int(np.log(20.0 / (n * p)) / np.log(1.0 - p)) + 1
    counts = np.bincount(np.minimum(gaps, t), minlength=t + 1)
    expected = n * np.append(p * (1.0 - p) ** np.arange(t), (1.0 - p) ** t)
    return stats.chisquare(counts, expected).pvalue


def gap(u: np.ndarray) -> list[float]:
    return [_gap(u, 0.0, 0.5), _gap(u, 0.3, 0.35)]


def _birthday_spacings(u: np.ndarray, shift: int, bits: int = 24, m: int = 512) -> float:
    """Marsaglia's birthday spacings on `bits` bits of the 53-bit value, from bit `shift` up.

    m birthdays in a year of 2^bits days, sorted; the number of repeated values among the
    (circular) spacings between them is Poisson with mean m^3 / (4 * 2^bits) = 2.
    """
    days = (np.floor(u * 2.0**53).astype(np.int64) >> shift) & (2**bits - 1)
    k = len(days) // m
    y = np.sort(days[: k * m].reshape(k, m), axis=1)
    spacings = np.sort(np.diff(y, axis=1, prepend=y[:, -1:] - 2**bits), axis=1)
    repeats = (spacings[:, 1:] == spacings[:, :-1]).sum(axis=1)
    mean = m**3 / (4 * 2**bits)
    last = 6  # classes 0..5 and ">= 6"
    counts = np.bincount(np.minimum(repeats, last), minlength=last + 1)
    expected = k * np.append(
        stats.poisson.pmf(np.arange(last), mean), stats.poisson.sf(last - 1, mean)
    )
    return stats.chisquare(counts, expected).pvalue


def birthday_spacings(u: np.ndarray) -> list[float]:
    return [_birthday_spacings(u, shift=29), _birthday_spacings(u, shift=0)]


BATTERY: dict[str, Callable[[np.ndarray], list[float]]] = {
    "equidistribution": equidistribution,
    "kolmogorov-smirnov": kolmogorov_smirnov,
    "serial pairs": serial_pairs,
    "serial triples": serial_triples,
    "gap": gap,
    "birthday spacings": birthday_spacings,
}


def passes(p_values: list[float]) -> bool:
    return all(ALPHA < p < 1.0 - ALPHA for p in p_values)


# ------------------------------------------------------------------ the kernel passes
def test_uniform_draws_lie_in_the_unit_interval(streams):
    for name in UNIFORM_STREAMS:
        u = streams[name]
        assert 0.0 <= u.min() and u.max() < 1.0, name


@pytest.mark.parametrize("test", BATTERY)
@pytest.mark.parametrize("stream", UNIFORM_STREAMS)
def test_uniform_draws_pass(streams, stream, test):
    p = BATTERY[test](streams[stream])
    assert passes(p), f"{stream}: {test} p-values {p}"


@pytest.mark.parametrize("test", [t for t in BATTERY if t != "birthday spacings"])
@pytest.mark.parametrize("stream", DERIVED_STREAMS)
def test_ball_points_and_noise_gradients_pass(streams, stream, test):
    p = BATTERY[test](streams[stream])
    assert passes(p), f"{stream}: {test} p-values {p}"


def test_random_draws_in_the_unit_ball_are_uniform_in_volume():
    keys = [
        np.uint64(kernel.stream_key(np.uint64(kernel.agent_key(np.uint64(99), agent)), 0))
        for agent in range(100_000)
    ]
    points = np.array([kernel.in_unit_ball(k) for k in keys])
    r = lengths(points)
    assert r.max() <= 1.0
    # Uniform in a ball: P(r < 1/2) = 1/8 and E[r] = 3/4; a cube or a normalised Gaussian
    # of random length would give other values.
    assert abs(np.mean(r < 0.5) - 0.125) < 0.006
    assert abs(r.mean() - 0.75) < 0.006
    assert np.all(np.abs(points.mean(axis=0)) < 0.01)


# ------------------------------------------------------------------ the tests can fail
_G = np.uint64(0x9E3779B97F4A7C15)
_STRIDE = np.uint64(0xD1B54A32D192ED03)
_N = 2**20


def _kernel_scheme(finaliser, order: tuple[int, int, int]) -> np.ndarray:
    """The kernel's keying with another finaliser, as a (256, 256, 16) block read in `order`.

    Agent keys are not hashed either: the finaliser alone must separate everything.
    """
    a = np.arange(256, dtype=np.uint64)[:, None, None]
    s = np.arange(256, dtype=np.uint64)[None, :, None]
    d = np.arange(1, 17, dtype=np.uint64)[None, None, :]
    bits = finaliser((seed_key(2) ^ (a * _G)) + s * _STRIDE + d * _G)
    return ((bits >> np.uint64(11)).astype(np.float64) * 2.0**-53).transpose(order).ravel()


@numba.njit
def _lcg_states(modulus, a, c, n):
    x = np.empty(n, dtype=np.int64)
    state = 1
    for i in range(n):
        state = (a * state + c) % modulus
        x[i] = state
    return x


@functools.cache
def _lcg(modulus: int, a: int, c: int) -> np.ndarray:
    return _lcg_states(modulus, a, c, _N) / modulus


def _random_walk() -> np.ndarray:
    """Uniform, but each value is within half a unit of the previous one (mod 1)."""
    return np.cumsum(np.random.default_rng(5).random(_N) * 0.5) % 1.0


def _third_is_sum_of_two() -> np.ndarray:
    """Pairs are independent, but every third value is the sum of the two before (mod 1)."""
    u = np.random.default_rng(6).random((_N // 3, 3))
    u[:, 2] = (u[:, 0] + u[:, 1]) % 1.0
    return u.ravel()


def _points_of_random_length() -> np.ndarray:
    """A uniform direction times a uniform radius: too many points near the centre."""
    rng = np.random.default_rng(7)
    directions = rng.normal(size=(_N // 3, 3))
    directions /= lengths(directions)[:, None]
    return ball_uniforms(directions * rng.random((_N // 3, 1))).ravel()


def _squeezed_cube() -> np.ndarray:
    """Points uniform in a cube shrunk into the ball: directions crowd towards the corners."""
    points = np.random.default_rng(8).uniform(-1.0, 1.0, (_N // 3, 3)) / np.sqrt(3.0)
    return ball_uniforms(points).ravel()


BAD_GENERATORS: dict[str, Callable[[], np.ndarray]] = {
    "LCG modulo 2^16 (too even, on a lattice)": lambda: _lcg(2**16, 25173, 13849),
    "LCG modulo 2^32, a = 69069 (weak low bits)": lambda: _lcg(2**32, 69069, 1),
    "slightly biased, u^1.02": lambda: np.random.default_rng(9).random(_N) ** 1.02,
    "kernel keys unhashed, across steps": lambda: _kernel_scheme(lambda x: x, (0, 2, 1)),
    "kernel keys unhashed, across agents": lambda: _kernel_scheme(lambda x: x, (1, 2, 0)),
    "random walk mod 1": _random_walk,
    "third is the sum of two": _third_is_sum_of_two,
    "ball: uniform radius": _points_of_random_length,
    "ball: squeezed cube": _squeezed_cube,
}

#: Each test of the battery, and bad generators it must reject (each its own defect).
MUST_REJECT = [
    ("equidistribution", "LCG modulo 2^16 (too even, on a lattice)"),
    ("equidistribution", "slightly biased, u^1.02"),
    ("equidistribution", "ball: uniform radius"),
    ("equidistribution", "ball: squeezed cube"),
    ("kolmogorov-smirnov", "LCG modulo 2^16 (too even, on a lattice)"),
    ("kolmogorov-smirnov", "slightly biased, u^1.02"),
    ("kolmogorov-smirnov", "ball: uniform radius"),
    ("serial pairs", "kernel keys unhashed, across steps"),
    ("serial pairs", "random walk mod 1"),
    ("serial triples", "third is the sum of two"),
    ("serial triples", "LCG modulo 2^16 (too even, on a lattice)"),
    ("gap", "kernel keys unhashed, across agents"),
    ("gap", "LCG modulo 2^16 (too even, on a lattice)"),
    ("birthday spacings", "LCG modulo 2^16 (too even, on a lattice)"),
    ("birthday spacings", "LCG modulo 2^32, a = 69069 (weak low bits)"),
]


@pytest.mark.parametrize(("test", "bad"), MUST_REJECT)
def test_each_test_rejects_a_bad_generator(test, bad):
    p = BATTERY[test](BAD_GENERATORS[bad]())
    assert not passes(p), f"{test} let {bad} through: p-values {p}"


def test_the_battery_passes_a_good_generator():
    """The other side of the coin: numpy's PCG64 passes the same checks."""
    u = np.random.default_rng(10).random(_N)
    for test, run in BATTERY.items():
        assert passes(run(u)), test
