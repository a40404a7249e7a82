"""How the shared page draws a scene: the desktop app's colours and proportions.

The drawing code (wander3d.render) needs vispy, which a core install lacks, so the figures the
page needs are repeated here; tests/test_share_page.py checks they equal render's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wander3d.scene import Scene

#: render/enclosure.py: BOX_COLOR, GRID_COLOR, AXIS_COLORS, AXIS_FRACTION.
BOX_COLOR = (0.72, 0.80, 0.92, 0.55)
GRID_COLOR = (0.60, 0.70, 0.85, 0.10)
AXIS_COLORS = ((0.95, 0.35, 0.35, 0.9), (0.45, 0.90, 0.45, 0.9), (0.40, 0.60, 1.00, 0.9))
AXIS_FRACTION = 0.12
#: render/agents.py: cone length as fractions of the box, cone radius / length, key light.
CONE_LENGTH_FRACTION = 0.03
CONE_THIN_FRACTION = 0.12
CONE_ASPECT = 0.32
LIGHT_DIRECTION = (0.35, 1.0, 0.55)
#: render/trails.py: the newest segment's opacity and the fade's power.
TRAIL_ALPHA = 0.55
TRAIL_FADE_POWER = 2.0
#: render/camera.py: room around the box when the scene sets no camera distance.
FIT_MARGIN = 1.1
#: render/debug.py: the overlay's colours (RGBA), what each means, and its proportions.
SPHERE_COLOR = (0.70, 0.85, 1.00, 0.60)
FEELER_COLOR = (0.85, 0.90, 1.00, 0.70)
TARGET_COLOR = (1.00, 0.92, 0.30, 1.00)
VELOCITY_COLOR = (0.35, 1.00, 0.55, 1.00)
FORCE_COLOR = (1.00, 0.35, 0.45, 1.00)
HIGHLIGHT_COLOR = (1.00, 1.00, 1.00, 0.95)
LEGEND = (
    (HIGHLIGHT_COLOR, "ring", "the selected agent"),
    (SPHERE_COLOR, "wander sphere", "where the target may go (three great circles)"),
    (FEELER_COLOR, "feeler", "from the agent to the sphere's centre, ahead along its heading"),
    (TARGET_COLOR, "target", "the point it steers to (seek: a point of the box)"),
    (VELOCITY_COLOR, "velocity", "arrow; full length at max speed"),
    (FORCE_COLOR, "steering force", "arrow; 3/4 length at max force"),
)
CIRCLE_SEGMENTS = 40
FORCE_SCALE = 0.75
HEAD_FRACTION = 0.18


def cone_length(scene: Scene) -> float:
    """Cone length (units) for the scene's box (render/agents.py agent_size)."""
    extent = np.asarray(scene.enclosure.max) - np.asarray(scene.enclosure.min)
    return float(min(CONE_LENGTH_FRACTION * extent.max(), CONE_THIN_FRACTION * extent.min()))


def look(scene: Scene) -> dict[str, Any]:
    """The page's drawing figures for `scene`, as its config's "look" (JSON-ready)."""
    light = np.asarray(LIGHT_DIRECTION) / np.linalg.norm(LIGHT_DIRECTION)
    return {
        "box": BOX_COLOR,
        "grid": GRID_COLOR,
        "axes": AXIS_COLORS,
        "axisFraction": AXIS_FRACTION,
        "coneLength": cone_length(scene),
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
    }
