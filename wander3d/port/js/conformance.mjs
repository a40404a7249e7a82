// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// conformance.mjs: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does.
//
//   node conformance.mjs SECONDS SAMPLE_RATE > out.csv
//   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
//   cmp out.csv ref.csv
//
// It starts from start.txt (wander3d's exact start of scene.toml) and steps the core in
// wander.mjs; the rows are every agent at every sample (docs/ports.md, "The conformance CSV").

import { readFileSync } from "node:fs";
import { Flock, SCENE, formatDouble, formatFloat32, roundHalfEven } from "./wander.mjs";

const [seconds, rate] = process.argv.slice(2, 4).map(Number);
if (process.argv.length !== 4 || !(seconds > 0) || !(rate > 0)) {
  process.stderr.write("usage: node conformance.mjs SECONDS SAMPLE_RATE (both > 0)\n");
  process.exit(2);
}
const start = readFileSync(new URL("start.txt", import.meta.url), "utf8");
const flock = new Flock(SCENE, start);
const dt = SCENE.dt;
// As `wander3d run` plans it: whole steps, a whole number of steps between samples.
const steps = Math.max(1, roundHalfEven(seconds / dt));
const every = Math.max(1, roundHalfEven(1.0 / (rate * dt)));
const samples = Math.floor(steps / every) + 1;
const interval = every * dt;
const names = flock.groups.map((g) => `"${g.name.replaceAll('"', '""')}"`);

process.stdout.write('"particle","group","frame","t","x","y","z","vx","vy","vz"\n');
for (let k = 0; k < samples; k++) {
  if (k > 0) flock.advance(every);
  const t = formatDouble(k * interval);
  const rows = [];
  for (let i = 0; i < flock.count; i++) {
    const p = flock.position;
    const v = flock.velocity;
    const j = 3 * i;
    const numbers = [p[j], p[j + 1], p[j + 2], v[j], v[j + 1], v[j + 2]].map((x) => formatFloat32(Math.fround(x)));
    rows.push(`${i},${names[flock.groupOf[i]]},${k},${t},${numbers.join(",")}\n`);
  }
  process.stdout.write(rows.join(""));
}
