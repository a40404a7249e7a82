"""The original drawing of a SimulationView, which the frame benchmark and the trail tests
compare today's against: every segment of every trail ring, and cones with all their faces.

The trails are drawn from the view's own GPU rings (`TrailVisual.rings`), every segment of the
ring, the wrap's chord included; the shader hides the chord, the oldest segment and those at a
wall reflection. A vertex is shared by the segments before and after it, so a hidden vertex
hides both: the interpolated flag is positive everywhere on a segment that touches one,
except exactly at its other end. No level of detail, no index prefixes, no `flat` values.

`ReferenceDrawing(view).use(True)` draws the view this way (its own trail nodes hidden) until
`use(False)`. This module defines vispy visuals, so importing it imports vispy and the render
layer: the benchmark imports it when it draws.
"""

from __future__ import annotations

import numpy as np
from vispy import gloo
from vispy.scene.visuals import create_visual_node
from vispy.visuals import Visual
from vispy.visuals.shaders import ModularProgram
from vispy.visuals.visual import VisualView

from wander3d.appearance import TRAIL_ALPHA, TRAIL_FADE_POWER
from wander3d.drawing.trail_plan import FLAG_SCALE, agent_rows
from wander3d.render import SimulationView
from wander3d.render.trails import (
    TRAIL_GL_STATE,
    TRAIL_WIDTH,
    TrailVisual,
)
from wander3d.render.vispy_private import draw_visual

_VERT = f"""
attribute vec3 a_position;
attribute float a_key;
uniform float u_head;
uniform float u_shown;     // samples shown, newest first
uniform float u_capacity;
uniform float u_alpha;
uniform float u_fade_power;
varying float v_alpha;
varying float v_hidden;

void main() {{
    float slot = floor(a_key * (1.0 / {FLAG_SCALE}.0)) - 1.0;
    float broken = mod(a_key - (slot + 1.0) * {FLAG_SCALE}.0, 2.0);  // flag bit 0
    float age = mod(u_head - 1.0 - slot + u_capacity, u_capacity);
    v_hidden = (slot < 0.0 || age >= u_shown || broken > 0.5) ? 1.0 : 0.0;
    v_alpha = u_alpha * pow(clamp(1.0 - age / u_capacity, 0.0, 1.0), u_fade_power);
    gl_Position = $transform(vec4(a_position, 1.0));
}}
"""

_FRAG = """
uniform vec3 u_color;
varying float v_alpha;
varying float v_hidden;
void main() {
    if (v_hidden > 0.0 || v_alpha <= 0.004) discard;
    gl_FragColor = vec4(u_color, v_alpha);
}
"""


def ring_indices(n_agents: int, capacity: int, agents: np.ndarray | None) -> np.ndarray:
    """(2 * capacity * m,) uint32: every segment of the ring of `agents` (rows within the
    group; None: all n_agents), agent by agent, slot after slot, the wrap included."""
    slots = np.arange(capacity, dtype=np.uint32)
    rows = agent_rows(n_agents, agents)
    start = slots * n_agents + rows[:, None]
    end = (slots + 1) % capacity * n_agents + rows[:, None]
    return np.stack([start, end], axis=-1).reshape(-1)


class ReferenceTrailVisual(Visual):
    """The trails of `trail` (a TrailVisual) as originally drawn, from its GPU rings.

    It draws with a program of its own, as the original drawing did: not the visual's, to
    which the scene graph attaches its picking filter (more work for every fragment).
    `last_segments`: segments the last frame drew (every slot of every drawn agent).
    """

    def __init__(self, trail: TrailVisual) -> None:
        # Before Visual.__init__, which sets up the transforms of the programs.
        self._original = ModularProgram(_VERT, _FRAG)
        Visual.__init__(self)
        self._trail = trail
        positions, keys = trail.rings
        self._original["a_position"] = positions
        self._original["a_key"] = keys
        self._original["u_capacity"] = float(trail.capacity)
        self._original["u_color"] = trail.color
        self._original["u_alpha"] = TRAIL_ALPHA
        self._original["u_fade_power"] = TRAIL_FADE_POWER
        self._indexed_agents: np.ndarray | bool | None = False  # False: no index buffer yet
        self._index_buffer: gloo.IndexBuffer | None = None
        self.last_segments = 0
        self._draw_mode = "lines"
        self.set_gl_state(**TRAIL_GL_STATE)
        self.freeze()

    def _prepare_transforms(self, view: VisualView) -> None:
        self._original.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view: VisualView) -> bool:
        trail = self._trail
        scale = getattr(view.transforms, "pixel_scale", 1.0) or 1.0
        self.update_gl_state(line_width=TRAIL_WIDTH * scale)
        if trail.agents is not self._indexed_agents:
            if self._index_buffer is not None:
                self._index_buffer.delete()
            indices = ring_indices(trail.n_agents, trail.capacity, trail.agents)
            self._index_buffer = gloo.IndexBuffer(indices)
            self._indexed_agents = trail.agents
        shown = trail.filled - 1 if trail.filled >= trail.capacity else trail.filled
        self._original["u_head"] = float(trail.head)
        self._original["u_shown"] = float(shown)
        drawn = trail.filled >= 2
        self.last_segments = trail.capacity * trail.drawn_agents if drawn else 0
        return drawn

    def draw(self) -> None:
        draw_visual(self, lambda _: self._original.draw(self._draw_mode, self._index_buffer))

    def _compute_bounds(self, axis: int, view: VisualView) -> None:
        return None


ReferenceTrail = create_visual_node(ReferenceTrailVisual)


class ReferenceDrawing:
    """Switches `view` between today's drawing and the original one (`use`)."""

    def __init__(self, view: SimulationView) -> None:
        self.view = view
        self._nodes = {}
        for i, group in view.trails.groups.items():
            node = ReferenceTrail(group.node, parent=group.node.parent)
            node.order = group.node.order
            node.visible = False
            self._nodes[i] = node
        self.original = False

    def use(self, original: bool) -> None:
        """Draw as originally (True) or as today (False); what is shown stays the same."""
        if original != self.original:
            for i, group in self.view.trails.groups.items():
                mine, today = self._nodes[i], group.node
                shown = today.visible or mine.visible
                mine.visible, today.visible = shown and original, shown and not original
                if original:
                    mine.last_segments = 0
            self.view.agents.set_culling(not original)
            self.original = original
        self.view.canvas.update()

    @property
    def last_segments(self) -> int:
        """Trail segments the original drawing drew in its last frame (since `use(True)`),
        all groups and agents together."""
        return sum(node.last_segments for node in self._nodes.values())

    def remove(self) -> None:
        """Take the original drawing's nodes out of the view (drawing as today)."""
        self.use(False)
        for node in self._nodes.values():
            node.parent = None
