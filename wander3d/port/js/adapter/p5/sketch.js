// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// sketch.js: wander3d's scene as a p5.js sketch (WEBGL). The port's core (wander.mjs) steps the
// agents; p5 draws them: the box, a cone per agent in its group's colour, trails, and the
// wander sphere as the Nature of Code draws its wander circle (the circle ahead, the line to
// it, the target on it). Drag to orbit, wheel to zoom; space pauses, W shows the wander
// spheres, T the trails.
//
// sketch.html?steps=N takes N fixed steps, draws that moment once, and writes every agent's
// position into <pre id="positions"> as `particle,x,y,z` lines, digits as `wander3d run`'s CSV.

import { Flock, SCENE, formatFloat32 } from "../../wander.mjs";

const TRAIL_POINTS = 40; // positions kept per agent
const TRAIL_EVERY = 4; // steps between them
const SPHERES_SHOWN = 8; // agents whose wander sphere W shows, spread over the flock

const steps = Number(new URLSearchParams(location.search).get("steps") ?? NaN);
const stepped = Number.isInteger(steps) && steps >= 0;

/** The flock from start.txt (wander3d's exact start), else the core's own spawn. */
async function newFlock() {
  try {
    const answer = await fetch(new URL("../../start.txt", import.meta.url));
    if (answer.ok) return new Flock(SCENE, await answer.text());
  } catch {
    // file:// pages cannot fetch: serve the folder (the port's README says how)
  }
  if (stepped) throw new Error("?steps=N needs start.txt: serve the port's folder over http");
  return new Flock(SCENE);
}

/** Every agent's recent positions, a ring of TRAIL_POINTS per agent. */
class Trails {
  constructor(count) {
    this.points = new Float32Array(count * TRAIL_POINTS * 3);
    this.filled = 0;
    this.next = 0;
  }

  sample(flock) {
    if (flock.step % TRAIL_EVERY !== 0) return;
    for (let i = 0; i < flock.count; i++) {
      this.points.set(flock.positions[i], (i * TRAIL_POINTS + this.next) * 3);
    }
    this.next = (this.next + 1) % TRAIL_POINTS;
    this.filled = Math.min(this.filled + 1, TRAIL_POINTS);
  }

  /** Agent i's trail, oldest first, as p5 line segments. */
  draw(p, i) {
    const first = (this.next - this.filled + TRAIL_POINTS) % TRAIL_POINTS;
    for (let k = 1; k < this.filled; k++) {
      const a = (i * TRAIL_POINTS + ((first + k - 1) % TRAIL_POINTS)) * 3;
      const b = (i * TRAIL_POINTS + ((first + k) % TRAIL_POINTS)) * 3;
      p.vertex(this.points[a], this.points[a + 1], this.points[a + 2]);
      p.vertex(this.points[b], this.points[b + 1], this.points[b + 2]);
    }
  }
}

const flock = await newFlock();
const trails = new Trails(flock.count);
trails.sample(flock);
if (stepped) {
  for (let s = 0; s < steps; s++) {
    flock.advance(1);
    trails.sample(flock);
  }
  const lines = [];
  for (let i = 0; i < flock.count; i++) {
    const xyz = Array.from(flock.positions[i], (x) => formatFloat32(Math.fround(x)));
    lines.push(`${i},${xyz.join(",")}\n`);
  }
  document.getElementById("positions").textContent = lines.join("");
}

const { min, max } = SCENE.box;
const centre = [0, 1, 2].map((a) => (min[a] + max[a]) / 2);
const extent = [0, 1, 2].map((a) => max[a] - min[a]);
// wander3d's cone: 3% of the box's largest side, at most 12% of its smallest; radius 0.32 of it.
const coneLength = Math.min(0.03 * Math.max(...extent), 0.12 * Math.min(...extent));
const shownEvery = Math.max(1, Math.ceil(flock.count / SPHERES_SHOWN));
const pose = new Float64Array(12);
const sphere = [0, 0, 0, 0];
let alpha = 1;
let paused = stepped;
let showSpheres = true;
let showTrails = true;

function help() {
  const on = (flag) => (flag ? "on" : "off");
  document.getElementById("help").innerHTML =
    `${SCENE.name} · ${flock.count} agents · t = ${(flock.step * flock.dt).toFixed(1)} s<br>` +
    `<b>space</b> ${paused ? "play" : "pause"} · <b>W</b> wander spheres (${on(showSpheres)}) · ` +
    `<b>T</b> trails (${on(showTrails)}) · drag to orbit, wheel to zoom`;
}

new p5((p) => {
  p.setup = () => {
    p.createCanvas(window.innerWidth, window.innerHeight, p.WEBGL);
    p.perspective(Math.PI / 4, p.width / p.height, 1, 50 * Math.max(...extent));
    // p5 draws +y down; the sketch flips the world (scale below), so the camera sits at the
    // flipped eye. An oblique view from above, as wander3d's app opens a scene.
    const distance = 1.8 * Math.max(...extent);
    const azimuth = Math.PI / 6;
    const elevation = (25 * Math.PI) / 180;
    const eye = [
      centre[0] + distance * Math.cos(elevation) * Math.sin(azimuth),
      centre[1] + distance * Math.sin(elevation),
      centre[2] + distance * Math.cos(elevation) * Math.cos(azimuth),
    ];
    p.camera(eye[0], -eye[1], eye[2], centre[0], -centre[1], centre[2], 0, 1, 0);
    if (stepped) p.noLoop();
    help();
  };

  p.windowResized = () => p.resizeCanvas(window.innerWidth, window.innerHeight);

  p.keyPressed = () => {
    if (p.key === " ") paused = !paused;
    else if (p.key === "w" || p.key === "W") showSpheres = !showSpheres;
    else if (p.key === "t" || p.key === "T") showTrails = !showTrails;
    else return;
    help();
    if (stepped) p.redraw();
  };

  p.draw = () => {
    if (!paused) {
      const before = flock.step;
      alpha = flock.update(p.deltaTime / 1000);
      if (flock.step !== before) {
        trails.sample(flock);
        help();
      }
    }
    p.background("#101418");
    p.orbitControl();
    p.linePerspective(false); // lines one pixel wide at any distance
    p.scale(1, -1, 1); // the core's +y up
    p.ambientLight(90);
    p.directionalLight(255, 255, 255, -0.35, -1.0, -0.55);

    p.noFill();
    p.stroke(184, 204, 235, 140);
    p.strokeWeight(1);
    p.push();
    p.translate(centre[0], centre[1], centre[2]);
    p.box(extent[0], extent[1], extent[2]);
    p.pop();

    flock.groups.forEach((group) => {
      const color = p.color(group.color);
      if (showTrails) {
        color.setAlpha(110);
        p.stroke(color);
        p.strokeCap(p.SQUARE);
        p.beginShape(p.LINES);
        for (let i = group.first; i < group.first + group.count; i++) trails.draw(p, i);
        p.endShape();
        color.setAlpha(255);
      }
      p.noStroke();
      p.fill(color);
      for (let i = group.first; i < group.first + group.count; i++) {
        const q = flock.poseAt(i, alpha, pose);
        // The cone's axis (p5: +y, tip up) along the heading: columns left, forward, -up.
        p.push();
        p.applyMatrix(q[3], q[4], q[5], 0, q[9], q[10], q[11], 0, -q[6], -q[7], -q[8], 0, q[0], q[1], q[2], 1);
        p.cone(0.32 * coneLength, coneLength, 10, 1);
        p.pop();
      }
    });

    if (showSpheres) {
      for (let i = 0; i < flock.count; i += shownEvery) wanderCircle(p, i);
    }
  };
});

/** Agent i's wander sphere, as the Nature of Code draws the wander circle: the sphere ahead,
 * a line from the agent to its centre and on to the target, the target as a dot. */
function wanderCircle(p, i) {
  const [cx, cy, cz, r] = flock.wanderSphere(i, sphere);
  const at = flock.positions[i];
  const t = flock.target.subarray(3 * i, 3 * i + 3);
  p.noFill();
  p.stroke(180, 215, 255, 90);
  if (r > 0) {
    p.push();
    p.translate(cx, cy, cz);
    p.sphere(r, 10, 6);
    p.pop();
    p.line(at[0], at[1], at[2], cx, cy, cz);
    p.line(cx, cy, cz, t[0], t[1], t[2]);
  } else {
    p.line(at[0], at[1], at[2], t[0], t[1], t[2]); // seek: the point sought
  }
  p.noStroke();
  p.fill(255, 235, 80);
  p.push();
  p.translate(t[0], t[1], t[2]);
  p.sphere(Math.max(0.6, 0.25 * coneLength), 8, 6);
  p.pop();
}
