"""The simulation: every agent's state in (N, 3) arrays, advanced in fixed time steps.

The per-step model lives in one place, the compiled kernel (`kernel.advance`); this class owns
the arrays, draws the starting state, mirrors group parameters into the kernel's table, and
offers read-only views. The starting state is drawn from a numpy Generator seeded by the
scene's seed; the steps draw from a counter-based generator keyed by (seed, agent, step). Both
make the same scene and seed give a bit-identical run, whatever the thread count and however
steps are batched into calls.

Groups with `vertical` < 1 start in their steady state: headings level out over the first
seconds of a run (how far depends on every parameter and the box), so the starting headings
and wander state are drawn from a short run of a sample of the group (`SETTLE_AGENTS` agents,
`SETTLE_SECONDS`), turned about the vertical by random angles.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from . import kernel
from .layout import Layout
from .methods import State, traits
from .params import FIXED_GROUP_FIELDS, Enclosure, GroupParams, RunSpec
from .snapshot import Snapshot
from .threads import max_threads, use_threads
from .trails import TrailBuffer, TrailView
from .vecmath import dot, flatten_y, normalize, perpendicular, random_unit

Array = np.ndarray

_WORLD_UP = np.array([0.0, 1.0, 0.0])
_X_AXIS = np.array([1.0, 0.0, 0.0])
_SEED_SALT = np.uint64(0x5DEECE66D)

#: Agents run to measure a group's steady state (see the module's doc), and for how long: the
#: first half settles, the second is sampled SETTLE_SNAPSHOTS times.
SETTLE_AGENTS = 128
SETTLE_SECONDS = 40.0
SETTLE_SNAPSHOTS = 8
#: What `step` hands the kernel to record into: nothing (one array type for every call, so
#: the kernel is compiled once).
_NO_SAMPLES = np.empty((0, 0, 3))


class Simulation:
    """Agents of one or more groups wandering inside an enclosure.

    Arrays are in world units (y is up) and world axes unless stated; N agents in group order,
    each group a contiguous block (see `group_slices`).
    """

    def __init__(
        self, spec: RunSpec, *, steady_start: bool = True, threads: int | None = None
    ) -> None:
        """steady_start: draw groups with vertical < 1 from their steady state (see above).

        threads: how many threads `step` runs the kernel on, at most `max_threads()` (a larger
        count uses them all); None: all of them. The run is the same at any count.
        """
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self.threads: int = max_threads() if threads is None else min(threads, max_threads())
        self.dt: float = float(spec.dt)
        self._steady_start = steady_start
        self.seed: int = int(spec.seed)
        self.enclosure: Enclosure = spec.enclosure
        self._initial_groups: tuple[GroupParams, ...] = tuple(spec.groups)
        self.groups: tuple[GroupParams, ...] = self._initial_groups
        #: The run's shape (agents, groups, box, trail rings); see engine.layout.
        self.layout = Layout.of(spec)
        self.group_slices: tuple[slice, ...] = self.layout.group_slices
        self.count = self.layout.count
        # Writable copies: the kernel is compiled for writable arrays.
        self.group_index: Array = self.layout.group_index.copy()
        self._low = self.layout.low.copy()
        self._high = self.layout.high.copy()
        self._margin = float(self.enclosure.margin)
        self._seed_key = np.uint64(kernel.mix(np.uint64(self.seed) ^ _SEED_SALT))

        # All groups' trail rings end to end in one store, so the kernel writes them directly.
        self._trail_layouts = self.layout.trails
        capacities = [capacity for capacity, _ in self._trail_layouts]
        sizes = [g.count * c for g, c in zip(self.groups, capacities, strict=True)]
        bases = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._trail_points = np.zeros((int(bases[-1]), 3), dtype=np.float32)
        self._trail_breaks = np.zeros(int(bases[-1]), dtype=bool)
        self._trail_bases = bases[:-1]
        self._trails = tuple(
            TrailBuffer(
                self._trail_points[a:b].reshape(capacity, g.count, 3),
                self._trail_breaks[a:b].reshape(capacity, g.count),
                every,
            )
            for g, (capacity, every), a, b in zip(
                self.groups, self._trail_layouts, bases[:-1], bases[1:], strict=True
            )
        )
        self._table = np.zeros((len(self.groups), kernel.PARAM_COLUMNS))
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Back to the start of the scene (the scene's own parameters, the scene's seed)."""
        self.groups = self._initial_groups
        self._rng = np.random.default_rng(self.seed)
        self.step_count = 0
        for index in range(len(self.groups)):
            self._write_params(index)

        n = self.count
        rng = self._rng
        inner_low = self._low + self._margin
        inner_high = self._high - self._margin
        self._positions = inner_low + rng.random((n, 3)) * (inner_high - inner_low)
        vertical = self._table[self.group_index, kernel.VERTICAL]
        self._headings = normalize(flatten_y(random_unit(rng, n), vertical), _fill(n, _X_AXIS))
        self._sides = _side_vectors(self._headings)
        start_speed = np.array([g.start_speed for g in self.groups])[self.group_index]

        self._wander_dirs = self._headings.copy()
        self._angles = np.zeros((n, 2))
        self._noise_keys = np.zeros((n, 2), dtype=np.uint64)
        self._noise_phase = np.zeros((n, 2))
        self._seek_targets = self._positions.copy()
        self._seek_timers = np.zeros(n)
        for index in range(len(self.groups)):
            self._init_method_state(index)
        self._targets = np.zeros((n, 3))
        self._forces = np.zeros((n, 3))
        self._pending_breaks = np.zeros(n, dtype=bool)
        self._reflections = np.zeros(n, dtype=np.int64)
        if self._steady_start:
            for index, g in enumerate(self.groups):
                if g.wander.vertical < 1.0:
                    self._settle(index)
        self._velocities = self._headings * start_speed[:, None]
        self._place_targets()

        self._trail_breaks[:] = False
        for trail, sl in zip(self._trails, self.group_slices, strict=True):
            if trail.capacity:
                trail.slots[0] = self._positions[sl]
            trail.restart()

    def _write_params(self, index: int) -> None:
        g = self.groups[index]
        w = g.wander
        row = self._table[index]
        row[kernel.DISTANCE] = w.distance
        row[kernel.RADIUS] = w.radius
        row[kernel.JITTER] = w.jitter
        row[kernel.RATE] = w.rate
        row[kernel.FREQUENCY] = w.frequency
        row[kernel.INTERVAL] = w.interval
        row[kernel.VERTICAL] = w.vertical
        row[kernel.MAX_SPEED] = g.max_speed
        row[kernel.MAX_FORCE] = g.max_force
        row[kernel.INVERSE_MASS] = 1.0 / g.mass
        row[kernel.METHOD] = traits(w.method).id
        row[kernel.DESIRED] = w.steering == "desired"
        row[kernel.TRAIL_CAPACITY], row[kernel.TRAIL_EVERY] = self._trail_layouts[index]
        row[kernel.TRAIL_BASE] = self._trail_bases[index]
        row[kernel.FIRST_AGENT] = self.group_slices[index].start
        row[kernel.GROUP_SIZE] = g.count
        row[kernel.STOP_TIME] = kernel.stop_time(g.max_force, g.mass)
        row[kernel.PITCH_DECAY], row[kernel.PITCH_KICK] = kernel.pitch_walk(
            w.rate, w.vertical, self.dt
        )

    def _init_method_state(self, index: int) -> None:
        """Draw the starting wander state of group `index` for its method."""
        sl = self.group_slices[index]
        n = self.groups[index].count
        state = traits(self.groups[index].wander.method).state
        rng = self._rng
        vertical = self._table[index, kernel.VERTICAL]
        heading = self._headings[sl]
        if state.framed:
            # The kernel carries a side vector only for framed methods: start a fresh frame.
            self._sides[sl] = _side_vectors(heading)
        if state is State.DIRECTION:
            self._wander_dirs[sl] = normalize(flatten_y(random_unit(rng, n), vertical), heading)
        elif state is State.ANGLES:
            yaw = rng.uniform(-np.pi, np.pi, n)
            # The pitch walk's stationary law: normal, reflected at the poles.
            pitch = rng.normal(0.0, kernel.PITCH_SPREAD * vertical, n)
            pitch = np.where(pitch > np.pi / 2, np.pi - pitch, pitch)
            pitch = np.where(pitch < -np.pi / 2, -np.pi - pitch, pitch)
            self._angles[sl] = np.stack([yaw, pitch], axis=1)
            self._wander_dirs[sl] = _direction_from_angles(
                self._angles[sl], heading, self._sides[sl]
            )
        elif state is State.NOISE:
            self._angles[sl] = 0.0  # the noise method keeps its wall-turn offsets here
            self._noise_keys[sl] = rng.integers(0, 2**63, size=(n, 2), dtype=np.uint64)
            self._noise_phase[sl] = rng.random((n, 2)) * 1024.0
            noise_time = self.time * self.groups[index].wander.frequency
            kernel.noise_directions(
                self._noise_keys[sl], self._noise_phase[sl], noise_time,
                vertical, heading, self._sides[sl], self._wander_dirs[sl],
            )  # fmt: skip
        elif state is State.SEEK_POINT:
            inner_low = self._low + self._margin
            inner_high = self._high - self._margin
            self._seek_targets[sl] = inner_low + rng.random((n, 3)) * (inner_high - inner_low)
            self._seek_timers[sl] = rng.random(n) * self.groups[index].wander.interval

    def _settle(self, index: int) -> None:
        """Draw group `index`'s headings and wander state from its steady state, measured.

        Runs SETTLE_AGENTS agents of the group in the scene's box for SETTLE_SECONDS (without
        settling them, or trails), snapshots the second half, and gives each agent a random
        snapshot turned about the vertical by a random angle (the walls' small preference
        among horizontal directions is not kept). Speeds and positions are left as drawn.
        """
        g = self.groups[index]
        sample = dataclasses.replace(g, count=SETTLE_AGENTS, trail_length=0)
        spec = RunSpec(
            seed=(self.seed * 1_000_003 + index + 1) % 2**32,
            dt=self.dt,
            enclosure=self.enclosure,
            groups=(sample,),
        )
        runner = Simulation(spec, steady_start=False, threads=self.threads)
        half = max(1, round(SETTLE_SECONDS / 2 / self.dt))
        runner.step(half)
        every = max(1, half // SETTLE_SNAPSHOTS)
        snaps: list[tuple[Array, ...]] = []
        for _ in range(SETTLE_SNAPSHOTS):
            runner.step(every)
            snaps.append(
                (runner._headings.copy(), runner._sides.copy(), runner._wander_dirs.copy(),
                 runner._angles.copy())
            )  # fmt: skip
        headings, sides, wander_dirs, angles = (np.concatenate(a) for a in zip(*snaps, strict=True))

        sl = self.group_slices[index]
        rng = self._rng
        pick = rng.integers(0, len(headings), g.count)
        turn = rng.uniform(-np.pi, np.pi, g.count)
        self._headings[sl] = _turn_about_y(headings[pick], turn)
        state = traits(g.wander.method).state
        if state.framed:
            self._sides[sl] = _turn_about_y(sides[pick], turn)
        if state is State.DIRECTION:
            self._wander_dirs[sl] = _turn_about_y(wander_dirs[pick], turn)
        elif state is State.ANGLES:
            self._angles[sl] = angles[pick]
            self._wander_dirs[sl] = _direction_from_angles(
                self._angles[sl], self._headings[sl], self._sides[sl]
            )
        elif state is State.NOISE:
            kernel.noise_directions(
                self._noise_keys[sl], self._noise_phase[sl], self.time * g.wander.frequency,
                g.wander.vertical, self._headings[sl], self._sides[sl], self._wander_dirs[sl],
            )  # fmt: skip

    def _switch_method_state(self, index: int, old: GroupParams) -> None:
        """Start group `index`'s new method from where its target is now, so it does not jump.

        From sphere, angle, noise or random the new method continues from the current wander
        direction (the shown target stays where it is, given the same distance and radius).
        To seek: the point sought is the shown target, clipped into the box inside the margin.
        From seek: the wander direction points from the sphere's centre to the sought point, so
        the target moves to the point of the wander sphere nearest it.
        """
        g = self.groups[index]
        sl = self.group_slices[index]
        n = g.count
        heading = self._headings[sl]
        old_state = traits(old.wander.method).state
        if old_state is State.SEEK_POINT:
            centre = self._positions[sl] + heading * g.wander.distance
            towards = self._seek_targets[sl] - centre
        else:
            towards = self._wander_dirs[sl]  # not unit after the random method at large dt
        w = normalize(towards, heading)
        self._wander_dirs[sl] = w
        state = traits(g.wander.method).state
        if state.framed:
            self._sides[sl] = _side_vectors(heading)
            side = self._sides[sl]
            up = np.cross(side, heading)
            yaw = np.arctan2(dot(w, side), dot(w, heading))
            pitch = np.arcsin(np.clip(dot(w, up), -1.0, 1.0))
            self._angles[sl] = np.stack([yaw, pitch], axis=1)
        if state is State.NOISE:
            rng = self._rng
            self._noise_keys[sl] = rng.integers(0, 2**63, size=(n, 2), dtype=np.uint64)
            self._noise_phase[sl] = rng.random((n, 2)) * 1024.0
            # Offsets (faded over 1/frequency s) that put the curves on the current target.
            kernel.noise_offsets(
                self._noise_keys[sl], self._noise_phase[sl], self.time * g.wander.frequency,
                g.wander.vertical, self._angles[sl],
            )  # fmt: skip
        elif state is State.SEEK_POINT:
            inner_low = self._low + self._margin
            inner_high = self._high - self._margin
            shown = self._positions[sl] + heading * old.wander.distance + w * old.wander.radius
            if old_state is State.SEEK_POINT:
                shown = self._seek_targets[sl]
            self._seek_targets[sl] = np.clip(shown, inner_low, inner_high)
            self._seek_timers[sl] = self._rng.random(n) * g.wander.interval

    def _place_targets(self) -> None:
        """Target points from the current positions, headings and wander directions."""
        kernel.place_targets(
            self.group_index, self._table, self._positions, self._headings,
            self._wander_dirs, self._seek_targets, self._targets,
        )  # fmt: skip

    def update_group(self, index: int, params: GroupParams) -> None:
        """Change group `index`'s parameters in the running simulation, from the next step.

        Anything but the FIXED_GROUP_FIELDS (`count`, `trail_length`, `trail_seconds`) may
        change; a new method starts from the current target (see `_switch_method_state`).
        Raises ValueError for those (they need a new Simulation).
        """
        old = self.groups[index]
        _check_fixed(old, params)
        groups = list(self.groups)
        groups[index] = params
        self.groups = tuple(groups)
        self._write_params(index)
        sl = self.group_slices[index]
        state = traits(params.wander.method).state
        if params.wander.method != old.wander.method:
            self._switch_method_state(index, old)
        elif state is State.NOISE:
            # The noise coordinate is time * frequency: keep it where it is now, or a new
            # frequency would move every agent to an unrelated point of its noise curve.
            self._noise_phase[sl] += self.time * (old.wander.frequency - params.wander.frequency)
        elif state is State.SEEK_POINT:
            # A shorter interval applies now, not after the current (longer) countdown.
            np.minimum(self._seek_timers[sl], params.wander.interval, out=self._seek_timers[sl])
        # Show the new geometry (distance, radius) at once, also while paused.
        self._place_targets()

    def adopt_groups(self, groups: tuple[GroupParams, ...]) -> None:
        """Make `groups` (the same counts and trails) the ones `reset` returns to.

        For when live edits become the scene, e.g. after saving them to a file.
        """
        for old, new in zip(self._initial_groups, groups, strict=True):
            _check_fixed(old, new)
        self._initial_groups = tuple(groups)

    def update_wander(self, index: int, **changes: Any) -> None:
        """Shorthand: `update_group` with some WanderParams fields of group `index` replaced."""
        group = self.groups[index]
        self.update_group(
            index, dataclasses.replace(group, wander=dataclasses.replace(group.wander, **changes))
        )

    # ------------------------------------------------------------------ stepping
    def step(self, n: int = 1) -> None:
        """Advance `n` fixed steps of `dt` seconds: one kernel call (however large n is), on
        `threads` threads."""
        self._advance(int(n), 0, _NO_SAMPLES, _NO_SAMPLES, _NO_SAMPLES)

    def step_sampled(
        self, every: int, positions: Array, velocities: Array, headings: Array
    ) -> None:
        """Advance k * `every` steps in one kernel call, recording the state after every
        `every`-th: positions, velocities and headings are C-contiguous (k, N, 3) float64
        arrays whose row j gets the state after (j + 1) * every steps, the values `positions`,
        `velocities` and `headings` would show then (the run is the same as stepping `every`
        steps k times)."""
        every = int(every)
        k = len(positions)
        if every < 1:
            raise ValueError(f"every must be at least 1, not {every}")
        for a in (positions, velocities, headings):
            if a.shape != (k, self.count, 3) or a.dtype != np.float64 or not a.flags.c_contiguous:
                raise ValueError(f"expected C-contiguous ({k}, {self.count}, 3) float64 arrays")
        self._advance(k * every, every, positions, velocities, headings)

    def _advance(
        self, n: int, every: int, positions: Array, velocities: Array, headings: Array
    ) -> None:
        """One kernel call of `n` steps, recording every `every` steps (0: none) into the
        (k, N, 3) arrays."""
        if n <= 0:
            return
        use_threads(self.threads)
        kernel.advance(
            n,
            self.step_count,
            self.dt,
            self._seed_key,
            self._low,
            self._high,
            self._margin,
            self.group_index,
            self._table,
            self._positions,
            self._velocities,
            self._headings,
            self._sides,
            self._wander_dirs,
            self._targets,
            self._forces,
            self._angles,
            self._noise_keys,
            self._noise_phase,
            self._seek_targets,
            self._seek_timers,
            self._pending_breaks,
            self._reflections,
            self._trail_points,
            self._trail_breaks,
            every,
            positions,
            velocities,
            headings,
        )
        self.step_count += n
        for trail in self._trails:
            trail.sync(self.step_count)

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
        """(N, 3) each agent's current wander target point (seek: the point it seeks).

        On the wander sphere for sphere, angle, noise, and random at dt up to 1/30 s (beyond
        it the random method's white-noise scaling puts its point inside the sphere).
        """
        return self._targets

    @property
    def wall_reflections(self) -> Array:
        """(N,) int64: in how many steps since the start each agent was reflected at a wall
        (containment failed to turn it in time)."""
        return self._reflections

    @property
    def wander_centers(self) -> Array:
        """(N, 3) centres of the wander spheres, `distance` ahead along the heading."""
        distance = self._table[self.group_index, kernel.DISTANCE]
        return self._positions + self._headings * distance[:, None]

    @property
    def wander_radii(self) -> Array:
        """(N,) wander sphere radii (units)."""
        return self._table[self.group_index, kernel.RADIUS]

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
            self._seek_timers, self._targets, self._forces, self._pending_breaks,
            self._reflections, self.group_index, self._table, self._trail_points,
            self._trail_breaks,
        )  # fmt: skip
        return sum(a.nbytes for a in state)

    # ------------------------------------------------------------------ snapshots
    #: Arrays fixed when the simulation is built: a snapshot need not copy them.
    _CONSTANT_ARRAYS = frozenset({"group_index", "_low", "_high", "_trail_bases"})

    def _state_arrays(self) -> dict[str, Array]:
        """Every state array by attribute name (all of them, so new state is never missed)."""
        return {
            name: value
            for name, value in vars(self).items()
            if isinstance(value, np.ndarray) and name not in self._CONSTANT_ARRAYS
        }

    def snapshot(self) -> Snapshot:
        """A copy of the whole state now: restore it (here or in a Simulation of the same
        scene) and stepping on gives the run bit for bit, trails and live edits included."""
        return Snapshot(
            arrays={name: a.copy() for name, a in self._state_arrays().items()},
            step_count=self.step_count,
            groups=self.groups,
            rng=copy.deepcopy(dict(self._rng.bit_generator.state)),
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Go back (or forward) to `snapshot`, taken from a Simulation of the same scene.

        Arrays are copied into place, so views of them (the trail buffers) stay valid; the
        trail buffers start a new generation so GPU mirrors upload them whole.
        """
        arrays = self._state_arrays()
        if arrays.keys() != snapshot.arrays.keys() or any(
            a.shape != snapshot.arrays[k].shape for k, a in arrays.items()
        ):
            raise ValueError("the snapshot is of a different scene")
        for name, saved in snapshot.arrays.items():
            np.copyto(arrays[name], saved)
        self.groups = snapshot.groups
        self.step_count = snapshot.step_count
        self._rng.bit_generator.state = copy.deepcopy(snapshot.rng)
        for trail in self._trails:
            trail.restart()
            trail.sync(self.step_count)


def _check_fixed(old: GroupParams, new: GroupParams) -> None:
    """Raise ValueError if `new` changes a field that sizes the simulation."""
    for key in FIXED_GROUP_FIELDS:
        if getattr(new, key) != getattr(old, key):
            raise ValueError(f"{key} cannot change in a running simulation")


def start_state(spec: RunSpec) -> Snapshot:
    """The state a run of `spec` starts from, as a copy: what its Simulation draws (numpy's
    generator and, for vertical < 1, the short settling run) and would hand over first."""
    return Simulation(spec, threads=1).snapshot()


def _turn_about_y(v: Array, angle: Array) -> Array:
    """(n, 3) rows turned by (n,) angles (radians) about the world up axis."""
    c, s = np.cos(angle), np.sin(angle)
    out = v.copy()
    out[:, 0] = c * v[:, 0] + s * v[:, 2]
    out[:, 2] = -s * v[:, 0] + c * v[:, 2]
    return out


def _fill(n: int, row: Array) -> Array:
    return np.broadcast_to(row, (n, 3))


def _side_vectors(headings: Array) -> Array:
    """Unit vectors perpendicular to each heading, horizontal where the heading allows."""
    return normalize(np.cross(headings, _WORLD_UP), perpendicular(headings))


def _direction_from_angles(angles: Array, heading: Array, side: Array) -> Array:
    """(n, 2) yaw/pitch in the agent frame (up = side x heading) -> (n, 3) unit directions."""
    yaw, pitch = angles[:, 0], angles[:, 1]
    up = np.cross(side, heading)
    cp = np.cos(pitch)
    return (
        (cp * np.cos(yaw))[:, None] * heading
        + (cp * np.sin(yaw))[:, None] * side
        + np.sin(pitch)[:, None] * up
    )
