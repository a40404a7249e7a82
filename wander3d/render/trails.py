"""Trails: each group's trail ring buffer mirrored on the GPU and faded by age in the shader.

Per frame the CPU writes only the samples the session published since the last frame (16
bytes per agent per sample; wander3d.session's TrailSamples) into the GPU copy of the ring and
sets a few uniforms; fading happens in the shaders, and `trail_plan` picks which slot ranges
to draw and how coarsely, from the ring's head alone. So a frame's CPU cost and upload grow
with the number of agents, never with the trail length.
"""

from __future__ import annotations

import numpy as np
from vispy import gloo
from vispy.scene import Node
from vispy.scene.visuals import create_visual_node
from vispy.visuals import Visual
from vispy.visuals.visual import VisualView

from wander3d.appearance import TRAIL_ALPHA, TRAIL_FADE_POWER
from wander3d.drawing.trail_plan import (
    FLAG_SCALE,
    NO_RECENT_REFLECTION,
    STRIDES,
    Draw,
    choose_level,
    drawn_samples,
    flag_unit,
    index_buffers,
    level_flags,
    partial_indices,
    plan_draws,
    tier_tolerances,
)
from wander3d.session import TrailSamples

from .screen_scale import pixels_per_unit
from .vispy_private import draw_visual, index_prefix, set_gl_capability

#: Trail line width in logical pixels.
TRAIL_WIDTH = 1.0
#: How trails are drawn: blended over what is drawn, tested against the agents' depth, never
#: hiding what is behind them.
TRAIL_GL_STATE = {
    "depth_test": True,
    "depth_mask": False,
    "blend": True,
    "blend_func": ("src_alpha", "one_minus_src_alpha"),
    "line_width": TRAIL_WIDTH,
}
#: glEnable/glDisable capability of desktop OpenGL (not in vispy's ES 2.0 subset).
GL_MULTISAMPLE = 0x809D
#: How far (physical pixels) joined segments may stray from the path, per tier of age.
_TIER_TOLERANCES = tier_tolerances(TRAIL_FADE_POWER)

# GLSL 1.30 (OpenGL 3.0; the agents' instancing needs 3.3 anyway) for `flat`: a segment's
# values come from its newer end alone, GL's provoking vertex (the last of each pair in every
# index buffer of trail_plan). So a reflection hides just the segment that crosses it although
# every vertex is shared by two segments, and only the opacity is interpolated: the fewer the
# values a software rasteriser interpolates per line and per pixel, the faster it draws them.
_VERT = f"""#version 130
attribute vec3 a_position;
attribute float a_key;     // (slot + 1) * {FLAG_SCALE} + flags, 0 if never written
uniform float u_head;      // ring slot the next sample goes into
uniform float u_capacity;  // slots in the ring
uniform float u_flag_unit; // 2**b for the flag bit b of the segment's stride (flag_unit)
uniform float u_alpha;
uniform float u_fade_power;
varying float v_alpha;
flat out float v_broken;   // a wall reflection within the segment that ends here

void main() {{
    float slot = floor(a_key * (1.0 / {FLAG_SCALE}.0)) - 1.0;
    float flags = a_key - (slot + 1.0) * {FLAG_SCALE}.0;
    // Flag bit log2(unit): a reflection within a window of samples up to this one.
    v_broken = mod(floor(flags / u_flag_unit), 2.0);
    float age = mod(u_head - 1.0 - slot + u_capacity, u_capacity);  // 0: the newest sample
    v_alpha = u_alpha * pow(clamp(1.0 - age / u_capacity, 0.0, 1.0), u_fade_power);
    gl_Position = $transform(vec4(a_position, 1.0));
}}
"""

_FRAG = """#version 130
uniform vec3 u_color;
varying float v_alpha;
flat in float v_broken;
void main() {
    if (v_broken > 0.5 || v_alpha <= 0.004) discard;
    gl_FragColor = vec4(u_color, v_alpha);
}
"""


class TrailVisual(Visual):
    """One group's trails drawn straight from a GPU copy of the engine's ring buffer.

    GPU layout: two rings of `capacity` blocks of `n_agents` rows, slot-major, so one engine
    sample is one contiguous write to each. Row s * n + a holds agent a's sample in slot s:
    its position (x, y, z) in one ring, its key (s + 1) * FLAG_SCALE + flags in the other
    (bit b of flags: the agent was reflected at a wall within the last FLAG_WINDOWS[b]
    samples, so segments joining up to that many samples hide there; key 0: never
    written). The positions go up as the engine stores them, without interleaving (the
    costliest part of a frame's upload at a million agents). Static index buffers per level
    of detail are built on first use.

    Attributes: `bend` (see trail_plan.choose_level), `corners` ((8, 3) world points that
    bound the trails, for the level of detail), `last_segments` (segments drawn by the last
    frame, all agents), `single_sample` (rasterise the lines once per pixel in a multisampled
    framebuffer: desktop GL only). `set_agents` draws the trails of a subset of the agents
    only; the ring keeps everyone's samples regardless. `rings`, `head`, `filled`, `agents`
    and `color` let another drawing of the same trails (the benchmark's) read the GPU rings.
    """

    def __init__(self, n_agents: int, capacity: int, color: tuple[float, float, float]) -> None:
        Visual.__init__(self, vcode=_VERT, fcode=_FRAG)
        self.n_agents = n_agents
        self.capacity = capacity
        self.color = tuple(color)
        rows = capacity * n_agents
        # Keys 0 mark every row unwritten; these full uploads happen at creation only.
        self._positions = gloo.VertexBuffer(np.zeros((rows, 3), np.float32))
        self._keys = gloo.VertexBuffer(np.zeros(rows, np.float32))
        # First slot -> views of both rings from there.
        self._rings_from: dict[int, tuple[object, object]] = {}
        # Index buffers by (level or span, kind): every agent's (kept: costly to rebuild at a
        # million agents), and the current subset's (see set_agents).
        self._all_buffers: dict[tuple[int, str], gloo.IndexBuffer] = {}
        self._subset_buffers: dict[tuple[int, str], gloo.IndexBuffer] = {}
        self._agents: np.ndarray | None = None  # rows drawn; None: all
        self.shared_program["u_capacity"] = float(capacity)
        self.shared_program["u_color"] = self.color
        self.shared_program["u_alpha"] = TRAIL_ALPHA
        self.shared_program["u_fade_power"] = TRAIL_FADE_POWER
        self.bend = 0.0
        self.corners: np.ndarray | None = None
        self.last_segments = 0
        self.single_sample = False
        self.set_ring_state(head=0, size=0)
        self._draw_mode = "lines"
        self.set_gl_state(**TRAIL_GL_STATE)
        self.freeze()

    def set_agents(self, agents: np.ndarray | None) -> None:
        """Draw only the trails of `agents` ((m,) sorted rows within the group); None: all."""
        if agents is None and self._agents is None:
            return
        if agents is not None and self._agents is not None and np.array_equal(agents, self._agents):
            return
        for buffer in self._subset_buffers.values():
            buffer.delete()
        self._subset_buffers = {}
        self._agents = None if agents is None else np.array(agents, dtype=np.int64)
        self.update()

    @property
    def drawn_agents(self) -> int:
        """How many agents' trails a frame draws."""
        return self.n_agents if self._agents is None else len(self._agents)

    @property
    def agents(self) -> np.ndarray | None:
        """The rows within the group whose trails are drawn (see set_agents); None: all."""
        return self._agents

    @property
    def rings(self) -> tuple[gloo.VertexBuffer, gloo.VertexBuffer]:
        """The GPU rings: positions ((capacity * n_agents, 3) float32) and keys."""
        return self._positions, self._keys

    @property
    def head(self) -> int:
        """The ring slot the next sample goes into."""
        return self._head

    @property
    def filled(self) -> int:
        """Slots of the ring filled so far (at most capacity)."""
        return self._size

    @property
    def _buffers(self) -> dict[tuple[int, str], gloo.IndexBuffer]:
        return self._all_buffers if self._agents is None else self._subset_buffers

    def set_ring_state(self, head: int, size: int) -> None:
        """Set the ring's next-write slot and number of filled slots."""
        self._head = head
        self._size = size
        self.shared_program["u_head"] = float(head)

    def write(self, first_slot: int, points: np.ndarray, flags: np.ndarray) -> int:
        """Write k consecutive slots starting at `first_slot` (no wrap inside the run).

        points: (k, n_agents, 3) float32 positions; flags: (k, n_agents) uint8 per-level
        reflection flags (trail_plan.level_flags). Returns the bytes uploaded.
        """
        k = len(points)
        # Published samples are read-only copies: vispy may send them when the frame is
        # drawn without a copy of its own.
        positions = np.ascontiguousarray(points, dtype=np.float32).reshape(-1, 3)
        slots = np.arange(first_slot + 1, first_slot + k + 1, dtype=np.float32)[:, None]
        keys = (slots * FLAG_SCALE + flags).reshape(-1)
        offset = first_slot * self.n_agents
        self._positions.set_subdata(positions, offset=offset)
        self._keys.set_subdata(keys, offset=offset)
        self.update()
        return positions.nbytes + keys.nbytes

    def _prepare_transforms(self, view: VisualView) -> None:
        view.view_program.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view: VisualView) -> bool:
        scale = getattr(view.transforms, "pixel_scale", 1.0) or 1.0
        self.update_gl_state(line_width=TRAIL_WIDTH * scale)
        return self._size >= 2

    def draw(self) -> None:
        """Issue the frame's draw calls (see trail_plan): a few prefixes of static buffers."""
        self.last_segments = 0
        draw_visual(self, self._draw_parts)

    def _draw_parts(self, program: gloo.Program) -> None:
        drawn = drawn_samples(self._size, self.capacity, TRAIL_ALPHA, TRAIL_FADE_POWER)
        ppu = pixels_per_unit(self.get_transform("visual", "framebuffer"), self.corners)
        levels = [choose_level(ppu, self.bend, px) for px in _TIER_TOLERANCES]
        if self.single_sample:
            # Thin translucent lines gain little from multisampling but would pay for it in
            # every sample they blend into; the agents and the box keep their smooth edges.
            set_gl_capability(GL_MULTISAMPLE, False)
        segments = 0
        try:
            for d in plan_draws(self._head, drawn, self.capacity, levels):
                self._draw_part(program, d)
                segments += d.count
        finally:
            if self.single_sample:
                set_gl_capability(GL_MULTISAMPLE, True)
        self.last_segments = segments * self.drawn_agents

    def _draw_part(self, program: gloo.Program, d: Draw) -> None:
        key = (d.span, d.kind) if d.kind == "partial" else (d.level, d.kind)
        if key not in self._buffers:
            if d.kind == "partial":
                indices = partial_indices(self.n_agents, d.span, self._agents)
                self._buffers[key] = gloo.IndexBuffer(indices)
            else:
                levels = index_buffers(self.n_agents, self.capacity, d.level, self._agents)
                for kind, indices in levels.items():
                    self._buffers[d.level, kind] = gloo.IndexBuffer(indices)
        if d.first_slot not in self._rings_from:
            row = d.first_slot * self.n_agents
            self._rings_from[d.first_slot] = (self._positions[row:], self._keys[row:])
        stride = d.span if d.kind == "partial" else STRIDES[d.level]
        program["a_position"], program["a_key"] = self._rings_from[d.first_slot]
        program["u_flag_unit"] = flag_unit(stride)
        size = 2 * d.count * self.drawn_agents
        program.draw(self._draw_mode, index_prefix(self._buffers[key], size))

    def _compute_bounds(self, axis: int, view: VisualView) -> None:
        return None


Trail = create_visual_node(TrailVisual)


class GroupTrail:
    """Keeps one group's GPU ring (`node`, a Trail) in step with the session's publications
    of the group's trail (TrailSamples), applied in the order published.

    `current`: the ring holds the samples of the last state shown (it may be drawn);
    `behind`: a publication could not be applied (samples were missed): the ring waits for
    a whole one.
    """

    def __init__(self, node: TrailVisual) -> None:
        self.node = node
        self._mirrored = 0  # samples written, up to the newest on the GPU
        self._generation = -1  # the ring's generation on the GPU; -1: nothing yet
        # Per agent, samples since its last wall reflection up to the newest mirrored one.
        self._since = np.full(node.n_agents, NO_RECENT_REFLECTION, np.uint8)
        self.current = False
        self.behind = False

    def show(self, samples: TrailSamples | None) -> int:
        """Apply the group's publication with a state (None: none, the ring is not that
        state's); returns the bytes uploaded.

        Normally that is the one or two samples of this frame's steps. A whole ring (after
        a reset, a jump, or when asked for) is written whole: the only time the cost
        depends on the trail length.
        """
        if samples is None:
            self.current = False
            return 0
        follows = samples.generation == self._generation and samples.first == self._mirrored
        if not (samples.whole or follows):
            self.current, self.behind = False, True
            return 0
        if samples.whole:
            self._since[:] = NO_RECENT_REFLECTION  # those before the oldest sample are gone
        sent = row = 0
        for slot, count in _slot_runs(samples.first, len(samples.points), samples.capacity):
            # Each run of slots is one contiguous block of the ring.
            rows = slice(row, row + count)
            flags, self._since = level_flags(samples.breaks[rows], self._since)
            sent += self.node.write(slot, samples.points[rows], flags)
            row += count
        self._generation, self._mirrored = samples.generation, samples.written
        self.node.set_ring_state(head=samples.head, size=samples.size)
        self.current, self.behind = True, False
        return sent


def _slot_runs(first_sample: int, count: int, capacity: int) -> list[tuple[int, int]]:
    """Samples first_sample .. first_sample + count - 1 as (first slot, length) runs that
    do not wrap: at most two runs, since count <= capacity."""
    if count <= 0:
        return []
    start = first_sample % capacity
    head_part = min(count, capacity - start)
    runs = [(start, head_part)]
    if count > head_part:
        runs.append((0, count - head_part))
    return runs


class TrailsLayer:
    """Every group's trails: one Trail node per group that has a trail.

    shapes: per group (capacity, every) of its ring (Layout.trails); counts: agents per
    group. A group's trail is drawn when it is visible and its ring holds the last state
    shown. `set_level_of_detail` tells the nodes how sharply each group can turn and where
    the trails are, so each frame can join samples that share a pixel.
    """

    def __init__(
        self,
        parent: Node,
        shapes: tuple[tuple[int, int], ...],
        counts: list[int],
        colors: list[tuple[float, float, float]],
    ) -> None:
        self.groups: dict[int, GroupTrail] = {}
        for i, ((capacity, _), count) in enumerate(zip(shapes, counts, strict=True)):
            if capacity >= 2 and count > 0:
                node = Trail(count, capacity, colors[i], parent=parent)
                node.order = 2
                self.groups[i] = GroupTrail(node)
        self._group_visible = dict.fromkeys(self.groups, True)
        self._visible = True
        self._apply()
        #: Bytes written to the GPU by the last `show` (for tests and the status bar).
        self.last_upload_bytes = 0

    def show(self, published: tuple[TrailSamples | None, ...]) -> int:
        """Apply a state's trail publications (per group, see TrailSamples); returns (and
        records) the bytes uploaded."""
        sent = 0
        for i, trail in self.groups.items():
            sent += trail.show(published[i])
        self._apply()
        self.last_upload_bytes = sent
        return sent

    @property
    def behind(self) -> bool:
        """Whether a visible group's trail missed samples and waits for a whole ring."""
        return any(
            t.behind for i, t in self.groups.items() if self._visible and self._group_visible[i]
        )

    def set_level_of_detail(self, bends: list[float], corners: np.ndarray) -> None:
        """bends: per group (all groups, trail or not), world units a path strays from its
        chord over one sample interval at the hardest turn (trail_plan.choose_level);
        corners: (8, 3) world points that bound every trail (the enclosure's corners)."""
        for i, trail in self.groups.items():
            trail.node.bend = bends[i]
            trail.node.corners = corners

    def set_rows(self, rows: list[np.ndarray | None]) -> None:
        """Per group (all groups, trail or not), the rows within the group whose trails to
        draw (see agents.strided_rows); None: all."""
        for i, trail in self.groups.items():
            trail.node.set_agents(rows[i])

    def set_single_sample(self, single: bool) -> None:
        """Draw the trails once per pixel although the framebuffer is multisampled (see
        TrailVisual.single_sample); only where the framebuffer has samples."""
        for trail in self.groups.values():
            trail.node.single_sample = single

    @property
    def last_segments(self) -> int:
        """Segments the last frame drew, all groups and agents together."""
        return sum(t.node.last_segments for t in self.groups.values() if t.node.visible)

    def set_visible(self, visible: bool) -> None:
        self._visible = visible
        self._apply()

    def set_group_visible(self, group: int, visible: bool) -> None:
        if group in self._group_visible:
            self._group_visible[group] = visible
            self._apply()

    def _apply(self) -> None:
        for i, trail in self.groups.items():
            trail.node.visible = self._visible and self._group_visible[i] and trail.current

    def remove(self) -> None:
        for trail in self.groups.values():
            trail.node.parent = None
