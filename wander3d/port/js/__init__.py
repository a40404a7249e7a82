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


README = """# {name}: wander3d's wander for JavaScript, three.js and p5.js

A port of wander3d's wander steering for the scene {name!r} ({agents} agents), identical to
wander3d: the same start gives the same positions at every step. No dependencies.

| file | what |
|---|---|
| `wander.mjs` | the core: an ES module, standard JavaScript only (browsers, Node, Deno, Bun) |
| `adapter/three-wander.mjs` | moves three.js `Object3D`s or an `InstancedMesh` from the core |
| `adapter/p5/` | a p5.js sketch of the scene (`sketch.html`, `sketch.js`) |
| `start.txt` | wander3d's exact starting state of the scene (optional) |
| `conformance.sh` | prints the run as CSV to check it against wander3d (Node; two drivers) |
| `scene.toml` | the scene this was made from |

## Drop it into a three.js page

Copy `wander.mjs` and `adapter/three-wander.mjs` next to your code. three is your import; the
adapter takes it as an argument:

```js
import * as THREE from "three";
import {{ Flock, SCENE }} from "./wander.mjs";
import {{ WanderInstances }} from "./adapter/three-wander.mjs";

const flock = new Flock(SCENE); // spawned in SCENE's box; or new Flock(SCENE, startText)
const cone = new THREE.ConeGeometry(1.2, 4, 8).rotateX(Math.PI / 2); // points along +z
const agents = new WanderInstances(THREE, flock, cone, new THREE.MeshStandardMaterial());
scene.add(agents.mesh); // each agent in its group's colour (SCENE.groups[g].color)

const clock = new THREE.Clock();
renderer.setAnimationLoop(() => {{
  agents.update(clock.getDelta()); // fixed-dt steps, drawn interpolated
  renderer.render(scene, camera);
}});
```

Models face +z with +y up: each agent's +z is turned onto its heading and its +y kept as close
to world up as the heading allows (`flock.poseAt`), so a fish or a bird keeps its back up when
it climbs or dives; position and heading are interpolated between the last two steps. Own
meshes instead (a model per agent): `new WanderObjects(THREE, flock, objects)` with one
`Object3D` per agent (`flock.count`). Colours of your own: `new WanderInstances(THREE, flock,
geometry, material, ["#ffb000", ...])` (one per group), or `null` for the material's.

To start exactly as wander3d does, pass `start.txt`'s text:
`new Flock(SCENE, await (await fetch("start.txt")).text())`.

## Your own characters: the composable call

`Flock` is a whole scene stepped for you. A game that has its own characters, physics and
behaviours takes the wander force instead and adds its own to it (docs/ports.md of wander3d,
"The composable call"):

```js
import {{ SCENE, Wander, WanderBox, WanderParams, integrate }} from "./wander.mjs";

const box = new WanderBox(SCENE.box); // or null: no walls (seek needs one)
const params = new WanderParams(SCENE.groups[0].params); // one kind of character's
const wander = new Wander({{ params, seed: SCENE.seed, box }});
const force = new Float64Array(3); // scratch: no garbage per tick
const heading = new Float64Array(3);

class Fish {{
  constructor(id, position, velocity) {{
    this.position = position; // [x, y, z], units
    this.velocity = velocity; // units/s
    this.agent = wander.agent(id, position, velocity); // its wander state; id: unique per fish
  }}

  /** One fixed tick (FixedUpdate, _physics_process, an accumulator). */
  tick(dt, food) {{
    const p = this.position, v = this.velocity, agent = this.agent;
    wander.steer(agent, p, v, dt);
    for (let a = 0; a < 3; a++) force[a] = agent.force[a] + agent.containment[a]; // first
    seek(force, p, v, food, wander.params.maxSpeed, 1.0); // then your own behaviours
    if (integrate(p, v, force, wander.params, dt, heading)) wander.follow(agent, heading);
    box.reflect(agent, p, v); // skip with collision of your own
  }}
}}

/** Your own behaviour: adds weight * (desired velocity towards goal - velocity) to force. */
function seek(force, p, v, goal, maxSpeed, weight) {{
  const dx = goal[0] - p[0], dy = goal[1] - p[1], dz = goal[2] - p[2];
  const s = maxSpeed / (Math.hypot(dx, dy, dz) || 1);
  force[0] += weight * (dx * s - v[0]);
  force[1] += weight * (dy * s - v[1]);
  force[2] += weight * (dz * s - v[2]);
}}
```

`steer` gives two forces: `agent.force`, the wander steering, and `agent.containment`, the box's
push (-0 when it does not push). `integrate` is the vehicle model (truncate to `maxForce`,
accelerate by `force / mass`, clamp to `maxSpeed`, move) for games without their own; with your
own physics, integrate yourself and call `wander.follow(agent, heading)` with the character's
new unit heading whenever it moved. Add a fish at any time with a new id; drop one by dropping
it: every agent has its own random stream, so the others do not change. `compose.mjs` is this
loop without the food.

## p5.js

`adapter/p5/sketch.html` runs the scene in p5.js (WEBGL): the box, a cone per agent in its
group's colour, trails, and the wander sphere as the Nature of Code draws its wander circle.
Drag to orbit; space pauses, W shows the wander spheres, T the trails. p5.js is not included:
put `p5.min.js` beside `sketch.html`, from npm (`npm install p5@2.3.4`, then
`node_modules/p5/lib/p5.min.js`) or from https://cdn.jsdelivr.net/npm/p5@2.3.4/lib/p5.min.js
(tested with 2.3.4). A browser loads the modules and `start.txt` only over http: serve this
folder (`python3 -m http.server` in it) and open http://localhost:8000/adapter/p5/sketch.html.
`sketch.html?steps=600` steps 10 s and writes every agent's position into `<pre
id="positions">`, the digits of `wander3d run`'s CSV.

## Frame rate

The core steps in fixed steps of `SCENE.dt` s, whatever the frame rate: `update(delta)` takes
as many steps as the elapsed time holds (a frame longer than 0.25 s counts as 0.25 s) and draws
each agent interpolated between its last two steps. 60 fps, 144 fps or a stutter: the same paths.
Nothing is allocated per step, so the garbage collector does not pause the game.

## Parameters

Each group's parameters are `flock.groups[g].params` (a `WanderParams`; a Wander's are
`wander.params`), named after the scene file's keys; change them at any time (from a GUI, a
game state) and they act from the next step. Change the method with `flock.setMethod(g,
"noise")` (`wander.switchMethod(agent, position, "noise", dt)` for each agent, then
`wander.params.method = "noise"`): each agent's target stays where it is and the new method
continues from there (as in wander3d's app).

{parameters}
## How it stays identical

JavaScript numbers are IEEE doubles and JavaScript never fuses a multiply and an add, so the
core computes the same bits as wander3d in every engine: it evaluates in wander3d's order and
uses wander3d's own sin, cos, atan2, asin and exp (not `Math.sin`, which differs between
browsers in the last bit). What breaks identity: another `dt` or a varying one, positions kept
in a `Float32Array`, your own forces (the run is then yours, as it should be), editing the
arithmetic, or a minifier allowed to rewrite it (terser's `unsafe_math`; esbuild and terser's
defaults do not).

## Debug drawing: the wander sphere and target

`flock.wanderSphere(i)` is agent i's sphere as `[x, y, z, radius]` (radius 0 for seek) and
`flock.target` holds every agent's target (`[3i, 3i+1, 3i+2]`), both after the last step.
`agents.debug(THREE)` returns a group with a wireframe sphere and a dot per agent that follows
them; add it to the scene (`scene.add(agents.debug(THREE))`) while tuning, remove it after. With
the composable call: `wander.sphere(agent, position)` and `wander.shownTarget(agent, position)`.

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
