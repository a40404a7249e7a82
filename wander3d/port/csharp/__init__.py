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
    return "new[] { " + ", ".join(double_literal(x) for x in v) + " }"


def _enum(name: str, value: str) -> str:
    return f"{name}.{value.capitalize()}"


def scene_block(plan: PortPlan) -> str:
    """`public static class Scene { Create() }` for the plan's scene (the core's scene block)."""
    s = plan.scene
    box = s.enclosure
    lines = [
        "    public static class Scene",
        "    {",
        "        public static SceneSpec Create()",
        "        {",
        "            return new SceneSpec",
        "            {",
        f"                Name = {_string(s.name)},",
        f"                Seed = {s.seed}, // any integer in [0, 2^32): seeds every random "
        "number of the run",
        f"                Dt = {double_literal(s.dt)}, // seconds per fixed step",
        f"                BoxMin = {_vector(box.min)}, // lowest corner (units)",
        f"                BoxMax = {_vector(box.max)}, // highest corner (units)",
        f"                Margin = {double_literal(box.margin)}, // agents start turning back "
        "this far inside a wall (units)",
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
            "                        Params = new GroupParams",
            "                        {",
            f"                            Method = {_enum('WanderMethod', w.method)},",
            f"                            Steering = {_enum('Steering', w.steering)},",
            *(  # C# fields are PascalCase
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
        parameters=parameter_section(plan, SPELLING),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


README = """# {name}: wander3d's wander for C# (Unity, Godot 4 C#, .NET)

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. .NET standard library only.

| file | what |
|---|---|
| `Wander.cs` | the core: namespace `Wander3d`, C# 7.3, no engine API |
| `adapter/WanderFlock.cs` | a Unity `MonoBehaviour`: one `Transform` per agent, Gizmos |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `Conformance.cs` | prints the run as CSV, to check against wander3d (`mcs` + `mono`) |
| `scene.toml` | the scene this was made from |

## Drop it into Unity

Copy `Wander.cs` and `adapter/WanderFlock.cs` into `Assets/` (any folder). Add a `WanderFlock`
component to an empty GameObject, give it an agent prefab (its +z is its forward), press Play.
The component's transform places the box: its position is wander3d's origin, one wander3d unit
is `Units` metres (default 0.1, so the default 200-unit box is 20 m wide).

Optional, wander3d's exact start: put `start.txt` in the same folder as a `TextAsset` and drag it
onto the component's `Start State` field.

From code (any C# engine):

```csharp
using Wander3d;

var flock = new Flock(Scene.Create());            // or new Flock(Scene.Create(), startText)
// every frame:
double alpha = flock.Update(deltaSeconds);        // fixed-dt steps, alpha for drawing
for (int i = 0; i < flock.Count; i++)
{{
    flock.PositionAt(i, alpha, out double x, out double y, out double z);
    // heading: flock.Heading[3 * i .. 3 * i + 2] (unit vector), +y up
}}
```

## Godot 4 (C#)

Godot users get this C# port (there is no GDScript port: its core could not be checked against
wander3d here). `Wander.cs` builds unchanged in a Godot 4 .NET project. For the adapter, change
three things in `WanderFlock.cs`: derive from `Node3D` instead of `MonoBehaviour`, rename
`Update()` to `public override void _Process(double delta)` and use `delta` for
`Time.deltaTime`, and place each agent with `agent.GlobalPosition = new Vector3(...)` and
`agent.LookAt(...)` (Godot's forward is -z); draw the debug sphere with an `ImmediateMesh` or
a `DebugDraw3D` add-on instead of Gizmos.

## Frame rate

The core steps in fixed steps of `Dt` s, whatever the frame rate: `Update(delta)` takes as many
steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and draws each
agent interpolated between its last two steps. 30 fps, 144 fps or a hitch: the same paths.

## Parameters

Each group's parameters are `flock.Groups[g].Params` (a `GroupParams`), named after the scene
file's keys; change them at any time (from the Inspector, a game state) and they act from the
next step. Change the method with `flock.SetMethod(g, WanderMethod.Noise)`: each agent's target
stays where it is and the new method continues from there (as in wander3d's app).

{parameters}
## Debug drawing: the wander sphere and target

`flock.WanderSphere(i, out x, out y, out z)` returns agent i's wander sphere's radius (0 for
seek) and its centre; `flock.Target` holds every agent's target (`[3i, 3i+1, 3i+2]`), both
after the last step. The Unity adapter draws both with `Gizmos` (`OnDrawGizmosSelected`: select
the GameObject in the editor; enable Gizmos in the Game view to see them while playing).

## Identical, and where it may not be

Mono and .NET's JIT compile `Wander.cs` to plain IEEE double arithmetic: the conformance check
below passes bit for bit. Unity's IL2CPP translates C# to C++; a C++ compiler that fuses
multiply-adds (some ARM builds) changes the last bits of a run, not its behaviour.

{conformance}"""

LANGUAGE = Language(
    name="csharp",
    title="C#",
    package=__name__,
    core="Wander.cs",
    sources=("Conformance.cs", "adapter/WanderFlock.cs"),
    scene_block=scene_block,
    readme=readme,
    conformance=(
        "mcs -out:DIR/conformance.exe DIR/*.cs && mono DIR/conformance.exe SECONDS SAMPLE_RATE "
        "> out.csv"
    ),
    method_ids=declared_ids("enum WanderMethod"),
)
