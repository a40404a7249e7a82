"""The GDScript port: a core (wander.gd) that Godot 3.2 and Godot 4 both run, a Godot 4 node
adapter (adapter/) and conformance drivers run in godot3-server.

wander.gd, wander_csv.gd, conformance.gd, compose.gd and conformance.sh are real files: the
tests run them as they are here (with the default scene in the core's scene block) and as
`wander3d port --lang gdscript` writes them, in Godot 3.2's headless build, and parse and lint
every .gd file with gdtoolkit's Godot 4 grammar.
"""

from __future__ import annotations

import math
import re

from wander3d.port.language import Language
from wander3d.port.plan import GROUP_NUMBERS, PortPlan, group_numbers
from wander3d.port.readme import conformance_section, parameter_section

#: A plain decimal literal is read exactly by Godot's float parser (Tcl's strtod, not correctly
#: rounded) when it has at most this many digits, a trailing ".0" included: then it is one
#: exact integer scaled by one exact power of ten, a single rounding. Others are written as an
#: integer literal (exact in any parser) times powers of two.
_EXACT_DIGITS = 15
_TWO_62 = 2**62


def double_literal(x: float) -> str:
    """`x` as a GDScript expression that Godot 3 and 4 read as exactly this double: the
    shortest decimal where Godot's parser reads it exactly, else an integer literal times
    powers of two (exact arithmetic, folded when the script loads)."""
    if not math.isfinite(x):
        raise ValueError(f"{x} cannot be a parameter of a port")
    if x == 0.0 and math.copysign(1.0, x) < 0.0:
        return "0.0 * -1.0"  # Godot 3 reads the literal -0.0 as +0.0
    text = repr(float(x))
    digits = sum(c.isdigit() for c in text)
    if "e" not in text and digits <= _EXACT_DIGITS:
        return text
    mantissa, exponent = math.frexp(abs(x))
    m, k = int(mantissa * 2**53), exponent - 53
    while m % 2 == 0:
        m, k = m // 2, k + 1
    sign = "-" if x < 0 else ""
    if k >= 0:  # a whole number: exact as an int converted by arithmetic
        return f"{sign}{m} * 1.0" + "".join(f" * {p}" for p in _powers_of_two(k))
    return f"{sign}{m}" + "".join(f" * (1.0 / {p})" for p in _powers_of_two(-k))


def _powers_of_two(n: int) -> list[int]:
    """2^n as factors of at most 2^62 (int64 literals, exact)."""
    factors = []
    while n > 62:
        factors.append(_TWO_62)
        n -= 62
    return [*factors, 2**n]


def _string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def _vector(v: tuple[float, float, float]) -> str:
    return "[" + ", ".join(double_literal(x) for x in v) + "]"


def snake(name: str) -> str:
    """A port's camelCase parameter name (plan.GROUP_NUMBERS) as GDScript spells it."""
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def scene_block(plan: PortPlan) -> str:
    """`const SCENE = {...}` for the plan's scene (the core's scene block)."""
    s = plan.scene
    box = s.enclosure
    lines = [
        "const SCENE = {",
        f'\t"name": {_string(s.name)},',
        f'\t"seed": {s.seed},  # any integer in [0, 2^32): seeds every random number of the run',
        f'\t"dt": {double_literal(s.dt)},  # seconds per fixed step',
        '\t"box": {',
        f'\t\t"low": {_vector(box.min)},  # lowest corner (units)',
        f'\t\t"high": {_vector(box.max)},  # highest corner (units)',
        f'\t\t"margin": {double_literal(box.margin)},  # agents start turning back this far '
        "inside a wall (units)",
        "\t},",
        '\t"groups": [',
    ]
    for g in plan.groups:
        p, w = g.params, g.params.wander
        lines += [
            "\t\t{",
            f'\t\t\t"name": {_string(p.name)},',
            f'\t\t\t"count": {p.count},  # agents',
            f'\t\t\t"color": {_string(p.color)},  # for drawing (the adapter\'s MultiMesh)',
            '\t\t\t"params": {',
            f'\t\t\t\t"method": {_string(w.method)},  # sphere | angle | noise | seek | random',
            "\t\t\t\t# force: the vector to the target is the force; desired: velocity towards it",
            f'\t\t\t\t"steering": {_string(w.steering)},',
            *(
                f'\t\t\t\t"{snake(k)}": {double_literal(v)},  # {note}'
                for k, v, note in group_numbers(p)
            ),
            "\t\t\t},",
            "\t\t},",
        ]
    lines += ["\t],", "}"]
    return "\n".join(lines)


def method_ids(core: str) -> dict[str, int]:
    """The wander methods the core declares, name -> id: its METHODS list (ids are positions,
    which steer's branches look up) and its SPHERE.. constants (the branches); ValueError when
    the two disagree. For Language.method_ids (checked against the engine's METHOD_TABLE)."""
    listed = re.search(r"^const METHODS = \[(.*?)\]", core, re.M)
    if listed is None:
        raise ValueError("the core declares no METHODS")
    names = re.findall(r'"(\w+)"', listed.group(1))
    ids = {name: int(i) for name, i in re.findall(r"^const ([A-Z]+) = (\d+)$", core, re.M)}
    constants = {name.lower(): ids[name] for name in ids if name.lower() in names}
    if constants != {name: i for i, name in enumerate(names)}:
        raise ValueError(f"METHODS {names} and the method constants {ids} disagree")
    return constants


def readme(plan: PortPlan) -> str:
    """DIR/README.md of a GDScript port."""
    return README.format(
        name=plan.scene.name,
        agents=plan.agent_count,
        parameters=parameter_section(plan),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


#: The parameter names of WanderParams and of the scene block (GROUP_NUMBERS, snake_case).
PARAMETERS = ("method", "steering", *(snake(name) for name, _, _ in GROUP_NUMBERS))

README = """# {name}: wander3d's wander for Godot (GDScript)

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. Plain GDScript, no add-on.

| file | what |
|---|---|
| `wander.gd` | the core: the hosted `Flock` and the composable `Wander`; no engine API |
| `adapter/wander_flock_3d.gd` | `WanderFlock3D`, a Godot 4 `Node3D` drawing the flock |
| `adapter/wander_group_settings.gd` | `WanderGroupSettings`: a group in the inspector |
| `adapter/wander_view.gd` | the adapter's arithmetic (model frames, debug lines) |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.sh` | prints the run as CSV to check it against wander3d (godot3-server) |
| `conformance.gd`, `compose.gd`, `wander_csv.gd` | the two runs it prints and their CSV |
| `scene.toml` | the scene this was made from |

## Drop it into Godot 4

Copy this folder into your project (say `res://wander/`; keep `adapter/` beside `wander.gd`).
Add a **WanderFlock3D** node to a 3D scene (Add Child Node, search "WanderFlock3D") and run:
the scene's agents wander in its box, drawn as cones with one `MultiMeshInstance3D`. The
node's transform places the box (wander3d's origin at the node; scale it to resize).

- **Tune in the inspector**: `Groups` holds one `WanderGroupSettings` per group, filled with
  this scene's values when the node is added. Every field applies while the game runs (from the
  inspector's remote tree, an `AnimationPlayer`, a script); a new `method` keeps each agent's
  target where it is.
- **Your own model**: set `Agent Mesh` (drawn with the MultiMesh, coloured per group) or, for a
  few agents with their own scripts and animations, `Agent Scene` (one instance per agent). A
  model faces its -Z, as `look_at` turns nodes: wander3d's heading becomes the node's -Z and
  its up stays as close to +Y as the heading allows. wander3d's +y is Godot's +Y, and both are
  right-handed, so positions are used as they are.
- **Debug drawing**: `Debug Draw` draws the wander sphere, the line to the target and the
  target of the first `Debug Agents` agents, and the box, with an `ImmediateMesh`.
- **Exact start**: set `Start File` to `start.txt` for wander3d's own starting state; without
  it agents are spawned from the seed (the same in every port).

## Your own character: compose with a CharacterBody3D

The wander is a force your character adds to its own. Each physics tick, ask the behaviour for
it and combine it with your forces (here a seek towards the player), then move the body:

```gdscript
extends CharacterBody3D

const WanderCore = preload("res://wander/wander.gd")

@export var player: Node3D  # what it is drawn to
@export var wander_id := 0  # unique per character: picks its random stream
@export var mass := 1.0
@export var max_force := 60.0
var wander = WanderCore.Wander.new(WanderCore.WanderParams.new(WanderCore.SCENE.groups[0].params))
var agent
var here := [0.0, 0.0, 0.0]  # the body as the behaviour sees it: doubles, not Vector3
var moving := [0.0, 0.0, 0.0]


func _ready() -> void:
	_read_body()
	agent = wander.agent(wander_id, here, moving)


func _physics_process(delta: float) -> void:
	_read_body()
	wander.steer(agent, here, moving, delta)
	var force := Vector3(agent.force[0], agent.force[1], agent.force[2])
	force += global_position.direction_to(player.global_position) * 20.0  # your own seek
	velocity += force.limit_length(max_force) / mass * delta
	velocity.y -= 9.8 * delta  # and gravity, if it walks
	move_and_slide()
	if velocity.length_squared() > 1e-12:
		var facing := velocity.normalized()
		wander.follow(agent, [facing.x, facing.y, facing.z])


func _read_body() -> void:
	here = [global_position.x, global_position.y, global_position.z]
	moving = [velocity.x, velocity.y, velocity.z]
```

`steer` gives two forces: `agent.force`, the wander steering, and `agent.containment`, the
push of the behaviour's box (a `WanderCore.WanderBox`, -0 when it does not push; no box, no
push), which a character with its own walls leaves out. `follow` tells the behaviour where the
body now faces, so the wander target turns with it. `WanderCore.Wander.integrate(position,
velocity, force, params, dt, heading)` is wander3d's own vehicle model for characters without
physics, and `box.reflect(agent, position, velocity)` its hard wall. Agents come and go:
`wander.agent(id, ...)` for a new one (an id picks its random stream: the same id repeats its
wander), and dropping one is dropping its `WanderAgent`.

## Parameters

Each group's parameters are a `WanderParams` (`flock.groups[g].wander.params`; in the node:
the `WanderGroupSettings` of `Groups`), named as the scene file's keys; change them at any time
and they act from the next step. `flock.set_method(g, "noise")` switches a group's method with
each target kept where it is.

{parameters}
## Frame rate

The core steps in fixed steps of the scene's `dt` whatever the frame rate: `flock.update(delta)`
takes as many steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and
`position_at` / `heading_at` interpolate between the last two steps. 30 fps, 144 fps or a
hitch: the same paths. A composed character is stepped by your `_physics_process`.

## Identical, and where it may not be

GDScript's float is an IEEE double and its int a wrapping 64-bit integer in Godot 3 and 4, so
the core repeats wander3d's run bit for bit: the check below runs it in Godot 3.2. What breaks
it is leaving doubles: `Vector3` (and Godot 3's `PoolRealArray`) hold float32, so a character
moved by `move_and_slide` wanders as wander3d does but not to the last bit; and in Godot 3
`float(i)` or an int stored in a `float` variable rounds through float32 (the core converts by
arithmetic). The core's constants are written as integers over powers of two because Godot's
float literal parser is not correctly rounded.

{conformance}
`conformance.sh` runs `conformance.gd` (the hosted flock) or, with `--compose`, `compose.gd`
(the composable call, as a game loop drives it) in `godot3-server`, Godot 3.2's headless build
(`apt install godot3-server`; `GODOT=/path/to/godot3` for another); its project folder is
`build/` here. The drivers use Godot 3's `File`; the core itself runs in Godot 3.2 and 4.
"""

LANGUAGE = Language(
    name="gdscript",
    title="GDScript",
    package=__name__,
    core="wander.gd",
    sources=(
        "wander_csv.gd",
        "conformance.gd",
        "compose.gd",
        "conformance.sh",
        "adapter/wander_flock_3d.gd",
        "adapter/wander_group_settings.gd",
        "adapter/wander_view.gd",
    ),
    scene_block=scene_block,
    readme=readme,
    method_ids=method_ids,
    conformance="bash DIR/conformance.sh SECONDS SAMPLE_RATE > out.csv",
)
