"""The sums a group's path measures are made of, added up over its agents in chunks.

`metrics` defines each measure in numpy; this module gets the same sums from the engine's
compiled passes (`wander3d.engine.pathsums`), which read each agent's samples once, and the
autocorrelations' lagged sums from one FFT per series (`metrics.series_lagged_sums`).
`stats.group_stats` turns them into numbers. Tests hold every sum to the numpy definitions
(tests/whole_array_metrics.py, `group_sums`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from wander3d.engine import pathsums

from . import metrics
from .sampling import Samples

Array = np.ndarray

#: Agents per chunk: bounds the float64 series of a chunk (some 200 bytes per agent-sample)
#: for groups of tens of thousands of agents ...
CHUNK_AGENTS = 2048
#: ... and for long tracks: a chunk's series and FFTs (about WORKING_BYTES_PER_SAMPLE per
#: agent-sample) stay under this many bytes.
CHUNK_BYTES = 256 * 1024**2
WORKING_BYTES_PER_SAMPLE = 400


def chunk_agents(samples: int) -> int:
    """Agents measured at once when each has `samples` samples (at least 1)."""
    return max(1, min(CHUNK_AGENTS, CHUNK_BYTES // (WORKING_BYTES_PER_SAMPLE * max(samples, 1))))


@dataclass(frozen=True)
class GroupSums:
    """A group's sums, over its agents' own samples.

    sums:      (pathsums.PATH_SUMS,) float64, indexed by pathsums' slots (SPEED, STEP_LENGTH,
               ... ABOUT_TURNS): totals of speeds, step lengths and squares, turn versines,
               horizontal turn sines, straightness ratios, wall-band samples, turn rates,
               angular accelerations and about-turns, and the counts they are taken over;
    visited:   (cells^3,) bool, the coverage cells any sample was in;
    lagged:    (num, den) of `metrics.lagged_sums`, each (L + 1,), under "a" (turning axes),
               "d" (step directions), "msd" (`metrics.msd_sums`, or `trackpy_msd_sums`
               with msd_weighting "trackpy") and, with curves, "h"
               (headings);
    rates:     with curves, every stride-th turn rate (deg/s) of each chunk in time order;
    turn_counts, lift_counts: with curves, the horizontal turn and lift angle histograms
               (metrics.ANGLE_BINS bins); zero without.
    """

    sums: Array
    visited: Array
    lagged: dict[str, tuple[Array, Array]]
    rates: Array
    turn_counts: Array
    lift_counts: Array


def group_sums(
    samples: Samples,
    agents: slice,
    lengths: Array,
    cells: int,
    lags: int,
    curves: bool,
    stride: int = 1,
    msd_weighting: str = "pairs",
) -> GroupSums:
    """The sums of the agents `agents` of `samples` (a group), each with lengths[a] samples of
    its own, with autocorrelations up to `lags` samples; `stride`: keep every stride-th turn
    rate (with curves); the MSD's weighing of tracks, one of `metrics.MSD_WEIGHTINGS`."""
    t, dt = samples.count, samples.interval
    sums = np.zeros(pathsums.PATH_SUMS)
    visited = np.zeros(cells**3, dtype=bool)
    lagged = {name: (np.zeros(lags + 1), np.zeros(lags + 1)) for name in ("a", "d", "msd")}
    if curves:
        lagged["h"] = (np.zeros(lags + 1), np.zeros(lags + 1))
    turn_counts = np.zeros(metrics.ANGLE_BINS, dtype=np.int64)
    lift_counts = np.zeros(metrics.ANGLE_BINS, dtype=np.int64)
    kept: list[Array] = []

    def add(name: str, pair: tuple[Array, Array]) -> None:
        lagged[name][0][:] += pair[0]
        lagged[name][1][:] += pair[1]

    step = chunk_agents(t)
    for start in range(agents.start, agents.stop, step):
        length = lengths[start - agents.start : start - agents.start + step]
        chunk = _ChunkSeries.allocate(len(length), t, lags, curves)
        pathsums.path_pass(
            samples.headings, samples.positions, samples.speeds, start, length,
            samples.low, samples.high, samples.margin, cells, metrics.STEP_MIN_LENGTH,
            metrics.HORIZONTAL_MIN_FRACTION, sums, visited, chunk.turn_sin, chunk.turn_cos,
            chunk.directions, chunk.moved, chunk.centred, chunk.squares, chunk.headings,
            turn_counts, lift_counts,
        )  # fmt: skip
        # numpy's vectorised arctan2: the angles metrics.Turns gives, at a tenth of the cost
        # of the platform's atan2 in compiled code.
        turn_angle = np.arctan2(chunk.turn_sin, chunk.turn_cos)
        pathsums.turn_pass(
            samples.headings, start, length, turn_angle, chunk.turn_sin, dt,
            metrics.AXIS_MIN_ANGLE, max(1, round(metrics.ABOUT_TURN_WINDOW_S / dt)),
            math.cos(math.radians(metrics.ABOUT_TURN_ANGLE_DEG)),
            math.radians(metrics.ABOUT_TURN_ANGLE_DEG), sums, chunk.axes, chunk.axes_defined,
        )  # fmt: skip
        own = np.arange(t)[None, :] < length[:, None]  # (n, T): each agent's own samples
        add("a", metrics.series_lagged_sums(chunk.axes, chunk.axes_defined, lags))
        add("d", metrics.series_lagged_sums(chunk.directions, chunk.moved, lags))
        if msd_weighting == "trackpy":
            add("msd", metrics.trackpy_msd_sums(chunk.centred, length, lags))
        else:
            cross, den = metrics.series_lagged_sums(chunk.centred, own, lags)
            add("msd", (np.maximum(chunk.squares - 2.0 * cross, 0.0), den))
        if curves:
            add("h", metrics.series_lagged_sums(chunk.headings, own, lags))
            rates = np.degrees(turn_angle.T) / dt  # (T - 1, n): in time order
            kept.append(rates[own[:, 1:].T][::stride])
    return GroupSums(
        sums=sums,
        visited=visited,
        lagged=lagged,
        rates=np.concatenate(kept) if kept else np.zeros(0),
        turn_counts=turn_counts,
        lift_counts=lift_counts,
    )


def compile_passes() -> float:
    """Make sure the compiled passes are compiled for a recording's float32 samples, or loaded
    from numba's cache (about 2 s the first time, then some 30 ms), by measuring a few
    samples; return the seconds it took. A sweep's workers call it before their first cell."""
    start = time.perf_counter()
    t, n = 4, 2
    headings = np.zeros((t, n, 3), dtype=np.float32)
    headings[..., 0] = 1.0
    samples = Samples(
        interval=0.1,
        times=np.arange(t) * 0.1,
        headings=headings,
        positions=headings.copy(),
        speeds=np.ones((t, n), dtype=np.float32),
        group_slices=(slice(0, n),),
        low=np.full(3, -1.0),
        high=np.full(3, 1.0),
        margin=0.1,
    )
    group_sums(samples, slice(0, n), np.full(n, t, dtype=np.int64), 2, 1, curves=False)
    return time.perf_counter() - start


@dataclass(frozen=True)
class _ChunkSeries:
    """What the compiled passes write for a chunk of n agents of T samples: the heading's
    turn sines and cosines (n, T - 1); the unit step directions and turning axes
    (n, 3, T - 1) with where each is defined (n, T - 1); the centred positions (n, 3, T) and
    the MSD's sums of squares (L + 1,); with curves, the headings (n, 3, T) (else (0, 3, 0)).
    Zero where not defined, as the autocorrelations' FFTs need."""

    turn_sin: Array
    turn_cos: Array
    directions: Array
    moved: Array
    axes: Array
    axes_defined: Array
    centred: Array
    squares: Array
    headings: Array

    @staticmethod
    def allocate(n: int, t: int, lags: int, curves: bool) -> _ChunkSeries:
        return _ChunkSeries(
            turn_sin=np.empty((n, t - 1)),
            turn_cos=np.empty((n, t - 1)),
            directions=np.zeros((n, 3, t - 1)),
            moved=np.zeros((n, t - 1), dtype=bool),
            axes=np.zeros((n, 3, t - 1)),
            axes_defined=np.zeros((n, t - 1), dtype=bool),
            centred=np.empty((n, 3, t)),
            squares=np.zeros(lags + 1),
            headings=np.empty((n, 3, t) if curves else (0, 3, 0)),
        )
