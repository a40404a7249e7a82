"""How wander3d draws a scene: the colours and proportions of the desktop app's renderer
(wander3d.render) and of the shared web page (wander3d.share), one set for both, so that the
page looks like the app.

Plain numbers and the standard library only: a core install writes pages and has no vispy.
Colours are RGBA in 0..1.
"""

from __future__ import annotations

from collections.abc import Iterable

# ----------------------------------------------------------------------------- the enclosure
#: The box stands out, the floor grid stays in the background.
BOX_COLOR = (0.72, 0.80, 0.92, 0.55)
GRID_COLOR = (0.60, 0.70, 0.85, 0.10)
AXIS_COLORS = ((0.95, 0.35, 0.35, 0.9), (0.45, 0.90, 0.45, 0.9), (0.40, 0.60, 1.00, 0.9))
#: Axis triad length as a fraction of the box's smallest extent.
AXIS_FRACTION = 0.12

# ---------------------------------------------------------------------------------- agents
#: Cone length as a fraction of the enclosure's largest extent...
CONE_LENGTH_FRACTION = 0.03
#: ...but at most this fraction of its smallest, so agents fit a long thin tunnel too.
CONE_THIN_FRACTION = 0.12
#: Cone radius as a fraction of its length.
CONE_ASPECT = 0.32
#: World-space direction towards the key light (not normalised): above, slightly in front
#: of the default view.
LIGHT_DIRECTION = (0.35, 1.0, 0.55)


def cone_length(low: Iterable[float], high: Iterable[float]) -> float:
    """Cone length (units) for a box with corners `low`, `high` ((3,) units)."""
    extent = [float(h) - float(lo) for lo, h in zip(low, high, strict=True)]
    return min(CONE_LENGTH_FRACTION * max(extent), CONE_THIN_FRACTION * min(extent))


# ---------------------------------------------------------------------------------- trails
#: Opacity of the newest segment.
TRAIL_ALPHA = 0.55
#: Opacity falls as (1 - age / capacity) ** TRAIL_FADE_POWER: > 1 keeps the tail faint.
TRAIL_FADE_POWER = 2.0

# ---------------------------------------------------------------------------------- camera
#: Extra room around the box when the scene does not set a distance (1.1: the box's picture
#: spans at most 1/1.1 of the view, about 5% free on each side).
FIT_MARGIN = 1.1

# ------------------------------------------------------------ the selected agent's overlay
SPHERE_COLOR = (0.70, 0.85, 1.00, 0.60)
FEELER_COLOR = (0.85, 0.90, 1.00, 0.70)
TARGET_COLOR = (1.00, 0.92, 0.30, 1.00)
VELOCITY_COLOR = (0.35, 1.00, 0.55, 1.00)
FORCE_COLOR = (1.00, 0.35, 0.45, 1.00)
HIGHLIGHT_COLOR = (1.00, 1.00, 1.00, 0.95)
#: What each overlay colour shows, for legends and help: (RGBA, name, meaning).
LEGEND = (
    (HIGHLIGHT_COLOR, "ring", "the selected agent"),
    (SPHERE_COLOR, "wander sphere", "where the target may go (three great circles)"),
    (FEELER_COLOR, "feeler", "from the agent to the sphere's centre, ahead along its heading"),
    (TARGET_COLOR, "target", "the point it steers to (seek: a point of the box)"),
    (VELOCITY_COLOR, "velocity", "arrow; full length at max speed"),
    (FORCE_COLOR, "steering force", "arrow; 3/4 length at max force"),
)
#: Segments per wireframe circle; the sphere is three great circles.
CIRCLE_SEGMENTS = 40
#: Force arrows at max_force are this fraction of the reach, so they do not hide the sphere.
FORCE_SCALE = 0.75
#: Arrowhead length as a fraction of the arrow's length.
HEAD_FRACTION = 0.18
