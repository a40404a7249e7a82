"""Which parts of a trail ring to draw, and how coarsely: pure arithmetic, no OpenGL.

A group's GPU ring is slot-major (row s * n + a holds agent a's sample in slot s). A frame
draws only the samples still visible: from the oldest sample whose segment is not fully
faded to the newest, never the chord across the ring's wrap nor the hidden oldest segment.
Where many samples fit in a pixel, level L of detail joins every k-th sample (a "block",
k = STRIDES[L]) instead of each one. Blocks start at fixed slots (multiples of k), so the
coarse vertices stay put from frame to frame while the trail grows; the partial blocks at
the head and the tail, and where a tier ends off its block grid, are drawn as one shorter
segment each. Older parts of a trail are fainter, so they may stray further from the path
(`tier_tolerances`) and are drawn coarser.

Index buffers hold rows relative to the attribute's offset, so one static buffer per level
serves every head position: a draw binds the ring from slot `first_slot` on and draws a
prefix of the buffer. Within a chunk of CHUNK blocks the segments go agent by agent
(consecutive segments share a vertex, which the vertex cache reuses); chunks follow each
other slot-wise, so any run of whole chunks is a prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Levels of detail: samples joined by a drawn segment at each. Steps of about sqrt(2): a
#: segment strays with the square of its stride, so above stride 2 the coarsest level within
#: a tolerance strays at least 4/9 of it (with strides of 2**L only a quarter, and a trail
#: seen a little larger drew twice the segments).
STRIDES = (1, 2, 3, 4, 6, 8, 12, 16)
LEVELS = len(STRIDES)
#: Bit b of a sample's flags: a wall reflection within its last FLAG_WINDOWS[b] samples. A
#: segment joining k samples reads the bit of the smallest window of at least k (`flag_unit`):
#: it is hidden across a reflection, and at most one window before it.
FLAG_WINDOWS = (1, 2, 4, 8, 16)
#: The w of a GPU sample is (slot + 1) * FLAG_SCALE + flags, flags < FLAG_SCALE (exact in a
#: float32 for rings of up to 2**19 slots).
FLAG_SCALE = 2 ** len(FLAG_WINDOWS)
#: Blocks per chunk in the agent-by-agent index order.
CHUNK = 8
#: Largest distance (physical pixels) a joined segment at a trail's head may stray from the
#: path it replaces.
MAX_SAGITTA_PX = 0.5
#: Where a trail's tiers start, as fractions of the ring's capacity by age: the newest half,
#: the next quarter and the rest. Each tier has its own level of detail.
TIER_STARTS = (0.0, 0.5, 0.75)
#: Fragments at or below this opacity are discarded, so samples beyond it are not drawn.
MIN_ALPHA = 0.004


def tier_tolerances(fade_power: float) -> tuple[float, ...]:
    """Per tier (TIER_STARTS), the largest distance (physical pixels) its joined segments may
    stray from the path: MAX_SAGITTA_PX over the opacity at the tier's start relative to
    the head's, opacity falling as (1 - age / capacity) ** fade_power. So how far a segment
    strays times how opaque it is stays within MAX_SAGITTA_PX at full opacity, all along.
    """
    return tuple(MAX_SAGITTA_PX / (1.0 - start) ** fade_power for start in TIER_STARTS)


@dataclass(frozen=True)
class Draw:
    """One draw call: `count` segments per agent from `kind`'s index buffer at `level`.

    kind: "chunks" (count is a multiple of CHUNK), "blocks" (count < CHUNK), "wrap" (the
    one block that ends at slot 0, count 1) or "partial" (one segment joining `span`
    samples, fewer than a block: the ends of a trail between its last block and the head,
    or the tail). first_slot: the ring slot that the buffer's row 0 maps to (0 for "wrap",
    whose rows are absolute).
    """

    level: int
    kind: str
    first_slot: int
    count: int
    span: int = 0


def drawn_samples(size: int, capacity: int, alpha: float, fade_power: float) -> int:
    """How many of the newest samples a frame draws (ages 0 .. result - 1).

    In a full ring the oldest sample is hidden (its segment would join the newest); beyond
    that, samples past the last one brighter than MIN_ALPHA only add discarded fragments
    (one more is kept: the segment to it fades out across its length).
    """
    shown = size - 1 if size >= capacity else size
    ages = np.arange(capacity)
    bright = alpha * (1.0 - ages / capacity) ** fade_power > MIN_ALPHA
    last_bright = int(np.flatnonzero(bright)[-1]) if bright.any() else -1
    return max(0, min(shown, last_bright + 2))


def flag_unit(stride: int) -> float:
    """2**b for the flag bit b a segment joining `stride` samples reads (see FLAG_WINDOWS)."""
    return float(1 << next(b for b, w in enumerate(FLAG_WINDOWS) if w >= stride))


def last_block_start(capacity: int, level: int) -> int:
    """Slot where the block that ends at the wrap (back at slot 0) starts."""
    k = STRIDES[level]
    return (capacity - 1) // k * k


def plan_draws(head: int, drawn: int, capacity: int, levels: Sequence[int]) -> list[Draw]:
    """Draw calls for samples of ages 0 .. drawn - 1 (newest in slot head - 1), each tier of
    TIER_STARTS at its entry of `levels` (a tier never finer than a younger one; missing
    tiers take the last level).

    Positions below are unwrapped slots: x and x + capacity are the same slot, so the
    trail runs from x0 (oldest drawn) to x1 (newest) without jumping back.
    """
    if drawn < 2:
        return []
    x0 = (head - drawn) % capacity
    x1 = x0 + drawn - 1
    ends, tier_levels = [x1], [levels[0]]  # newest tier first
    for start, level in zip(TIER_STARTS[1:], levels[1:], strict=False):
        level = max(level, tier_levels[-1])
        if level == tier_levels[-1]:
            continue
        # A block start of the older tier's level, which starts there exactly; the younger
        # tier ends there, with a shorter segment where that is off its own grid.
        end = _grid_at_or_before(x1 - int(start * capacity), capacity, level)
        if end <= x0:
            break
        if end < ends[-1]:
            ends.append(end)
            tier_levels.append(level)
    ends.append(x0)
    draws: list[Draw] = []
    for i in reversed(range(len(tier_levels))):
        draws += _path(ends[i + 1], ends[i], capacity, tier_levels[i])
    return draws


def _path(x0: int, x1: int, capacity: int, level: int) -> list[Draw]:
    """Draws from unwrapped slot x0 to x1: whole blocks at `level`, and one shorter segment
    for each end that does not reach a block boundary (sample by sample where the tail's
    would end at the wrap: its newer end would lie past the rows its buffer can reach)."""
    if level == 0:
        return _run(x0, x1, capacity, 0)
    g0, g1 = _grid_at_or_after(x0, capacity, level), _grid_at_or_before(x1, capacity, level)
    if g0 > g1:  # inside one block
        return [_partial(x0, x1, capacity, level)]
    draws: list[Draw] = []
    if x0 < g0:
        if g0 % capacity == 0:
            draws += _run(x0, g0, capacity, 0)
        else:
            draws.append(_partial(x0, g0, capacity, level))
    draws += _run(g0, g1, capacity, level)
    if g1 < x1:
        draws.append(_partial(g1, x1, capacity, level))
    return draws


def _partial(a: int, b: int, capacity: int, level: int) -> Draw:
    return Draw(level, "partial", a % capacity, 1, span=b - a)


def agent_rows(n_agents: int, agents: np.ndarray | None) -> np.ndarray:
    """(m,) uint32 rows within a group of `n_agents`: `agents`, or all when None."""
    if agents is None:
        return np.arange(n_agents, dtype=np.uint32)
    return np.asarray(agents, dtype=np.uint32)


def partial_indices(n_agents: int, span: int, agents: np.ndarray | None = None) -> np.ndarray:
    """Static index buffer (uint32) of one segment joining `span` samples per agent of
    `agents` (rows within the group; None: all `n_agents`)."""
    agents = agent_rows(n_agents, agents)
    return np.stack([agents, agents + np.uint32(span * n_agents)], axis=-1).reshape(-1)


def choose_level(pixels_per_unit: float, bend: float, max_px: float = MAX_SAGITTA_PX) -> int:
    """The coarsest level whose joined segments stray at most `max_px` from the path.

    bend: world units a path strays from the chord across one sample interval at the
    hardest turn, a_max * (dt * every)**2 / 8; joining k intervals multiplies it by k**2
    (the sagitta of an arc grows with the square of its chord at a given radius, and the
    turn radius at a given acceleration grows with the square of the speed, so this bound
    holds at any speed). pixels_per_unit: the largest on screen, inf if unknown.
    """
    if not np.isfinite(pixels_per_unit):
        return 0
    level = 0
    while level + 1 < LEVELS and pixels_per_unit * bend * STRIDES[level + 1] ** 2 <= max_px:
        level += 1
    return level


#: Samples since a reflection beyond which no flag is set (counters stop there): also the
#: counter of an agent with no reflection in living memory.
NO_RECENT_REFLECTION = FLAG_WINDOWS[-1]
#: The flags of a sample that many samples (0 .. NO_RECENT_REFLECTION) after a reflection.
_FLAGS_BY_COUNT = np.array(
    [
        sum(1 << b for b, window in enumerate(FLAG_WINDOWS) if c < window)
        for c in range(NO_RECENT_REFLECTION + 1)
    ],
    dtype=np.uint8,
)


def level_flags(breaks: np.ndarray, since: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-level break flags of consecutive new samples.

    breaks: (k, n) bool, True where the agent was reflected at a wall just before the sample;
    since: (n,) samples since each agent's last reflection before these (NO_RECENT_REFLECTION
    or more if unknown). Returns (flags, since): (k, n) uint8 with bit b set when a reflection
    happened within the last FLAG_WINDOWS[b] samples (so a segment joining that many samples
    across it is hidden), and the updated (n,) counter (uint8; counts stop at
    NO_RECENT_REFLECTION, where no flag is set).
    """
    k = len(breaks)
    # Small integers and a lookup table, not int64 and a pass per level: this runs for every
    # agent whenever the trails take a sample, on the GUI thread.
    if k == 1:  # the usual frame: one new sample, a few passes over bytes
        counts = np.minimum(since, NO_RECENT_REFLECTION - 1).astype(np.uint8)
        counts += 1
        counts *= ~breaks[0]
        return _FLAGS_BY_COUNT.take(counts)[None, :], counts
    # (np.maximum.accumulate along the first axis is several times slower than row by row.)
    idx = np.arange(k, dtype=np.int32)[:, None]
    last = np.where(breaks, idx, np.int32(-1))
    for i in range(1, k):
        np.maximum(last[i - 1], last[i], out=last[i])
    before = np.minimum(since, NO_RECENT_REFLECTION).astype(np.int32)[None, :]
    counts = np.where(last >= 0, idx - last, before + idx + 1)
    np.minimum(counts, NO_RECENT_REFLECTION, out=counts)
    return _FLAGS_BY_COUNT.take(counts), counts[-1].astype(np.uint8)


def index_buffers(
    n_agents: int, capacity: int, level: int, agents: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The static index buffers of one level (uint32, two per segment), by kind, for the
    trails of `agents` (rows within the group; None: all `n_agents`).

    chunks: every whole chunk of blocks that fits before the wrap block; blocks: CHUNK - 1
    blocks slot-wise; wrap: the block from last_block_start to slot 0 (absolute rows).
    """
    k = STRIDES[level]
    n = np.uint32(n_agents)
    agents = agent_rows(n_agents, agents)
    linear = last_block_start(capacity, level) // k  # blocks that do not wrap
    chunks = linear // CHUNK
    block = np.arange(chunks * CHUNK, dtype=np.uint32).reshape(chunks, 1, CHUNK)
    start = block * np.uint32(k) * n + agents[None, :, None]
    chunked = np.stack([start, start + np.uint32(k) * n], axis=-1).reshape(-1)
    block = np.arange(min(CHUNK - 1, linear), dtype=np.uint32)[:, None]
    start = block * np.uint32(k) * n + agents[None, :]
    slotwise = np.stack([start, start + np.uint32(k) * n], axis=-1).reshape(-1)
    wrap_start = np.uint32(last_block_start(capacity, level)) * n + agents
    wrap = np.stack([wrap_start, agents], axis=-1).reshape(-1)
    return {"chunks": chunked, "blocks": slotwise, "wrap": wrap}


def _grid_at_or_after(x: int, capacity: int, level: int) -> int:
    k = STRIDES[level]
    base, slot = divmod(x, capacity)
    nxt = -(-slot // k) * k
    return base * capacity + (nxt if nxt < capacity else capacity)


def _grid_at_or_before(x: int, capacity: int, level: int) -> int:
    k = STRIDES[level]
    base, slot = divmod(x, capacity)
    return base * capacity + slot // k * k


def _run(a: int, b: int, capacity: int, level: int) -> list[Draw]:
    """Draws for the path from grid point a to grid point b (unwrapped) at `level`."""
    draws: list[Draw] = []
    k = STRIDES[level]
    wrap_from = last_block_start(capacity, level)
    while a < b:
        base, slot = divmod(a, capacity)
        if slot == wrap_from:  # the block back to slot 0
            draws.append(Draw(level, "wrap", 0, 1))
            a = (base + 1) * capacity
            continue
        end = min(b - base * capacity, wrap_from)
        blocks = (end - slot) // k
        whole = blocks // CHUNK * CHUNK
        if whole:
            draws.append(Draw(level, "chunks", slot, whole))
        if blocks > whole:
            draws.append(Draw(level, "blocks", slot + whole * k, blocks - whole))
        a = base * capacity + end
    return draws
