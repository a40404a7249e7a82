"""Agents: one visual per group, lit cones along the velocity, or round dots for huge scenes.

Each group's visual holds its agents' positions and velocities in two GPU vertex buffers that
are rewritten whole every frame (24 bytes per agent). Cones are instanced: the cone mesh is
uploaded once and the vertex shader places, orients and lights one copy per agent, so the CPU
never builds per-agent geometry.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from vispy import gloo
from vispy.scene import Node
from vispy.scene.visuals import create_visual_node
from vispy.visuals import Visual
from vispy.visuals.visual import VisualView

from wander3d.appearance import CONE_ASPECT, LIGHT_DIRECTION

from .screen_scale import pixels_per_unit

#: Above this many agents in a scene every group is drawn as dots, so the frame rate holds.
POINTS_THRESHOLD = 20_000
#: Sides of a cone drawn small on screen, and of one drawn large: below about 40 pixels
#: 6 sides look as round as 8 (smooth normals), and a software renderer draws 10k cones
#: about a third faster.
CONE_SIDES = (6, 8)
#: Cone length (physical pixels) from which the larger number of sides is used.
CONE_FINE_PX = 40.0
#: Dot diameter in logical pixels.
DOT_SIZE = 3.0
#: Unit direction towards the key light (appearance.LIGHT_DIRECTION).
LIGHT = np.asarray(LIGHT_DIRECTION) / np.linalg.norm(LIGHT_DIRECTION)

# A shared helper for both shaders: an orthonormal frame from a direction. The helper axis is
# world up unless the direction is nearly vertical, so the frame never degenerates.
_FRAME_GLSL = """
void agent_frame(vec3 d, out vec3 f, out vec3 s, out vec3 u) {
    float len = length(d);
    f = len > 1e-6 ? d / len : vec3(1.0, 0.0, 0.0);
    vec3 helper = abs(f.y) < 0.95 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    s = normalize(cross(f, helper));
    u = cross(s, f);
}
"""

_CONE_VERT = (
    _FRAME_GLSL
    + """
attribute vec3 a_local;     // cone mesh vertex: x along the heading, length 1
attribute vec3 a_normal;    // cone mesh normal in the same frame
attribute vec3 a_position;  // per agent (instanced): world position
attribute vec3 a_velocity;  // per agent (instanced): world velocity
uniform float u_size;       // cone length in world units
uniform vec3 u_color;
uniform vec3 u_light;       // unit vector towards the light, world space
varying vec3 v_color;

void main() {
    vec3 f, s, u;
    agent_frame(a_velocity, f, s, u);
    vec3 world = a_position + u_size * (a_local.x * f + a_local.y * s + a_local.z * u);
    vec3 n = a_normal.x * f + a_normal.y * s + a_normal.z * u;
    // Key light plus a dim fill from below, so the unlit side still reads as a shape.
    float key = max(dot(n, u_light), 0.0);
    float fill = max(-n.y, 0.0) * 0.25;
    v_color = u_color * (0.30 + 0.80 * key + fill);
    gl_Position = $transform(vec4(world, 1.0));
}
"""
)

_CONE_FRAG = """
varying vec3 v_color;
void main() {
    gl_FragColor = vec4(v_color, 1.0);
}
"""

_DOT_VERT = """
attribute vec3 a_position;
uniform float u_point_size;  // physical pixels
void main() {
    gl_Position = $transform(vec4(a_position, 1.0));
    gl_PointSize = u_point_size;
}
"""

_DOT_FRAG = """
uniform vec3 u_color;
void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    // Shade the disc like a lit sphere so dense swarms keep some depth.
    gl_FragColor = vec4(u_color * (0.55 + 0.45 * sqrt(1.0 - r2)), 1.0);
}
"""


def strided_rows(count: int, stride: int, keep: int | None = None) -> np.ndarray | None:
    """Which of a group's `count` agents to draw at `stride`: every stride-th from the first
    (rows 0, k, 2k, ...), plus row `keep` (e.g. the selected agent) if given. None: all.

    Returns None at stride 1, else sorted (m,) int64 row indices within the group.
    """
    if stride <= 1:
        return None
    rows = np.arange(0, count, stride, dtype=np.int64)
    if keep is not None and 0 <= keep < count and keep % stride:
        rows = np.insert(rows, keep // stride + 1, keep)
    return rows


def cone_mesh(segments: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A unit-length cone along +x: (vertices, normals, triangle indices).

    vertices, normals: (2 * segments + 1, 3) float32: the side ring, the tip and the base ring
    (again, with the base's normal). indices: ((2 * segments - 2) * 3,) uint32: a triangle per
    side, and the base as a fan from its first vertex (flat, so it needs no centre).
    The cone spans x in [-0.4, 0.6] so the agent's position sits near its centroid; its base
    radius is CONE_ASPECT. Side normals are smooth, so few segments still look round.
    """
    r = CONE_ASPECT
    back, tip = -0.4, 0.6
    theta = np.arange(segments) * (2 * np.pi / segments)
    ring = np.stack([np.full_like(theta, back), r * np.cos(theta), r * np.sin(theta)], axis=1)
    # The side's normal leans forward by the cone's half-angle: (r / length, cos, sin).
    side = np.stack([np.full_like(theta, r / (tip - back)), np.cos(theta), np.sin(theta)], 1)
    side /= np.linalg.norm(side, axis=1, keepdims=True)
    verts = np.concatenate([ring, [[tip, 0, 0]], ring])
    norms = np.concatenate([side, [[1, 0, 0]], np.tile([[-1, 0, 0]], (segments, 1))])
    i = np.arange(segments)
    tip_index, base = segments, segments + 1
    k = np.arange(1, segments - 1)
    faces = np.concatenate(
        [
            np.stack([i, (i + 1) % segments, np.full_like(i, tip_index)], 1),
            np.stack([np.full_like(k, base), base + k + 1, base + k], 1),
        ]
    )
    return (
        verts.astype(np.float32),
        norms.astype(np.float32),
        faces.reshape(-1).astype(np.uint32),
    )


def hidden_faces(
    project: Callable[[np.ndarray], np.ndarray], point: np.ndarray, mirrored: bool
) -> str | bool:
    """Which triangles of a closed, outward-wound mesh face away from the viewer: "back" or
    "front" in GL terms, or False if unsure.

    project: maps (n, 3) world points to (n, 4) clip coordinates; point: (3,) world position
    near the mesh; mirrored: whether the mesh's placement mirrors it (swapping its winding).
    The screen's orientation is the sign of the Jacobian determinant of the projection, the
    same at every point in front of the camera; a view may mirror it too.
    """
    step = 1e-3 * max(1.0, float(np.abs(point).max()))
    clip = np.asarray(project(point + step * np.eye(4, 3, -1)), dtype=np.float64)
    w = clip[:, 3:]
    if np.any(w <= 1e-12):
        return False
    ndc = clip[:, :3] / w
    det = np.linalg.det((ndc[1:] - ndc[0]).T)
    if not np.isfinite(det) or det == 0.0:
        return False
    # A plain GL projection flips z (det < 0): counter-clockwise outward faces stay in front.
    return "back" if (det < 0) != mirrored else "front"


class ConesVisual(Visual):
    """All agents of one group as instanced, lit cones pointing along their velocities."""

    def __init__(self, color: tuple[float, float, float], size: float) -> None:
        Visual.__init__(self, vcode=_CONE_VERT, fcode=_CONE_FRAG)
        self._meshes = {}
        for sides in CONE_SIDES:
            verts, norms, faces = cone_mesh(sides)
            mesh = gloo.VertexBuffer(verts), gloo.VertexBuffer(norms), gloo.IndexBuffer(faces)
            self._meshes[sides] = mesh
        self._sides = 0
        self._size = float(size)
        self._use_mesh(CONE_SIDES[-1])
        self._positions = gloo.VertexBuffer(np.zeros((1, 3), np.float32), divisor=1)
        self._velocities = gloo.VertexBuffer(np.zeros((1, 3), np.float32), divisor=1)
        self.shared_program["a_position"] = self._positions
        self.shared_program["a_velocity"] = self._velocities
        self.shared_program["u_size"] = self._size
        self.shared_program["u_color"] = tuple(color)
        self.shared_program["u_light"] = tuple(LIGHT)
        self._draw_mode = "triangles"
        self.set_gl_state("opaque", depth_test=True, cull_face=False)
        self._count = 0
        self._probe = np.zeros((1, 3))  # an agent's position, to tell how the view turns faces
        self.cull = True  # skip the faces turned away (False: draw all, as originally)
        #: (8, 3) world points that bound the agents (the enclosure's corners), to tell how
        #: large the nearest cone looks; None: always the finer mesh.
        self.corners: np.ndarray | None = None
        self.freeze()

    @property
    def sides(self) -> int:
        """Sides of the cones the last frame drew."""
        return self._sides

    def _use_mesh(self, sides: int) -> None:
        if sides != self._sides:
            verts, norms, faces = self._meshes[sides]
            self.shared_program["a_local"] = verts
            self.shared_program["a_normal"] = norms
            self._index_buffer = faces
            self._sides = sides

    def set_data(self, positions: np.ndarray, velocities: np.ndarray) -> int:
        """Upload (n, 3) positions (units) and velocities (units/s); returns bytes uploaded."""
        p = np.ascontiguousarray(positions, dtype=np.float32)
        v = np.ascontiguousarray(velocities, dtype=np.float32)
        self._positions.set_data(p)
        self._velocities.set_data(v)
        self._count = len(p)
        if len(p):
            self._probe = p[:1].astype(np.float64)
        self.update()
        return p.nbytes + v.nbytes

    def _prepare_transforms(self, view: VisualView) -> None:
        view.view_program.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view: VisualView) -> bool:
        # The cone is closed and wound outwards, so the faces turned away from the viewer are
        # always hidden behind the others: not rasterising them halves the work.
        # The shader's frame (f, s, u) with u = s x f is left-handed: it mirrors the mesh.
        tr = view.get_transform("visual", "render")
        hidden = hidden_faces(tr.map, self._probe[0], mirrored=True) if self.cull else False
        self.update_gl_state(cull_face=hidden)
        scale = pixels_per_unit(view.get_transform("visual", "framebuffer"), self.corners)
        small = self.cull and self._size * scale < CONE_FINE_PX
        self._use_mesh(CONE_SIDES[0] if small else CONE_SIDES[-1])
        return self._count > 0

    def _compute_bounds(self, axis: int, view: VisualView) -> None:
        return None


class DotsVisual(Visual):
    """All agents of one group as shaded round dots (for scenes above POINTS_THRESHOLD)."""

    def __init__(self, color: tuple[float, float, float], size: float) -> None:
        Visual.__init__(self, vcode=_DOT_VERT, fcode=_DOT_FRAG)
        self._positions = gloo.VertexBuffer(np.zeros((1, 3), np.float32))
        self.shared_program["a_position"] = self._positions
        self.shared_program["u_color"] = tuple(color)
        self._size = float(size)
        self._draw_mode = "points"
        self.set_gl_state("opaque", depth_test=True, cull_face=False)
        self._count = 0
        self.freeze()

    def set_data(self, positions: np.ndarray, velocities: np.ndarray) -> int:
        """Upload (n, 3) positions (units); velocities are not drawn. Returns bytes uploaded."""
        p = np.ascontiguousarray(positions, dtype=np.float32)
        self._positions.set_data(p)
        self._count = len(p)
        self.update()
        return p.nbytes

    def _prepare_transforms(self, view: VisualView) -> None:
        view.view_program.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view: VisualView) -> bool:
        # Dots keep their size in logical pixels on high-DPI screens.
        scale = getattr(view.transforms, "pixel_scale", 1.0) or 1.0
        self.shared_program["u_point_size"] = self._size * scale
        return self._count > 0

    def _compute_bounds(self, axis: int, view: VisualView) -> None:
        return None


Cones = create_visual_node(ConesVisual)
Dots = create_visual_node(DotsVisual)


class AgentsLayer:
    """Every group's agents: one Cones (or Dots) node per group, under `parent`.

    colors: per group (r, g, b) in 0..1; size: cone length in world units; corners: (8, 3)
    world points that bound the agents, for the cones' level of detail. `set_rows` limits
    each group to a subset of its agents (a huge scene on a slow renderer); `drawn` is the
    number of agents the last `update` uploaded.
    """

    def __init__(
        self,
        parent: Node,
        slices: tuple[slice, ...],
        colors: list[tuple[float, float, float]],
        size: float,
        dots: bool,
        corners: np.ndarray | None = None,
    ) -> None:
        node_type = Dots if dots else Cones
        self.dots = dots
        self.slices = slices
        self.nodes = [
            node_type(color, DOT_SIZE if dots else size, parent=parent) for color in colors
        ]
        for node in self.nodes:
            node.order = 1
            if not dots:
                node.corners = corners
        self.rows: list[np.ndarray | None] = [None] * len(slices)
        self.drawn = 0

    def set_rows(self, rows: list[np.ndarray | None]) -> None:
        """Per group, the rows within the group to draw (see strided_rows); None: all.
        Takes effect at the next `update`."""
        self.rows = list(rows)

    def update(self, positions: np.ndarray, velocities: np.ndarray) -> int:
        """Push the visible groups' rows of (N, 3) arrays to the GPU; returns bytes uploaded."""
        sent = drawn = 0
        for node, sl, rows in zip(self.nodes, self.slices, self.rows, strict=True):
            if node.visible:
                p, v = positions[sl], velocities[sl]
                if rows is not None:
                    p, v = p[rows], v[rows]
                sent += node.set_data(p, v)
                drawn += len(p)
        self.drawn = drawn
        return sent

    def set_group_visible(self, group: int, visible: bool) -> None:
        self.nodes[group].visible = visible

    def set_culling(self, cull: bool) -> None:
        """Skip the cones' faces turned away from the viewer (the default; same picture)."""
        for node in self.nodes:
            if isinstance(node, ConesVisual):
                node.cull = cull
                node.update()

    def remove(self) -> None:
        for node in self.nodes:
            node.parent = None
