"""The selected agent's whole path since the start, coloured by its speed or its turn rate.

No Qt here: a vispy Line under any scene node, fed with the points the app's path tracer
records (one per simulation step). Segments across a wall reflection are not drawn.
"""

from __future__ import annotations

import numpy as np
from vispy.color import Colormap
from vispy.scene import Node
from vispy.scene.visuals import Line

#: What the path's colour can show.
PATH_MEASURES = ("speed", "turn rate")
#: Colours from low to high: blue, cyan, yellow, red (all readable on a dark background).
PATH_COLORMAP = Colormap(["#2f6bff", "#2ee6d6", "#ffe14d", "#ff4040"])
#: Path line width in logical pixels.
PATH_WIDTH = 2.0


def path_measures(points: np.ndarray, breaks: np.ndarray, dt: float) -> dict[str, np.ndarray]:
    """Speed (units/s) and turn rate (degrees/s) at each of `points`.

    points: (k, 3) positions one step of `dt` seconds apart; breaks: (k,) bool, True where the
    agent was reflected at a wall just before the point (that jump is not motion). Returns
    {"speed": (k,), "turn rate": (k,)} float64, each point taking the step that ends there
    (the first point the step after it).
    """
    p = np.asarray(points, dtype=np.float64)
    k = len(p)
    if k < 2:
        return {m: np.zeros(k) for m in PATH_MEASURES}
    step = np.diff(p, axis=0)  # step i goes from point i to point i + 1
    valid = ~np.asarray(breaks[1:], dtype=bool)
    length = np.linalg.norm(step, axis=1)
    speed = np.where(valid, length / dt, np.nan)
    unit = step / np.maximum(length, 1e-12)[:, None]
    cos = np.clip(np.sum(unit[1:] * unit[:-1], axis=1), -1.0, 1.0)
    turn = np.degrees(np.arccos(cos)) / dt
    turn = np.where(
        valid[1:] & valid[:-1] & (length[1:] > 1e-9) & (length[:-1] > 1e-9), turn, np.nan
    )
    per_point_speed = np.concatenate([speed[:1], speed])
    per_point_turn = np.concatenate([turn[:1], turn[:1], turn]) if len(turn) else np.zeros(k)
    return {
        "speed": _fill_gaps(per_point_speed),
        "turn rate": _fill_gaps(per_point_turn),
    }


def _fill_gaps(values: np.ndarray) -> np.ndarray:
    """Carry the previous finite value over NaNs (0 before the first)."""
    finite = np.isfinite(values)
    index = np.where(finite, np.arange(len(values)), 0)
    np.maximum.accumulate(index, out=index)
    out = values[index]
    out[~np.isfinite(out)] = 0.0
    return out


def path_colors(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """(k, 4) float32 RGBA for `values`, and the values the lowest and highest colours stand
    for: the 2nd and 98th percentiles, so a few outliers do not wash the rest out."""
    if len(values) == 0:
        return np.zeros((0, 4), np.float32), 0.0, 0.0
    low, high = (float(v) for v in np.percentile(values, [2, 98]))
    span = high - low
    scaled = np.clip((values - low) / span, 0.0, 1.0) if span > 0 else np.zeros(len(values))
    return PATH_COLORMAP.map(scaled).astype(np.float32), low, high


class PathLayer:
    """One agent's path as a coloured line under `parent` (hidden until `set_path`)."""

    def __init__(self, parent: Node) -> None:
        self.line = Line(
            pos=np.zeros((2, 3), np.float32), width=PATH_WIDTH, method="gl", parent=parent
        )
        self.line.order = 2
        self.line.set_gl_state("translucent", depth_test=True)
        self.line.visible = False
        self.scale = (0.0, 0.0)  # the values the lowest and highest colours stand for

    def set_path(
        self, points: np.ndarray | None, breaks: np.ndarray | None = None,
        values: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Show (k, 3) `points`, not joining a point whose `breaks` entry is True to the one
        before, coloured by `values` (k,); None (or fewer than two points) hides the path."""
        if points is None or len(points) < 2:
            self.line.visible = False
            return
        k = len(points)
        breaks = np.zeros(k, bool) if breaks is None else np.asarray(breaks, bool)
        connect = np.ones(k, bool)
        connect[:-1] = ~breaks[1:]
        connect[-1] = False
        colors, *scale = path_colors(np.zeros(k) if values is None else values)
        self.scale = (scale[0], scale[1])
        self.line.set_data(pos=np.asarray(points, np.float32), color=colors, connect=connect)
        self.line.visible = True

    @property
    def visible(self) -> bool:
        return self.line.visible

    def remove(self) -> None:
        self.line.parent = None
