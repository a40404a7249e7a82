"""The enclosure: a wireframe box, a faint floor grid and a small axis triad, in one visual."""

from __future__ import annotations

import math

import numpy as np
from vispy.scene import Node
from vispy.scene.visuals import Line

from wander3d.appearance import AXIS_COLORS, AXIS_FRACTION, BOX_COLOR, GRID_COLOR


def nice_step(extent: float, target: int = 10) -> float:
    """A round grid spacing (1, 2, 2.5 or 5 times a power of ten) giving about `target` cells."""
    raw = extent / target
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * power >= raw:
            return m * power
    return 10.0 * power


def enclosure_lines(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Line segments of the box, the floor grid and the axes at the low corner.

    low, high: (3,) box corners (units). Returns (pos, colors): (2k, 3) float32 segment end
    points, consecutive pairs forming a segment, and (2k, 4) float32 RGBA per vertex.
    """
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    edges = [
        (a, b)
        for a in range(8)
        for b in range(a + 1, 8)
        if np.abs(corners[a] - corners[b]).sum() == 1
    ]
    box = low + corners * (high - low)
    segs = [box[list(e)] for e in edges]
    colors = [BOX_COLOR] * (2 * len(edges))

    # Floor grid (y = low): interior lines only; the box draws the border.
    y = low[1]
    step = nice_step(max(high[0] - low[0], high[2] - low[2]))
    for axis, other in ((0, 2), (2, 0)):
        first = math.floor(low[axis] / step) * step + step
        for v in np.arange(first, high[axis] - 1e-9 * step, step):
            a = np.empty(3)
            b = np.empty(3)
            a[axis] = b[axis] = v
            a[1] = b[1] = y
            a[other], b[other] = low[other], high[other]
            segs.append(np.stack([a, b]))
            colors += [GRID_COLOR] * 2

    length = AXIS_FRACTION * float(np.min(high - low))
    for axis in range(3):
        tip = low.copy()
        tip[axis] += length
        segs.append(np.stack([low, tip]))
        colors += [AXIS_COLORS[axis]] * 2
    pos = np.concatenate(segs).astype(np.float32)
    return pos, np.asarray(colors, dtype=np.float32)


class EnclosureLayer:
    """The box, grid and axes as one Line visual under `parent`."""

    def __init__(self, parent: Node, low: np.ndarray, high: np.ndarray) -> None:
        pos, colors = enclosure_lines(low, high)
        self.node = Line(pos=pos, color=colors, connect="segments", method="gl", parent=parent)
        self.node.set_gl_state("translucent", depth_test=True, depth_mask=False)
        self.node.order = 0

    def set_visible(self, visible: bool) -> None:
        self.node.visible = visible

    def remove(self) -> None:
        self.node.parent = None
