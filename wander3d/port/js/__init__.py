"""The JavaScript port: an ES module core (wander.mjs), a three.js adapter and a Node driver.

wander.mjs and conformance.mjs are real files: the tests run them as they are here (with the
default scene in the core's scene block) and as `wander3d port --lang js` writes them.
"""

from __future__ import annotations

from wander3d.port.language import Language, declared_ids
from wander3d.port.plan import PortPlan, double_literal, group_numbers
from wander3d.port.readme import conformance_section, parameter_section

#: Scene keys -> the JS parameter object's names.
SPELLING = {
    "max_speed": "maxSpeed",
    "max_force": "maxForce",
    "initial_speed": "initialSpeed",
}


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _vector(v: tuple[float, float, float]) -> str:
    return "[" + ", ".join(double_literal(x) for x in v) + "]"


def scene_block(plan: PortPlan) -> str:
    """`export const SCENE = {...}` for the plan's scene (the core's scene block)."""
    s = plan.scene
    box = s.enclosure
    lines = [
        "export const SCENE = {",
        f"  name: {_string(s.name)},",
        f"  seed: {s.seed}, // any integer in [0, 2^32): seeds every random number of the run",
        f"  dt: {double_literal(s.dt)}, // seconds per fixed step",
        "  box: {",
        f"    min: {_vector(box.min)}, // lowest corner (units)",
        f"    max: {_vector(box.max)}, // highest corner (units)",
        f"    margin: {double_literal(box.margin)}, // agents start turning back this far "
        "inside a wall (units)",
        "  },",
        "  groups: [",
    ]
    for g in plan.groups:
        p, w = g.params, g.params.wander
        lines += [
            "    {",
            f"      name: {_string(p.name)},",
            f"      count: {p.count}, // agents",
            f"      color: {_string(p.color)}, // as wander3d draws the group",
            "      params: {",
            f"        method: {_string(w.method)}, // sphere | angle | noise | seek | random",
            f"        steering: {_string(w.steering)}, // force: the vector to the target is "
            "the force; desired: velocity towards it",
            *(f"        {k}: {double_literal(v)}, // {note}" for k, v, note in group_numbers(p)),
            "      },",
            "    },",
        ]
    lines += ["  ],", "};"]
    return "\n".join(lines)


def readme(plan: PortPlan) -> str:
    """DIR/README.md of a JS port."""
    return README.format(
        name=plan.scene.name,
        agents=plan.agent_count,
        parameters=parameter_section(plan, SPELLING),
        conformance=conformance_section(plan, LANGUAGE.conformance),
    )


README = """# {name}: wander3d's wander for JavaScript and three.js

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. No dependencies.

| file | what |
|---|---|
| `wander.mjs` | the core: an ES module, standard JavaScript only (browsers, Node, Deno, Bun) |
| `adapter/three-wander.mjs` | moves three.js `Object3D`s or an `InstancedMesh` from the core |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.mjs` | prints the run as CSV, to check against wander3d (Node) |
| `scene.toml` | the scene this was made from |

## Drop it into a three.js page

Copy `wander.mjs` and `adapter/three-wander.mjs` next to your code (keep their relative
places: the adapter imports `../wander.mjs`). three is your import; the adapter takes it as an
argument:

```js
import * as THREE from "three";
import {{ Flock, SCENE }} from "./wander.mjs";
import {{ WanderInstances }} from "./adapter/three-wander.mjs";

const flock = new Flock(SCENE); // spawned in SCENE's box; or new Flock(SCENE, startText)
const cone = new THREE.ConeGeometry(1.2, 4, 8).rotateX(Math.PI / 2); // points along +z
const agents = new WanderInstances(THREE, flock, cone, new THREE.MeshNormalMaterial());
scene.add(agents.mesh);

const clock = new THREE.Clock();
renderer.setAnimationLoop(() => {{
  agents.update(clock.getDelta()); // fixed-dt steps, drawn interpolated
  renderer.render(scene, camera);
}});
```

Own meshes instead (a model per agent): `new WanderObjects(THREE, flock, objects)` with one
`Object3D` per agent (`flock.count`), each turned to face its heading (+z forward).

To start exactly as wander3d does, pass `start.txt`'s text:
`new Flock(SCENE, await (await fetch("start.txt")).text())`.

## Frame rate

The core steps in fixed steps of `SCENE.dt` s, whatever the frame rate: `update(delta)` takes
as many steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and draws
each agent interpolated between its last two steps. 60 fps, 144 fps or a stutter: the same paths.

## Parameters

Each group's parameters are `flock.groups[g].params`, named after the scene file's keys; change
them at any time (from a GUI, a game state) and they act from the next step. Change the method
with `flock.setMethod(g, "noise")`: each agent's target stays where it is and the new method
continues from there (as in wander3d's app).

{parameters}
## Debug drawing: the wander sphere and target

`flock.wanderSphere(i)` is agent i's sphere as `[x, y, z, radius]` (radius 0 for seek) and
`flock.target` holds every agent's target (`[3i, 3i+1, 3i+2]`), both after the last step.
`agents.debug(THREE)` returns a group with a wireframe sphere and a dot per agent that follows
them; add it to the scene (`scene.add(agents.debug(THREE))`) while tuning, remove it after.

{conformance}"""

LANGUAGE = Language(
    name="js",
    title="JavaScript",
    package=__name__,
    core="wander.mjs",
    sources=(
        "conformance.mjs",
        "compose.mjs",
        "conformance.sh",
        "adapter/three-wander.mjs",
        "adapter/p5/sketch.html",
        "adapter/p5/sketch.js",
    ),
    scene_block=scene_block,
    readme=readme,
    conformance="bash DIR/conformance.sh SECONDS SAMPLE_RATE > out.csv",
    method_ids=declared_ids("export const METHOD_IDS"),
)
