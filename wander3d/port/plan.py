"""What a port of a scene contains: its groups' parameters, its box and its exact start."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wander3d.engine import GroupParams, Layout, Snapshot, start_state
from wander3d.engine.methods import traits
from wander3d.scene import Scene, schema

#: The start state's doubles per agent, in start.txt's order (docs/ports.md, "Start"): the
#: array of the start state (a Simulation attribute's name) and its columns.
START_DOUBLES = (
    ("_positions", 3),
    ("_velocities", 3),
    ("_headings", 3),
    ("_sides", 3),
    ("_wander_dirs", 3),
    ("_angles", 2),
    ("_noise_phase", 2),
    ("_seek_targets", 3),
    ("_seek_timers", 1),
)
START_HEADER = "wander3d-start 1"


def camel_case(key: str) -> str:
    """A scene key as the ports name it: max_speed -> maxSpeed."""
    first, *rest = key.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _group_number(k: schema.Key, port: schema.PortNumber) -> tuple[str, str, str]:
    attribute = port.attribute or k.name
    owner = "wander." if k.table == "groups.wander" else ""
    return camel_case(k.name), owner + attribute, port.note


#: A group's numbers every port's scene block sets, in this order: the port's (camelCase)
#: name, the GroupParams attribute (wander.*: its WanderParams'), and the note beside it.
#: The rows of the parameter table with a `port` number (`schema.KEYS`), in its order.
GROUP_NUMBERS: tuple[tuple[str, str, str], ...] = tuple(
    _group_number(k, k.port)
    for table in ("groups", "groups.wander")
    for k in schema.keys_of(table).values()
    if k.port is not None
)


class PortError(ValueError):
    """A port cannot be made as asked (e.g. a group name the scene lacks); one line."""


@dataclass(frozen=True)
class GroupPort:
    """One group of the port: its engine parameters, its method's kernel id, its first agent."""

    params: GroupParams
    method_id: int
    first: int

    @property
    def name(self) -> str:
        return self.params.name


def group_numbers(params: GroupParams) -> list[tuple[str, float, str]]:
    """(camelCase name, value, note) of each of `params`' GROUP_NUMBERS, in order."""
    numbers = []
    for name, key, note in GROUP_NUMBERS:
        owner, _, attribute = key.rpartition(".")
        numbers.append((name, getattr(params.wander if owner else params, attribute), note))
    return numbers


@dataclass(frozen=True)
class PortPlan:
    """A port of `scene` (already restricted to the port's groups).

    groups:  one per group, in agent order;
    start:   start.txt's text: every agent's state at step 0, exact (docs/ports.md).
    """

    scene: Scene
    groups: tuple[GroupPort, ...]
    start: str

    @property
    def agent_count(self) -> int:
        return self.scene.agent_count


def restrict(scene: Scene, names: list[str] | None) -> Scene:
    """`scene` with only the groups named (in the scene's order); all of them for None or [].

    Raises PortError naming the scene's groups for a name it lacks.
    """
    if not names:
        return scene
    known = [g.name for g in scene.groups]
    missing = [n for n in names if n not in known]
    if missing:
        listed = ", ".join(repr(n) for n in known)
        raise PortError(f"scene {scene.name!r} has no group {missing[0]!r} (groups: {listed})")
    return scene.replace(groups=tuple(g for g in scene.groups if g.name in names))


def plan_port(scene: Scene, names: list[str] | None = None) -> PortPlan:
    """The port of `scene`'s groups `names` (all for None): parameters and the engine's start.

    The start is the engine's own (numpy's generator and, for vertical < 1, a short settling
    run), read from a fresh Simulation; ports start from it rather than re-implement numpy.
    """
    scene = restrict(scene, names)
    layout = Layout.of(scene.run_spec)
    groups = tuple(
        GroupPort(g, traits(g.wander.method).id, sl.start)
        for g, sl in zip(scene.groups, layout.group_slices, strict=True)
    )
    return PortPlan(scene, groups, start_text(start_state(scene.run_spec), layout))


def start_text(start: Snapshot, layout: Layout) -> str:
    """start.txt of a run's `start` state, shaped as `layout`: a line per agent of hex
    doubles (docs/ports.md)."""
    arrays, count = start.arrays, layout.count
    doubles = np.concatenate(
        [arrays[name].reshape(count, width) for name, width in START_DOUBLES], axis=1
    ).astype(np.float64)
    bits = doubles.view(np.uint64)
    keys = arrays["_noise_keys"].astype(np.uint64)
    lines = [START_HEADER, f"agents {count}"]
    for i in range(count):
        fields = [str(int(layout.group_index[i]))]
        fields += [f"{int(b):016x}" for b in bits[i]]
        fields += [f"{int(k):016x}" for k in keys[i]]
        lines.append(" ".join(fields))
    return "\n".join(lines) + "\n"


def double_literal(x: float) -> str:
    """`x` as a decimal literal every port language reads back to the same double (Python's
    shortest round-trip repr, with a point or exponent so it is never an integer literal)."""
    text = repr(float(x))
    if not np.isfinite(x):
        raise PortError(f"{x} cannot be a parameter of a port")
    return text if any(c in text for c in ".e") else text + ".0"
