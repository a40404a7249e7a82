// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// conformance.mjs: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does.
//
//   node conformance.mjs SECONDS SAMPLE_RATE > out.csv      (or: bash conformance.sh ...)
//   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
//   cmp out.csv ref.csv
//
// It starts the hosted flock (wander.mjs) from start.txt, wander3d's exact start of scene.toml;
// the rows are every agent at every sample (docs/ports.md, "The conformance driver's CSV").
// compose.mjs prints the same run driven through the composable call, with printRun below.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Flock, SCENE, formatDouble, formatFloat32, roundHalfEven } from "./wander.mjs";

/** start.txt beside this file. */
export function startText() {
  return readFileSync(new URL("start.txt", import.meta.url), "utf8");
}

/**
 * Print a run of SCENE as wander3d's CSV to stdout, from the command line's SECONDS and
 * SAMPLE_RATE (a usage line on stderr and exit status 2 when they are not two numbers > 0).
 * `run`: {count, groupOf(i), advance(steps), position(i), velocity(i)}, vectors as arrays.
 */
export function printRun(program, run) {
  const [seconds, rate] = process.argv.slice(2, 4).map(Number);
  if (process.argv.length !== 4 || !(seconds > 0) || !(rate > 0)) {
    process.stderr.write(`usage: node ${program} SECONDS SAMPLE_RATE (both > 0)\n`);
    process.exit(2);
  }
  const dt = SCENE.dt;
  // As `wander3d run` plans it: whole steps, a whole number of steps between samples.
  const steps = Math.max(1, roundHalfEven(seconds / dt));
  const every = Math.max(1, roundHalfEven(1.0 / (rate * dt)));
  const samples = Math.floor(steps / every) + 1;
  const interval = every * dt;
  const names = SCENE.groups.map((g) => `"${g.name.replaceAll('"', '""')}"`);
  process.stdout.write('"particle","group","frame","t","x","y","z","vx","vy","vz"\n');
  for (let k = 0; k < samples; k++) {
    if (k > 0) run.advance(every);
    const t = formatDouble(k * interval);
    const rows = [];
    for (let i = 0; i < run.count; i++) {
      const numbers = [...run.position(i), ...run.velocity(i)].map((x) => formatFloat32(Math.fround(x)));
      rows.push(`${i},${names[run.groupOf(i)]},${k},${t},${numbers.join(",")}\n`);
    }
    process.stdout.write(rows.join(""));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flock = new Flock(SCENE, startText());
  printRun("conformance.mjs", {
    count: flock.count,
    groupOf: (i) => flock.groupOf[i],
    advance: (steps) => flock.advance(steps),
    position: (i) => flock.positions[i],
    velocity: (i) => flock.velocities[i],
  });
}
