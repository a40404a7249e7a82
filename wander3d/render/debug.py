"""Debug overlay: the wander sphere, its target, velocity and steering force of chosen agents.

Like the classic demos' "show force vectors". Arrows are normalised by the group's limits so
that an agent at full speed, or pushing with the full steering force, shows a fixed length:
`reach` = wander distance + radius, the length of the "feeler" the wander sphere sits on.
"""

from __future__ import annotations

import numpy as np
from vispy.scene import Node
from vispy.scene.visuals import Line, Markers

from wander3d.appearance import (
    CIRCLE_SEGMENTS,
    FEELER_COLOR,
    FORCE_COLOR,
    FORCE_SCALE,
    HEAD_FRACTION,
    HIGHLIGHT_COLOR,
    SPHERE_COLOR,
    TARGET_COLOR,
    VELOCITY_COLOR,
)
from wander3d.engine import GroupParams, Layout
from wander3d.engine.methods import traits
from wander3d.session import Overlay


def _unit_sphere() -> np.ndarray:
    """Three great circles of the unit sphere as segments: (3 * CIRCLE_SEGMENTS * 2, 3)."""
    a = np.linspace(0.0, 2 * np.pi, CIRCLE_SEGMENTS + 1)
    c, s, z = np.cos(a), np.sin(a), np.zeros_like(a)
    circles = (np.stack([c, s, z], 1), np.stack([c, z, s], 1), np.stack([z, c, s], 1))
    return np.concatenate([np.stack([k[:-1], k[1:]], axis=1).reshape(-1, 3) for k in circles])


_UNIT_SPHERE = _unit_sphere()


def _arrows(origins: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Shaft plus a four-barb head for each arrow: (n, 10, 3) segment end points."""
    tips = origins + vectors
    length = np.linalg.norm(vectors, axis=1, keepdims=True)
    d = vectors / np.maximum(length, 1e-12)
    helper = np.where(np.abs(d[:, 1:2]) < 0.95, [[0.0, 1.0, 0.0]], [[1.0, 0.0, 0.0]])
    s = np.cross(d, helper)
    s /= np.maximum(np.linalg.norm(s, axis=1, keepdims=True), 1e-12)
    u = np.cross(s, d)
    back = tips - d * length * HEAD_FRACTION
    barb = length * HEAD_FRACTION * 0.45
    pts = [origins, tips]
    for side in (s, -s, u, -u):
        pts += [tips, back + side * barb]
    return np.stack(pts, axis=1)


def debug_geometry(
    overlay: Overlay, groups: tuple[GroupParams, ...], layout: Layout
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Overlay geometry for the agents of `overlay` (a published state's arrays), with
    `groups` the live group parameters of that state and `layout` its run's shape.

    Returns (pos, colors, targets): line segment end points (2k, 3) float32 (pairs form
    segments), their RGBA colours (2k, 4) float32, and the (n, 3) float32 target points.
    Seek agents get no sphere: their target is a point of the box, joined to the agent.
    """
    agents = overlay.agents
    if len(agents) == 0:
        empty = np.zeros((0, 3), np.float32)
        return empty, np.zeros((0, 4), np.float32), empty
    gi = layout.group_index[agents]
    seek = np.array([not traits(groups[g].wander.method).state.on_sphere for g in gi])
    max_speed = np.array([groups[g].max_speed for g in gi])
    max_force = np.array([groups[g].max_force for g in gi])
    reach = np.array([groups[g].wander.distance + groups[g].wander.radius for g in gi])
    # Seek has no sphere to size arrows by; use a tenth of the box.
    reach = np.where(seek | (reach <= 0), 0.1 * layout.extent, reach)

    p = overlay.positions
    targets = overlay.wander_points
    centers = overlay.wander_centers
    radii = overlay.wander_radii
    segs: list[np.ndarray] = []
    colors: list[np.ndarray] = []

    def add(points: np.ndarray, color: tuple[float, ...]) -> None:
        pts = points.reshape(-1, 3)
        segs.append(pts)
        colors.append(np.broadcast_to(np.asarray(color, np.float32), (len(pts), 4)))

    wander = ~seek
    if wander.any():
        spheres = centers[wander, None, :] + radii[wander, None, None] * _UNIT_SPHERE[None]
        add(spheres, SPHERE_COLOR)
        add(np.stack([p[wander], centers[wander]], axis=1), FEELER_COLOR)
        add(np.stack([centers[wander], targets[wander]], axis=1), TARGET_COLOR)
    if seek.any():
        add(np.stack([p[seek], targets[seek]], axis=1), TARGET_COLOR)
    velocity = overlay.velocities / max_speed[:, None] * reach[:, None]
    force = overlay.forces / max_force[:, None] * (FORCE_SCALE * reach)[:, None]
    add(_arrows(p, velocity), VELOCITY_COLOR)
    add(_arrows(p, force), FORCE_COLOR)
    pos = np.concatenate(segs).astype(np.float32)
    return pos, np.concatenate(colors).astype(np.float32), targets.astype(np.float32)


class DebugLayer:
    """The overlay's lines and target markers, plus a ring on the selected agent.

    Drawn last and without depth testing, so it is never hidden inside the swarm.
    """

    def __init__(self, parent: Node) -> None:
        self.lines = Line(connect="segments", method="gl", width=1.5, parent=parent)
        self.lines.set_gl_state("translucent", depth_test=False)
        self.targets = Markers(parent=parent)
        self.targets.set_gl_state("translucent", depth_test=False)
        self.highlight = Markers(parent=parent)
        self.highlight.set_gl_state("translucent", depth_test=False)
        for i, node in enumerate((self.lines, self.targets, self.highlight)):
            node.order = 10 + i
            node.visible = False
        # Markers without data break vispy's scene-bounds queries; give them a placeholder.
        placeholder = np.zeros((1, 3), np.float32)
        self.targets.set_data(placeholder)
        self.highlight.set_data(placeholder)

    def update(
        self,
        overlay: Overlay,
        groups: tuple[GroupParams, ...],
        layout: Layout,
        ring: np.ndarray | None,
    ) -> None:
        """Show the overlay of `overlay`'s agents (see debug_geometry) and a ring at `ring`,
        the selected agent's (3,) position (units), or none."""
        pos, colors, targets = debug_geometry(overlay, groups, layout)
        shown = len(pos) > 0
        self.lines.visible = self.targets.visible = shown
        if shown:
            self.lines.set_data(pos=pos, color=colors)
            self.targets.set_data(
                targets, face_color=TARGET_COLOR, edge_color=(0, 0, 0, 0.6), size=7, edge_width=1
            )
        self.highlight.visible = ring is not None
        if ring is not None:
            self.highlight.set_data(
                np.asarray(ring, np.float32).reshape(1, 3),
                face_color=(0, 0, 0, 0),
                edge_color=HIGHLIGHT_COLOR,
                size=22,
                edge_width=1.5,
                symbol="disc",
            )

    def remove(self) -> None:
        for node in (self.lines, self.targets, self.highlight):
            node.parent = None
