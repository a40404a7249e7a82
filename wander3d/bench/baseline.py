"""The tutorials' style, for comparison: one Python object per agent, a loop over agents.

The same model as the engine's sphere wander (jitter in a ball, re-normalised onto the sphere,
target carried with the heading, steering = vector to the target, containment force in the
margin band, force and speed truncation, reflection at the walls) written the way the classic
tutorials write it. It exists only so `wander3d bench` can show the ratio on the same machine
in the same run.
"""

from __future__ import annotations

import math
import random
import time

from wander3d.engine.params import Enclosure, GroupParams


class TutorialVehicle:
    """One agent with its own position, velocity and wander target (the tutorials' class)."""

    def __init__(self, rng: random.Random, box: Enclosure, speed: float) -> None:
        corners = zip(box.min, box.max, strict=True)
        self.position = [rng.uniform(lo + box.margin, hi - box.margin) for lo, hi in corners]
        heading = _normalized([rng.gauss(0, 1) for _ in range(3)])
        self.velocity = [c * speed for c in heading]
        self.wander = _normalized([rng.gauss(0, 1) for _ in range(3)])

    def update(self, rng: random.Random, group: GroupParams, box: Enclosure, dt: float) -> None:
        w = group.wander
        heading = _normalized(self.velocity)
        # Jitter the target: a random displacement in a ball, then back onto the sphere.
        while True:
            d = [rng.uniform(-1.0, 1.0) for _ in range(3)]
            if sum(c * c for c in d) <= 1.0:
                break
        step = w.jitter * math.sqrt(dt)
        target = [self.wander[k] * w.radius + d[k] * step for k in range(3)]
        new_wander = _normalized(target)
        force = [heading[k] * w.distance + new_wander[k] * w.radius for k in range(3)]
        # Containment: push inward inside the margin band.
        for k in range(3):
            if self.position[k] < box.min[k] + box.margin and heading[k] < 0:
                force[k] += group.max_force
            elif self.position[k] > box.max[k] - box.margin and heading[k] > 0:
                force[k] -= group.max_force
        force = _truncated(force, group.max_force)
        self.velocity = _truncated(
            [self.velocity[k] + force[k] / group.mass * dt for k in range(3)], group.max_speed
        )
        self.position = [self.position[k] + self.velocity[k] * dt for k in range(3)]
        new_heading = _normalized(self.velocity)
        self.wander = _rotated(new_wander, heading, new_heading)
        for k in range(3):
            if self.position[k] < box.min[k]:
                self.position[k] = 2 * box.min[k] - self.position[k]
                self.velocity[k] = -self.velocity[k]
            elif self.position[k] > box.max[k]:
                self.position[k] = 2 * box.max[k] - self.position[k]
                self.velocity[k] = -self.velocity[k]


def agent_steps_per_second(count: int, steps: int, seed: int = 1) -> float:
    """Run `count` tutorial vehicles for `steps` steps of 1/60 s; return agent-steps per second."""
    rng = random.Random(seed)
    box = Enclosure()
    group = GroupParams(count=count)
    vehicles = [TutorialVehicle(rng, box, group.start_speed) for _ in range(count)]
    start = time.perf_counter()
    for _ in range(steps):
        for vehicle in vehicles:
            vehicle.update(rng, group, box, 1 / 60)
    return count * steps / (time.perf_counter() - start)


def _normalized(v: list[float]) -> list[float]:
    n = math.sqrt(sum(c * c for c in v))
    return [c / n for c in v] if n > 1e-12 else [1.0, 0.0, 0.0]


def _truncated(v: list[float], limit: float) -> list[float]:
    n = math.sqrt(sum(c * c for c in v))
    return [c * limit / n for c in v] if n > limit else v


def _rotated(v: list[float], a: list[float], b: list[float]) -> list[float]:
    """v rotated by the minimal rotation taking unit a onto unit b."""
    c = sum(a[k] * b[k] for k in range(3))
    if c < -1.0 + 1e-9:
        return [-x for x in v]
    k = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    kv = [k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]]
    s = sum(k[i] * v[i] for i in range(3)) / (1.0 + c)
    return [c * v[i] + kv[i] + s * k[i] for i in range(3)]
