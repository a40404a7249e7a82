"""Trails: each group's trail ring buffer mirrored on the GPU and faded by age in the shader.

Per frame the CPU writes only the samples the engine took since the last frame (16 bytes per
agent per sample) into the GPU copy of the ring and sets two uniforms; ordering, fading and
hiding the segments across the ring's wrap and at wall reflections all happen in the shaders.
So a frame's CPU cost and upload grow with the number of agents, never with the trail length.
"""

from __future__ import annotations

import numpy as np
from vispy import gloo
from vispy.scene.visuals import create_visual_node
from vispy.visuals import Visual

from wander3d.engine import TrailBuffer

#: Opacity of the newest segment.
TRAIL_ALPHA = 0.55
#: Opacity falls as (1 - age / capacity) ** TRAIL_FADE_POWER: > 1 keeps the tail faint.
TRAIL_FADE_POWER = 2.0
#: Trail line width in logical pixels.
TRAIL_WIDTH = 1.0

_VERT = """
attribute vec4 a_sample;   // xyz; w = slot + 1, negated if broken, 0 if never written
uniform float u_head;      // ring slot the next sample goes into
uniform float u_size;      // filled slots
uniform float u_capacity;  // slots in the ring
uniform float u_alpha;
uniform float u_fade_power;
varying float v_alpha;
varying float v_hidden;

void main() {
    float slot = abs(a_sample.w) - 1.0;
    float age = mod(u_head - 1.0 - slot + u_capacity, u_capacity);  // 0: the newest sample
    // In a full ring the oldest sample is joined to the newest by the segment across the
    // wrap; hiding it hides that segment (and the faintest one at the tail end).
    float shown = u_size >= u_capacity ? u_size - 1.0 : u_size;
    v_hidden = (a_sample.w <= 0.0 || age >= shown) ? 1.0 : 0.0;
    float fresh = clamp(1.0 - age / u_capacity, 0.0, 1.0);
    v_alpha = u_alpha * pow(fresh, u_fade_power);
    gl_Position = $transform(vec4(a_sample.xyz, 1.0));
}
"""

# A vertex is shared by the segments before and after it, so a hidden vertex hides both: the
# interpolated flag is positive everywhere on a segment that touches one, except exactly at its
# other end, which the neighbouring visible segment covers anyway.
_FRAG = """
uniform vec3 u_color;
varying float v_alpha;
varying float v_hidden;
void main() {
    if (v_hidden > 0.0 || v_alpha <= 0.004) discard;
    gl_FragColor = vec4(u_color, v_alpha);
}
"""


class TrailVisual(Visual):
    """One group's trails drawn straight from a GPU copy of the engine's ring buffer.

    GPU layout: `capacity` blocks of `n_agents` rows of vec4, slot-major, so one engine sample
    is one contiguous write. Row s * n + a holds agent a's sample in slot s as (x, y, z, w)
    with w = s + 1, negated when the agent was reflected at a wall just before the sample (the
    shader then hides the segments at that sample), and 0 in rows never written. A static index
    buffer joins each slot to the next for every agent, the wrap included (uploaded once).
    """

    def __init__(self, n_agents: int, capacity: int, color: tuple[float, float, float]) -> None:
        Visual.__init__(self, vcode=_VERT, fcode=_FRAG)
        self.n_agents = n_agents
        self.capacity = capacity
        rows = capacity * n_agents
        # Zeros (w == 0) mark every row unwritten; this full upload happens at creation only.
        self._ring = gloo.VertexBuffer(np.zeros((rows, 4), np.float32))
        # Agent by agent, slot after slot: consecutive segments share a vertex, so the GPU's
        # vertex cache shades most vertices once rather than twice.
        slots = np.arange(capacity, dtype=np.uint32)
        agents = np.arange(n_agents, dtype=np.uint32)[:, None]
        start = slots * n_agents + agents
        end = (slots + 1) % capacity * n_agents + agents
        self._index_buffer = gloo.IndexBuffer(np.stack([start, end], axis=-1).reshape(-1))
        self.shared_program["a_sample"] = self._ring
        self.shared_program["u_capacity"] = float(capacity)
        self.shared_program["u_color"] = tuple(color)
        self.shared_program["u_alpha"] = TRAIL_ALPHA
        self.shared_program["u_fade_power"] = TRAIL_FADE_POWER
        self.set_ring_state(head=0, size=0)
        self._draw_mode = "lines"
        # Blend over what is drawn, test against the agents' depth, never hide what is behind.
        self.set_gl_state(
            depth_test=True,
            depth_mask=False,
            blend=True,
            blend_func=("src_alpha", "one_minus_src_alpha"),
            line_width=TRAIL_WIDTH,
        )
        self._size = 0
        self.freeze()

    def set_ring_state(self, head: int, size: int) -> None:
        """Set the ring's next-write slot and number of filled slots (uniforms only)."""
        self._size = size
        self.shared_program["u_head"] = float(head)
        self.shared_program["u_size"] = float(size)

    def write(self, first_slot: int, points: np.ndarray, broken: np.ndarray) -> int:
        """Write k consecutive slots starting at `first_slot` (no wrap inside the run).

        points: (k, n_agents, 3) float32 positions; broken: (k, n_agents) bool, True where the
        agent was reflected at a wall since the previous sample. Returns the bytes uploaded.
        """
        k = len(points)
        slots = np.arange(first_slot + 1, first_slot + k + 1, dtype=np.float32)[:, None]
        rows = np.empty((k, self.n_agents, 4), np.float32)
        rows[..., :3] = points
        rows[..., 3] = np.where(broken, -slots, slots)
        rows = rows.reshape(-1, 4)
        self._ring.set_subdata(rows, offset=first_slot * self.n_agents)
        self.update()
        return rows.nbytes

    def _prepare_transforms(self, view) -> None:
        view.view_program.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view) -> bool:
        scale = getattr(view.transforms, "pixel_scale", 1.0) or 1.0
        self.update_gl_state(line_width=TRAIL_WIDTH * scale)
        return self._size >= 2

    def _compute_bounds(self, axis, view):
        return None


Trail = create_visual_node(TrailVisual)


class GroupTrail:
    """Keeps one group's GPU ring (`node`, a Trail) in step with the engine's `TrailBuffer`."""

    def __init__(self, buffer: TrailBuffer, node) -> None:
        self.buffer = buffer
        self.node = node
        self._mirrored = 0  # samples_written already on the GPU
        self._generation = -1  # the buffer's generation on the GPU; -1: nothing yet

    def sync(self) -> int:
        """Upload the samples written since the last sync; returns the bytes uploaded.

        Normally that is the one or two samples of this frame's steps. After a reset (a new
        generation) or a jump of more than a ring's worth, the whole filled ring is written
        again: that is the only time the cost depends on the trail length.
        """
        b = self.buffer
        written = b.samples_written
        new = written - self._mirrored
        if b.generation != self._generation or new > b.capacity:
            new = b.size
        self._generation = b.generation
        sent = 0
        for first, count in _slot_runs(written - new, new, b.capacity):
            # The engine's slot-major views: each run is one contiguous block.
            slots = slice(first, first + count)
            sent += self.node.write(first, b.slots[slots], b.slot_breaks[slots])
        self._mirrored = written
        self.node.set_ring_state(head=b.head, size=b.size)
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
    """Every group's trails: one Trail node per group that has a trail."""

    def __init__(self, parent, buffers, colors: list[tuple[float, float, float]]) -> None:
        self.groups: dict[int, GroupTrail] = {}
        for i, b in enumerate(buffers):
            if b.capacity >= 2 and b.points.shape[0] > 0:
                node = Trail(b.points.shape[0], b.capacity, colors[i], parent=parent)
                node.order = 2
                self.groups[i] = GroupTrail(b, node)
        self._group_visible = dict.fromkeys(self.groups, True)
        self._visible = True
        #: Bytes written to the GPU by the last `update` (for tests and the status bar).
        self.last_upload_bytes = 0

    def update(self) -> int:
        """Mirror new samples of every shown group; returns (and records) the bytes uploaded.

        Hidden trails are not synced; they catch up when shown again.
        """
        sent = 0
        for i, trail in self.groups.items():
            if self._visible and self._group_visible[i]:
                sent += trail.sync()
        self.last_upload_bytes = sent
        return sent

    def set_visible(self, visible: bool) -> None:
        self._visible = visible
        self._apply()

    def set_group_visible(self, group: int, visible: bool) -> None:
        if group in self._group_visible:
            self._group_visible[group] = visible
            self._apply()

    def _apply(self) -> None:
        for i, trail in self.groups.items():
            trail.node.visible = self._visible and self._group_visible[i]

    def remove(self) -> None:
        for trail in self.groups.values():
            trail.node.parent = None
