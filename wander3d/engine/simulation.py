"""The simulation: every agent's state in (N, 3) arrays, advanced in fixed time steps.

One step, for all agents at once:
  1. each group's wander method moves its target (random walks scale with sqrt(dt));
  2. containment turns targets of agents heading into a wall's margin band inward and adds an
     inward force;
  3. steering = the vector to the target ("force") or desired velocity minus velocity
     ("desired"); its up component is scaled by the group's `vertical`;
  4. vehicle model: force truncated to max_force, divided by mass, velocity truncated to
     max_speed, position integrated with dt;
  5. the agent frame (side vector) and wander direction are parallel-transported from the old
     heading to the new one, so the target keeps its place relative to the heading;
  6. agents that crossed a wall are reflected back inside (position, velocity and frame);
  7. trails record a point every `trail_every` steps.
All randomness comes from one numpy Generator seeded by the scene's seed, drawn in a fixed
order, so the same scene and seed give a bit-identical run.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from . import methods
from .containment import containment, reflect_into_box, turn_inward
from .params import METHODS, Enclosure, GroupParams, SimulationSpec
from .trails import TrailBuffer, TrailView
from .vecmath import (
    dot,
    flatten_y,
    lengths,
    normalize,
    perpendicular,
    random_unit,
    transport,
    truncate,
)

Array = np.ndarray

_WORLD_UP = np.array([0.0, 1.0, 0.0])
_X_AXIS = np.array([1.0, 0.0, 0.0])

#: Per-agent float parameters mirrored from the groups, so one step is pure array arithmetic.
_AGENT_PARAMS = (
    "distance",
    "radius",
    "jitter",
    "rate",
    "frequency",
    "interval",
    "vertical",
    "max_speed",
    "max_force",
    "inverse_mass",
)


class Simulation:
    """Agents of one or more groups wandering inside an enclosure.

    Arrays are in world units (y is up) and world axes unless stated; N agents in group order,
    each group a contiguous block (see `group_slices`).
    """

    def __init__(self, spec: SimulationSpec) -> None:
        self.dt: float = float(spec.dt)
        self.seed: int = int(spec.seed)
        self.enclosure: Enclosure = spec.enclosure
        self._initial_groups: tuple[GroupParams, ...] = tuple(spec.groups)
        self.groups: tuple[GroupParams, ...] = self._initial_groups
        counts = [g.count for g in self.groups]
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(int)
        self.group_slices: tuple[slice, ...] = tuple(
            slice(int(a), int(b)) for a, b in itertools.pairwise(starts)
        )
        self.count = int(starts[-1])
        self.group_index: Array = np.repeat(np.arange(len(counts)), counts)
        self._low = np.asarray(self.enclosure.min, dtype=np.float64)
        self._high = np.asarray(self.enclosure.max, dtype=np.float64)
        self._margin = float(self.enclosure.margin)
        self._trails = tuple(
            TrailBuffer(g.count, g.trail_length, g.trail_every) for g in self.groups
        )
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Back to the start of the scene (the scene's own parameters, the scene's seed)."""
        self.groups = self._initial_groups
        self._rng = np.random.default_rng(self.seed)
        self.step_count = 0
        n = self.count
        self._params = {name: np.empty(n) for name in _AGENT_PARAMS}
        self._desired = np.zeros(n, dtype=bool)
        for index in range(len(self.groups)):
            self._write_params(index)

        rng = self._rng
        inner_low = self._low + self._margin
        inner_high = self._high - self._margin
        self._positions = inner_low + rng.random((n, 3)) * (inner_high - inner_low)
        vertical = self._params["vertical"]
        self._headings = normalize(flatten_y(random_unit(rng, n), vertical), _fill(n, _X_AXIS))
        self._sides = _side_vectors(self._headings)
        start_speed = np.repeat(
            [g.start_speed for g in self.groups], [g.count for g in self.groups]
        )
        self._velocities = self._headings * start_speed[:, None]

        self._wander_dirs = self._headings.copy()
        self._angles = np.zeros((n, 2))
        self._noise_keys = np.zeros((n, 2), dtype=np.uint64)
        self._noise_phase = np.zeros((n, 2))
        self._seek_targets = self._positions.copy()
        self._seek_timers = np.zeros(n)
        for index in range(len(self.groups)):
            self._init_method_state(index)

        self._targets = self._positions.copy()
        self._forces = np.zeros((n, 3))
        self._update_targets(self._containment())
        for trail, sl in zip(self._trails, self.group_slices, strict=True):
            trail.clear()
            trail.record(self._positions[sl])

    def _write_params(self, index: int) -> None:
        g = self.groups[index]
        sl = self.group_slices[index]
        w = g.wander
        values = {
            "distance": w.distance,
            "radius": w.radius,
            "jitter": w.jitter,
            "rate": w.rate,
            "frequency": w.frequency,
            "interval": w.interval,
            "vertical": w.vertical,
            "max_speed": g.max_speed,
            "max_force": g.max_force,
            "inverse_mass": 1.0 / g.mass,
        }
        for name, value in values.items():
            self._params[name][sl] = value
        self._desired[sl] = w.steering == "desired"

    def _init_method_state(self, index: int) -> None:
        """Draw the starting wander state of group `index` for its method."""
        sl = self.group_slices[index]
        n = self.groups[index].count
        method = self.groups[index].wander.method
        rng = self._rng
        vertical = self._params["vertical"][sl]
        heading = self._headings[sl]
        if method == "sphere":
            self._wander_dirs[sl] = normalize(flatten_y(random_unit(rng, n), vertical), heading)
        elif method == "angle":
            yaw = rng.uniform(-np.pi, np.pi, n)
            pitch = np.arcsin(rng.uniform(-1.0, 1.0, n)) * vertical
            self._angles[sl] = np.stack([yaw, pitch], axis=1)
        elif method == "noise":
            self._noise_keys[sl] = rng.integers(0, 2**63, size=(n, 2), dtype=np.uint64)
            self._noise_phase[sl] = rng.random((n, 2)) * 1024.0
        elif method == "seek":
            inner_low = self._low + self._margin
            inner_high = self._high - self._margin
            self._seek_targets[sl] = inner_low + rng.random((n, 3)) * (inner_high - inner_low)
            self._seek_timers[sl] = rng.random(n) * self._params["interval"][sl]

    def update_group(self, index: int, params: GroupParams) -> None:
        """Change group `index`'s parameters in the running simulation, from the next step.

        Anything but `count`, `trail_length` and `trail_every` may change; a new method starts
        from a freshly drawn state. Raises ValueError for the others (they need a new
        Simulation).
        """
        old = self.groups[index]
        for key in ("count", "trail_length", "trail_every"):
            if getattr(params, key) != getattr(old, key):
                raise ValueError(f"{key} cannot change in a running simulation")
        groups = list(self.groups)
        groups[index] = params
        self.groups = tuple(groups)
        self._write_params(index)
        if params.wander.method != old.wander.method:
            self._init_method_state(index)

    def update_wander(self, index: int, **changes: object) -> None:
        """Shorthand: `update_group` with some WanderParams fields of group `index` replaced."""
        group = self.groups[index]
        self.update_group(
            index, dataclasses.replace(group, wander=dataclasses.replace(group.wander, **changes))
        )

    # ------------------------------------------------------------------ stepping
    def step(self, n: int = 1) -> None:
        """Advance `n` fixed steps of `dt` seconds."""
        for _ in range(int(n)):
            self._step_once()

    def _containment(self):
        return containment(
            self._positions, self._velocities, self._headings, self._low, self._high, self._margin
        )

    def _update_targets(self, contain) -> None:
        """Advance every group's wander state and set targets and wander forces for this step."""
        p = self._params
        heading, side = self._headings, self._sides
        up = np.cross(side, heading)
        time = self.time
        dt = self.dt
        for group, sl in zip(self.groups, self.group_slices, strict=True):
            method = group.wander.method
            inward = contain.inward[sl]
            if method == "seek":
                methods.seek_step(
                    self._rng,
                    self._seek_targets[sl],
                    self._seek_timers[sl],
                    p["interval"][sl],
                    self._low + self._margin,
                    self._high - self._margin,
                    dt,
                )
                continue
            if method == "sphere":
                w = methods.sphere_step(
                    self._rng, self._wander_dirs[sl], p["radius"][sl], p["jitter"][sl],
                    p["vertical"][sl], dt,
                )  # fmt: skip
                w = turn_inward(inward, w)
            elif method == "angle":
                angles = methods.angle_step(
                    self._rng, self._angles[sl], p["rate"][sl], p["vertical"][sl], dt
                )
                w = methods.angles_to_direction(angles, heading[sl], side[sl], up[sl])
                turned = turn_inward(inward, w)
                changed = np.any(turned != w, axis=1)
                if changed.any():
                    angles[changed] = methods.direction_to_angles(
                        turned[changed], heading[sl][changed], side[sl][changed], up[sl][changed]
                    )
                self._angles[sl] = angles
                w = turned
            elif method == "noise":
                angles = methods.noise_angles(
                    self._noise_keys[sl], self._noise_phase[sl], p["frequency"][sl],
                    p["vertical"][sl], time,
                )  # fmt: skip
                w = methods.angles_to_direction(angles, heading[sl], side[sl], up[sl])
                w = turn_inward(inward, w)
            elif method == "random":
                w = methods.random_directions(self._rng, group.count, p["vertical"][sl], dt)
                w = turn_inward(inward, w)
            else:
                raise ValueError(f"unknown wander method {method!r}; expected one of {METHODS}")
            self._wander_dirs[sl] = w
        self._place_targets()

    def _place_targets(self) -> None:
        """Target points from the current positions, headings and wander directions."""
        p = self._params
        self._targets = (
            self._positions
            + self._headings * p["distance"][:, None]
            + self._wander_dirs * p["radius"][:, None]
        )
        for group, sl in zip(self.groups, self.group_slices, strict=True):
            if group.wander.method == "seek":
                self._targets[sl] = self._seek_targets[sl]

    def _step_once(self) -> None:
        p = self._params
        dt = self.dt
        contain = self._containment()
        self._update_targets(contain)

        to_target = self._targets - self._positions
        wander_force = np.where(
            self._desired[:, None],
            normalize(to_target, self._headings) * p["max_speed"][:, None] - self._velocities,
            to_target,
        )
        wander_force[:, 1] *= p["vertical"]
        # Near a wall containment takes priority over wander, smoothly across the margin band.
        force = wander_force * (1.0 - contain.weight)[:, None] + contain.force(p["max_force"])
        force = truncate(force, p["max_force"])
        self._forces = force

        velocities = self._velocities + force * (p["inverse_mass"] * dt)[:, None]
        velocities = truncate(velocities, p["max_speed"])
        self._positions += velocities * dt
        self._velocities = velocities

        old_headings = self._headings
        speeds = lengths(velocities)
        moving = speeds > 1e-9
        headings = np.where(
            moving[:, None], velocities / np.where(moving, speeds, 1.0)[:, None], old_headings
        )
        sides = transport(self._sides, old_headings, headings)
        # Remove the rounding drift of repeated rotations: keep the frame orthonormal.
        sides = normalize(sides - dot(sides, headings)[:, None] * headings, perpendicular(headings))
        wander_dirs = transport(self._wander_dirs, old_headings, headings)
        self._headings, self._sides, self._wander_dirs = headings, sides, wander_dirs

        jumped = reflect_into_box(
            self._positions, self._low, self._high,
            self._velocities, self._headings, self._sides, self._wander_dirs,
        )  # fmt: skip
        if jumped.any():
            self._reframe_angles(jumped)
        # Show where each target is now, after the move (the next step jitters it from here).
        self._place_targets()
        self.step_count += 1
        for trail, sl in zip(self._trails, self.group_slices, strict=True):
            if trail.capacity == 0:
                continue
            trail.note_jumps(jumped[sl])
            if self.step_count % trail.every == 0:
                trail.record(self._positions[sl])

    def _reframe_angles(self, jumped: Array) -> None:
        """After a wall mirror, re-express angle-method targets in the mirrored frame."""
        for group, sl in zip(self.groups, self.group_slices, strict=True):
            if group.wander.method != "angle":
                continue
            idx = np.nonzero(jumped[sl])[0] + sl.start
            if len(idx):
                h, s = self._headings[idx], self._sides[idx]
                w = self._wander_dirs[idx] / lengths(self._wander_dirs[idx])[:, None]
                self._angles[idx] = methods.direction_to_angles(w, h, s, np.cross(s, h))

    # ------------------------------------------------------------------ read-only views
    @property
    def time(self) -> float:
        """Simulated seconds since the start."""
        return self.step_count * self.dt

    @property
    def positions(self) -> Array:
        """(N, 3) agent positions (units)."""
        return self._positions

    @property
    def velocities(self) -> Array:
        """(N, 3) agent velocities (units/s)."""
        return self._velocities

    @property
    def headings(self) -> Array:
        """(N, 3) unit headings; the last direction of motion when an agent is at rest."""
        return self._headings

    @property
    def wander_points(self) -> Array:
        """(N, 3) each agent's current wander target point (seek: the point it seeks)."""
        return self._targets

    @property
    def wander_centers(self) -> Array:
        """(N, 3) centres of the wander spheres, `distance` ahead along the heading."""
        return self._positions + self._headings * self._params["distance"][:, None]

    @property
    def wander_radii(self) -> Array:
        """(N,) wander sphere radii (units)."""
        return self._params["radius"]

    @property
    def forces(self) -> Array:
        """(N, 3) the steering force applied in the last step, after truncation."""
        return self._forces

    @property
    def bounds(self) -> tuple[Array, Array]:
        """(min, max) corners of the enclosure, each shape (3,)."""
        return self._low.copy(), self._high.copy()

    @property
    def trail_buffers(self) -> tuple[TrailBuffer, ...]:
        """One ring buffer per group (raw, for renderers that mirror them on the GPU)."""
        return self._trails

    def trails(self, group: int) -> TrailView:
        """Group `group`'s trails ordered oldest to newest, with the segments to skip."""
        return self._trails[group].view()

    @property
    def nbytes(self) -> int:
        """Bytes held by agent state and trails."""
        state = (
            self._positions, self._velocities, self._headings, self._sides, self._wander_dirs,
            self._angles, self._noise_keys, self._noise_phase, self._seek_targets,
            self._seek_timers, self._targets, self._forces, self.group_index, self._desired,
            *self._params.values(),
        )  # fmt: skip
        return sum(a.nbytes for a in state) + sum(t.nbytes for t in self._trails)


def _fill(n: int, row: Array) -> Array:
    return np.broadcast_to(row, (n, 3))


def _side_vectors(headings: Array) -> Array:
    """Unit vectors perpendicular to each heading, horizontal where the heading allows."""
    return normalize(np.cross(headings, _WORLD_UP), perpendicular(headings))
