"""The five wander methods. Each advances its own random state for a contiguous slice of agents.

Sphere, angle, noise and random produce a unit direction `w` from the wander sphere's centre to
the target; the target point is then `position + heading * distance + w * radius` (see
`sphere_target`). Seek produces a target point directly. Every function is vectorised over the
slice; the caller loops over groups (a handful), never over agents.

The random walks step by amounts proportional to sqrt(dt) (diffusion), so a scene's wander looks
the same at any step rate.
"""

from __future__ import annotations

import numpy as np

from .vecmath import dot, random_in_ball, random_unit

Array = np.ndarray

#: The random method's force is white noise referred to this step (s); see `random_directions`.
RANDOM_REFERENCE_DT = 1.0 / 60.0

_HALF_PI = np.pi / 2


def sphere_step(
    rng: np.random.Generator,
    wander_dir: Array,
    radius: Array,
    jitter: Array,
    vertical: Array,
    dt: float,
) -> Array:
    """Reynolds' 3D wander: displace the target on the sphere and project it back.

    wander_dir: (n, 3) unit directions from the sphere centre to the target (world axes).
    radius (units), jitter (units/sqrt(s)), vertical (0..1): (n,).
    Returns the new (n, 3) unit directions. The displacement is uniform in a ball of radius
    jitter * sqrt(dt), with its up component scaled by `vertical`.
    """
    n = len(wander_dir)
    displacement = random_in_ball(rng, n) * (jitter * np.sqrt(dt))[:, None]
    displacement[:, 1] *= vertical
    point = wander_dir * radius[:, None] + displacement
    length = np.sqrt(dot(point, point))
    # The point can only reach the centre if jitter*sqrt(dt) >= radius; keep the old one then.
    ok = length > 1e-9 * radius
    return np.where(ok[:, None], point / np.where(ok, length, 1.0)[:, None], wander_dir)


def angle_step(
    rng: np.random.Generator, angles: Array, rate: Array, vertical: Array, dt: float
) -> Array:
    """The 2D tutorials' angle jitter lifted to 3D.

    angles: (n, 2) yaw and pitch (rad) of the target relative to the heading; yaw turns towards
    the agent's side vector, pitch towards its up vector. Each random-walks by a uniform amount
    in [-rate*sqrt(dt), +rate*sqrt(dt)] per step (pitch scaled by `vertical`).
    Returns new (n, 2) angles, yaw wrapped to [-pi, pi), pitch reflected into [-pi/2, pi/2].
    """
    step = rng.uniform(-1.0, 1.0, size=angles.shape) * (rate * np.sqrt(dt))[:, None]
    step[:, 1] *= vertical
    yaw = np.remainder(angles[:, 0] + step[:, 0] + np.pi, 2 * np.pi) - np.pi
    pitch = angles[:, 1] + step[:, 1]
    pitch = np.where(pitch > _HALF_PI, np.pi - pitch, pitch)
    pitch = np.where(pitch < -_HALF_PI, -np.pi - pitch, pitch)
    return np.stack([yaw, pitch], axis=1)


def angles_to_direction(angles: Array, heading: Array, side: Array, up: Array) -> Array:
    """(n, 2) yaw/pitch in the agent frame -> (n, 3) unit world directions."""
    yaw, pitch = angles[:, 0], angles[:, 1]
    cp = np.cos(pitch)
    return (
        (cp * np.cos(yaw))[:, None] * heading
        + (cp * np.sin(yaw))[:, None] * side
        + np.sin(pitch)[:, None] * up
    )


def direction_to_angles(w: Array, heading: Array, side: Array, up: Array) -> Array:
    """Inverse of `angles_to_direction` for unit directions `w` (n, 3) -> (n, 2)."""
    yaw = np.arctan2(dot(w, side), dot(w, heading))
    pitch = np.arcsin(np.clip(dot(w, up), -1.0, 1.0))
    return np.stack([yaw, pitch], axis=1)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _hash_to_unit_interval(keys: Array, lattice: Array) -> Array:
    """Counter-based hash (splitmix64 finaliser) of (key, lattice index) -> floats in [-1, 1)."""
    x = keys + lattice.astype(np.int64).view(np.uint64) * _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) * (2.0 / 2.0**53) - 1.0


def gradient_noise(keys: Array, x: Array) -> Array:
    """Smooth 1D gradient (Perlin) noise, one independent curve per key.

    keys: uint64 array; x: float array of the same shape (noise coordinate). Returns values of
    the same shape in about [-1, 1], C2-continuous in x, zero at integer x.
    """
    cell = np.floor(x)
    f = x - cell
    g0 = _hash_to_unit_interval(keys, cell)
    g1 = _hash_to_unit_interval(keys, cell + 1.0)
    fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0)
    # A 1D Perlin curve peaks at +-0.5; doubling maps it to about [-1, 1].
    return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0))


def noise_angles(
    keys: Array, phase: Array, frequency: Array, vertical: Array, time: float
) -> Array:
    """Noise-driven wander: the target's yaw and pitch follow smooth noise curves in time.

    keys: (n, 2) uint64 per-agent noise keys; phase: (n, 2) per-agent offsets (noise units);
    frequency (1/s), vertical (0..1): (n,). Returns (n, 2) yaw in about [-pi, pi] and pitch in
    [-pi/2, pi/2] * vertical.
    """
    x = phase + (time * frequency)[:, None]
    n = gradient_noise(keys, x)
    yaw = np.pi * n[:, 0]
    pitch = _HALF_PI * np.clip(n[:, 1], -1.0, 1.0) * vertical
    return np.stack([yaw, pitch], axis=1)


def random_directions(rng: np.random.Generator, n: int, vertical: Array, dt: float) -> Array:
    """The twitchy baseline: a fresh random direction every step.

    Returns (n, 3) vectors: unit directions (up component scaled by `vertical`, renormalised)
    times sqrt(RANDOM_REFERENCE_DT / dt), so the force is white noise whose effect on the
    heading is the same at any step rate.
    """
    w = random_unit(rng, n)
    w[:, 1] *= vertical
    length = np.sqrt(dot(w, w))
    # vertical = 0 and a purely vertical draw: fall back to a horizontal direction.
    flat = length < 1e-9
    w[flat] = (1.0, 0.0, 0.0)
    length[flat] = 1.0
    return w * (np.sqrt(RANDOM_REFERENCE_DT / dt) / length)[:, None]


def seek_step(
    rng: np.random.Generator,
    targets: Array,
    timers: Array,
    interval: Array,
    low: Array,
    high: Array,
    dt: float,
) -> None:
    """Seek a random point of the enclosure, re-picked every `interval` seconds (in place).

    targets: (n, 3) current seek points; timers: (n,) seconds until the next pick;
    low, high: (3,) corners of the region targets are drawn from (uniform).
    """
    timers -= dt
    due = timers <= 0.0
    count = int(np.count_nonzero(due))
    if count:
        targets[due] = low + rng.random((count, 3)) * (high - low)
        timers[due] += interval[due]
