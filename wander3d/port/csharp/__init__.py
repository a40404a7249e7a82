"""The C# port: one core file (Wander.cs), a Unity MonoBehaviour adapter and a Mono driver.

Wander.cs and Conformance.cs are real files: the tests compile and run them as they are here
(with the default scene in the core's scene block) and as `wander3d port --lang csharp` writes
them. The core is C# 7.3 on the .NET standard library only, so Unity (Mono and IL2CPP), Godot 4's
C# and plain .NET all build it.
"""

from __future__ import annotations

from wander3d.port.language import Language, declared_ids
from wander3d.port.plan import PortPlan, double_literal, group_numbers
from wander3d.port.readme import conformance_section, parameter_section

#: Scene keys -> the C# parameter object's field names.
SPELLING = {
    "max_speed": "MaxSpeed",
    "max_force": "MaxForce",
    "mass": "Mass",
    "method": "Method",
    "distance": "Distance",
    "radius": "Radius",
    "jitter": "Jitter",
    "rate": "Rate",
    "frequency": "Frequency",
    "interval": "Interval",
    "vertical": "Vertical",
    "steering": "Steering",
}


def _string(text: str) -> str:
    """A C# string literal of `text` (\\uXXXX escapes beyond printable ASCII, so any compiler's
    source encoding reads it alike)."""
    out = []
    utf16 = text.encode("utf-16-le")
    for unit in (int.from_bytes(utf16[i : i + 2], "little") for i in range(0, len(utf16), 2)):
        char = chr(unit)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= unit < 127:
            out.append(char)
        else:
            out.append(f"\\u{unit:04x}")
    return '"' + "".join(out) + '"'


def _vector(v: tuple[float, float, float]) -> str:
    return "new Double3(" + ", ".join(double_literal(x) for x in v) + ")"


def _enum(name: str, value: str) -> str:
    return f"{name}.{value.capitalize()}"


def scene_block(plan: PortPlan) -> str:
    """`public static class WanderScene { Create() }` for the plan's scene (the core's scene
    block; not `Scene`, which would clash with UnityEngine.SceneManagement.Scene)."""
    s = plan.scene
    box = s.enclosure
    lines = [
        "    public static class WanderScene",
        "    {",
        "        public static SceneSpec Create()",
        "        {",
        "            return new SceneSpec",
        "            {",
        f"                Name = {_string(s.name)},",
        f"                Seed = {s.seed}, // any integer in [0, 2^32): seeds every random "
        "number of the run",
        f"                Dt = {double_literal(s.dt)}, // seconds per fixed step",
        "                Box = new WanderBox(",
        f"                    {_vector(box.min)}, // lowest corner (units)",
        f"                    {_vector(box.max)}, // highest corner (units)",
        f"                    {double_literal(box.margin)} // margin: agents start turning back "
        "this far inside a wall (units)",
        "                ),",
        "                Groups = new[]",
        "                {",
    ]
    for g in plan.groups:
        p, w = g.params, g.params.wander
        lines += [
            "                    new GroupSpec",
            "                    {",
            f"                        Name = {_string(p.name)},",
            f"                        Count = {p.count}, // agents",
            "                        Params = new WanderParams",
            "                        {",
            f"                            Method = {_enum('WanderMethod', w.method)},",
            f"                            Steering = {_enum('Steering', w.steering)},",
            *(  # C# properties are PascalCase
                f"                            {k[0].upper()}{k[1:]} = {double_literal(v)}, "
                f"// {note}"
                for k, v, note in group_numbers(p)
            ),
            "                        },",
            "                    },",
        ]
    lines += [
        "                },",
        "            };",
        "        }",
        "    }",
    ]
    return "\n".join(lines)


def readme(plan: PortPlan) -> str:
    """DIR/README.md of a C# port."""
    return README.format(
        name=plan.scene.name,
        agents=plan.agent_count,
        first=plan.groups[0].name,
        character=CHARACTER,
        hosted=HOSTED,
        parameters=parameter_section(plan, SPELLING),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


#: A Unity character of the game's own that wanders and also seeks: the composable call in
#: FixedUpdate (tests/test_port_csharp.py compiles it against its stand-in UnityEngine).
CHARACTER = """using UnityEngine;
using Wander3d;

// A character of your own: it wanders, and is drawn to a point of interest by your own seek.
// wander3d gives the wander force; the character adds its other forces and integrates.
public class Wanderer : MonoBehaviour
{
    public Transform interest; // optional: seek it as well
    [Range(0f, 2f)] public float pull = 0.5f; // the seek's weight beside the wander
    public float units = 0.1f; // metres per wander3d unit

    static Wander kind; // one per kind of character, shared by all of them
    static long nextId; // each agent's random stream is its id's
    WanderAgent agent;
    Double3 position, velocity; // wander3d's frame: units, +y up, right-handed

    void Awake()
    {
        if (kind == null)
        {
            SceneSpec scene = WanderScene.Create();
            kind = new Wander(scene.Groups[0].Params, scene.Seed, scene.Box);
        }
        position = FromUnity(transform.position);
        Vector3 f = transform.forward;
        velocity = new Double3(f.x, f.y, -f.z) * kind.Params.InitialSpeed; // z negated, as below
        agent = kind.Agent(nextId++, position, velocity);
    }

    // Fixed steps: with Time.fixedDeltaTime at the scene's dt the wander repeats wander3d's.
    void FixedUpdate()
    {
        double dt = Time.fixedDeltaTime;
        kind.Steer(agent, position, velocity, dt);
        Double3 force = agent.Force + agent.Containment; // this sum first, then your own
        if (interest != null)
            force = force + Seek(FromUnity(interest.position)) * pull;
        Double3 heading;
        if (Wander.Integrate(ref position, ref velocity, force, kind.Params, dt, out heading))
            kind.Follow(agent, heading);
        kind.Box.Reflect(agent, ref position, ref velocity); // the scene's walls
        Vector3 forward = ToUnity(agent.Heading);
        transform.SetPositionAndRotation(ToUnity(position), Quaternion.LookRotation(forward));
    }

    // Reynolds' seek: the desired velocity towards the point at full speed, less the velocity.
    Double3 Seek(Double3 point)
    {
        Double3 desired = point - position;
        double distance = desired.Length;
        if (distance < 1e-9)
            return new Double3();
        return desired * (kind.Params.MaxSpeed / distance) - velocity;
    }

    // Unity is left-handed, wander3d right-handed (both +y up): z changes sign.
    Double3 FromUnity(Vector3 v)
    {
        return new Double3(v.x / units, v.y / units, -v.z / units);
    }

    Vector3 ToUnity(Double3 v)
    {
        return new Vector3((float)(v.X * units), (float)(v.Y * units), (float)(-v.Z * units));
    }
}
"""

#: The hosted flock from a script of one's own (tests/test_port_csharp.py compiles it).
HOSTED = """using UnityEngine;
using Wander3d;

public class FlockFromCode : MonoBehaviour
{
    public TextAsset startState; // optional: start.txt, wander3d's exact start
    Flock flock;

    void Awake()
    {
        SceneSpec scene = WanderScene.Create();
        flock = startState != null ? new Flock(scene, startState.text) : new Flock(scene);
        flock.Groups[0].Params.Jitter = 14.0; // any parameter, at any time: from the next step
        flock.SetMethod(0, WanderMethod.Noise); // each target stays where it is
    }

    void Update()
    {
        double alpha = flock.Update(Time.deltaTime); // fixed-dt steps, then draw between two
        for (int i = 0; i < flock.Count; i++)
        {
            Double3 p = flock.PositionAt(i, alpha); // wander3d's frame: Unity's z is -p.Z
            Double3 heading = flock.Agents[i].Heading; // unit
        }
    }
}
"""

README = """# {name}: wander3d's wander for C# (Unity, Godot 4 .NET, any .NET)

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. .NET standard library only.

| file | what |
|---|---|
| `Wander.cs` | the core: namespace `Wander3d`, C# 7.3, no engine API; `WanderScene.Create()` |
| `adapter/WanderFlock.cs` | a Unity component: Inspector parameters, instanced drawing, Gizmos |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.sh`, `*.cs` drivers | the check against wander3d (`mcs`, `mono`); not for a game |
| `scene.toml` | the scene this was made from |

The core has two ways in, built on the same functions (so they cannot drift): the **hosted
flock** (`Flock`: the scene's agents, stepped for you) and the **composable call** (`Wander`:
a wander force for your own characters, beside their other forces).

## Unity: the hosted flock

Copy `Wander.cs` and `adapter/WanderFlock.cs` into `Assets/` (any folder). Add the component
(Add Component > wander3d > Wander Flock) to an empty GameObject and give each group:

* for **Drawing: Instanced** (the default; thousands of agents, no GameObjects) a `Mesh` (+z
  forward, +y up) and a `Material` with *Enable GPU Instancing* ticked: the agents are drawn
  with `Graphics.RenderMeshInstanced`, 1,023 a call;
* for **Drawing: Objects** (a GameObject per agent: colliders, scripts, animation) a `Prefab`.

Each group's parameters show in the Inspector under its name, with the scene file's words as
tooltips, and act at once while playing (a method change continues each agent from where its
target is); `Count` acts when play starts. The component's transform places the box: wander3d's
origin at its position, `Units` metres per wander3d unit (default 0.1: the default 200-unit box
is 20 m wide). Optional, wander3d's exact start: put `start.txt` in the project (a `TextAsset`)
and drag it onto `Start State`; a start that does not fit the scene is logged
(`Debug.LogError`) and the agents spawn from the seed instead. Selected, the component draws
the box and every wander sphere and target with Gizmos (enable Gizmos in the Game view to see
them while playing).

Frames: wander3d is right-handed, Unity left-handed, both +y up. A wander3d point or
direction (x, y, z) is Unity's (x, y, -z); the adapter converts, and only it: the core runs in
wander3d's frame, so the run stays wander3d's.

From a script of your own:

```csharp
{hosted}```

## Compose it with your own steering

The composable call gives a wander **force** per agent, as Yuka, OpenSteer and gdx-ai do; your
character adds it to its own forces (seek, avoidance, separation...) and integrates, with
wander3d's vehicle model (`Wander.Integrate`) or its own physics. One `Wander` per kind of
character (its `WanderParams`, the seed, the box or none), one `WanderAgent` per character,
made and dropped at any time (`kind.Agent(id, position, velocity)`; an id is any integer in
[0, 2^53) unique among the live agents, and its random stream is its own, so the others' runs
do not change when agents come and go). Per character, once per fixed tick, in this order:

1. `kind.Steer(agent, position, velocity, dt)` gives `agent.Force` (the wander steering) and
   `agent.Containment` (the box pushing it back from its walls; (-0, -0, -0) when it does not).
2. `agent.Force + agent.Containment`, that sum first (it is wander3d's force, bit for bit), then
   your own forces.
3. `Wander.Integrate(ref position, ref velocity, force, kind.Params, dt, out heading)`: truncate
   to `MaxForce`, accelerate by force / `Mass`, clamp to `MaxSpeed`, move; false when the agent
   does not move. With physics of your own, integrate yourself and take the heading from the
   velocity.
4. `kind.Follow(agent, heading)` when it moved: the wander frame turns with the agent.
5. `kind.Box.Reflect(agent, ref position, ref velocity)`: the hard walls (skip it with
   collisions of your own).

A Unity character with group {first!r}'s parameters that wanders and seeks a point of interest:

```csharp
{character}```

Call it from a fixed tick (`FixedUpdate`; Godot's `_PhysicsProcess`), with
`Time.fixedDeltaTime` (Project Settings > Time > Fixed Timestep) at the scene's dt: the
agents then step as wander3d's do, and `Compose.cs`, which drives wander3d's start this way,
repeats wander3d's run bit for bit. A varying dt works (the derived constants follow it) but
gives another run.

## Godot 4 (.NET)

`Wander.cs` builds unchanged in a Godot 4 .NET project: call the composable call from a
`CharacterBody3D`'s `_PhysicsProcess(double delta)` (Godot, like wander3d, is right-handed with
+y up: no conversion), or step a `Flock` in `_Process` and place a `MultiMeshInstance3D`'s
instances. `adapter/WanderFlock.cs` is Unity's. For GDScript, wander3d writes a port of its own
(`wander3d port --lang gdscript`).

## Parameters

Each group's parameters are `flock.Groups[g].Params` (a `WanderParams`; `kind.Params` of a
`Wander`), named after the scene file's keys. Change them at any time (the Inspector, a game
state): they act from the next step, and a value outside its range throws
`ArgumentOutOfRangeException` naming it. A new noise `Frequency` keeps each agent's place on
its noise curves and a shorter seek `Interval` applies at once, as in wander3d's app. Change
the method with `flock.SetMethod(g, WanderMethod.Noise)` (for your own agents: set
`kind.Params.Method`, then `kind.ContinueFrom(agent, position, previous, dt)` for each): each
target stays where it is and the new method continues from there.

{parameters}
## Debug drawing: the wander sphere and target

`flock.WanderSphere(i, out centre)` returns agent i's wander sphere's radius (0 for seek) and
its centre, `flock.TargetOf(i)` its target (for your own agents:
`kind.WanderSphere(agent, position, out centre)` and `kind.ShownTarget(agent, position)`). The
Unity adapter draws both with Gizmos.

## Identical, and what breaks it

The core is plain IEEE double arithmetic in wander3d's order of operations, with wander3d's
own sin, cos, atan2, asin and exp; Mono's and .NET's JITs neither fuse multiply-adds nor
reorder it, so the check below passes bit for bit, with both drivers.

* **Unity IL2CPP** translates C# to C++ for the platform's C++ compiler, and clang may fuse
  `a * b + c` into one multiply-add where the CPU has one (ARM64: iOS, Android, Apple silicon),
  which changes the last bits and, over minutes, the paths. For identity, an editor script sets
  before building
  `PlayerSettings.SetAdditionalIl2CppArgs("--compiler-flags=\\"-ffp-contract=off\\"");`
  (clang and GCC platforms; Unity calls additional IL2CPP arguments experimental). MSVC's
  default `/fp:precise` does not fuse; `/fp:fast` does.
* **Fast math breaks it**: `-ffast-math`, `/fp:fast`, Burst's `FloatMode.Fast` (it allows
  reordering, reciprocals and fused multiply-adds; Burst does not compile the core's classes
  as they are, and a Burst version must keep Burst's default, `FloatMode.Strict`), and editing
  `Wander.cs` so that an expression's order changes, a `float` enters the chain or
  `Math.FusedMultiplyAdd` appears.
* The run follows dt: a varying step gives another run, with the same behaviour.

{conformance}"""


LANGUAGE = Language(
    name="csharp",
    title="C#",
    package=__name__,
    core="Wander.cs",
    sources=("Conformance.cs", "Compose.cs", "conformance.sh", "adapter/WanderFlock.cs"),
    scene_block=scene_block,
    readme=readme,
    conformance="bash DIR/conformance.sh SECONDS SAMPLE_RATE > out.csv",
    method_ids=declared_ids("enum WanderMethod"),
)
