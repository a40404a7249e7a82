// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// compose.mjs: the second conformance driver. It drives wander3d's start (start.txt) through
// the composable call in a loop of its own, the way a game steps its characters, and prints the
// same CSV as `wander3d run --out ref.csv` (and conformance.mjs, the hosted flock):
//
//   node compose.mjs SECONDS SAMPLE_RATE > out.csv          (or: bash conformance.sh --compose ...)

import { SCENE, Wander, WanderBox, WanderParams, integrate, readStart } from "./wander.mjs";
import { printRun, startText } from "./conformance.mjs";

// One Wander per kind of character (here the scene's groups), sharing the scene's box.
const box = new WanderBox(SCENE.box);
const wanders = SCENE.groups.map((g) => new Wander({ params: new WanderParams(g.params), seed: SCENE.seed, box }));

// The game's characters: their own position and velocity, and each a wander agent (id: its
// index, as wander3d numbers them).
const characters = readStart(startText()).map((start, id) => ({
  group: start.group,
  position: start.position,
  velocity: start.velocity,
  wander: wanders[start.group].fromStart(id, start),
}));

const force = new Float64Array(3);
const heading = new Float64Array(3);

/** One fixed tick of one character. */
function tick(character, dt) {
  const wander = wanders[character.group];
  const agent = character.wander;
  const { position, velocity } = character;
  wander.steer(agent, position, velocity, dt);
  for (let a = 0; a < 3; a++) force[a] = agent.force[a] + agent.containment[a]; // + the game's own forces
  if (integrate(position, velocity, force, wander.params, dt, heading)) wander.follow(agent, heading);
  box.reflect(agent, position, velocity);
}

printRun("compose.mjs", {
  count: characters.length,
  groupOf: (i) => characters[i].group,
  advance: (steps) => {
    for (let s = 0; s < steps; s++) for (const character of characters) tick(character, SCENE.dt);
  },
  position: (i) => characters[i].position,
  velocity: (i) => characters[i].velocity,
});
