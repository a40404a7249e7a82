"""The C++ port: a header-only core (wander.hpp), an Unreal component adapter and a driver.

wander.hpp and conformance.cpp are real files: the tests compile and run them as they are here
(with the default scene in the core's scene block) and as `wander3d port --lang cpp` writes
them. The core is C++17 on the standard library only, with no exceptions (game engines build
without them); the adapter needs Unreal Engine and is not compiled here.
"""

from __future__ import annotations

from wander3d.port.language import Language, declared_ids
from wander3d.port.plan import PortPlan, double_literal, group_numbers
from wander3d.port.readme import conformance_section, parameter_section

#: Scene keys -> the C++ parameter struct's member names.
SPELLING = {"max_speed": "maxSpeed", "max_force": "maxForce"}


def _string(text: str) -> str:
    """A C++ string literal of `text`'s UTF-8 bytes (octal escapes beyond printable ASCII, so
    any compiler's source charset reads it alike)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _vector(v: tuple[float, float, float]) -> str:
    return "{" + ", ".join(double_literal(x) for x in v) + "}"


def scene_block(plan: PortPlan) -> str:
    """`inline SceneSpec scene()` for the plan's scene (the core's scene block)."""
    s = plan.scene
    box = s.enclosure
    lines = [
        "inline SceneSpec scene() {",
        "    SceneSpec s;",
        f"    s.name = {_string(s.name)};",
        f"    s.seed = {s.seed};  // any integer in [0, 2^32): seeds every random number of "
        "the run",
        f"    s.dt = {double_literal(s.dt)};  // seconds per fixed step",
        f"    s.boxMin = {_vector(box.min)};  // lowest corner (units)",
        f"    s.boxMax = {_vector(box.max)};  // highest corner (units)",
        f"    s.margin = {double_literal(box.margin)};  // agents start turning back this far "
        "inside a wall (units)",
    ]
    for g in plan.groups:
        p, w = g.params, g.params.wander
        lines += [
            "    {",
            "        GroupSpec g;",
            f"        g.name = {_string(p.name)};",
            f"        g.count = {p.count};  // agents",
            f"        g.params.method = Method::{w.method.capitalize()};",
            f"        g.params.steering = Steering::{w.steering.capitalize()};",
            *(
                f"        g.params.{k} = {double_literal(v)};  // {note}"
                for k, v, note in group_numbers(p)
            ),
            "        s.groups.push_back(g);",
            "    }",
        ]
    lines += ["    return s;", "}"]
    return "\n".join(lines)


def readme(plan: PortPlan) -> str:
    """DIR/README.md of a C++ port."""
    return README.format(
        name=plan.scene.name,
        agents=plan.agent_count,
        parameters=parameter_section(plan, SPELLING),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


README = """# {name}: wander3d's wander for C++ (Unreal Engine, any engine)

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. C++17 standard library only,
header only, no exceptions.

| file | what |
|---|---|
| `wander.hpp` | the core: namespace `wander3d`, no engine API |
| `adapter/WanderComponent.h`, `.cpp` | an Unreal `UActorComponent`: instanced meshes, debug draw |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.cpp` | prints the run as CSV, to check against wander3d (`g++`) |
| `scene.toml` | the scene this was made from |

## Drop it into Unreal Engine 5

Copy `wander.hpp`, `adapter/WanderComponent.h` and `adapter/WanderComponent.cpp` into your game
module's source folder (e.g. `Source/MyGame/Wander/`), replace `MYGAME_API` in the header by
your module's API macro, and build. Add a **Wander** component to an actor, set its `Agent
Mesh` (its +X is its forward) and press Play. The actor's transform places the box: wander3d's
origin is the actor, one wander3d unit is `Units To Cm` centimetres (default 10), and
wander3d's up (+y) is Unreal's +Z.

Optional, wander3d's exact start: set `Start File` to `start.txt` (copied into `Content/`).

From code (any C++ engine):

```cpp
#include "wander.hpp"

wander3d::Flock flock(wander3d::scene());          // spawned in the scene's box
// every frame:
double alpha = flock.update(deltaSeconds);          // fixed-dt steps, alpha for drawing
for (int i = 0; i < flock.count; i++) {{
    double x, y, z;
    flock.positionAt(i, alpha, x, y, z);             // +y up
    // heading: flock.heading[3 * i .. 3 * i + 2] (unit vector)
}}
```

Build flags: no fused multiply-add, or the run drifts from wander3d's in the last bits (not in
behaviour). `wander.hpp` turns contraction off for Clang and MSVC by pragma; with GCC pass
`-ffp-contract=off`. Never `-ffast-math` for this file.

## Frame rate

The core steps in fixed steps of `dt` s, whatever the frame rate: `update(delta)` takes as many
steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and draws each
agent interpolated between its last two steps. 30 fps, 144 fps or a hitch: the same paths.

## Parameters

Each group's parameters are `flock.groups[g].params` (a `GroupParams`), named after the scene
file's keys; change them at any time and they act from the next step. Change the method with
`flock.setMethod(g, wander3d::Method::Noise)`: each agent's target stays where it is and the new
method continues from there (as in wander3d's app).

{parameters}
## Debug drawing: the wander sphere and target

`flock.wanderSphere(i, x, y, z)` returns agent i's wander sphere's radius (0 for seek) and sets
its centre; `flock.target` holds every agent's target (`[3i, 3i+1, 3i+2]`), both after the last
step. The Unreal component draws them with `DrawDebugSphere` and `DrawDebugPoint` when its
`Debug Draw` box is ticked (development builds).

{conformance}"""

LANGUAGE = Language(
    name="cpp",
    title="C++",
    package=__name__,
    core="wander.hpp",
    sources=("conformance.cpp", "adapter/WanderComponent.h", "adapter/WanderComponent.cpp"),
    scene_block=scene_block,
    readme=readme,
    conformance=(
        "g++ -std=c++17 -O2 -ffp-contract=off DIR/*.cpp -o DIR/conformance && DIR/conformance "
        "SECONDS SAMPLE_RATE > out.csv"
    ),
    method_ids=declared_ids("enum class Method"),
)
