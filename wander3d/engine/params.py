"""Parameters the engine runs on: frozen, already-validated dataclasses.

The scene layer builds these from TOML and validates every value; the engine trusts them.
Units: lengths in world units, time in seconds, angles in radians unless a name says degrees.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

STEERING_MODES = ("force", "desired")

#: The wander keys every method reads (the others: `methods.METHOD_KEYS`).
SHARED_WANDER_KEYS = ("method", "vertical", "steering")


@dataclass(frozen=True)
class WanderParams:
    """How one group wanders.

    method:     one of `methods.METHODS`.
    distance:   how far ahead of the agent the wander sphere's centre sits (units).
    radius:     the wander sphere's radius (units); with `distance` it sets how hard it can turn.
    jitter:     sphere: size of the random displacement (units/sqrt(s)); the target's direction
                (in the agent's frame) decorrelates, to 1/e, in 5 (radius/jitter)^2 seconds.
    rate:       angle: how fast the target's two angles random-walk (rad/sqrt(s)); its yaw
                decorrelates, to 1/e, in 6 / rate^2 seconds. Pitch reverts to level.
    frequency:  noise: how fast the coherent noise driving the target varies (1/s).
    interval:   seek: seconds between picks of a new random point of the enclosure.
    vertical:   0..1, scales up/down motion; 1 is isotropic, 0 keeps agents level. Agents start
                with headings from the steady state it leads to, so statistics have no
                start-up transient.
    steering:   "force": the vector to the target is the steering force (Reynolds);
                "desired": desired velocity towards the target at max speed, minus velocity.
    """

    method: str = "sphere"
    distance: float = 30.0
    radius: float = 12.0
    jitter: float = 10.0
    rate: float = 0.8
    frequency: float = 0.3
    interval: float = 4.0
    vertical: float = 1.0
    steering: str = "force"


#: Field metadata of the GroupParams fields that size a simulation's arrays.
_SIZES = {"sizes": True}


@dataclass(frozen=True)
class GroupParams:
    """One group of identical agents.

    count:          number of agents.
    color:          "#rrggbb" display colour (the engine ignores it).
    max_speed:      units/s.
    max_force:      force units (mass * units/s^2); the steering is truncated to this.
    mass:           > 0; acceleration = force / mass.
    initial_speed:  units/s along a random heading; None means max_speed / 2.
    trail_length:   at most this many trail points kept per agent; 0 disables the trail.
    trail_seconds:  how many seconds of path a trail shows, the same at any dt (see
                    `trails.trail_layout` for the points and the steps between them).

    The fields marked `_SIZES` size the simulation's arrays: a running simulation cannot
    change them (FIXED_GROUP_FIELDS).
    """

    count: int = field(metadata=_SIZES)
    name: str = "wanderers"
    color: str = "#ffb000"
    max_speed: float = 40.0
    max_force: float = 60.0
    mass: float = 1.0
    initial_speed: float | None = None
    trail_length: int = field(default=150, metadata=_SIZES)
    trail_seconds: float = field(default=5.0, metadata=_SIZES)
    wander: WanderParams = field(default_factory=WanderParams)

    @property
    def start_speed(self) -> float:
        return self.max_speed / 2 if self.initial_speed is None else self.initial_speed


#: The GroupParams fields a running simulation cannot change (they size its arrays), in field
#: order: a change to one needs a new Simulation. The scene schema, the session's edits and the
#: app's panel read this; it is declared on the fields above.
FIXED_GROUP_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(GroupParams) if f.metadata.get("sizes")
)


@dataclass(frozen=True)
class Enclosure:
    """Axis-aligned box the agents never leave.

    min, max:  corners (x, y, z) in units, min < max on every axis.
    margin:    width of the band inside each wall where containment turns agents back;
               less than half the smallest extent.
    """

    min: tuple[float, float, float] = (-100.0, -60.0, -100.0)
    max: tuple[float, float, float] = (100.0, 60.0, 100.0)
    margin: float = 15.0


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """Everything a Simulation runs from; `Scene.run_spec` gives a scene's.

    seed:       integer in [0, 2**32) seeding every random number of the run: the same spec
                gives the same run, bit for bit.
    dt:         seconds per fixed step, 0 < dt <= 0.1.
    enclosure:  the box the agents stay in.
    groups:     one or more groups, in agent order.
    """

    seed: int = 0
    dt: float = 1 / 60
    enclosure: Enclosure = field(default_factory=Enclosure)
    groups: tuple[GroupParams, ...]
