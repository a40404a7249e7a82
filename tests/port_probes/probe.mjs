// probe.mjs: what tests/test_port_js.py asks of the JS core beyond the conformance CSV. Run
// beside the checked-in wander.mjs and conformance.mjs:
//
//   node probe.mjs format F32.BIN F64.BIN   every float32, then every double, one per line
//   node probe.mjs framerate                steps compared at 144, 24 fps and jittery frames
//   node probe.mjs spawn                    spawn: inside the margin, unit headings, seeded
//   node probe.mjs edit                     the fastest speed after maxSpeed = 5, one step on
//   node probe.mjs spawned                  per agent of fiveMethods(), spawned: position,
//                                           velocity, heading, target as hex doubles
//   node probe.mjs switch                   setMethod through every method: how far targets
//                                           moved per method, alignment from seek, inside, method
//   node probe.mjs crlf START               "same" if START read with \r\n line ends runs alike
//   node probe.mjs agents                   the composable call's agents coming and going
//   node probe.mjs params                   the composable call's parameters edited between ticks
//   node probe.mjs edits EDITS START STEPS  the scene's run from START with the edits of file
//                                           EDITS, hosted and composed: their end states
//                                           (port_support.check_edits_repeat_the_engines)

import { readFileSync } from "node:fs";
import {
  Flock,
  SCENE,
  Wander,
  WanderBox,
  WanderParams,
  formatDouble,
  formatFloat32,
  integrate,
  readStart,
} from "./wander.mjs";

const small = (count) => ({ ...SCENE, groups: [{ ...SCENE.groups[0], count }] });

/** The default box and seed with 30 agents of each method at vertical 0.4, default parameters. */
function fiveMethods() {
  const methods = ["sphere", "angle", "noise", "seek", "random"];
  return {
    ...SCENE,
    groups: methods.map((method) => ({ name: method, count: 30, params: new WanderParams({ method, vertical: 0.4 }) })),
  };
}

function format(f32Path, f64Path) {
  const a = readFileSync(f32Path);
  const b = readFileSync(f64Path);
  const f = new Float32Array(a.buffer, a.byteOffset, a.length / 4);
  const d = new Float64Array(b.buffer, b.byteOffset, b.length / 8);
  return [...Array.from(f, formatFloat32), ...Array.from(d, formatDouble)].map((x) => `${x}\n`).join("");
}

function frameRate() {
  const a = new Flock(small(20));
  const b = new Flock(small(20));
  const c = new Flock(small(20));
  let compared = 0;
  let alphaOk = true;
  let seed = 1;
  while (a.step < 1200) {
    a.update(1 / 144);
    if (b.step < a.step) b.update(1 / 24);
    if (c.step < a.step) {
      seed = (seed * 16807) % 2147483647;
      const alpha = c.update((seed / 2147483647) * 0.4);
      alphaOk &&= alpha >= 0 && alpha < 1;
    }
    for (const other of [b, c]) {
      if (other.step !== a.step) continue;
      compared++;
      if (other.position.some((x, i) => x !== a.position[i])) return `differs at step ${a.step}`;
    }
  }
  const at = c.positionAt(0, 0.5, [0, 0, 0]);
  const mid = Math.abs(at[0] - (c.previous[0] + c.position[0]) / 2);
  return `compared ${compared} alpha ${alphaOk ? "OK" : "BAD"} mid ${mid}`;
}

function spawned() {
  const flock = new Flock(fiveMethods());
  const view = new DataView(new ArrayBuffer(8));
  const hex = (x) => {
    view.setFloat64(0, x);
    return view.getBigUint64(0).toString(16).padStart(16, "0");
  };
  const lines = [];
  for (let i = 0; i < flock.count; i++) {
    const values = [flock.position, flock.velocity, flock.heading, flock.target].flatMap((v) => [...v.subarray(3 * i, 3 * i + 3)]);
    lines.push(values.map(hex).join(" "));
  }
  return lines.join("\n") + "\n";
}

function spawn() {
  const scene = fiveMethods();
  const a = new Flock(scene);
  const b = new Flock(scene);
  const other = new Flock({ ...scene, seed: 8 });
  const { min, max, margin } = scene.box;
  let inside = true;
  let unit = true;
  let stays = true;
  for (let i = 0; i < a.count; i++) {
    for (let k = 0; k < 3; k++) {
      const x = a.position[3 * i + k];
      inside &&= x >= min[k] + margin && x <= max[k] - margin;
    }
    const h = a.heading.subarray(3 * i, 3 * i + 3);
    unit &&= Math.abs(Math.hypot(...h) - 1) < 1e-12;
  }
  const same = a.position.every((x, i) => x === b.position[i]);
  const differs = a.position.some((x, i) => x !== other.position[i]);
  a.advance(3600);
  for (let j = 0; j < a.position.length; j++) stays &&= a.position[j] >= min[j % 3] && a.position[j] <= max[j % 3];
  const words = { inside, unit, same, differs, stays };
  return Object.keys(words).filter((w) => words[w]).join(" ");
}

function switchMethods() {
  const flock = new Flock(small(40));
  flock.advance(120);
  const moved = {};
  let aligned = 1;
  for (const method of ["angle", "noise", "random", "seek", "sphere", "noise", "angle"]) {
    const before = flock.target.slice();
    const fromSeek = flock.groups[0].params.method === "seek";
    flock.setMethod(0, method);
    let worst = 0;
    for (let i = 0; i < flock.count; i++) {
      const j = 3 * i;
      const [cx, cy, cz] = flock.wanderSphere(i);
      const d = [0, 1, 2].map((a) => flock.target[j + a] - before[j + a]);
      worst = Math.max(worst, Math.hypot(...d));
      if (fromSeek) {
        // the sphere's point nearest the point sought
        const t = [flock.target[j] - cx, flock.target[j + 1] - cy, flock.target[j + 2] - cz];
        const s = [before[j] - cx, before[j + 1] - cy, before[j + 2] - cz];
        aligned = Math.min(aligned, (t[0] * s[0] + t[1] * s[1] + t[2] * s[2]) / (Math.hypot(...t) * Math.hypot(...s)));
      }
    }
    moved[method] = Math.max(moved[method] ?? 0, worst);
    flock.advance(60);
  }
  const { min, max } = SCENE.box;
  const inside = flock.position.every((x, j) => x >= min[j % 3] && x <= max[j % 3]);
  const words = Object.entries(moved).map(([m, d]) => `${m} ${d}`);
  return `${words.join(" ")} aligned ${aligned} inside ${inside ? "yes" : "no"} method ${flock.groups[0].params.method}`;
}

function crlf(path) {
  const start = readFileSync(path, "utf8");
  const a = new Flock(SCENE, start);
  const b = new Flock(SCENE, start.replaceAll("\n", "\r\n"));
  a.advance(60);
  b.advance(60);
  const same = a.position.every((x, i) => x === b.position[i]) && a.velocity.every((x, i) => x === b.velocity[i]);
  return same ? "same" : "differs";
}

function edit() {
  const flock = new Flock(SCENE);
  flock.advance(30);
  flock.groups[0].params.maxSpeed = 5;
  flock.advance(1);
  let fastest = 0;
  for (let i = 0; i < flock.count; i++) fastest = Math.max(fastest, Math.hypot(...flock.velocity.subarray(3 * i, 3 * i + 3)));
  return String(fastest);
}

// ------------------------------------------------------------ the composable call

const METHODS = ["sphere", "angle", "noise", "seek", "random"];

/** A game's world: characters (plain arrays, as a game might keep them) driven through the
 * composable call, one Wander per method, agent ids as given. */
class World {
  constructor() {
    this.box = new WanderBox(SCENE.box);
    this.wanders = METHODS.map((method) => new Wander({ params: { method, vertical: 0.6 }, seed: 99, box: this.box }));
    this.characters = new Map(); // id -> {wander, agent, position, velocity}
    this.force = [0, 0, 0];
    this.heading = [0, 0, 0];
  }

  /** Spawn character `id` by the ports' rule (its method: id mod 5). */
  spawn(id) {
    const wander = this.wanders[id % METHODS.length];
    const position = [0, 0, 0];
    const velocity = [0, 0, 0];
    this.characters.set(id, { wander, agent: wander.spawn(id, position, velocity), position, velocity });
  }

  /** Place character `id` at a position and velocity the game chose. */
  place(id, position, velocity) {
    const wander = this.wanders[id % METHODS.length];
    this.characters.set(id, { wander, agent: wander.agent(id, position, velocity), position, velocity });
  }

  tick(dt = SCENE.dt) {
    for (const { wander, agent, position, velocity } of this.characters.values()) {
      wander.steer(agent, position, velocity, dt);
      for (let a = 0; a < 3; a++) this.force[a] = agent.force[a] + agent.containment[a];
      if (integrate(position, velocity, this.force, wander.params, dt, this.heading)) wander.follow(agent, this.heading);
      this.box.reflect(agent, position, velocity);
    }
  }

  run(ticks) {
    for (let t = 0; t < ticks; t++) this.tick();
  }

  /** Every character's position, by id, as one string of exact numbers. */
  positions(ids = [...this.characters.keys()]) {
    return ids.map((id) => this.characters.get(id).position.join(",")).join(";");
  }
}

/** Agents added and removed at run time: removing one leaves the others' runs as they were; an
 * id added again (at its first start) repeats its stream; an agent added mid-run changes no
 * other; the composed loop over spawned agents is the hosted flock's run. */
function agents() {
  const ids = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
  const whole = new World();
  const gapped = new World();
  for (const id of ids) {
    whole.spawn(id);
    gapped.spawn(id);
  }
  whole.run(300);
  gapped.run(100);
  gapped.characters.delete(7); // dropped: its state is gone
  gapped.spawn(1000); // a newcomer mid-run
  gapped.run(200);
  const others = ids.filter((id) => id !== 7);
  const unchanged = whole.positions(others) === gapped.positions(others);

  // Id 7 again, placed where and as it first started, repeats its own first 300 ticks.
  const first = new World();
  first.spawn(7);
  const { position, velocity } = first.characters.get(7);
  gapped.place(7, [...position], [...velocity]);
  const again = new World();
  again.place(7, [...position], [...velocity]);
  gapped.run(300);
  again.run(300);
  const repeats = gapped.positions([7]) === again.positions([7]);
  const othersStill = new World();
  for (const id of others) othersStill.spawn(id);
  othersStill.run(600);

  // The hosted flock is this loop: the same scene spawned both ways, the same bits.
  const scene = { ...SCENE, groups: METHODS.map((method) => ({ name: method, count: 4, params: { ...SCENE.groups[0].params, method } })) };
  const flock = new Flock(scene);
  const world = new World();
  world.wanders = flock.groups.map((g) => new Wander({ params: new WanderParams(g.params), seed: SCENE.seed, box: world.box }));
  for (let i = 0; i < flock.count; i++) {
    const wander = world.wanders[flock.groupOf[i]];
    const p = [0, 0, 0];
    const v = [0, 0, 0];
    world.characters.set(i, { wander, agent: wander.spawn(i, p, v), position: p, velocity: v });
  }
  flock.advance(600);
  world.run(600);
  const hosted = Array.from({ length: flock.count }, (_, i) => Array.from(flock.positions[i]).join(",")).join(";");
  const yes = (ok) => (ok ? "yes" : "no");
  return [
    `others-unchanged ${yes(unchanged && othersStill.positions(others) === gapped.positions(others))}`,
    `repeats ${yes(repeats)}`,
    `same-as-flock ${yes(hosted === world.positions())}`,
  ].join("\n");
}

/** Parameters edited between ticks act from the next one: maxSpeed 40 -> 5 bounds the speed;
 * jitter, rate, vertical, mass and dt edits give the forces a Wander made with them gives. */
function params() {
  const world = new World();
  for (let id = 0; id < 25; id++) world.spawn(id);
  world.run(120);
  for (const wander of world.wanders) wander.params.maxSpeed = 5;
  world.tick();
  let fastest = 0;
  for (const c of world.characters.values()) fastest = Math.max(fastest, Math.hypot(...c.velocity));
  // Edit what derived constants come from, and steer with another dt: each agent's forces must
  // equal those of a fresh Wander made with the edited values, from copies of the same state.
  const edits = { jitter: 23.5, rate: 2.25, vertical: 0.3, mass: 2.5, maxForce: 35, frequency: 0.9 };
  let same = true;
  for (const c of world.characters.values()) {
    Object.assign(c.wander.params, edits);
    const fresh = new Wander({ params: new WanderParams(c.wander.params), seed: 99, box: world.box });
    const twin = structuredClone(c.agent);
    fresh.steer(twin, [...c.position], [...c.velocity], 1 / 45);
    c.wander.steer(c.agent, c.position, c.velocity, 1 / 45);
    for (let a = 0; a < 3; a++) same &&= twin.force[a] === c.agent.force[a] && twin.containment[a] === c.agent.containment[a];
  }
  return `fastest ${fastest}\nrederived ${same ? "yes" : "no"}`;
}

/** The scene's run from start.txt for `steps` steps with the edits of file `editsPath` ("STEP
 * GROUP KEY VALUE" lines in step order: before step STEP, group GROUP's KEY, in the scene
 * file's words, becomes VALUE), in the hosted flock and in a game's loop of the composable
 * call: "hosted", a line per agent (position, velocity as hex doubles), "composed", the same. */
function edits(editsPath, startPath, steps) {
  const start = readFileSync(startPath, "utf8");
  const flock = new Flock(SCENE, start);
  const box = new WanderBox(SCENE.box);
  const kinds = SCENE.groups.map((g) => new Wander({ params: new WanderParams(g.params), seed: SCENE.seed, box }));
  const characters = readStart(start).map((entry, id) => {
    const wander = kinds[entry.group];
    return { wander, agent: wander.fromStart(id, entry), position: [...entry.position], velocity: [...entry.velocity] };
  });
  const camel = (key) => key.replace(/_(.)/g, (_, c) => c.toUpperCase());
  const lines = readFileSync(editsPath, "utf8").split("\n").filter((line) => line !== "");
  const force = [0, 0, 0];
  const heading = [0, 0, 0];
  let next = 0;
  for (let step = 0; step <= Number(steps); step++) {
    for (; next < lines.length && Number(lines[next].split(" ")[0]) === step; next++) {
      const [, group, key, value] = lines[next].split(" ");
      const parsed = key === "steering" ? value : Number(value);
      flock.groups[Number(group)].params[camel(key)] = parsed;
      kinds[Number(group)].params[camel(key)] = parsed;
    }
    if (step === Number(steps)) break;
    flock.advance(1);
    for (const { wander, agent, position, velocity } of characters) {
      wander.steer(agent, position, velocity, SCENE.dt);
      for (let a = 0; a < 3; a++) force[a] = agent.force[a] + agent.containment[a];
      if (integrate(position, velocity, force, wander.params, SCENE.dt, heading)) wander.follow(agent, heading);
      box.reflect(agent, position, velocity);
    }
  }
  const view = new DataView(new ArrayBuffer(8));
  const hex = (x) => {
    view.setFloat64(0, x);
    return view.getBigUint64(0).toString(16).padStart(16, "0");
  };
  const row = (position, velocity) => [...position, ...velocity].map(hex).join(" ") + "\n";
  let text = "hosted\n";
  for (let i = 0; i < flock.count; i++) text += row(flock.positions[i], flock.velocities[i]);
  text += "composed\n";
  for (const c of characters) text += row(c.position, c.velocity);
  return text;
}

const [command, ...args] = process.argv.slice(2);
const commands = { format, framerate: frameRate, spawn, spawned, switch: switchMethods, crlf, edit, agents, params, edits };
if (!(command in commands)) process.exit(2);
process.stdout.write(commands[command](...args));
