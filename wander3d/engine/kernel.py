"""The step kernel: one fused, compiled loop that advances every agent by n steps.

This is the engine's only per-step code path. Each agent is independent within a step (agents do
not interact), so the loop runs agents in parallel and keeps each agent's state in registers
for all n steps. Randomness is counter-based: every random number is a hash of (seed, agent,
step, draw), so a run does not depend on the thread count or on how steps are batched into
calls, and the same seed gives a bit-identical run.

Per agent and step (see Simulation for the model):
  1. containment: where the agent will be ahead, LOOKAHEAD s plus the time it needs to stop
     heading into the wall at full force (per axis, m |v| / (2 max_force)), on axes it heads
     into a wall's margin band, gives an inward push (ramping to full over RAMP_FRACTION of the
     band), so heavy and fast agents start turning in time;
  2. the group's wander method moves the target (random walks scale with sqrt(dt); the angle
     method's pitch reverts to level with a spread set by `vertical`), and the target is
     mirrored inward on pushed axes;
  3. steering = vector to target ("force") or desired velocity minus velocity ("desired"), up
     component scaled by `vertical`; blended with containment, which takes priority near walls;
  4. force truncated to max_force, / mass, velocity truncated to max_speed, position += v dt;
  5. the wander direction is parallel-transported from the old heading to the new; so is the
     angle and noise methods' side vector, then pulled level (horizontal where the heading
     allows), so their yaw and pitch keep meaning left/right and up/down;
  6. an agent outside the box is reflected back (position, velocity, frame, target) and counted;
  7. a trail point is written every TRAIL_EVERY steps (the simulation sets it from the
     group's trail_seconds) into the agent's ring buffer;
  8. a recorder's sample (position, velocity, heading) is written every `sample_every` steps
     when one is asked for, so a recorded run needs one call per chunk of samples.

sin, cos, atan2, asin and exp come from `detmath`, not the platform's math library, and no
step contracts a multiply and an add: the ports (wander3d port) repeat every step bit for bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from . import detmath

# Method ids, one per branch of `advance`; the method table (methods.py) names each.
SPHERE, ANGLE, NOISE, SEEK, RANDOM = 0, 1, 2, 3, 4

# Columns of the per-group parameter table.
(
    DISTANCE,
    RADIUS,
    JITTER,
    RATE,
    FREQUENCY,
    INTERVAL,
    VERTICAL,
    MAX_SPEED,
    MAX_FORCE,
    INVERSE_MASS,
    METHOD,
    DESIRED,
    TRAIL_CAPACITY,
    TRAIL_EVERY,
    TRAIL_BASE,
    FIRST_AGENT,
    GROUP_SIZE,
    STOP_TIME,
    PITCH_DECAY,
    PITCH_KICK,
) = range(20)
PARAM_COLUMNS = 20

#: Fraction of the margin band over which the containment push ramps up to full strength.
RAMP_FRACTION = 0.25
#: Seconds ahead at which agents look for the margin band, so fast ones start turning earlier;
#: the time an agent needs to stop heading into a wall is added to it.
LOOKAHEAD = 0.25
#: The random method draws a fresh random force every RANDOM_HOLD s (held over the steps in
#: between), so it looks the same at any dt up to RANDOM_HOLD; at larger dt each step draws
#: one, scaled as white noise by sqrt(RANDOM_HOLD / dt).
RANDOM_HOLD = 1.0 / 30.0
#: The angle method's pitch reverts to level with a stationary spread (standard deviation,
#: radians) of `vertical` times this: at vertical 1 about the spread of directions uniform on
#: the sphere (0.68 rad).
PITCH_SPREAD = 0.7
#: At most how often (s) the angle and noise methods' side vector is pulled level (every 2^k
#: steps): parallel transport rolls it by about a degree in that time, and square roots cost.
LEVEL_SECONDS = 0.14

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STEP_STRIDE = np.uint64(0xD1B54A32D192ED03)
_LOW21 = np.uint64(0x1FFFFF)
_S21 = np.uint64(21)
_S42 = np.uint64(42)
_UNIT21 = 1.0 / 2097152.0  # 2**-21
_OCTAVE_SALT = np.uint64(0xA0761D6478BD642F)
_OCTAVE_RATIO = 2.0 * 1.0693  # an octave, nudged off 2 so the two lattices never align
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53
_TINY = 1e-12
_HALF_PI = math.pi / 2

_jit = numba.njit(cache=True, fastmath=False, error_model="numpy")

# The array arguments' types by element type (numba compiles from the values passed, not from
# these; each docstring gives the shapes).
_Float64s = npt.NDArray[np.float64]
_Float32s = npt.NDArray[np.float32]
_Int64s = npt.NDArray[np.int64]
_UInt64s = npt.NDArray[np.uint64]
_Bools = npt.NDArray[np.bool_]


def stop_time(max_force: float, mass: float) -> float:
    """Containment's look-ahead (s) per unit of speed into a wall: stopping from speed v at
    max_force takes mass * v^2 / (2 max_force) units, v times this."""
    return 0.5 * mass / max_force


def pitch_walk(rate: float, vertical: float, dt: float) -> tuple[float, float]:
    """(decay, kick) of the angle method's pitch per step: pitch = pitch * decay + kick * u,
    u uniform in [-1, 1].

    An Ornstein-Uhlenbeck walk, exact at any dt, with the yaw's short-term speed (variance
    rate^2 dt / 3 a step) and a stationary spread of vertical * PITCH_SPREAD radians.
    """
    spread = vertical * PITCH_SPREAD
    if rate <= 0.0:
        return 1.0, 0.0
    if spread <= 0.0:
        return 0.0, 0.0
    decay = float(detmath.exp(-dt * rate * rate / (6.0 * spread * spread)))
    return decay, spread * math.sqrt(3.0 * (1.0 - decay * decay))


@_jit
def mix(x: np.uint64) -> np.uint64:
    """splitmix64 finaliser: a bijective, well-mixed hash of a uint64."""
    x = (x ^ (x >> _S30)) * _MIX1
    x = (x ^ (x >> _S27)) * _MIX2
    return x ^ (x >> _S31)


@_jit
def agent_key(seed_key: np.uint64, agent: int) -> np.uint64:
    """Key of one agent's random numbers, from which each step's stream is derived."""
    return mix(seed_key ^ (np.uint64(agent) * _GOLDEN))


@_jit
def stream_key(agent_key: np.uint64, step: int | np.int64) -> np.uint64:
    """Key of the random stream of one agent in one step.

    Not hashed itself (a hash per step is measurable): each draw hashes key + draw * golden,
    which separates steps and draws as well; tests check the draws for correlation.
    """
    return agent_key + np.uint64(step) * _STEP_STRIDE


@_jit
def uniform(key: np.uint64, draw: int) -> float:
    """The `draw`-th uniform float in [0, 1) of stream `key`."""
    return np.float64(mix(key + np.uint64(draw + 1) * _GOLDEN) >> _S11) * _UNIT


@_jit
def in_unit_ball(key: np.uint64) -> tuple[float, float, float]:
    """A point uniform in the unit ball from stream `key`, by rejection from the cube.

    Uniform in volume (not a cube, not a normalised Gaussian of random length); points within
    1e-3 of the centre are rejected too, so the result always has a direction. About 1.9 tries,
    one hash each.
    """
    draw = 0
    while True:
        # One hash gives three 21-bit coordinates: ample resolution for a random displacement,
        # and a third of the hashing.
        bits = mix(key + np.uint64(draw + 1) * _GOLDEN)
        x = np.float64(bits & _LOW21) * (2.0 * _UNIT21) - 1.0
        y = np.float64((bits >> _S21) & _LOW21) * (2.0 * _UNIT21) - 1.0
        z = np.float64((bits >> _S42) & _LOW21) * (2.0 * _UNIT21) - 1.0
        draw += 1
        r2 = x * x + y * y + z * z
        if 1e-6 < r2 <= 1.0:
            return x, y, z


@_jit
def gradient_noise(key: np.uint64, x: float) -> float:
    """Smooth 1D gradient (Perlin) noise of curve `key` at `x`, in about [-1, 1]."""
    cell = math.floor(x)
    f = x - cell
    c = np.int64(cell)
    g0 = np.float64(mix(key + np.uint64(c) * _GOLDEN) >> _S11) * _UNIT * 2.0 - 1.0
    g1 = np.float64(mix(key + np.uint64(c + 1) * _GOLDEN) >> _S11) * _UNIT * 2.0 - 1.0
    fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0)
    # A 1D Perlin curve peaks at +-0.5; doubling maps it to about [-1, 1].
    return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0))


@_jit
def smooth_noise(key: np.uint64, x: float) -> float:
    """Two octaves of gradient noise at an irrational frequency ratio, in about [-1, 1].

    One octave alone is zero at every integer, which would bring the target back to the same
    place on a fixed rhythm; the second octave breaks that rhythm.
    """
    second = gradient_noise(key ^ _OCTAVE_SALT, x * _OCTAVE_RATIO + 0.5)
    return (gradient_noise(key, x) + 0.5 * second) * (1.0 / 1.5)


@_jit
def noise_angles(
    keys: _UInt64s,
    phase: _Float64s,
    t: float,
    vertical: float,
    offset_yaw: float,
    offset_pitch: float,
) -> tuple[float, float]:
    """Noise-driven wander: the target's yaw and pitch follow two smooth noise curves.

    keys: (2,) uint64 curve keys; phase: (2,) offsets; t: noise coordinate (seconds times
    frequency). The curves span yaw about [-pi, pi] and pitch [-pi/2, pi/2] * vertical; the
    offsets, set when a wall turns the target and fading over 1/frequency s, shift them.
    Returns (yaw, pitch) with pitch reflected into [-pi/2, pi/2].
    """
    yaw = math.pi * smooth_noise(keys[0], phase[0] + t) + offset_yaw
    pitch = _HALF_PI * min(1.0, max(-1.0, smooth_noise(keys[1], phase[1] + t))) * vertical
    return yaw, reflect_pitch(pitch + offset_pitch)


@_jit
def shift_offsets(
    offset_yaw: float, offset_pitch: float, delta_yaw: float, delta_pitch: float
) -> tuple[float, float]:
    """Noise offsets moved by the deltas: yaw wrapped to [-pi, pi), pitch kept in [-pi, pi]
    (wide enough to reach any pitch from any point of the curve, which spans [-pi/2, pi/2]) so
    that curve plus offset needs at most one reflection."""
    offset_yaw = (offset_yaw + delta_yaw + math.pi) % (2.0 * math.pi) - math.pi
    return offset_yaw, min(math.pi, max(-math.pi, offset_pitch + delta_pitch))


@_jit
def reflect_pitch(pitch: float) -> float:
    """A pitch angle bounced back into [-pi/2, pi/2] at the pole (yaw is left alone)."""
    if pitch > _HALF_PI:
        return math.pi - pitch
    if pitch < -_HALF_PI:
        return -math.pi - pitch
    return pitch


@numba.njit(cache=True)
def noise_directions(
    keys: _UInt64s,
    phase: _Float64s,
    t: float,
    vertical: float,
    headings: _Float64s,
    sides: _Float64s,
    out: _Float64s,
) -> None:
    """Starting noise targets for rows of (n, 2) keys/phase and (n, 3) frames (headings,
    sides), as unit directions into out (n, 3)."""
    for i in range(out.shape[0]):
        h = headings[i]
        s = sides[i]
        yaw, pitch = noise_angles(keys[i], phase[i], t, vertical, 0.0, 0.0)
        out[i, 0], out[i, 1], out[i, 2] = direction_from_angles(
            yaw, pitch, h[0], h[1], h[2], s[0], s[1], s[2]
        )


@numba.njit(cache=True)
def noise_offsets(
    keys: _UInt64s, phase: _Float64s, t: float, vertical: float, angles: _Float64s
) -> None:
    """Noise offsets that put each agent's curves on its target, in place.

    keys, phase: (n, 2) rows of noise state; t: noise coordinate; angles: (n, 2) the target's
    yaw and pitch in the agent's frame on entry, the offsets (see `noise_angles`) on return.
    """
    for i in range(angles.shape[0]):
        yaw, pitch = noise_angles(keys[i], phase[i], t, vertical, 0.0, 0.0)
        angles[i, 0], angles[i, 1] = shift_offsets(
            0.0, 0.0, angles[i, 0] - yaw, angles[i, 1] - pitch
        )


@_jit
def direction_from_angles(
    yaw: float, pitch: float,
    hx: float, hy: float, hz: float,
    sx: float, sy: float, sz: float,
) -> tuple[float, float, float]:  # fmt: skip
    """Unit direction at `yaw` (towards side) and `pitch` (towards up = side x heading)."""
    ux = sy * hz - sz * hy
    uy = sz * hx - sx * hz
    uz = sx * hy - sy * hx
    sin_pitch, cos_pitch = detmath.sincos(pitch)
    sin_yaw, cos_yaw = detmath.sincos(yaw)
    a = cos_pitch * cos_yaw
    b = cos_pitch * sin_yaw
    c = sin_pitch
    return a * hx + b * sx + c * ux, a * hy + b * sy + c * uy, a * hz + b * sz + c * uz


@_jit
def angles_from_direction(
    wx: float, wy: float, wz: float,
    hx: float, hy: float, hz: float,
    sx: float, sy: float, sz: float,
) -> tuple[float, float]:  # fmt: skip
    """Inverse of direction_from_angles for a unit direction."""
    ux = sy * hz - sz * hy
    uy = sz * hx - sx * hz
    uz = sx * hy - sy * hx
    yaw = detmath.atan2(wx * sx + wy * sy + wz * sz, wx * hx + wy * hy + wz * hz)
    up = wx * ux + wy * uy + wz * uz
    pitch = detmath.asin(min(1.0, max(-1.0, up)))
    return yaw, pitch


@_jit
def perpendicular(ax: float, ay: float, az: float) -> tuple[float, float, float]:
    """A unit vector perpendicular to unit a: a crossed with its least-aligned world axis.

    Never degenerate, unlike crossing with a fixed up vector, which fails for vertical a.
    """
    if abs(ax) <= abs(ay) and abs(ax) <= abs(az):
        px, py, pz = 0.0, az, -ay
    elif abs(ay) <= abs(az):
        px, py, pz = -az, 0.0, ax
    else:
        px, py, pz = ay, -ax, 0.0
    n = math.sqrt(px * px + py * py + pz * pz)
    return px / n, py / n, pz / n


@_jit
def transport(
    vx: float, vy: float, vz: float,
    ax: float, ay: float, az: float,
    bx: float, by: float, bz: float,
) -> tuple[float, float, float]:  # fmt: skip
    """Rotate v by the minimal rotation taking unit a onto unit b (parallel transport).

    Rodrigues' formula without a normalised axis: R v = c v + k x v + (k . v) k / (1 + c), with
    k = a x b and c = a . b. Exactly opposite a and b rotate half a turn about an axis
    perpendicular to a (the least-aligned world axis crossed with a).
    """
    c = ax * bx + ay * by + az * bz
    if c < -1.0 + 1e-9:
        # Half turn about a unit vector perpendicular to a.
        px, py, pz = perpendicular(ax, ay, az)
        d = 2.0 * (px * vx + py * vy + pz * vz)
        return d * px - vx, d * py - vy, d * pz - vz
    kx = ay * bz - az * by
    ky = az * bx - ax * bz
    kz = ax * by - ay * bx
    s = (kx * vx + ky * vy + kz * vz) / (1.0 + c)
    return (
        c * vx + (ky * vz - kz * vy) + s * kx,
        c * vy + (kz * vx - kx * vz) + s * ky,
        c * vz + (kx * vy - ky * vx) + s * kz,
    )


@_jit
def transport_pair(
    vx: float, vy: float, vz: float,
    wx: float, wy: float, wz: float,
    ax: float, ay: float, az: float,
    bx: float, by: float, bz: float,
) -> tuple[float, float, float, float, float, float]:  # fmt: skip
    """`transport` of two vectors by the same rotation, sharing the rotation's set-up."""
    c = ax * bx + ay * by + az * bz
    if c < -1.0 + 1e-9:
        vx, vy, vz = transport(vx, vy, vz, ax, ay, az, bx, by, bz)
        wx, wy, wz = transport(wx, wy, wz, ax, ay, az, bx, by, bz)
        return vx, vy, vz, wx, wy, wz
    kx = ay * bz - az * by
    ky = az * bx - ax * bz
    kz = ax * by - ay * bx
    inverse = 1.0 / (1.0 + c)
    s = (kx * vx + ky * vy + kz * vz) * inverse
    t = (kx * wx + ky * wy + kz * wz) * inverse
    return (
        c * vx + (ky * vz - kz * vy) + s * kx,
        c * vy + (kz * vx - kx * vz) + s * ky,
        c * vz + (kx * vy - ky * vx) + s * kz,
        c * wx + (ky * wz - kz * wy) + t * kx,
        c * wy + (kz * wx - kx * wz) + t * ky,
        c * wz + (kx * wy - ky * wx) + t * kz,
    )


@_jit
def place_target(
    i: int, method: np.int64,
    px: float, py: float, pz: float,
    hx: float, hy: float, hz: float,
    wx: float, wy: float, wz: float,
    distance: float, radius: float,
    seek: _Float64s, out: _Float64s,
) -> None:  # fmt: skip
    """Write agent i's shown target into out[i]: its seek point, or the point on its wander
    sphere (centre `distance` ahead along the heading, `radius` along the wander direction).
    seek, out: (N, 3)."""
    if method == SEEK:
        out[i, 0], out[i, 1], out[i, 2] = seek[i, 0], seek[i, 1], seek[i, 2]
    else:
        out[i, 0] = px + hx * distance + wx * radius
        out[i, 1] = py + hy * distance + wy * radius
        out[i, 2] = pz + hz * distance + wz * radius


@numba.njit(cache=True)
def place_targets(
    group_index: _Int64s,
    params: _Float64s,
    positions: _Float64s,
    headings: _Float64s,
    wander_dirs: _Float64s,
    seek: _Float64s,
    out: _Float64s,
) -> None:
    """`place_target` for every agent, from the state arrays (outside a step): group_index
    (N,), params (G, PARAM_COLUMNS), positions, headings, wander_dirs, seek and out (N, 3)."""
    for i in range(positions.shape[0]):
        g = group_index[i]
        p, h, w = positions[i], headings[i], wander_dirs[i]
        place_target(
            i, np.int64(params[g, METHOD]), p[0], p[1], p[2], h[0], h[1], h[2],
            w[0], w[1], w[2], params[g, DISTANCE], params[g, RADIUS], seek, out,
        )  # fmt: skip


@numba.njit(cache=True, parallel=True, nogil=True, fastmath=False, error_model="numpy")
def advance(
    n_steps: int,
    first_step: int,
    dt: float,
    seed_key: np.uint64,
    low: _Float64s,
    high: _Float64s,
    margin: float,
    group_index: _Int64s,
    params: _Float64s,
    positions: _Float64s,
    velocities: _Float64s,
    headings: _Float64s,
    sides: _Float64s,
    wander_dirs: _Float64s,
    targets: _Float64s,
    forces: _Float64s,
    angles: _Float64s,
    noise_keys: _UInt64s,
    noise_phase: _Float64s,
    seek_targets: _Float64s,
    seek_timers: _Float64s,
    pending_breaks: _Bools,
    reflections: _Int64s,
    trail_points: _Float32s,
    trail_breaks: _Bools,
    sample_every: int,
    sample_positions: _Float64s,
    sample_velocities: _Float64s,
    sample_headings: _Float64s,
) -> None:
    """Advance every agent by `n_steps` steps of `dt` seconds, in place.

    first_step: index of the first step taken (the simulation's step count before the call);
    seed_key: uint64 derived from the scene seed; low, high: (3,) box corners; margin: band width.
    group_index: (N,) group of each agent; params: (G, PARAM_COLUMNS) per-group table.
    State arrays are (N, 3) float64 except angles and noise_phase (N, 2) float64, noise_keys
    (N, 2) uint64, seek_timers (N,) float64, pending_breaks (N,) bool; reflections (N,) int64
    counts the steps in which each agent was reflected at a wall.
    trail_points: (P, 3) float32 and trail_breaks: (P,) bool, every group's rings end to end;
    group g's ring is slot-major, (capacity, GROUP_SIZE) from TRAIL_BASE: sample k of agent i is
    at TRAIL_BASE + (k % capacity) * GROUP_SIZE + (i - FIRST_AGENT), so one sample of a whole
    group is contiguous (cheap to write and to upload to a GPU).
    sample_every: 0, or record the state after every sample_every-th step of the call into
    sample_positions, sample_velocities, sample_headings ((S, N, 3) float64, S >= n_steps //
    sample_every): row j is the state after (j + 1) * sample_every steps, the values the state
    arrays would hold then (so one call records many samples: a recorder's samples, bit for
    bit, without a call per sample).
    """
    root_dt = math.sqrt(dt)
    # Random method: which hold interval a step falls in (its centre, so rounding never
    # splits an interval), and the white-noise scaling where a step is longer than a hold.
    random_holds = min(1.0, dt / RANDOM_HOLD)
    random_gain = math.sqrt(min(1.0, RANDOM_HOLD / dt))
    # Pull the side level every 2^k steps, the most within LEVEL_SECONDS (a mask, not a modulo).
    level_steps = 1
    while 2 * level_steps * dt <= LEVEL_SECONDS:
        level_steps *= 2
    level_mask = level_steps - 1
    inverse_ramp = 1.0 / (margin * RAMP_FRACTION) if margin > 0.0 else 0.0
    lox, loy, loz = low[0], low[1], low[2]
    hix, hiy, hiz = high[0], high[1], high[2]
    for i in numba.prange(positions.shape[0]):
        g = group_index[i]
        distance = params[g, DISTANCE]
        radius = params[g, RADIUS]
        jitter_step = params[g, JITTER] * root_dt
        rate_step = params[g, RATE] * root_dt
        frequency = params[g, FREQUENCY]
        offset_fade = detmath.exp(-dt * frequency)
        interval = params[g, INTERVAL]
        vertical = params[g, VERTICAL]
        max_speed = params[g, MAX_SPEED]
        max_force = params[g, MAX_FORCE]
        inverse_mass = params[g, INVERSE_MASS]
        stop_time = params[g, STOP_TIME]
        pitch_decay = params[g, PITCH_DECAY]
        pitch_kick = params[g, PITCH_KICK]
        method = np.int64(params[g, METHOD])
        desired = params[g, DESIRED] != 0.0
        capacity = np.int64(params[g, TRAIL_CAPACITY])
        every = np.int64(params[g, TRAIL_EVERY])
        ring = np.int64(params[g, TRAIL_BASE]) + (i - np.int64(params[g, FIRST_AGENT]))
        ring_stride = np.int64(params[g, GROUP_SIZE])

        px, py, pz = positions[i, 0], positions[i, 1], positions[i, 2]
        vx, vy, vz = velocities[i, 0], velocities[i, 1], velocities[i, 2]
        hx, hy, hz = headings[i, 0], headings[i, 1], headings[i, 2]
        sx, sy, sz = sides[i, 0], sides[i, 1], sides[i, 2]
        wx, wy, wz = wander_dirs[i, 0], wander_dirs[i, 1], wander_dirs[i, 2]
        # Angle method: the target's yaw and pitch. Noise method: offsets added to its curves.
        yaw, pitch = angles[i, 0], angles[i, 1]
        fx, fy, fz = 0.0, 0.0, 0.0
        jumped = pending_breaks[i]
        # Sample k is taken after step k * every, into slot k % capacity.
        until_sample = every - first_step % every if capacity > 0 else -1
        next_slot = (first_step // every + 1) % capacity if capacity > 0 else 0
        until_record = sample_every if sample_every > 0 else -1
        row = 0

        agent = agent_key(seed_key, i)
        held = np.int64(-1)  # random method: the hold whose direction is in rx, ry, rz
        rx, ry, rz = 0.0, 0.0, 0.0
        for step in range(first_step, first_step + n_steps):
            key = stream_key(agent, step)

            # 1. Containment, per axis: + pushes towards high, - towards low.
            ix = 0.0
            iy = 0.0
            iz = 0.0
            ax_ = px + vx * (LOOKAHEAD + abs(vx) * stop_time)
            ay_ = py + vy * (LOOKAHEAD + abs(vy) * stop_time)
            az_ = pz + vz * (LOOKAHEAD + abs(vz) * stop_time)
            if margin > 0.0:
                if hx < 0.0:
                    ix = min(1.0, max(0.0, (lox + margin - ax_) * inverse_ramp))
                elif hx > 0.0:
                    ix = -min(1.0, max(0.0, (ax_ - (hix - margin)) * inverse_ramp))
                if hy < 0.0:
                    iy = min(1.0, max(0.0, (loy + margin - ay_) * inverse_ramp))
                elif hy > 0.0:
                    iy = -min(1.0, max(0.0, (ay_ - (hiy - margin)) * inverse_ramp))
                if hz < 0.0:
                    iz = min(1.0, max(0.0, (loz + margin - az_) * inverse_ramp))
                elif hz > 0.0:
                    iz = -min(1.0, max(0.0, (az_ - (hiz - margin)) * inverse_ramp))
            weight = max(abs(ix), max(abs(iy), abs(iz)))

            # 2. The wander target.
            used_yaw = 0.0  # the noise method's target angles this step
            used_pitch = 0.0
            if method == SEEK:
                seek_timers[i] -= dt
                if seek_timers[i] <= 0.0:
                    seek_targets[i, 0] = lox + margin + uniform(key, 0) * (hix - lox - 2 * margin)
                    seek_targets[i, 1] = loy + margin + uniform(key, 1) * (hiy - loy - 2 * margin)
                    seek_targets[i, 2] = loz + margin + uniform(key, 2) * (hiz - loz - 2 * margin)
                    seek_timers[i] += interval
                tx, ty, tz = seek_targets[i, 0], seek_targets[i, 1], seek_targets[i, 2]
            else:
                if method == SPHERE:
                    ux, uy, uz = in_unit_ball(key)
                    qx = wx * radius + ux * jitter_step
                    qy = wy * radius + uy * jitter_step * vertical
                    qz = wz * radius + uz * jitter_step
                    q = math.sqrt(qx * qx + qy * qy + qz * qz)
                    # The point can reach the centre only if jitter*sqrt(dt) >= radius.
                    if q > 1e-9 * radius:
                        inverse = 1.0 / q
                        wx, wy, wz = qx * inverse, qy * inverse, qz * inverse
                elif method == ANGLE:
                    yaw += (2.0 * uniform(key, 0) - 1.0) * rate_step
                    pitch = pitch * pitch_decay + (2.0 * uniform(key, 1) - 1.0) * pitch_kick
                    if yaw >= math.pi or yaw < -math.pi:
                        yaw = (yaw + math.pi) % (2.0 * math.pi) - math.pi
                    pitch = reflect_pitch(pitch)
                    wx, wy, wz = direction_from_angles(yaw, pitch, hx, hy, hz, sx, sy, sz)
                elif method == NOISE:
                    # Offsets from wall turns fade, so the agent returns to its own curve.
                    yaw *= offset_fade
                    pitch *= offset_fade
                    used_yaw, used_pitch = noise_angles(
                        noise_keys[i], noise_phase[i], step * dt * frequency, vertical, yaw, pitch
                    )
                    wx, wy, wz = direction_from_angles(used_yaw, used_pitch, hx, hy, hz, sx, sy, sz)
                else:  # RANDOM: a fresh uniform direction every RANDOM_HOLD s.
                    hold = np.int64((step + 0.5) * random_holds)
                    if hold != held:  # else the steps of one hold share its (world) direction
                        held = hold
                        ux, uy, uz = in_unit_ball(stream_key(agent, hold))
                        uy *= vertical
                        u = math.sqrt(ux * ux + uy * uy + uz * uz)
                        if u < 1e-9:  # vertical = 0 and a purely vertical draw
                            ux, uy, uz, u = 1.0, 0.0, 0.0, 1.0
                        gain = random_gain / u
                        rx, ry, rz = ux * gain, uy * gain, uz * gain
                    wx, wy, wz = rx, ry, rz
                # Turn the target inward on axes heading into a wall, so the agent does not
                # head straight back out; a mirror keeps it on the sphere.
                turned = False
                if (ix > 0.0 and wx < 0.0) or (ix < 0.0 and wx > 0.0):
                    wx = -wx
                    turned = True
                if (iy > 0.0 and wy < 0.0) or (iy < 0.0 and wy > 0.0):
                    wy = -wy
                    turned = True
                if (iz > 0.0 and wz < 0.0) or (iz < 0.0 and wz > 0.0):
                    wz = -wz
                    turned = True
                if turned and method == ANGLE:
                    yaw, pitch = angles_from_direction(wx, wy, wz, hx, hy, hz, sx, sy, sz)
                elif turned and method == NOISE:
                    # Shift the noise curves so they continue from the turned target, as the
                    # tutorials reset the wander angle inward; otherwise the next step's noise
                    # would point straight back at the wall.
                    turned_yaw, turned_pitch = angles_from_direction(
                        wx, wy, wz, hx, hy, hz, sx, sy, sz
                    )
                    yaw, pitch = shift_offsets(
                        yaw, pitch, turned_yaw - used_yaw, turned_pitch - used_pitch
                    )
                    used_yaw, used_pitch = turned_yaw, turned_pitch
                tx = px + hx * distance + wx * radius
                ty = py + hy * distance + wy * radius
                tz = pz + hz * distance + wz * radius

            # 3. Steering, blended with containment.
            dx, dy, dz = tx - px, ty - py, tz - pz
            if desired:
                d = math.sqrt(dx * dx + dy * dy + dz * dz)
                if d > _TINY:
                    inverse = 1.0 / d
                    dx, dy, dz = dx * inverse, dy * inverse, dz * inverse
                else:
                    dx, dy, dz = hx, hy, hz
                dx = dx * max_speed - vx
                dy = dy * max_speed - vy
                dz = dz * max_speed - vz
            dy *= vertical
            keep = 1.0 - weight
            fx, fy, fz = dx * keep, dy * keep, dz * keep
            if weight > 0.0:
                c = max_force * weight / math.sqrt(ix * ix + iy * iy + iz * iz)
                fx += ix * c
                fy += iy * c
                fz += iz * c

            # 4. Vehicle model. Lengths are compared squared, so the usual case, within the
            # limits, needs no square root or division (they dominate a step's latency).
            f2 = fx * fx + fy * fy + fz * fz
            if f2 > max_force * max_force:
                scale = max_force / math.sqrt(f2)
                fx, fy, fz = fx * scale, fy * scale, fz * scale
            gain = inverse_mass * dt
            vx += fx * gain
            vy += fy * gain
            vz += fz * gain
            speed2 = vx * vx + vy * vy + vz * vz
            moving = speed2 > 1e-18
            if moving:
                inverse = 1.0 / math.sqrt(speed2)
                nx, ny, nz = vx * inverse, vy * inverse, vz * inverse
                if speed2 > max_speed * max_speed:
                    vx, vy, vz = nx * max_speed, ny * max_speed, nz * max_speed
            px += vx * dt
            py += vy * dt
            pz += vz * dt

            # 5. Carry the frame and the target with the heading.
            if moving:
                if method == ANGLE or method == NOISE:
                    # Only these methods read the side vector (a switch to them sets one up).
                    sx, sy, sz, wx, wy, wz = transport_pair(
                        sx, sy, sz, wx, wy, wz, hx, hy, hz, nx, ny, nz
                    )
                    # Transport alone rolls the side away over minutes, and "yaw" and "pitch"
                    # would stop meaning horizontal and vertical: pull it to the level side
                    # (same sign, so it never flips), fully for a level heading, less towards
                    # vertical, where the level side swings fast and would jerk the target.
                    level2 = nx * nx + nz * nz
                    if step & level_mask == 0 and level2 > 1e-12:
                        inverse = 1.0 / math.sqrt(level2)
                        lx, lz = -nz * inverse, nx * inverse
                        if lx * sx + lz * sz < 0.0:
                            lx, lz = -lx, -lz
                        sx += level2 * (lx - sx)
                        sy -= level2 * sy
                        sz += level2 * (lz - sz)
                        inverse = 1.0 / math.sqrt(sx * sx + sy * sy + sz * sz)
                        sx, sy, sz = sx * inverse, sy * inverse, sz * inverse
                else:
                    wx, wy, wz = transport(wx, wy, wz, hx, hy, hz, nx, ny, nz)
                hx, hy, hz = nx, ny, nz

            # 6. The hard guarantee: reflect agents that left the box.
            crossed = False
            if px < lox or px > hix:
                px = 2.0 * lox - px if px < lox else 2.0 * hix - px
                px = min(hix, max(lox, px))
                vx, hx, sx, wx = -vx, -hx, -sx, -wx
                crossed = True
            if py < loy or py > hiy:
                py = 2.0 * loy - py if py < loy else 2.0 * hiy - py
                py = min(hiy, max(loy, py))
                vy, hy, sy, wy = -vy, -hy, -sy, -wy
                crossed = True
            if pz < loz or pz > hiz:
                pz = 2.0 * loz - pz if pz < loz else 2.0 * hiz - pz
                pz = min(hiz, max(loz, pz))
                vz, hz, sz, wz = -vz, -hz, -sz, -wz
                crossed = True
            if crossed:
                jumped = True
                reflections[i] += 1
                if method == ANGLE or method == NOISE:
                    # The mirror flips the frame's handedness; re-express the target in it.
                    w = math.sqrt(wx * wx + wy * wy + wz * wz)
                    mirrored_yaw, mirrored_pitch = angles_from_direction(
                        wx / w, wy / w, wz / w, hx, hy, hz, sx, sy, sz
                    )
                    if method == ANGLE:
                        yaw, pitch = mirrored_yaw, mirrored_pitch
                    else:
                        yaw, pitch = shift_offsets(
                            yaw, pitch, mirrored_yaw - used_yaw, mirrored_pitch - used_pitch
                        )

            # 7. Trails (counters rather than integer division, which is slow per step).
            until_sample -= 1
            if until_sample == 0:
                slot = ring + next_slot * ring_stride
                trail_points[slot, 0] = px
                trail_points[slot, 1] = py
                trail_points[slot, 2] = pz
                trail_breaks[slot] = jumped
                jumped = False
                until_sample = every
                next_slot += 1
                if next_slot == capacity:
                    next_slot = 0

            # 8. Recorded samples (the recorder's, see the docstring).
            until_record -= 1
            if until_record == 0:
                sample_positions[row, i, 0] = px
                sample_positions[row, i, 1] = py
                sample_positions[row, i, 2] = pz
                sample_velocities[row, i, 0] = vx
                sample_velocities[row, i, 1] = vy
                sample_velocities[row, i, 2] = vz
                sample_headings[row, i, 0] = hx
                sample_headings[row, i, 1] = hy
                sample_headings[row, i, 2] = hz
                row += 1
                until_record = sample_every

        positions[i, 0], positions[i, 1], positions[i, 2] = px, py, pz
        velocities[i, 0], velocities[i, 1], velocities[i, 2] = vx, vy, vz
        headings[i, 0], headings[i, 1], headings[i, 2] = hx, hy, hz
        sides[i, 0], sides[i, 1], sides[i, 2] = sx, sy, sz
        wander_dirs[i, 0], wander_dirs[i, 1], wander_dirs[i, 2] = wx, wy, wz
        angles[i, 0], angles[i, 1] = yaw, pitch
        forces[i, 0], forces[i, 1], forces[i, 2] = fx, fy, fz
        pending_breaks[i] = jumped
        # Where the target is now, after the move (the next step jitters it from here).
        place_target(i, method, px, py, pz, hx, hy, hz, wx, wy, wz, distance, radius,
                     seek_targets, targets)  # fmt: skip
