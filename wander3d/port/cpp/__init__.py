"""The C++ port: a header-only core (wander.hpp), an Unreal component adapter and a driver.

wander.hpp and conformance.cpp are real files: the tests compile and run them as they are here
(with the default scene in the core's scene block) and as `wander3d port --lang cpp` writes
them. The core is C++17 on the standard library only, with no exceptions (game engines build
without them); the adapter needs Unreal Engine and is not compiled here.
"""

from __future__ import annotations

import re

from wander3d.port.language import Language
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
        f"    s.box.min = {_vector(box.min)};  // lowest corner (units)",
        f"    s.box.max = {_vector(box.max)};  // highest corner (units)",
        f"    s.box.margin = {double_literal(box.margin)};  // agents start turning back this far "
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


def method_ids(core: str) -> dict[str, int]:
    """`Language.method_ids` for wander.hpp: name -> id of each wander method in `core`'s
    `enum class Method` (`Sphere = 0`, ...), which must agree with its METHOD_NAMES (the names
    the header reads a scene's method by)."""
    enum = re.search(r"enum class Method \{(.*?)\};", core, re.DOTALL)
    names = re.search(r"METHOD_NAMES\[\] = \{(.*?)\};", core, re.DOTALL)
    if enum is None or names is None:
        raise ValueError("wander.hpp has no enum class Method or METHOD_NAMES")
    members = sorted((int(i), m) for m, i in re.findall(r"(\w+) = (\d+),", enum.group(1)))
    spelled = re.findall(r'"(\w+)"', names.group(1))
    if [m.lower() for _, m in members] != spelled or [i for i, _ in members] != list(
        range(len(spelled))
    ):
        raise ValueError(f"wander.hpp's Method {members} and METHOD_NAMES {spelled} disagree")
    return {name: i for i, name in enumerate(spelled)}


def readme(plan: PortPlan) -> str:
    """DIR/README.md of a C++ port."""
    return README.format(
        name=plan.scene.name,
        agents=plan.agent_count,
        parameters=parameter_section(plan, SPELLING),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


README = """# {name}: wander3d's wander for C++ (Unreal Engine 5, any engine)

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. C++17 standard library only,
header only, no exceptions. Two ways in: the **composable call**, a wander force your own
characters add to their own steering, and the **hosted flock**, a loop of that call over the
scene's agents (with an Unreal component that draws it).

| file | what |
|---|---|
| `wander.hpp` | the core: namespace `wander3d`, no engine API |
| `adapter/WanderComponent.h`, `.cpp` | an Unreal component: instances, editor tuning, debug draw |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.sh` | the check against wander3d (builds into `build/`; drivers `*.cpp`, `csv.hpp`) |
| `scene.toml` | the scene this was made from |

## Drop it into Unreal Engine 5

1. Copy `wander.hpp`, `adapter/WanderComponent.h` and `adapter/WanderComponent.cpp` into your
   game module's source folder (e.g. `Source/MyGame/Wander/`). Nothing to edit: the component
   has no module API macro, as Blueprints, the editor and your module reach it through
   reflection (only if another module's C++ calls it, write `class MYGAME_API UWanderComponent`).
2. In the module's `MyGame.Build.cs`:

   ```csharp
   PublicDependencyModuleNames.AddRange(new string[] {{ "Core", "CoreUObject", "Engine" }});
   // IEEE arithmetic: Unreal Build Tool then compiles the module /fp:precise under MSVC
   // (its default there is /fp:fast) and with -ffp-contract=off under clang.
   FPSemantics = FPSemanticsMode.Precise;
   ```

   Never `FPSemanticsMode.Imprecise` for this module (nor `-ffast-math`, `/fp:fast` as extra
   flags). The header also guards itself, pushing MSVC's `float_control(precise, on)` and
   `fp_contract(off)` (and clang's and GCC's equivalents) around its own code and popping
   them after; keep both.
3. wander3d's exact start (optional): copy `start.txt` to `Content/Wander/start.txt` and have it
   staged with the game, in `Config/DefaultGame.ini`:

   ```ini
   [/Script/UnrealEd.ProjectPackagingSettings]
   +DirectoriesToAlwaysStageAsNonUFS=(Path="Wander")
   ```

   (the same as Project Settings ▸ Packaging ▸ *Additional Non-Asset Directories to Copy*:
   `Wander`). The component reads `FPaths::ProjectContentDir()` + its `Start File`
   (`Wander/start.txt`); a missing file, or one that no longer fits the groups (counts edited),
   logs a warning and the component spawns the agents itself.
4. Add a **Wander** component to an actor, set its `Agent Mesh` (its +X is the agent's forward,
   its +Z is kept up) and press Play.

Tune in the Details panel, also while playing: `Groups` (per group: `Method`, `Steering`, the
vehicle and the target parameters, each with its meaning as tooltip and its range), `Box`,
`Run` (seed, step, start file), `Debug Draw`. From Blueprints: *Get Group* / *Set Group*
(applied from the next step; a method switch keeps each target where it is), *Get Agent
Count*, *Get Agent Location* / *Velocity* / *Heading* / *Group*, *Add Agent*, *Remove Agent*.
Instances are moved, never teleported, so TAA and TSR get their motion vectors; a frame
allocates nothing.

Coordinates: wander3d's frame is right-handed with +y up, Unreal's left-handed with +Z up.
wander3d's (x, y, z) is Unreal's (X, Y, Z) = (x, z, y) times `Units To Cm` (default 10),
relative to the actor (`UWanderComponent::ToUnreal`, `FromUnreal`). Swapping two axes turns
one handedness into the other, so nothing is mirrored: a left turn in wander3d is a left turn
in Unreal.

## The composable call: wander inside your own character

One `wander3d::Wander` per kind of character (its parameters, the seed, the box), one
`wander3d::WanderAgent` per character, your own position and velocity (wander3d units, +y up).
Each fixed tick, the wander force, then yours, then integration:

```cpp
#include "wander.hpp"

const wander3d::SceneSpec Scene = wander3d::scene();
wander3d::Wander Wander(Scene.groups[0].params, Scene.seed, Scene.box);  // shared by the kind

// Your character: where it is, how it moves, its wander state (any id unique per seed).
wander3d::Vec3 Position{{0.0, 10.0, 0.0}}, Velocity{{20.0, 0.0, 0.0}};
wander3d::WanderAgent Agent = Wander.agent(/*id*/ 42, Position, Velocity);

void AMyPawn::FixedTick(double Dt)  // Dt = Scene.dt repeats wander3d's runs
{{
    Wander.steer(Agent, Position, Velocity, Dt);
    wander3d::Vec3 Force = Agent.force + Agent.containment;  // that sum first
    // Your own behaviours after it, e.g. a gentle seek towards a goal:
    const wander3d::Vec3 ToGoal = Goal - Position;
    const double L = std::sqrt(ToGoal.x * ToGoal.x + ToGoal.y * ToGoal.y + ToGoal.z * ToGoal.z);
    if (L > 1e-9) Force += (ToGoal * (Wander.params.maxSpeed / L) - Velocity) * 0.3;
    wander3d::Vec3 Heading;
    if (wander3d::integrate(Position, Velocity, Force, Wander.params, Dt, Heading))
        Wander.follow(Agent, Heading);                   // or integrate yourself, then follow
    Wander.box.reflect(Agent, Position, Velocity);       // or your own collision
    SetActorLocation(UWanderComponent::ToUnreal(Position) * 10.0);
}}
```

Agents come and go freely: make one with `Wander.agent(id, ...)` (placed by you) or
`Wander.spawn(id, box, Position, Velocity)` (the port's own start), drop it by dropping its
`WanderAgent`; the others' runs do not change, and the same id repeats the same stream. A
`Wander` made without a box has no containment (its `containment` stays -0) and seek keeps its
point. `Wander.params` may be edited at any time. From several threads, call
`Wander.refresh(Dt)` once before the parallel loop; each agent is independent.

The hosted flock is exactly this loop over the scene's agents:

```cpp
wander3d::Flock flock(wander3d::scene());          // or flock.loadStart(text): wander3d's start
double alpha = flock.update(deltaSeconds);          // fixed-dt steps, then draw:
wander3d::Vec3 drawn = flock.positionAt(i, alpha);  // heading: flock.agents[i].heading
flock.groups[0].wander.params.jitter = 14.0;        // acts from the next step
flock.setMethod(0, wander3d::Method::Noise);        // each target stays where it is
int added = flock.add(0, position, velocity);       // flock.remove(i)
```

## Frame rate

The flock steps in fixed steps of `dt` s, whatever the frame rate: `update(delta)` takes as
many steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and draws
each agent interpolated between its last two steps. 30 fps, 144 fps or a hitch: the same paths.
A character of your own calls the composable tick from a fixed step (Unreal's physics
sub-stepping, or an accumulator as `update` does); a varying dt works, but only a fixed one
repeats wander3d's runs.

## Parameters

Each group's parameters are a `wander3d::WanderParams`, named after the scene file's keys (the
component shows them as `Max Speed`, ...). Change them at any time and they act from the next
step; change the method with `flock.setMethod(g, wander3d::Method::Noise)` (or, per agent,
`Wander.switchMethod`) so that each target stays where it is.

{parameters}
## Identity and build flags

`wander.hpp` keeps its own arithmetic exact under the build flags a game uses: it pushes, and
pops at its end, GCC's `optimize("fp-contract=off", "no-fast-math")` (GCC's default for C++
fuses), clang's `float_control(precise, on)` and `fp contract(off)`, and MSVC's
`float_control(precise, on)` and `fp_contract(off)`; your own code after the include keeps your
flags. Clang disregards every pragma under `-ffp-contract=fast`, so on x86 the header's
functions are built without FMA instructions and its entry points are never inlined into your
code. `conformance.sh` builds with `$CXX $CXXFLAGS` (default `g++` and `-std=c++17 -O2`) and
adds no flag of its own; wander3d's tests check g++ and clang++ with `-march=native` and
`-ffp-contract=fast`, hosted and composed.

What breaks identity: `-ffast-math` or `-Ofast` (they may also flush tiny numbers to zero for
the whole program), clang's `-ffp-contract=fast` on ARM (no pragma stops it there; Unreal's
`FPSemanticsMode.Precise` builds without it), your own integration or a varying dt (the run is
then yours, not wander3d's).

## Debug drawing: the wander sphere and target

`flock.wanderSphere(i, centre)` returns agent i's wander sphere's radius (0 for seek) and sets
its centre; `flock.target(i)` is its target, both as wander3d shows them after a step
(`Wander.sphereCentre` and `Wander.target` for your own agents). The Unreal component draws
them with `DrawDebugSphere`, `DrawDebugPoint` and `DrawDebugBox` when `Debug Draw` is ticked
(development builds).

{conformance}
`bash conformance.sh --compose 60 10 > out.csv` prints the same run through the composable call
(`compose.cpp`, a game's loop over its characters): identical too.
"""

LANGUAGE = Language(
    name="cpp",
    title="C++",
    package=__name__,
    core="wander.hpp",
    sources=(
        "csv.hpp",
        "conformance.cpp",
        "compose.cpp",
        "conformance.sh",
        "adapter/WanderComponent.h",
        "adapter/WanderComponent.cpp",
    ),
    scene_block=scene_block,
    readme=readme,
    conformance="bash DIR/conformance.sh SECONDS SAMPLE_RATE > out.csv",
    method_ids=method_ids,
)
