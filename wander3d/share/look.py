"""How the shared page draws a scene: the desktop app's colours and proportions
(wander3d.appearance) and its trails' levels of detail (wander3d.drawing.trail_plan), as the
page's config."""

from __future__ import annotations

from typing import Any

import numpy as np

from wander3d.appearance import (
    AXIS_COLORS,
    AXIS_FRACTION,
    BOX_COLOR,
    CIRCLE_SEGMENTS,
    CONE_ASPECT,
    FEELER_COLOR,
    FIT_MARGIN,
    FORCE_COLOR,
    FORCE_SCALE,
    GRID_COLOR,
    HEAD_FRACTION,
    HIGHLIGHT_COLOR,
    LEGEND,
    LIGHT_DIRECTION,
    SPHERE_COLOR,
    TARGET_COLOR,
    TRAIL_ALPHA,
    TRAIL_FADE_POWER,
    VELOCITY_COLOR,
    cone_length,
)
from wander3d.drawing.trail_plan import LEVELS, MAX_SAGITTA_PX, MIN_ALPHA, TIER_STARTS
from wander3d.scene import Scene


def look(scene: Scene) -> dict[str, Any]:
    """The page's drawing figures for `scene`, as its config's "look" (JSON-ready)."""
    light = np.asarray(LIGHT_DIRECTION) / np.linalg.norm(LIGHT_DIRECTION)
    return {
        "box": BOX_COLOR,
        "grid": GRID_COLOR,
        "axes": AXIS_COLORS,
        "axisFraction": AXIS_FRACTION,
        "coneLength": cone_length(scene.enclosure.min, scene.enclosure.max),
        "coneAspect": CONE_ASPECT,
        "light": [float(x) for x in light],
        "trailAlpha": TRAIL_ALPHA,
        "trailFade": TRAIL_FADE_POWER,
        "fitMargin": FIT_MARGIN,
        "wanderSphere": SPHERE_COLOR,
        "feeler": FEELER_COLOR,
        "target": TARGET_COLOR,
        "velocity": VELOCITY_COLOR,
        "force": FORCE_COLOR,
        "highlight": HIGHLIGHT_COLOR,
        "legend": LEGEND,
        "circleSegments": CIRCLE_SEGMENTS,
        "forceScale": FORCE_SCALE,
        "headFraction": HEAD_FRACTION,
        "tierStarts": list(TIER_STARTS),
        "maxSagittaPx": MAX_SAGITTA_PX,
        "mostJoined": 2 ** (LEVELS - 1),
        "minAlpha": MIN_ALPHA,
    }
