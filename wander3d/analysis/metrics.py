"""Path metrics of wandering agents, computed from headings and positions sampled at a fixed rate.

Every function here works on the samples of one group of agents (or a chunk of its agents:
`analysis.stats.compute_stats` adds the pieces up over chunks, so memory stays bounded):

    headings:   (T, n, 3) unit vectors, T samples of n agents, taken every `interval` seconds;
    positions:  (T, n, 3) world units;
    speeds:     (T, n) units/s.

Sampling at a fixed rate (not every step) is what makes the numbers comparable between scenes
with different time steps: the angular velocity and acceleration below are finite differences
over the sample interval, and any finite difference of a noisy signal depends on the interval
it is taken over. Compare numbers only at the same sample rate.

Angles are computed as atan2(|a x b|, a . b), which is accurate for small and large angles alike
(arccos of a dot product loses half its digits near 0 and 180 degrees). Arrays may be float32
(as the sampler stores them); the arithmetic is done in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Array = np.ndarray

#: A turn of more than this many degrees ...
ABOUT_TURN_ANGLE_DEG = 150.0
#: ... completed within this many seconds is an about-turn.
ABOUT_TURN_WINDOW_S = 2.0
#: Per-sample turns below this (rad) have no defined turning axis (straight motion, or float32
#: rounding of a straight heading, which is about 1e-7).
AXIS_MIN_ANGLE = 1e-6
#: Agents per chunk in the FFT autocorrelation, so memory stays bounded for huge groups.
_CHUNK_AGENTS = 1024


def _f64(a: Array) -> Array:
    return np.asarray(a, dtype=np.float64)


def _check_series(headings: Array) -> Array:
    h = _f64(headings)
    if h.ndim != 3 or h.shape[2] != 3:
        raise ValueError(f"expected (T, n, 3) headings, got shape {h.shape}")
    return h


def _dot(a: Array, b: Array) -> Array:
    """a . b over the last axis of (..., 3) arrays (component by component: twice einsum's
    speed on a trailing axis of 3)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _cross(a: Array, b: Array) -> Array:
    """a x b over the last axis of (..., 3) arrays (np.cross without its axis juggling)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    np.subtract(a1 * b2, a2 * b1, out=out[..., 0])
    np.subtract(a2 * b0, a0 * b2, out=out[..., 1])
    np.subtract(a0 * b1, a1 * b0, out=out[..., 2])
    return out


def lengths(vectors: Array) -> Array:
    """|v| of (..., 3) vectors -> (...)."""
    return np.sqrt(_dot(vectors, vectors))


def angles_between(a: Array, b: Array) -> Array:
    """Angles (rad, in [0, pi]) between unit vectors a and b, shapes (..., 3) -> (...)."""
    a, b = _f64(a), _f64(b)
    cross = _cross(a, b)
    return np.arctan2(np.sqrt(_dot(cross, cross)), _dot(a, b))


@dataclass(frozen=True)
class Turns:
    """How the heading turns over each sample interval, computed once for every measure of it.

    cross: (T-1, n, 3) h_k x h_k+1; sin: (T-1, n) its length; angle: (T-1, n) the turn angle
    atan2(|h_k x h_k+1|, h_k . h_k+1), rad.
    """

    cross: Array
    sin: Array
    angle: Array

    @staticmethod
    def of(headings: Array) -> Turns:
        """The turns of (T, n, 3) unit headings."""
        h = _check_series(headings)
        cross = _cross(h[:-1], h[1:])
        sin = np.sqrt(_dot(cross, cross))
        return Turns(cross, sin, np.arctan2(sin, _dot(h[:-1], h[1:])))


def turn_angles(headings: Array) -> Array:
    """Angle (rad) the heading turns between consecutive samples: (T, n, 3) -> (T-1, n)."""
    return Turns.of(headings).angle


def turn_rates_deg(headings: Array | Turns, interval: float) -> Array:
    """Turn rate (deg/s) over each sample interval: turn angle / interval, (T-1, n)."""
    turns = headings if isinstance(headings, Turns) else Turns.of(headings)
    return np.degrees(turns.angle) / interval


def angular_velocities(headings: Array | Turns, interval: float) -> Array:
    """Angular velocity of the heading over each sample interval (rad/s): (T-1, n, 3).

    omega_k = (h_k x h_{k+1}) / |h_k x h_{k+1}| * angle(h_k, h_{k+1}) / interval: the rotation
    that carries h_k to h_{k+1} along the great circle, spread evenly over the interval. Zero
    where the heading did not turn (and where it reversed exactly, whose axis is undefined;
    at realistic sample rates a heading cannot turn 180 degrees in one interval).
    """
    t = headings if isinstance(headings, Turns) else Turns.of(headings)
    scale = np.divide(t.angle, t.sin * interval, out=np.zeros_like(t.sin), where=t.sin > 0)
    return t.cross * scale[..., None]


def turning_axes(headings: Array | Turns) -> tuple[Array, Array]:
    """Unit turning axes u_k = omega_k / |omega_k| and where they are defined.

    Returns (axes (T-1, n, 3), defined (T-1, n) bool); axes are zero where not defined, i.e.
    where the heading turned less than AXIS_MIN_ANGLE rad over the interval, or reversed
    exactly.
    """
    t = headings if isinstance(headings, Turns) else Turns.of(headings)
    # An exact reversal turns by pi about no axis in particular (its cross product is zero).
    defined = (t.angle > AXIS_MIN_ANGLE) & (t.sin > 0)
    axes = np.divide(
        t.cross, t.sin[..., None], out=np.zeros_like(t.cross), where=defined[..., None]
    )
    return axes, defined


# ----------------------------------------------------------------------------- the metrics
# The mean speed (units/s) is the mean of |v| over agents and samples; the mean turn rate
# (deg/s) the mean of `turn_rates_deg` over agents and sample intervals.


def angular_accelerations_deg(headings: Array | Turns, interval: float) -> Array:
    """|omega_{k+1} - omega_k| / interval (deg/s^2) for each agent: (T-2, n).

    Their mean over agents and k is the twitchiness: with omega_k the angular velocity vector
    over sample interval k (see `angular_velocities`: axis h_k x h_{k+1}, magnitude
    angle(h_k, h_{k+1}) / interval), a steady turn (constant axis and rate) scores 0; changing
    how hard, or which way, the agent turns scores.

    Independent of the simulation's time step, but not of the sample rate: a finite difference
    of a rough signal grows as the interval shrinks. Smooth steering (noise, seek) converges as
    the rate grows; a random-walk target (sphere, angle) makes the angular velocity a Brownian
    path, whose twitchiness grows like rate^0.5; a random force is white noise (rate^1.5).
    Compare values taken at the same sample rate only.
    """
    omega = angular_velocities(headings, interval)
    step = np.diff(omega, axis=0)
    return np.degrees(np.sqrt(_dot(step, step))) / interval


def about_turn_counts(
    headings: Array,
    interval: float,
    angle_deg: float = ABOUT_TURN_ANGLE_DEG,
    window_s: float = ABOUT_TURN_WINDOW_S,
    turns: Turns | None = None,
) -> Array:
    """Number of about-turns each agent makes: (T, n, 3) -> (n,) ints.

    An about-turn starts at sample k when some sample j with k < j <= k + W (W = the window in
    samples, round(window_s / interval)) has angle(h_k, h_j) > angle_deg; it ends at the first
    such j. Events are counted greedily in time order and may not overlap: after an event that
    ended at j, the next one can start at j at the earliest. So one U-turn counts once however
    many windows contain it, and an agent circling on the spot counts once per angle_deg turned.
    Their total over (n * run minutes), the run lasting (T - 1) * interval s, is the rate of
    about-turns per agent per minute. `turns`: Turns.of(headings), if already computed.
    """
    h = _check_series(headings)
    t, n = h.shape[:2]
    window = max(1, round(window_s / interval))
    cos_limit = np.cos(np.radians(angle_deg))
    angles = (turns if turns is not None else Turns.of(h)).angle
    # The heading turns through at most the sum of its per-sample turns (the triangle
    # inequality on the sphere): a pair (k, k + lag) can be more than angle_deg apart only
    # where those turns add up to more, so only such pairs are compared. Most are not.
    turned = np.concatenate([np.zeros((1, n)), np.cumsum(angles, axis=0)])
    limit = np.radians(angle_deg)
    reach = turned[np.minimum(np.arange(t) + window, t - 1)] - turned
    candidates = np.flatnonzero((reach > limit).any(axis=0))
    counts = np.zeros(n, dtype=np.int64)
    if len(candidates) == 0:
        return counts
    h, turned, n = h[:, candidates], turned[:, candidates], len(candidates)
    # end[k, a]: the first sample j in (k, k + W] at which agent a's heading is more than
    # angle_deg from h_k, or -1. Filling from the longest lag down leaves the shortest one.
    end = np.full((t, n), -1, dtype=np.int64)
    for lag in range(min(window, t - 1), 0, -1):
        k, a = np.nonzero(turned[lag:] - turned[:-lag] > limit)
        # Dot products below cos_limit are exactly the angles above angle_deg (cos decreases).
        hit = _dot(h[k, a], h[k + lag, a]) < cos_limit
        end[k[hit], a[hit]] = k[hit] + lag
    # The greedy count, for all agents at once: following[k, a] is the first sample at or
    # after k where an event of agent a could start (t: none); from each event's end, jump to
    # the next. One step per event, not per sample.
    following = np.where(end >= 0, np.arange(t)[:, None], t)
    following = np.minimum.accumulate(following[::-1], axis=0)[::-1]
    following = np.vstack([following, np.full((1, n), t)])
    agents = np.arange(n)
    at = following[0].copy()
    found = np.zeros(n, dtype=np.int64)
    while (going := at < t).any():
        found += going
        at[going] = following[end[at[going], agents[going]], agents[going]]
    counts[candidates] = found
    return counts


def lagged_sums(vectors: Array, valid: Array, lags: int) -> tuple[Array, Array]:
    """Sums behind the pooled autocorrelation of a vector series, for adding up over chunks of
    agents: vectors (T, n, 3), valid (T, n) bool.

    Returns (num, den), each (lags + 1,): num[l] = sum of v_k . v_{k+l} over agents and the
    pairs where both are valid, den[l] = number of such pairs; C(l) = num[l] / den[l]
    (`correlation_from_sums`), 1 at lag 0 for unit vectors. For the headings it is the heading
    autocorrelation, which decays to 0 as the heading forgets its direction; for the unit
    turning axes (`turning_axes`, pairs with an undefined axis left out) the turning-axis
    autocorrelation, near 1 while agents keep turning the same way. Requires lags <= T - 1.
    """
    ok = np.asarray(valid, dtype=bool)
    # Time last, so each FFT reads contiguous memory.
    series = np.ascontiguousarray((_f64(vectors) * ok[..., None]).transpose(1, 2, 0))
    return series_lagged_sums(series, np.ascontiguousarray(ok.T), lags)


def series_lagged_sums(series: Array, valid: Array, lags: int) -> tuple[Array, Array]:
    """`lagged_sums` of vectors laid out agent by agent: series (n, c, T) float64, zero where
    not valid, valid (n, T) bool. Requires lags <= T - 1.

    An FFT per chunk of agents makes it O(T log T) per agent rather than O(T * lags); the
    inverse FFT is linear, so the power spectra are summed over agents and components first
    and inverted once.
    """
    n, _, t = series.shape
    # Zero padding to >= t + lags makes the FFT's circular correlation a plain one up to `lags`.
    nfft = fast_length(t + lags)
    num = np.zeros(lags + 1)
    den = np.zeros(lags + 1)
    everywhere = bool(valid.all())
    for start in range(0, n, _CHUNK_AGENTS):
        sl = slice(start, start + _CHUNK_AGENTS)
        num += _correlation_sum(series[sl].reshape(-1, t), nfft, lags)
        if not everywhere:
            den += _correlation_sum(valid[sl], nfft, lags)
    if everywhere:
        return num, n * (t - np.arange(lags + 1)).astype(np.float64)
    # Pair counts are integers; the FFT returns them to within rounding.
    return num, np.rint(den)


def _correlation_sum(rows: Array, nfft: int, lags: int) -> Array:
    """sum over rows r of sum_k r_k r_{k+l}, l = 0..lags, for (m, T) rows zero-padded to nfft."""
    spec = np.fft.rfft(rows, n=nfft, axis=-1)
    power = np.einsum("af,af->f", spec.real, spec.real)
    power += np.einsum("af,af->f", spec.imag, spec.imag)
    return np.fft.irfft(power, n=nfft)[: lags + 1]


def fast_length(size: int) -> int:
    """The smallest 2^a 3^b 5^c >= size: FFT lengths that pocketfft does fastest, and at most
    a quarter longer than needed (a power of two can be twice)."""
    best = 1 << max(size - 1, 1).bit_length()
    power5 = 1
    while power5 < best:
        power35 = power5
        while power35 < best:
            candidate = power35
            while candidate < size:
                candidate *= 2
            best = min(best, candidate)
            power35 *= 3
        power5 *= 5
    return best


def correlation_from_sums(num: Array, den: Array, max_lag: int) -> Array:
    """num / den padded with NaN to (max_lag + 1,) (NaN also where there are no pairs)."""
    out = np.full(max_lag + 1, np.nan)
    m = min(len(num), max_lag + 1)
    out[:m] = np.divide(num[:m], den[:m], out=np.full(m, np.nan), where=den[:m] > 0)
    return out


def decay_time(correlation: Array, interval: float) -> tuple[float, bool]:
    """When an autocorrelation first drops below 1/e (s), and whether it never did.

    correlation[l] is the correlation at lag l * interval, correlation[0] = 1. The crossing is
    interpolated linearly between the two lags around it, so an exponential exp(-t / T) gives
    T (to within the interpolation). Returns (time, censored): if the correlation stays above
    1/e up to the last lag, (last lag in s, True): the true time is longer; if it is not
    defined even at lag 0 (NaN: nothing to correlate), (NaN, False).

    The persistence (s), how long a turn lasts, is the decay time of the turning-axis
    autocorrelation (see `lagged_sums`). Its resolution is one sample interval: a turning axis
    that is uncorrelated from one sample to the next gives about (1 - 1/e) * interval.
    """
    c = np.asarray(correlation, dtype=np.float64)
    c = c[: np.argmax(np.isnan(c))] if np.isnan(c).any() else c
    if len(c) == 0:
        # Not even lag 0 is defined (say, no agent ever turned): there is no turn to time.
        return math.nan, False
    threshold = np.exp(-1.0)
    below = np.nonzero(c < threshold)[0]
    if len(below) == 0:
        return (len(c) - 1) * interval, True
    lag = int(below[0])
    if lag == 0:
        return 0.0, False
    before, after = c[lag - 1], c[lag]
    fraction = (before - threshold) / (before - after)
    return (lag - 1 + fraction) * interval, False


def cell_indices(positions: Array, low: Array, high: Array, cells: int) -> Array:
    """Flat index of the cell each position is in, cells per axis -> (T * n,) ints.

    The box [low, high] is divided into cells^3 equal cells (`cells` along each axis, so cells
    have the box's proportions). The coverage, in [0, 1], is the fraction of the cells that
    any agent of the group is in at any sample.
    """
    p = _f64(positions).reshape(-1, 3)
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    # An axis without extent (flat 2D tracks) is one cell thick: everything is in cell 0.
    span = np.where(high > low, high - low, 1.0)
    ijk = np.floor((p - low) / span * cells).astype(np.int64)
    # Points exactly on the high walls belong to the last cell.
    np.clip(ijk, 0, cells - 1, out=ijk)
    return (ijk[:, 0] * cells + ijk[:, 1]) * cells + ijk[:, 2]


def in_wall_band(positions: Array, low: Array, high: Array, margin: float) -> Array:
    """Whether each position is within `margin` of any wall: (..., 3) -> (...) bool.

    True where min over axes of min(p - low, high - p) < margin: inside the band where
    containment steers agents back. The wall contact, in [0, 1], is the fraction of
    agent-samples for which it is true.
    """
    p = _f64(positions)
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    # Axis by axis and wall by wall (the minimum is below the margin where any term is): a
    # reduction over a trailing axis of 3 costs several times these six comparisons.
    near = p[..., 0] - low[0] < margin
    for axis in range(3):
        if axis:
            near |= p[..., axis] - low[axis] < margin
        near |= high[axis] - p[..., axis] < margin
    return near


# -------------------------------------------------------- movement-ecology measures of the path
# These read positions only, sampled every `interval` seconds, as animal-tracking data are: the
# steps are the displacements s_k = p_{k+1} - p_k between consecutive samples (fixes), so they
# apply unchanged to anyone's tracks. Every one depends on the sample interval.

#: Steps shorter than this (units) have no direction: no turning angle is defined at them.
STEP_MIN_LENGTH = 1e-9
#: Steps whose horizontal part is at most this fraction of their length are vertical: they
#: have no azimuth, so no horizontal turn angle is defined at them. Relative to the step, so
#: the same steps are vertical in any unit and at any speed. 1e-9 is far above the float64
#: rounding a vertical step's horizontal part may carry after resampling or projection
#: (about 1e-16 of the coordinates: under 1e-9 of the step out to some 1e6 steps from the
#: origin), and below the smallest horizontal move float32 positions hold (one rounding
#: unit, 6e-8 of the coordinate) unless the step is 60 times its distance from the origin:
#: noise gives no vertical step an azimuth, and a real near-vertical step keeps its own.
HORIZONTAL_MIN_FRACTION = 1e-9
#: Bins of the turn and lift angle distributions (edges from -180 to 180 deg: 1 deg each).
ANGLE_BINS = 360


def steps(positions: Array) -> Array:
    """Displacements between consecutive samples, s_k = p_{k+1} - p_k: (T, n, 3) -> (T-1, n, 3)."""
    p = _f64(positions)
    return p[1:] - p[:-1]


@dataclass(frozen=True)
class Steps:
    """The steps of a path, computed once for every measure of it.

    s: (T-1, n, 3) the displacements `steps`; length: (T-1, n) their lengths (units).
    """

    s: Array
    length: Array

    @staticmethod
    def of(positions: Array) -> Steps:
        """The steps of (T, n, 3) positions."""
        s = steps(positions)
        return Steps(s, np.sqrt(_dot(s, s)))


def _steps(positions: Array | Steps) -> Steps:
    return positions if isinstance(positions, Steps) else Steps.of(positions)


def step_turn_versines(positions: Array | Steps) -> tuple[Array, Array]:
    """1 - cos of the 3D turning angle between consecutive steps, and where it is defined.

    Returns (versine (T-2, n), defined (T-2, n) bool): with a the angle between s_k and s_k+1
    (atan2(|s_k x s_k+1|, s_k . s_k+1)), 1 - cos a = 2 sin^2(a / 2), computed so that turns of
    1e-9 rad keep every digit (1 - a cosine near 1 would keep none); defined where both steps
    are longer than STEP_MIN_LENGTH (0 elsewhere). The mean cosine is 1 - their mean.
    """
    path = _steps(positions)
    s, length = path.s, path.length
    defined = (length[:-1] > STEP_MIN_LENGTH) & (length[1:] > STEP_MIN_LENGTH)
    cross = _cross(s[:-1], s[1:])
    angle = np.arctan2(np.sqrt(_dot(cross, cross)), _dot(s[:-1], s[1:]))
    return np.where(defined, 2.0 * np.sin(0.5 * angle) ** 2, 0.0), defined


def step_directions(positions: Array | Steps) -> tuple[Array, Array]:
    """Unit step directions s_k / |s_k| and where they are defined (steps longer than
    STEP_MIN_LENGTH): ((T-1, n, 3), (T-1, n) bool); zero where not defined. Their
    autocorrelation (`lagged_sums`) is the direction autocorrelation of the path."""
    path = _steps(positions)
    s, length = path.s, path.length
    defined = length > STEP_MIN_LENGTH
    unit = np.divide(s, length[..., None], out=np.zeros_like(s), where=defined[..., None])
    return unit, defined


def horizontal_turn_and_lift(positions: Array | Steps) -> tuple[Array, Array, Array, Array]:
    """Turn and lift angles (deg) between consecutive steps, +y up, and where each is defined:
    (turn, lift, turned, lifted), each (T-2, n).

    Each step's direction is split into an azimuth psi = atan2(s_x, s_z) (in the horizontal
    plane) and an elevation theta = atan2(s_y, hypot(s_x, s_z)) (above the horizontal). The turn
    angle is psi_{k+1} - psi_k wrapped into [-180, 180) (positive: anticlockwise seen from
    above, a positive rotation about +y); the lift angle is theta_{k+1} - theta_k, in
    (-180, 180). The lift angle is defined (lifted) where both steps are longer than
    STEP_MIN_LENGTH; the turn angle (turned) where, besides, neither step is vertical
    (horizontal part at most HORIZONTAL_MIN_FRACTION of its length): a vertical step has
    no azimuth.
    """
    path = _steps(positions)
    s, length = path.s, path.length
    # sqrt of the sum of squares, not np.hypot: steps are far from overflow, and it is 8x faster.
    horizontal = np.sqrt(s[..., 0] ** 2 + s[..., 2] ** 2)
    azimuth = np.degrees(np.arctan2(s[..., 0], s[..., 2]))
    elevation = np.degrees(np.arctan2(s[..., 1], horizontal))
    lifted = (length[:-1] > STEP_MIN_LENGTH) & (length[1:] > STEP_MIN_LENGTH)
    level = horizontal > HORIZONTAL_MIN_FRACTION * length
    turned = lifted & level[:-1] & level[1:]
    turn = (np.diff(azimuth, axis=0) + 180.0) % 360.0 - 180.0
    lift = np.diff(elevation, axis=0)
    return turn, lift, turned, lifted


def angle_histogram(angles_deg: Array, defined: Array, bins: int = ANGLE_BINS) -> Array:
    """Counts of the defined angles in `bins` equal bins from -180 to 180 deg: (bins,) ints."""
    counts, _ = np.histogram(np.asarray(angles_deg)[defined], bins=bins, range=(-180.0, 180.0))
    return counts


def msd_sums(positions: Array, lags: int, lengths: Array | None = None) -> tuple[Array, Array]:
    """Sums behind the mean squared displacement, for adding up over chunks of agents.

    Returns (num, den), each (lags + 1,): num[m] = sum over agents and k of |p_{k+m} - p_k|^2,
    den[m] = the number of such pairs, sum over agents of max(L_a - m, 0), L_a = lengths[a]
    (the samples agent a has, from the first; None: all T). MSD(m * interval) =
    num[m] / den[m] (units^2) is the time-and-ensemble average over every pair, each pair
    weighing alike, so tracks of any length are measured in full (trackpy's `emsd` weighs each
    track's own MSD by its count of independent measurements instead: `trackpy_msd_sums`;
    the two agree on tracks of one length). Requires lags <= T - 1.
    Uses |p_{k+m} - p_k|^2 = |p_k|^2 + |p_{k+m}|^2 - 2 p_k . p_{k+m}, the last term by FFT (as
    tidynamics' msd does), after moving each agent's mean position to the origin so that the
    cancellation loses no digits.
    """
    p = _f64(positions)
    t, n = p.shape[:2]
    length = np.full(n, t, dtype=np.int64) if lengths is None else np.asarray(lengths, np.int64)
    valid = np.arange(t)[:, None] < length[None, :]
    ragged = bool((length < t).any())  # else the masks change nothing (x * 1.0 is x)
    mean = (p * valid[..., None] if ragged else p).sum(axis=0) / np.maximum(length, 1)[:, None]
    p = (p - mean[None]) * valid[..., None] if ragged else p - mean[None]
    squares = _dot(p, p)  # (T, n), 0 after each agent's end
    cumulative = np.concatenate([np.zeros((1, n)), np.cumsum(squares, axis=0)])
    m = np.arange(lags + 1)[:, None]
    # sum_{k=0}^{L-1-m} |p_k|^2 + sum_{k=m}^{L-1} |p_k|^2, for every lag m and agent.
    if ragged:
        agents = np.arange(n)[None, :]
        heads = cumulative[np.clip(length[None, :] - m, 0, None), agents]
        ends = cumulative[length[None, :], agents]
        tails = ends - cumulative[np.minimum(m, length[None, :]), agents]
    else:  # the same rows, sliced rather than gathered
        heads = cumulative[t - lags : t + 1][::-1]
        tails = cumulative[t] - cumulative[: lags + 1]
    cross, den = lagged_sums(p, valid, lags)
    num = (heads + tails).sum(axis=1) - 2.0 * cross
    return np.maximum(num, 0.0), den


#: How the MSD weighs its tracks (`stats --msd-weighting`): every pair of samples alike, or
#: each track's own MSD by trackpy's count of its independent measurements.
MSD_WEIGHTINGS = ("pairs", "trackpy")


def track_msds(series: Array, lengths: Array, lags: int) -> Array:
    """Each track's own MSD: (n, lags + 1), units^2, track a's at lag m the mean of
    |p_k+m - p_k|^2 over its L_a - m pairs (0 where m >= L_a: no pair).

    series: (n, c, T) positions, each track's less its mean and zero after its L_a =
    lengths[a] samples (as `sums` lays them out). The same sums as `msd_sums`, kept apart
    per track: sum_k |p_k|^2 + |p_k+m|^2 from cumulative squares, 2 sum_k p_k . p_k+m by one
    FFT per track (zero padding makes the circular correlation a plain one).
    """
    n, _, t = series.shape
    m = np.arange(lags + 1)
    length = np.asarray(lengths, dtype=np.int64)[:, None]
    squares = np.einsum("act,act->at", series, series)
    cumulative = np.concatenate([np.zeros((n, 1)), np.cumsum(squares, axis=1)], axis=1)
    rows = np.arange(n)[:, None]
    heads = cumulative[rows, np.clip(length - m, 0, None)]
    tails = cumulative[rows, length] - cumulative[rows, np.minimum(m, length)]
    nfft = fast_length(t + lags)
    spec = np.fft.rfft(series, n=nfft, axis=-1)
    power = (spec.real**2 + spec.imag**2).sum(axis=1)
    cross = np.fft.irfft(power, n=nfft, axis=-1)[:, : lags + 1]
    pairs = length - m
    sums = np.maximum(heads + tails - 2.0 * cross, 0.0)
    sums[:, 0] = 0.0  # no displacement, whatever the FFT's rounding says
    return np.divide(sums, pairs, out=np.zeros((n, lags + 1)), where=pairs > 0)


def trackpy_msd_weights(lengths: Array, lags: int) -> Array:
    """trackpy's weight of each track's MSD in its `emsd`: (n, lags + 1), track a's at lag m
    the effective number of independent measurements of an N = L_a sample track at lag m
    (Qian, Sheetz & Elson 1991, eq. B4, as trackpy.motion._msd_N has it), 0 where m >= N;
    at lag 0, where every MSD is 0, N."""
    n = np.asarray(lengths, dtype=np.float64)[:, None]
    m = np.arange(lags + 1, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        far = 1.0 / (1.0 + ((n - m) ** 3 + 5 * m - 4 * (n - m) ** 2 * m - n) / (6 * (n - m) * m**2))
        near = 6 * (n - m) ** 2 * m / (2 * n - m + 4 * n * m**2 - 5 * m**3)
    weights = np.where(m > n / 2, far, near)
    weights[:, 0] = n[:, 0]
    return np.where(m < n, weights, 0.0)


def trackpy_msd_sums(series: Array, lengths: Array, lags: int) -> tuple[Array, Array]:
    """Sums behind trackpy's ensemble MSD, for adding up over chunks of tracks: (num, den),
    each (lags + 1,), num[m] = sum over tracks of w_a(m) MSD_a(m), den[m] = sum of the
    weights w_a(m) (`track_msds`, `trackpy_msd_weights`); num / den is what trackpy's
    `emsd` gives for these tracks as particles (each piece of a track split at a gap a
    particle of its own)."""
    weights = trackpy_msd_weights(lengths, lags)
    return (weights * track_msds(series, lengths, lags)).sum(axis=0), weights.sum(axis=0)


def log_log_slope(lags_s: Array, msd: Array, points: int = 20) -> float:
    """Least-squares slope of log MSD against log lag, over `points` log-spaced lags.

    The lags are the rounded, distinct members of geomspace(1, L, points) sample lags (so short
    and long lags weigh alike); lag 0 and non-positive MSDs are left out. 2 is ballistic (a
    straight line), 1 diffusive (a random walk), 0 confined. NaN with fewer than 2 lags.
    """
    last = len(msd) - 1
    if last < 2:
        return math.nan
    idx = np.unique(np.rint(np.geomspace(1, last, points)).astype(np.int64))
    x, y = np.asarray(lags_s)[idx], np.asarray(msd)[idx]
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


#: A path whose mean 1 - cos(turning angle) is at most this is straight: turns of about 1e-6
#: rad, at the rounding of float32 positions. The persistence length and sinuosity of a
#: straight path are undefined (NaN); its CRW MSD is ballistic.
STRAIGHT_VERSINE = 1e-12


def crw_msd(lag_samples: Array, mean_step: float, mean_step_sq: float, versine: float) -> Array:
    """The correlated random walk's MSD after m steps (units^2), Kareiva & Shigesada (1983):

        MSD(m) = m E[l^2] + 2 E[l]^2 c / (1 - c) * (m - (1 - c^m) / (1 - c)),

    with E[l], E[l^2] the mean and mean square step length and c the mean cosine of the
    turning angle, given as versine = 1 - c (see `step_turn_versines`). It assumes independent
    steps whose directions correlate as c^|i-j|: with a mean sine of 0 in 2D, and in 3D when
    the turn's direction about the previous step is uniform, so the same formula holds in 3D.

    The bracket, divided by 1 - c, is the sum over 0 <= i <= m - 2 of (m - 1 - i) c^i; it is
    computed as that sum (two cumulative sums of c^i, terms of one sign for c >= 0), because
    the closed form cancels catastrophically as c -> 1 (a straight line gave slope 1, not 2).
    So c = 1 gives the ballistic m E[l^2] + E[l]^2 m (m - 1). NaN where c is not in [-1, 1].
    """
    m = np.asarray(lag_samples, dtype=np.int64)
    c = 1.0 - versine
    if not (0.0 <= versine <= 2.0):
        return np.full(m.shape, math.nan)
    top = max(int(m.max(initial=0)), 2)
    powers = c ** np.arange(top - 1, dtype=np.float64)  # c^i, i = 0 .. top - 2
    # inner[j] = sum_{i < j} c^i; bracket[m] = sum_{j=1}^{m-1} inner[j] = sum (m-1-i) c^i.
    inner = np.concatenate([[0.0], np.cumsum(powers)])
    bracket = np.concatenate([[0.0], np.cumsum(inner)])  # bracket[k] = sum_{j <= k-1} inner[j]
    terms = bracket[np.clip(m, 0, None)]
    return m * mean_step_sq + 2.0 * mean_step**2 * c * terms


def persistence_length_crw(mean_step: float, versine: float) -> float:
    """P_CRW = E[l] / (1 - c) (units): the mean projection of the whole future path on the
    current step direction, E[l] * sum_k c^k, for a correlated random walk whose step
    directions correlate as c^k (the freely rotating chain's persistence length). Valid for a
    CRW only: on paths whose turns persist (wander, real animals) the direction decorrelates
    much faster than c^k says, and `persistence_length_acf` measures it. NaN for a straight
    path (versine <= STRAIGHT_VERSINE)."""
    return mean_step / versine if versine > STRAIGHT_VERSINE else math.nan


def sinuosity(
    mean_step: float, mean_step_sq: float, versine: float, mean_sin: float = 0.0
) -> float:
    """Benhamou's (2004) sinuosity (units^-1/2), his general form:

        S = 2 / sqrt(p ((1 - c^2 - s^2) / ((1 - c)^2 + s^2) + b^2)),

    p the mean step length, b its coefficient of variation, c and s the mean cosine and mean
    sine of the turning angle (c given as versine = 1 - c). With s = 0 (turns symmetric
    about the previous step) it is the familiar 2 / sqrt(p ((1 + c) / (1 - c) + b^2)). NaN for
    p = 0, for a NaN mean sine (no horizontal turn: every step pair has a vertical step) and
    for a straight path (1 - c <= STRAIGHT_VERSINE and no mean sine); infinite for a path that
    turns by one angle at every step (a circle: 1 - c^2 - s^2 = 0, b = 0)."""
    d, s2 = versine, mean_sin * mean_sin
    if not (mean_step > 0 and 0.0 <= d <= 2.0 and s2 >= 0.0) or (d <= STRAIGHT_VERSINE and s2 <= d):
        return math.nan
    b2 = max(mean_step_sq / mean_step**2 - 1.0, 0.0)
    # 1 - c^2 = d (2 - d) and 1 - c = d keep their digits as c -> 1.
    ratio = max(d * (2.0 - d) - s2, 0.0) / (d * d + s2)
    spread = mean_step * (ratio + b2)
    # A path turning by the same angle every step (a circle) never gets away: infinitely sinuous.
    return 2.0 / math.sqrt(spread) if spread > 0 else math.inf


def straightness(positions: Array, path_steps: Steps | None = None) -> Array:
    """Straightness index of each agent's path: |p_{T-1} - p_0| / sum_k |s_k|, (T, n, 3) -> (n,)
    in [0, 1]; NaN for an agent that never moved. path_steps: Steps.of(positions), if already
    computed."""
    p = _f64(positions)
    path = _steps(p if path_steps is None else path_steps).length.sum(axis=0)
    net = np.sqrt(_dot(p[-1] - p[0], p[-1] - p[0]))
    return np.divide(net, path, out=np.full(path.shape, np.nan), where=path > 0)
