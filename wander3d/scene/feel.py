"""What a group's parameters mean in seconds, degrees and units, before anyone runs it.

`scene_feel(spec)` returns one `GroupFeel` per group: how long its turns last (the 1/e time
of its wander target's direction in the agent's frame), its sharpest sustained turn, and how
far it travels while turning back from a wall at full speed, with warnings where the margin
is too thin for that. `wander3d check` prints `GroupFeel.line()`; the app shows the warnings.
Each method's decorrelation time and pace come from the engine's method table
(wander3d.engine.methods). Tests measure every number stated here on the engine
(tests/test_scene_feel.py, tests/test_engine_fidelity.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wander3d.engine.kernel import LOOKAHEAD, RAMP_FRACTION
from wander3d.engine.methods import traits
from wander3d.engine.params import Enclosure, GroupParams, RunSpec
from wander3d.scene.model import Scene


@dataclass(frozen=True)
class GroupFeel:
    """One group's parameters in words and numbers.

    name, method:     the group's.
    decorrelation_s:  seconds for the target's direction (in the agent's frame) to lose its
                      memory to 1/e; None where the method has no such time (noise, seek, random).
    rhythm:           what sets the method's pace in words, e.g. "noise time scale 3.3 s".
    sharpest_turn:    the fastest sustained horizontal turn at full speed, degrees/s; None when
                      the agent can turn on the spot (its target can be behind it).
    turn_back:        units travelled towards a wall while turning back from it at max_speed
                      with max_force: mass * max_speed^2 / (2 max_force).
    margin:           the enclosure's margin (units).
    warnings:         one line per problem (e.g. turning back needs more than the margin).
    """

    name: str
    method: str
    decorrelation_s: float | None
    rhythm: str
    sharpest_turn: float | None
    turn_back: float
    margin: float
    warnings: tuple[str, ...]

    def line(self) -> str:
        """E.g. "wanderers (sphere): turns decorrelate in ~7.2 s, sharpest wander turn ~17 deg/s
        at full speed, ...". The wander's own limit: containment at a wall turns harder (up to
        max_force sideways), so a measured mean turn rate can exceed it."""
        parts = []
        if self.decorrelation_s is not None:
            parts.append(f"turns decorrelate in ~{self.decorrelation_s:.3g} s")
        if self.rhythm:
            parts.append(self.rhythm)
        if self.sharpest_turn is None:
            parts.append("can turn on the spot")
        else:
            parts.append(f"sharpest wander turn ~{self.sharpest_turn:.3g} deg/s at full speed")
        parts.append(f"needs {self.turn_back:.3g} units to turn back (margin {self.margin:g})")
        return f"{self.name} ({self.method}): " + ", ".join(parts)


def sharpest_turn(g: GroupParams) -> float | None:
    """The fastest sustained horizontal turn at full speed (degrees/s), or None: on the spot.

    force steering: the force is the vector to the target, (distance + radius cos a) ahead and
    radius sin a aside, truncated to max_force; the speed stays max_speed (the forward part is
    positive when radius < distance), so the turn rate is the largest sideways force / (mass *
    max_speed). desired steering: in a steady turn towards a target at angle a the speed is
    max_speed cos a and the (sideways) steering min(max_speed sin a, max_force), largest at
    sin a = radius / distance. seek: a target anywhere: the full max_force aside (force), or on
    the spot (desired).
    """
    w = g.wander
    speed, force, mass = g.max_speed, g.max_force, g.mass
    if not traits(w.method).state.on_sphere:
        return None if w.steering == "desired" else math.degrees(force / (mass * speed))
    if w.radius >= w.distance:
        return None
    if w.steering == "desired":
        s = w.radius / w.distance
        return math.degrees(min(speed * s, force) / (mass * speed * math.sqrt(1.0 - s * s)))
    a = np.linspace(0.0, math.pi, 3601)
    ahead = w.distance + w.radius * np.cos(a)
    aside = w.radius * np.sin(a)
    scale = np.minimum(1.0, force / np.hypot(ahead, aside))
    return math.degrees(float(np.max(aside * scale)) / (mass * speed))


def turn_back_distance(g: GroupParams) -> float:
    """Units travelled into a wall while stopping from max_speed at max_force: m v^2 / (2 F)."""
    return g.mass * g.max_speed**2 / (2.0 * g.max_force)


def group_feel(g: GroupParams, enclosure: Enclosure) -> GroupFeel:
    """What group `g` feels like in `enclosure` (see GroupFeel)."""
    w = g.wander
    method = traits(w.method)
    decorrelation = method.decorrelation(w) if method.decorrelation else None
    rhythm = method.rhythm(w) if method.rhythm else ""
    turn_back = turn_back_distance(g)
    margin = enclosure.margin
    warnings = []
    if turn_back > margin:
        # Containment looks ahead by the distance it needs, so it starts turning the agents
        # this far from a wall, outside the margin band.
        reach = margin * (1.0 - RAMP_FRACTION) + g.max_speed * LOOKAHEAD + turn_back
        half = min(b - a for a, b in zip(enclosure.min, enclosure.max, strict=True)) / 2
        text = (
            f"{g.name}: turning back from max_speed {g.max_speed:g} needs ~{turn_back:.3g} "
            f"units (mass * max_speed^2 / (2 max_force)), more than the margin "
            f"{margin:g}: containment starts turning it up to {reach:.3g} units from a wall"
        )
        if turn_back > half:
            text += (
                f"; that is more than half the box's smallest extent ({half:g}), so it cannot "
                "always turn in time: expect wall reflections"
            )
        warnings.append(text + "; raise max_force or margin, or lower max_speed or mass")
    return GroupFeel(
        name=g.name,
        method=w.method,
        decorrelation_s=decorrelation,
        rhythm=rhythm,
        sharpest_turn=sharpest_turn(g),
        turn_back=turn_back,
        margin=margin,
        warnings=tuple(warnings),
    )


def scene_feel(spec: RunSpec) -> tuple[GroupFeel, ...]:
    """`group_feel` of every group of a run (a scene's `run_spec`, say)."""
    return tuple(group_feel(g, spec.enclosure) for g in spec.groups)


def scene_warnings(scene: Scene) -> list[str]:
    """Every warning about a scene: converted old keys first, then each group's feel."""
    return [*scene.notices, *(w for f in scene_feel(scene.run_spec) for w in f.warnings)]
