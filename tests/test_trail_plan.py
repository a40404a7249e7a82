"""Which trail segments a frame draws (wander3d.drawing.trail_plan): pure arithmetic, no GL,
so a core install tests it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from wander3d.drawing.trail_plan import (
    CHUNK,
    FLAG_WINDOWS,
    LEVELS,
    MAX_SAGITTA_PX,
    STRIDES,
    TIER_STARTS,
    choose_level,
    drawn_samples,
    flag_unit,
    index_buffers,
    level_flags,
    partial_indices,
    plan_draws,
    tier_tolerances,
)


def drawn_path(head: int, drawn: int, capacity: int, levels: tuple[int, ...]):
    """Run the plan through its index buffers for 3 agents: the segments each agent gets, as
    (first, second) index's positions along the trail (0: the oldest drawn sample)."""
    n = 3
    buffers = {}
    per_agent: list[set] = [set() for _ in range(n)]
    slot_to_pos = {(head - drawn + i) % capacity: i for i in range(drawn)}
    for d in plan_draws(head, drawn, capacity, levels):
        if d.level not in buffers:
            buffers[d.level] = index_buffers(n, capacity, d.level)
        if d.kind == "partial":
            assert 0 < d.span < STRIDES[d.level]
            indices = partial_indices(n, d.span)
        else:
            indices = buffers[d.level][d.kind]
        rows = indices[: 2 * d.count * n].reshape(-1, 2).astype(int)
        rows += d.first_slot * n
        assert rows.min() >= 0 and rows.max() < capacity * n  # inside the ring
        assert np.all(rows[:, 0] % n == rows[:, 1] % n)  # a segment joins one agent's samples
        for start, end in rows:
            a, b = slot_to_pos[start // n], slot_to_pos[end // n]  # only drawn samples
            per_agent[start % n].add((a, b))
    assert per_agent[0] == per_agent[1] == per_agent[2]
    return sorted(per_agent[0])


@pytest.mark.parametrize("capacity", [2, 3, 5, 8, 16, 37])
def test_the_plan_draws_the_visible_trail_once_oldest_to_newest(capacity):
    """Every head position, trail length and level: the segments chain from the oldest drawn
    sample to the newest without a gap, an overlap or the chord across the ring's wrap,
    each joining at most a block of samples, and each newer end second (the shaders take a
    segment's reflection flag from its second vertex, GL's provoking vertex)."""
    for level in range(LEVELS):
        coarser = [min(level + k, LEVELS - 1) for k in (1, 2)]
        for levels in ((level,), (level, coarser[0]), (level, *coarser), (level, level, 4)):
            stride = STRIDES[max(levels)]
            for drawn in range(capacity + 1):
                for head in range(0, capacity, 1 if capacity <= 16 else 3):
                    path = drawn_path(head, drawn, capacity, levels)
                    if drawn < 2:
                        assert path == []
                        continue
                    assert path[0][0] == 0 and path[-1][1] == drawn - 1
                    for (_, end), (start, _) in itertools.pairwise(path):
                        assert end == start
                    assert all(0 < b - a <= stride for a, b in path)


def test_coarser_levels_draw_fewer_segments():
    counts = [
        sum(d.count for d in plan_draws(head=50, drawn=120, capacity=128, levels=(level,)))
        for level in range(LEVELS)
    ]
    assert counts[0] == 119
    assert all(a > b for a, b in itertools.pairwise(counts))


def test_older_tiers_are_drawn_coarser_at_their_own_levels():
    def segments(levels):
        draws = plan_draws(head=50, drawn=120, capacity=128, levels=levels)
        return sum(d.count for d in draws), {d.level for d in draws if d.kind != "partial"}

    fine, levels = segments((3,))
    assert levels == {3} and fine == pytest.approx(120 / 4, abs=2)
    # 64 samples at stride 4, 32 at stride 8, the 24 oldest at stride 16.
    count, levels = segments((3, 5, 7))
    assert levels == {3, 5, 7}
    assert count == pytest.approx(64 / 4 + 32 / 8 + 24 / 16, abs=3)
    # Strides that do not divide each other: the tiers meet with a shorter segment.
    count, levels = segments((4, 6, 7))
    assert levels == {4, 6, 7}
    assert count == pytest.approx(64 / 6 + 32 / 12 + 24 / 16, abs=4)
    # A tier is never drawn finer than a younger one.
    assert segments((3, 1, 1))[1] == {3}


def test_tier_tolerances_keep_stray_times_opacity_within_the_heads_bound():
    tolerances = tier_tolerances(fade_power=2.0)
    assert tolerances[0] == MAX_SAGITTA_PX
    for start, px in zip(TIER_STARTS, tolerances, strict=True):
        assert px * (1 - start) ** 2 == pytest.approx(MAX_SAGITTA_PX)


def test_drawn_samples_hides_the_oldest_of_a_full_ring_and_the_faded_tail():
    assert drawn_samples(size=5, capacity=128, alpha=0.55, fade_power=2.0) == 5
    assert drawn_samples(size=1, capacity=128, alpha=0.55, fade_power=2.0) == 1
    # Full ring, no fading: all but the oldest, whose segment would join the newest.
    assert drawn_samples(size=128, capacity=128, alpha=1.0, fade_power=0.0) == 127
    # Fading: beyond the last sample brighter than 1/250 only one more is drawn.
    drawn = drawn_samples(size=128, capacity=128, alpha=0.55, fade_power=2.0)
    ages = np.arange(128)
    alpha = 0.55 * (1 - ages / 128) ** 2
    assert alpha[drawn - 2] > 0.004 >= alpha[drawn - 1]


def test_the_chosen_level_keeps_joined_segments_within_the_sagitta_bound():
    bend = 60.0 * (1 / 60) ** 2 / 8  # the bench's agents: 60 units/s^2, a sample per step
    for ppu in (0.1, 1.0, 3.4, 6.0, 10.0, 100.0):
        level = choose_level(ppu, bend)
        assert level == 0 or ppu * bend * STRIDES[level] ** 2 <= MAX_SAGITTA_PX
        assert level == LEVELS - 1 or ppu * bend * STRIDES[level + 1] ** 2 > MAX_SAGITTA_PX
    assert choose_level(float("inf"), bend) == 0  # unknown scale: full detail
    assert choose_level(3.4, bend, max_px=1.0) >= choose_level(3.4, bend)


@pytest.mark.parametrize("frames", ["varied", "one sample each"])
def test_level_flags_say_whether_a_reflection_happened_within_each_stride(frames):
    rng = np.random.default_rng(4)
    breaks = rng.random((200, 5)) < 0.08
    since = np.full(5, 1 << 30)  # no reflection known
    frame_flags = []
    cuts = np.sort(rng.choice(np.arange(1, 200), 30, replace=False))
    if frames == "one sample each":  # the usual frame, with its own faster path
        cuts = np.arange(1, 200)
    for part in np.split(breaks, cuts):  # frames take any number of samples
        f, since = level_flags(part, since)
        frame_flags.append(f)
    flags = np.concatenate(frame_flags)
    for j in range(200):
        for bit, samples in enumerate(FLAG_WINDOWS):
            window = breaks[max(0, j - samples + 1) : j + 1]
            np.testing.assert_array_equal(flags[j] >> bit & 1, window.any(axis=0))


def test_the_levels_step_by_about_a_square_root_of_two_and_read_a_window_that_covers_them():
    """Above stride 2 the coarsest level within a tolerance strays at least 4/9 of it (a
    segment strays with the square of its stride; strides of 2**L: a quarter), and a segment
    reads the flag of a window at least as long as it, shorter than two of it."""
    assert STRIDES[0] == 1 and list(STRIDES) == sorted(set(STRIDES))
    assert all(b * b <= 2.25 * a * a for a, b in itertools.pairwise(STRIDES[1:]))
    assert FLAG_WINDOWS[-1] == STRIDES[-1]
    for span in range(1, STRIDES[-1] + 1):
        window = FLAG_WINDOWS[int(np.log2(flag_unit(span)))]
        assert span <= window < 2 * span


@pytest.mark.parametrize("capacity", [5, 37, 130])
def test_index_buffers_for_some_agents_are_the_full_ones_filtered_prefix_by_prefix(capacity):
    # A stride draws some agents' trails only: their segments, in the same order, so that
    # the prefix a draw call takes (segments per agent x agents) covers the same samples.
    n, agents = 11, np.array([0, 3, 4, 9])
    for level in range(LEVELS):
        full = index_buffers(n, capacity, level)
        some_buffers = index_buffers(n, capacity, level, agents)
        for kind in ("chunks", "blocks", "wrap"):
            pairs = full[kind].reshape(-1, 2)
            per_agent = len(pairs) // n
            # Draws take whole chunks of "chunks" (agent by agent inside one).
            for count in range(0, per_agent + 1, CHUNK if kind == "chunks" else 1):
                prefix = pairs[: count * n]
                expected = prefix[np.isin(prefix[:, 0] % n, agents)]
                np.testing.assert_array_equal(
                    some_buffers[kind][: 2 * count * len(agents)].reshape(-1, 2), expected
                )
    for span in (1, 3):
        pairs = partial_indices(n, span).reshape(-1, 2)
        some = partial_indices(n, span, agents).reshape(-1, 2)
        np.testing.assert_array_equal(some, pairs[agents])
