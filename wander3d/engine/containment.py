"""Keeping agents inside the axis-aligned enclosure: a soft steering force plus a hard guarantee."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .vecmath import lengths

Array = np.ndarray

#: Fraction of the margin band over which the containment force ramps up to full strength.
RAMP_FRACTION = 0.25
#: Seconds ahead at which agents look for the margin band, so fast ones start turning earlier.
LOOKAHEAD = 0.25


@dataclass(frozen=True)
class Containment:
    """Where and how hard the walls push back, for every agent.

    inward:  (N, 3) per-axis push in [-1, 1]: +1 on an axis means "well inside the band of the
             low wall and heading into it", -1 the same for the high wall, 0 when clear.
    weight:  (N,) in [0, 1], the strongest push over the axes; 0 for agents clear of the band.
    """

    inward: Array
    weight: Array

    def force(self, max_force: Array) -> Array:
        """(N, 3) containment force: inward, up to max_force.

        An agent at max_speed needs about max_speed^2 / (2 * max_force / mass) units to turn
        round; with less room than margin + max_speed * LOOKAHEAD it is reflected at the wall.
        """
        n = lengths(self.inward)
        direction = self.inward / np.maximum(n, 1e-12)[:, None]
        return direction * (max_force * self.weight)[:, None]


def turn_inward(inward: Array, w: Array) -> Array:
    """Mirror the outward components of wander directions `w` (n, 3) back inward.

    inward: the matching rows of `Containment.inward`. Only axes where the agent heads into a
    wall's band are touched; a mirror keeps `w`'s length, so the target stays on the wander
    sphere, and the agent does not head straight back out.
    """
    outward = ((inward > 0) & (w < 0)) | ((inward < 0) & (w > 0))
    return np.where(outward, -w, w)


def containment(
    positions: Array,
    velocities: Array,
    headings: Array,
    low: Array,
    high: Array,
    margin: float,
) -> Containment:
    """Containment for agents at `positions` moving with `velocities` along `headings` (N, 3).

    low, high: (3,) box corners (units); margin: band width inside each wall (units, > 0).
    An agent is pushed on axes where it is heading into the band -- where it will be
    LOOKAHEAD seconds from now is in the band -- and heading towards that wall, so one that
    is already turning away is left to its wander.
    """
    if margin <= 0:
        zeros = np.zeros_like(positions)
        return Containment(inward=zeros, weight=zeros[:, 0])
    # The push ramps up over the outer quarter of the band, then holds at full strength: a ramp
    # across the whole band would leave fast agents too little room to turn.
    ramp = margin * RAMP_FRACTION
    ahead = positions + velocities * LOOKAHEAD
    low_push = np.clip((low + margin - ahead) / ramp, 0.0, 1.0)
    high_push = np.clip((ahead - (high - margin)) / ramp, 0.0, 1.0)
    inward = np.where(headings < 0, low_push, 0.0) - np.where(headings > 0, high_push, 0.0)
    return Containment(inward=inward, weight=np.abs(inward).max(axis=1))


def reflect_into_box(positions: Array, low: Array, high: Array, *mirrored: Array) -> Array:
    """Reflect positions that left the box back inside, mirroring direction vectors too.

    positions: (N, 3), modified in place. Each array in `mirrored` ((N, 3): velocities, headings,
    frame and wander vectors) has its component on the crossed axis negated in place, so the
    agent keeps its speed and its wander target keeps its angle to the heading.
    Returns the (N,) bool mask of agents that were reflected.
    """
    below = positions < low
    above = positions > high
    crossed = below | above
    if not crossed.any():
        return np.zeros(len(positions), dtype=bool)
    np.copyto(positions, 2.0 * low - positions, where=below)
    np.copyto(positions, 2.0 * high - positions, where=above)
    # A step longer than the box itself would reflect past the far wall; clamp for certainty.
    np.clip(positions, low, high, out=positions)
    for vectors in mirrored:
        np.negative(vectors, out=vectors, where=crossed)
    return crossed.any(axis=1)
