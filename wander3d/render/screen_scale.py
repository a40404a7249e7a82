"""How large the world looks on screen, for choosing levels of detail."""

from __future__ import annotations

import numpy as np
from vispy.visuals.transforms import BaseTransform


def pixels_per_unit(transform: BaseTransform, corners: np.ndarray | None) -> float:
    """Largest on-screen size (physical pixels) of a world unit among `corners`.

    transform: a vispy transform from world to framebuffer pixels; corners: (8, 3) world
    points that bound what is drawn. The nearest point of a box to the camera is a corner,
    where a unit looks largest. inf when `corners` is None or a corner is behind the camera.
    """
    if corners is None:
        return float("inf")
    step = 1e-3 * float(np.ptp(corners, axis=0).max() or 1.0)
    points = np.concatenate([corners + step * e for e in np.eye(4, 3, -1)])
    mapped = np.asarray(transform.map(points), dtype=np.float64)
    w = mapped[:, 3]
    if np.any(w <= 1e-9):
        return float("inf")
    xy = (mapped[:, :2] / w[:, None]).reshape(4, len(corners), 2)
    return float(np.linalg.norm(xy[1:] - xy[0], axis=-1).max() / step)
