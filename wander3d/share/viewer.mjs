// viewer.mjs: the shared page's app (`wander3d share`). It runs the scene with the JS port's
// core ("wander": wander.mjs with the scene's block, started from wander3d's exact start) and
// draws it with three.js ("three": the vendored bundle) the way the desktop app does: cones
// coloured by group, fading trails, the box and its floor grid, and the selected agent's
// overlay. The page's config (a JSON script element) carries the scene's look and sliders.
//
// scene.html?steps=N draws nothing: it takes N fixed steps and writes every agent's position,
// one line `particle,x,y,z` per agent in the engine's order (floats formatted as the port's
// CSV), into <pre id="positions">.

import * as THREE from "three";
import { OrbitControls } from "three";
import { Flock, SCENE, MAX_FRAME_SECONDS, formatFloat32 } from "wander";
import { WanderInstances } from "wander-three";

const config = JSON.parse(document.getElementById("config").textContent);
const query = new URLSearchParams(location.search);

function newFlock() {
  return new Flock(SCENE, config.start);
}

/** ?steps=N: positions after N steps, as text; nothing drawn. */
function positionsAfter(steps) {
  const flock = newFlock();
  flock.advance(steps);
  const lines = [];
  const p = flock.position;
  for (let i = 0; i < flock.count; i++) {
    const xyz = [p[3 * i], p[3 * i + 1], p[3 * i + 2]].map((x) => formatFloat32(Math.fround(x)));
    lines.push(`${i},${xyz.join(",")}\n`);
  }
  return lines.join("");
}

// ---------------------------------------------------------------- drawing helpers

/** A round grid spacing (1, 2, 2.5 or 5 times a power of ten) giving about `target` cells
 * (render/enclosure.py nice_step). */
function niceStep(extent, target = 10) {
  const raw = extent / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

/** The box's edges, the floor grid and the axis triad (render/enclosure.py enclosure_lines). */
function enclosure(low, high, look) {
  const pos = [];
  const col = [];
  const seg = (a, b, c) => {
    pos.push(...a, ...b);
    col.push(...c, ...c);
  };
  const corner = (x, y, z) => [x ? high[0] : low[0], y ? high[1] : low[1], z ? high[2] : low[2]];
  for (let a = 0; a < 8; a++) {
    for (const bit of [4, 2, 1]) {
      if (!(a & bit))
        seg(corner(a & 4, a & 2, a & 1), corner((a | bit) & 4, (a | bit) & 2, (a | bit) & 1), look.box);
    }
  }
  const step = niceStep(Math.max(high[0] - low[0], high[2] - low[2]));
  for (const [axis, other] of [
    [0, 2],
    [2, 0],
  ]) {
    for (let v = Math.floor(low[axis] / step) * step + step; v < high[axis] - 1e-9 * step; v += step) {
      const a = [0, low[1], 0];
      const b = [0, low[1], 0];
      a[axis] = b[axis] = v;
      a[other] = low[other];
      b[other] = high[other];
      seg(a, b, look.grid);
    }
  }
  const length = look.axisFraction * Math.min(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  for (let axis = 0; axis < 3; axis++) {
    const tip = low.slice();
    tip[axis] += length;
    seg(low, tip, look.axes[axis]);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(pos, 3));
  geometry.setAttribute("color", new THREE.Float32BufferAttribute(col, 4));
  const material = new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, depthWrite: false });
  return new THREE.LineSegments(geometry, material);
}

/** Distance from the box's centre at which the whole box fits the view
 * (render/camera.py fit_distance): eye direction from the turntable angles. */
function fitDistance(low, high, fov, aspect, eye) {
  const forward = eye.clone().negate();
  let right = new THREE.Vector3().crossVectors(forward, new THREE.Vector3(0, 1, 0));
  right = right.length() > 1e-9 ? right.normalize() : new THREE.Vector3(1, 0, 0);
  const up = new THREE.Vector3().crossVectors(right, forward);
  const tanV = Math.tan(THREE.MathUtils.degToRad(fov) / 2) / config.look.fitMargin;
  const tanH = tanV * aspect;
  let need = 0;
  for (let c = 0; c < 8; c++) {
    const rel = new THREE.Vector3(
      ...[0, 1, 2].map((a) => ((c >> a) & 1 ? high[a] : low[a]) - (low[a] + high[a]) / 2),
    );
    need = Math.max(
      need,
      Math.max(Math.abs(rel.dot(right)) / tanH, Math.abs(rel.dot(up)) / tanV) - rel.dot(forward),
    );
  }
  return need;
}

// Trail levels of detail, as the app draws them (wander3d/drawing/trail_plan.py, whose
// figures the page's config carries in `look`): where many samples fit in a pixel a segment
// joins every k-th sample instead of each one, as long as it strays from the path by at most
// a fraction of a pixel; older, fainter parts may stray further. look.tierStarts: where a
// trail's tiers start, as fractions of its faded length by age; look.maxSagittaPx: the
// largest distance (physical pixels) a joined segment at the head may stray from the path;
// look.mostJoined: samples one segment joins at most; look.minAlpha: samples fainter than
// this are not drawn.

/** Largest on-screen size (drawing-buffer pixels) of a world unit among `corners` (world
 * points bounding what is drawn: the nearest point of a box is a corner), Infinity if one is
 * behind the camera (render/screen_scale.py pixels_per_unit). `width`, `height`: the drawing
 * buffer's size in pixels. */
function pixelsPerUnit(camera, corners, width, height) {
  const along = (a) => corners.map((c) => c[a]);
  const extent = [0, 1, 2].map((a) => Math.max(...along(a)) - Math.min(...along(a)));
  const step = 1e-3 * (Math.max(...extent) || 1);
  const m = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  const onScreen = (p) => {
    const v = new THREE.Vector4(p[0], p[1], p[2], 1).applyMatrix4(m);
    return v.w <= 1e-9 ? null : [((v.x / v.w) * width) / 2, ((v.y / v.w) * height) / 2];
  };
  let most = 0;
  for (const c of corners) {
    const at = onScreen(c);
    if (!at) return Infinity;
    for (let a = 0; a < 3; a++) {
      const moved = c.slice();
      moved[a] += step;
      const to = onScreen(moved);
      if (!to) return Infinity;
      most = Math.max(most, Math.hypot(to[0] - at[0], to[1] - at[1]) / step);
    }
  }
  return most;
}

/** One group's trails: a ring of `capacity` samples per agent, taken every `every` steps,
 * stored slot-major so a sample is one contiguous upload; faded by age in the shader. */
class Trails {
  constructor(group, capacity, every, color, look) {
    this.first = group.first;
    this.params = group.params; // as the sliders set them: max force and mass bound the turns
    this.look = look;
    this.count = group.count;
    this.capacity = capacity;
    this.every = every;
    const n = this.count;
    this.positions = new Float32Array(capacity * n * 3);
    // Strides a segment may join samples by: divisors of the capacity (so a chain of every
    // stride-th sample wraps around the ring onto itself). The levels of detail may use them
    // all; the guard at most 0.1 s of path a segment (within 1e-4: a scene's dt is often 1/60
    // rounded, 0.0166667, a hair over).
    this.strides = [];
    for (let k = 1; k <= look.mostJoined; k++) if (capacity % k === 0) this.strides.push(k);
    const most = Math.max(1, Math.floor(0.1 / (every * SCENE.dt) + 1e-4));
    this.guardStrides = this.strides.filter((k) => k <= most && k <= 6);
    this.stride = 1; // the guard's stride, as drawn (at least the head's)
    this.plan = {}; // the last frame's inputs to the levels of detail (draw)
    this.interval = every * SCENE.dt; // seconds between samples
    this.geometry = new THREE.BufferGeometry();
    this.attribute = new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage);
    this.geometry.setAttribute("position", this.attribute);
    // One index buffer holding every stride's segments one after the other (`bases`: where
    // each stride's start), so a frame mixes strides along a trail in one draw's geometry.
    this.bases = new Map();
    const index = new Uint32Array(this.strides.length * capacity * n * 2);
    this.strides.forEach((k, i) => {
      this.bases.set(k, i * capacity * n * 2);
      this.fillIndex(index, i * capacity * n * 2, k);
    });
    this.geometry.setIndex(new THREE.BufferAttribute(index, 1));
    this.uniforms = {
      color: { value: new THREE.Color(...color) },
      head: { value: 0 },
      capacity: { value: capacity },
      span: { value: capacity }, // samples the fade spans: all, unless the guard shortened it
      agents: { value: n },
      alpha: { value: look.trailAlpha },
      fadePower: { value: look.trailFade },
    };
    const material = new THREE.ShaderMaterial({
      uniforms: this.uniforms,
      transparent: true,
      depthWrite: false,
      vertexShader: `
        uniform float head; uniform float capacity; uniform float span; uniform int agents;
        uniform float alpha; uniform float fadePower;
        varying float vAlpha;
        void main() {
          float slot = float(gl_VertexID / agents);  // slot-major: vertex = slot * agents + agent
          float age = mod(head - 1.0 - slot + capacity, capacity);  // 0: the newest sample
          vAlpha = alpha * pow(clamp(1.0 - age / span, 0.0, 1.0), fadePower);
          gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
        }`,
      fragmentShader: `
        uniform vec3 color; varying float vAlpha;
        void main() { gl_FragColor = vec4(color, vAlpha); }`,
    });
    this.mesh = new THREE.LineSegments(this.geometry, [material]);
    this.mesh.frustumCulled = false;
    // The lead: a segment per agent from its newest sample to where it is drawn now, so the
    // trail reaches the agent however coarse the samples.
    this.lead = new Float32Array(n * 6);
    const leadGeometry = new THREE.BufferGeometry();
    this.leadAttribute = new THREE.BufferAttribute(this.lead, 3).setUsage(THREE.DynamicDrawUsage);
    leadGeometry.setAttribute("position", this.leadAttribute);
    const leadMaterial = new THREE.LineBasicMaterial({
      color: new THREE.Color(...color),
      transparent: true,
      opacity: look.trailAlpha,
      depthWrite: false,
    });
    this.leadMesh = new THREE.LineSegments(leadGeometry, leadMaterial);
    this.leadMesh.frustumCulled = false;
    this.mesh.add(this.leadMesh);
    this.head = 0; // the slot the next sample goes into
    this.filled = 0; // samples written, up to capacity
  }

  /** Write into `index` from `at` on the segments joining every `stride`-th sample,
   * (s, s + stride) for each slot s and agent, grouped by s % stride and in slot order within
   * a group: a chain of them ending at any sample is then one or two contiguous runs. */
  fillIndex(index, at, stride) {
    const n = this.count;
    const cap = this.capacity;
    let k = at;
    for (let r = 0; r < stride; r++) {
      for (let s = r; s < cap; s += stride) {
        const next = (s + stride) % cap;
        for (let a = 0; a < n; a++) {
          index[k++] = s * n + a;
          index[k++] = next * n + a;
        }
      }
    }
  }

  /** Free the GPU buffers and programs (the trails of a run that is reset). */
  dispose() {
    for (const mesh of [this.mesh, this.leadMesh]) {
      mesh.geometry.dispose();
      for (const m of [mesh.material].flat()) m.dispose();
    }
  }

  /** Take a sample of the flock's positions if this step is a sampling step. */
  sample(flock) {
    if (flock.step % this.every !== 0) return;
    const n = this.count;
    const offset = this.head * n * 3;
    const p = flock.position;
    for (let j = 0; j < 3 * n; j++) this.positions[offset + j] = p[3 * this.first + j];
    this.attribute.addUpdateRange(offset, 3 * n);
    this.attribute.needsUpdate = true;
    this.head = (this.head + 1) % this.capacity;
    this.filled = Math.min(this.filled + 1, this.capacity);
  }

  /** Draw the segments between written samples, never the one from the newest to the oldest,
   * and the leads to the agents drawn at `alpha` between their last two steps. `fraction`:
   * the newest part of the trail to draw (the frame-rate guard's), faded over its length;
   * `stride`: the guard's, the fewest samples a segment joins. `pixels`: the largest size of
   * a world unit on screen (drawing-buffer pixels; Infinity: unknown), for the levels of
   * detail: older tiers join more samples where that strays at most their tolerance. */
  draw(flock, alpha, fraction = 1, stride = 1, pixels = Infinity) {
    const n = this.count;
    const newest = ((this.head - 1 + this.capacity) % this.capacity) * n * 3;
    const at = [0, 0, 0];
    for (let a = 0; a < n; a++) {
      flock.positionAt(this.first + a, alpha, at);
      for (let c = 0; c < 3; c++) {
        this.lead[6 * a + c] = this.positions[newest + 3 * a + c];
        this.lead[6 * a + 3 + c] = at[c];
      }
    }
    this.leadAttribute.needsUpdate = true;
    const cap = this.capacity;
    const span = Math.max(2, Math.round(fraction * cap)); // samples the fade spans
    this.uniforms.head.value = this.head;
    this.uniforms.span.value = span;
    this.geometry.clearGroups();
    // Ages 0 .. drawn - 1 are drawn: the written ones the guard keeps, less the faintest
    // (the sample after the last one brighter than minAlpha: the segment to it fades out).
    const { trailAlpha, trailFade, minAlpha, tierStarts, maxSagittaPx } = this.look;
    const bright = Math.ceil(span * (1 - (minAlpha / trailAlpha) ** (1 / trailFade))) - 1;
    const drawn = Math.min(this.filled, span, bright + 2);
    // Sagitta of one sample interval at the hardest turn (trail_plan.choose_level): a
    // segment joining k intervals strays k^2 times as far from the path.
    const { maxForce, mass } = this.params;
    const bend = ((maxForce / mass) * this.interval ** 2) / 8;
    this.plan = { pixels, bend, span, drawn }; // what the levels of detail were chosen from
    const guardK = this.guardStrides.filter((d) => d <= stride).pop();
    this.stride = guardK;
    let end = (this.head - 1 + cap) % cap; // the newest sample's slot
    let age = 0;
    let k = guardK;
    const oldest = drawn - 1; // the age the chain reaches back to
    const link = (segments, stride) => {
      this.chain(end, segments, stride);
      end = (end - segments * stride + cap) % cap;
      age += segments * stride;
    };
    for (let t = 0; t < tierStarts.length; t++) {
      // Each tier's stray times its opacity stays within the head's maxSagittaPx (drawing/
      // trail_plan.py tier_tolerances); a tier is never finer than a younger one, and runs
      // past its end rather than let the next, coarser one start early.
      const tolerance = maxSagittaPx / (1 - tierStarts[t]) ** trailFade;
      const fits = this.strides.filter((d) => pixels * bend * d * d <= tolerance).pop() ?? 1;
      k = Math.max(k, fits);
      const until = t + 1 < tierStarts.length ? Math.ceil(tierStarts[t + 1] * span) : oldest;
      const segments = Math.min(Math.ceil((until - age) / k), Math.floor((oldest - age) / k));
      if (segments > 0) link(segments, k);
    }
    // The oldest few samples no whole stride reaches: finer segments, down to the oldest.
    while (age < oldest) {
      const d = this.strides.filter((x) => x <= oldest - age).pop();
      link(Math.floor((oldest - age) / d), d);
    }
  }

  /** Draw groups for the chain end - m k, ..., end - k, end: `segments` segments (s, s + k)
   * of stride k's index, one or two contiguous runs. */
  chain(end, segments, k) {
    const n = this.count;
    const cap = this.capacity;
    const r = end % k;
    const chain = cap / k; // segments of one residue r, in slot order
    const first = (((end - segments * k + cap) % cap) - r) / k;
    const firstRun = Math.min(segments, chain - first);
    const base = this.bases.get(k);
    this.geometry.addGroup(base + 2 * n * (r * chain + first), 2 * n * firstRun, 0);
    if (segments > firstRun)
      this.geometry.addGroup(base + 2 * n * r * chain, 2 * n * (segments - firstRun), 0);
  }

  /** The [from, to] ring slots of the segments the last frame drew for the group's first
   * agent, in draw order (every agent's are the same slots). */
  drawnSegments() {
    const index = this.geometry.index.array;
    const n = this.count;
    const out = [];
    for (const g of this.geometry.groups)
      for (let i = g.start; i < g.start + g.count; i += 2 * n) out.push([index[i] / n, index[i + 1] / n]);
    return out;
  }
}

/** The selected agent's overlay (render/debug.py): ring, wander sphere, feeler, target,
 * velocity and force arrows, as one set of coloured line segments and a target dot. */
class Overlay {
  constructor(look, size) {
    this.look = look;
    this.size = size;
    // Vertices: the ring, the sphere's circles, feeler and target lines, two five-line arrows.
    const most = 2 * (48 + 3 * look.circleSegments + 2 + 2 * 5);
    this.positions = new Float32Array(most * 3);
    this.colors = new Float32Array(most * 4);
    this.geometry = new THREE.BufferGeometry();
    this.geometry.setAttribute(
      "position",
      new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage),
    );
    this.geometry.setAttribute(
      "color",
      new THREE.BufferAttribute(this.colors, 4).setUsage(THREE.DynamicDrawUsage),
    );
    this.lines = new THREE.LineSegments(
      this.geometry,
      new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, depthTest: false }),
    );
    this.lines.frustumCulled = false;
    this.lines.renderOrder = 10;
    const c = look.target;
    this.dot = new THREE.Mesh(
      new THREE.SphereGeometry(size * 0.16, 12, 8),
      new THREE.MeshBasicMaterial({ color: new THREE.Color(c[0], c[1], c[2]), depthTest: false }),
    );
    this.dot.renderOrder = 11;
    this.group = new THREE.Group();
    this.group.add(this.lines, this.dot);
    this.group.visible = false;
  }

  /** Show agent i of `flock` drawn at `at` (its interpolated position); camera: for the ring. */
  show(flock, i, at, camera) {
    const k = { n: 0 };
    const look = this.look;
    const put = (a, b, c) => {
      this.positions.set(a, 3 * k.n);
      this.positions.set(b, 3 * k.n + 3);
      this.colors.set(c, 4 * k.n);
      this.colors.set(c, 4 * k.n + 4);
      k.n += 2;
    };
    const v3 = (x) => new THREE.Vector3(x[0], x[1], x[2]);
    const p = v3(at);
    const shift = p.clone().sub(v3([0, 1, 2].map((a) => flock.position[3 * i + a])));
    // Ring: a circle around the agent facing the camera.
    const right = new THREE.Vector3(1, 0, 0).applyQuaternion(camera.quaternion);
    const up = new THREE.Vector3(0, 1, 0).applyQuaternion(camera.quaternion);
    const ring = 48;
    const radius = this.size * 0.85;
    const around = (t) =>
      p
        .clone()
        .addScaledVector(right, Math.cos(t) * radius)
        .addScaledVector(up, Math.sin(t) * radius);
    for (let s = 0; s < ring; s++)
      put(
        around((2 * Math.PI * s) / ring).toArray(),
        around((2 * Math.PI * (s + 1)) / ring).toArray(),
        look.highlight,
      );
    const group = flock.groupOf[i];
    const params = flock.groups[group].params;
    const onSphere = config.groups[group].onSphere;
    const [cx, cy, cz, r] = flock.wanderSphere(i);
    const centre = v3([cx, cy, cz]).add(shift);
    const target = v3([0, 1, 2].map((a) => flock.target[3 * i + a])).add(shift);
    if (!onSphere) {
      put(p.toArray(), target.toArray(), look.target);
    } else {
      put(p.toArray(), centre.toArray(), look.feeler);
      put(centre.toArray(), target.toArray(), look.target);
      const m = look.circleSegments;
      for (let plane = 0; plane < 3; plane++) {
        for (let s = 0; s < m; s++) {
          const point = (t) => {
            const [a, b] = [Math.cos(t) * r, Math.sin(t) * r];
            const d = plane === 0 ? [a, b, 0] : plane === 1 ? [a, 0, b] : [0, a, b];
            return [centre.x + d[0], centre.y + d[1], centre.z + d[2]];
          };
          put(point((2 * Math.PI * s) / m), point((2 * Math.PI * (s + 1)) / m), look.wanderSphere);
        }
      }
    }
    // Arrows at full speed (force) are `reach` long (3/4 of it): the feeler plus the radius,
    // or a tenth of the box for seek, which has no sphere (render/debug.py).
    let reach = params.distance + params.radius;
    if (!onSphere || reach <= 0)
      reach = 0.1 * Math.max(...[0, 1, 2].map((a) => SCENE.box.max[a] - SCENE.box.min[a]));
    const arrow = (vector, color) => {
      const length = vector.length();
      if (length < 1e-9) return;
      const tip = p.clone().add(vector);
      const d = vector.clone().divideScalar(length);
      const helper = Math.abs(d.y) < 0.95 ? new THREE.Vector3(0, 1, 0) : new THREE.Vector3(1, 0, 0);
      const s = new THREE.Vector3().crossVectors(d, helper).normalize();
      const u = new THREE.Vector3().crossVectors(s, d);
      const back = tip.clone().addScaledVector(d, -length * look.headFraction);
      const barb = length * look.headFraction * 0.45;
      put(p.toArray(), tip.toArray(), color);
      for (const side of [s, s.clone().negate(), u, u.clone().negate()])
        put(tip.toArray(), back.clone().addScaledVector(side, barb).toArray(), color);
    };
    const velocity = v3([0, 1, 2].map((a) => flock.velocity[3 * i + a]));
    const force = v3([0, 1, 2].map((a) => flock.force[3 * i + a]));
    arrow(velocity.multiplyScalar(reach / params.maxSpeed), look.velocity);
    arrow(force.multiplyScalar((reach * look.forceScale) / params.maxForce), look.force);
    this.geometry.setDrawRange(0, k.n);
    this.geometry.attributes.position.needsUpdate = true;
    this.geometry.attributes.color.needsUpdate = true;
    this.dot.position.copy(target);
    this.group.visible = true;
  }
}

// ---------------------------------------------------------------- the panel

/** Round a slider's value to what a person reads: 3 significant digits (app/controls.py). */
function readable(value) {
  if (value === 0) return 0;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return Number(value.toFixed(Math.min(6, digits)));
}

/** A slider over [lo, hi] (stretched to hold `value`), logarithmic if `log`. */
function slider(input, spec, value, onChange, show) {
  let { lo, hi } = spec;
  if (value > hi) hi = 2 * value;
  if (value < lo) lo = spec.log && value > 0 ? value / 2 : value;
  const log = spec.log && lo > 0;
  const toPosition = (v) => {
    const t = log ? Math.log(Math.max(v, lo) / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo);
    return Math.round(Math.min(1, Math.max(0, t)) * 1000);
  };
  const fromPosition = (k) => (log ? lo * (hi / lo) ** (k / 1000) : lo + ((hi - lo) * k) / 1000);
  input.value = toPosition(value);
  show(value);
  input.addEventListener("input", () => {
    const v = readable(fromPosition(Number(input.value)));
    show(v);
    onChange(v);
  });
  return (v) => {
    input.value = toPosition(v);
    show(v);
  };
}

function element(tag, attributes = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

/** The WebGL renderer's name, asked of a probe ("" where the browser does not say). */
function rendererName() {
  const gl = document.createElement("canvas").getContext("webgl2");
  const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
  const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "";
  gl?.getExtension("WEBGL_lose_context")?.loseContext(); // one context fewer to keep
  return name;
}

/** The app's cone shading (render/agents.py): per vertex, a key light plus a dim fill from
 * below, in the group's colour; the cheapest shading a software rasteriser can draw.
 * `instanced`: placed by the instanced mesh's matrices and coloured by its instance colours;
 * otherwise the vertices are in the world already, coloured by a colour attribute. */
function coneMaterial(light, instanced = true) {
  const [normal, color, position] = instanced
    ? ["mat3(instanceMatrix) * normal", "instanceColor", "instanceMatrix * vec4(position, 1.0)"]
    : ["normal", "color", "vec4(position, 1.0)"];
  return new THREE.ShaderMaterial({
    uniforms: { light: { value: new THREE.Vector3(...light) } },
    vertexColors: !instanced,
    vertexShader: `
      uniform vec3 light;
      varying vec3 vColor;
      void main() {
        vec3 n = normalize(${normal});  // a rotation: no scale to undo
        float key = max(dot(n, light), 0.0);
        float fill = max(-n.y, 0.0) * 0.25;
        vColor = ${color} * (0.30 + 0.80 * key + fill);
        gl_Position = projectionMatrix * modelViewMatrix * ${position};
      }`,
    fragmentShader: `
      varying vec3 vColor;
      void main() { gl_FragColor = vec4(vColor, 1.0); }`,
  });
}

/** Every agent's cone as one mesh of world-space triangles, placed on the CPU each frame from
 * an instanced mesh's matrices (which stays, hidden, for picking). For SwiftShader, which
 * draws an instanced draw call as one draw per instance: about 10 µs each, 30 ms a frame for
 * 3,000 cones, where one plain draw of them all costs it a few (benchmarks/share_bench.py). */
class BakedCones {
  /** cone: the indexed cone geometry; colors: (count) [r, g, b] per agent; light: the key
   * light's direction. */
  constructor(cone, colors, light) {
    const count = colors.length;
    this.shape = cone.attributes.position.array; // (V, 3) the cone's own vertices
    this.shapeNormals = cone.attributes.normal.array;
    const corners = this.shape.length / 3;
    const triangles = cone.index.array;
    this.positions = new Float32Array(count * corners * 3);
    this.normals = new Float32Array(count * corners * 3);
    const vertexColors = new Float32Array(count * corners * 3);
    const index = new Uint32Array(count * triangles.length);
    for (let i = 0; i < count; i++) {
      for (let v = 0; v < corners; v++) vertexColors.set(colors[i], 3 * (i * corners + v));
      for (let j = 0; j < triangles.length; j++) index[i * triangles.length + j] = triangles[j] + i * corners;
    }
    const geometry = new THREE.BufferGeometry();
    this.positionAttribute = new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage);
    this.normalAttribute = new THREE.BufferAttribute(this.normals, 3).setUsage(THREE.DynamicDrawUsage);
    geometry.setAttribute("position", this.positionAttribute);
    geometry.setAttribute("normal", this.normalAttribute);
    geometry.setAttribute("color", new THREE.BufferAttribute(vertexColors, 3));
    geometry.setIndex(new THREE.BufferAttribute(index, 1));
    this.mesh = new THREE.Mesh(geometry, coneMaterial(light, false));
    this.mesh.frustumCulled = false; // agents roam the whole box
  }

  /** Place every cone by `matrices` ((count, 16) column-major, an instanced mesh's). */
  update(matrices) {
    const { shape, shapeNormals, positions, normals } = this;
    const corners = shape.length / 3;
    let o = 0;
    for (let i = 0; i < matrices.length; i += 16) {
      const m = matrices.subarray(i, i + 16);
      for (let v = 0; v < 3 * corners; v += 3, o += 3) {
        const [x, y, z] = [shape[v], shape[v + 1], shape[v + 2]];
        positions[o] = m[0] * x + m[4] * y + m[8] * z + m[12];
        positions[o + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
        positions[o + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
        const [a, b, c] = [shapeNormals[v], shapeNormals[v + 1], shapeNormals[v + 2]];
        normals[o] = m[0] * a + m[4] * b + m[8] * c;
        normals[o + 1] = m[1] * a + m[5] * b + m[9] * c;
        normals[o + 2] = m[2] * a + m[6] * b + m[10] * c;
      }
    }
    this.positionAttribute.needsUpdate = true;
    this.normalAttribute.needsUpdate = true;
  }

  dispose() {
    this.mesh.geometry.dispose();
    this.mesh.material.dispose();
  }
}

const css = (c) =>
  `rgba(${Math.round(c[0] * 255)}, ${Math.round(c[1] * 255)}, ${Math.round(c[2] * 255)}, ${c[3] ?? 1})`;

// ---------------------------------------------------------------- the live page

function live() {
  const look = config.look;
  const canvas = document.getElementById("view");
  THREE.ColorManagement.enabled = false; // colours as the app draws them: no sRGB conversion
  // Multisampling multiplies a software renderer's work for every pixel: keep it for GPUs.
  const gpu = rendererName();
  const renderer = new THREE.WebGLRenderer({
    canvas,
    antialias: !/swiftshader|llvmpipe|softpipe|software/i.test(gpu),
  });
  // SwiftShader draws each instance of an instanced draw on its own: bake the cones there.
  let bake = /swiftshader/i.test(gpu);
  renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.setClearColor(new THREE.Color(config.background));
  const scene = new THREE.Scene();
  const low = SCENE.box.min;
  const high = SCENE.box.max;
  const centre = new THREE.Vector3(...[0, 1, 2].map((a) => (low[a] + high[a]) / 2));
  const cam = config.camera;
  const camera = new THREE.PerspectiveCamera(cam.fov, 1, 1, 10);
  const az = THREE.MathUtils.degToRad(cam.azimuth);
  const el = THREE.MathUtils.degToRad(cam.elevation);
  const eye = new THREE.Vector3(-Math.cos(el) * Math.cos(az), Math.sin(el), Math.cos(el) * Math.sin(az));
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(centre);
  controls.enableDamping = true;
  let placed = false;

  const size = look.coneLength;
  // 6 sides, as the app draws small cones: with smooth normals they look as round as 8.
  const cone = new THREE.ConeGeometry(look.coneAspect * size, size, 6, 1);
  cone.translate(0, 0.1 * size, 0); // from -0.4 to 0.6 of its length: the agent sits near its centroid
  cone.rotateX(Math.PI / 2); // tip along +z, the adapter's forward
  const coneShading = coneMaterial(look.light);

  const box = enclosure(low, high, look);
  scene.add(box);
  let flock;
  let agents;
  let trails = [];
  let baked = null; // the cones as one mesh, where they are baked (BakedCones)
  const overlay = new Overlay(look, size);
  scene.add(overlay.group);
  let edited = null; // the groups' parameters as the sliders left them, kept by Reset
  const groupColors = config.groups.map((g) => new THREE.Color(...g.color));

  function start() {
    if (agents) {
      scene.remove(agents.mesh);
      agents.mesh.dispose(); // its instance buffers; the cone and its shading are shared
    }
    for (const t of trails) {
      scene.remove(t.mesh);
      t.dispose();
    }
    flock = newFlock();
    if (edited) flock.groups.forEach((g, k) => Object.assign(g.params, edited[k]));
    edited = flock.groups.map((g) => g.params);
    agents = new WanderInstances(THREE, flock, cone, coneShading);
    for (let i = 0; i < flock.count; i++) agents.mesh.setColorAt(i, groupColors[flock.groupOf[i]]);
    scene.add(agents.mesh);
    // A group without a trail (trail_length 0 or 1) has none to draw.
    trails = config.groups.flatMap((g, k) =>
      g.trail.capacity >= 2
        ? [new Trails(flock.groups[k], g.trail.capacity, g.trail.every, g.color, look)]
        : [],
    );
    for (const t of trails) {
      t.sample(flock);
      t.mesh.visible = showTrails.checked;
      scene.add(t.mesh);
    }
    agents.poser.alpha = 1;
    agents.draw();
    bakeCones(bake);
  }

  /** Draw the cones baked into one mesh (on) or instanced (off); the instanced mesh stays
   * for picking either way. */
  function bakeCones(on) {
    bake = on;
    if (baked) {
      scene.remove(baked.mesh);
      baked.dispose();
      baked = null;
    }
    agents.mesh.visible = !on;
    if (on) {
      const colors = Array.from({ length: flock.count }, (_, i) => groupColors[flock.groupOf[i]].toArray());
      baked = new BakedCones(cone, colors, look.light);
      baked.update(agents.mesh.instanceMatrix.array);
      scene.add(baked.mesh);
    }
  }

  function afterStep() {
    for (const t of trails) t.sample(flock);
  }

  /** The core's fixed-step clock (Flock.update), with a look at every step for the trails. */
  function advanceBy(seconds) {
    flock.accumulator += Math.min(Math.max(seconds, 0), MAX_FRAME_SECONDS);
    while (flock.accumulator >= flock.dt) {
      flock.advance(1);
      flock.accumulator -= flock.dt;
      afterStep();
    }
    return flock.accumulator / flock.dt;
  }

  // Panel.
  const showTrails = document.getElementById("show-trails");
  const showBox = document.getElementById("show-box");
  const showOverlay = document.getElementById("show-overlay");
  showTrails.checked = config.showTrails;
  showBox.checked = config.showEnclosure;
  box.visible = showBox.checked;
  showTrails.addEventListener("change", () => trails.forEach((t) => (t.mesh.visible = showTrails.checked)));
  showBox.addEventListener("change", () => (box.visible = showBox.checked));
  start();

  let playing = true;
  let speed = 1;
  const play = document.getElementById("play");
  const togglePlay = () => {
    playing = !playing;
    play.textContent = playing ? "❚❚" : "▶";
  };
  play.addEventListener("click", togglePlay);
  const stepOnce = () => {
    if (playing) togglePlay();
    flock.advance(1);
    afterStep();
    flock.accumulator = 0;
    agents.poser.alpha = 1;
  };
  document.getElementById("step").addEventListener("click", stepOnce);
  document.getElementById("reset").addEventListener("click", () => start());
  const speedValue = document.getElementById("speed-value");
  slider(
    document.getElementById("speed"),
    { lo: 0.1, hi: 4, log: true },
    1,
    (v) => (speed = v),
    (v) => (speedValue.textContent = `${v}×`),
  );

  const groupsBox = document.getElementById("groups");
  config.groups.forEach((g, k) => {
    const box = element("div", { class: "group" });
    const head = element("div", { class: "head" });
    const name = element("span");
    name.append(element("span", { class: "swatch", style: `background:${css(g.color)}` }), g.name);
    head.append(
      name,
      element(
        "span",
        { class: "muted", title: "wander method · number of agents" },
        `${g.method} · ${g.count.toLocaleString("en")}`,
      ),
    );
    box.append(head);
    for (const p of g.params) {
      const row = element("div", {
        class: "param",
        title: `${p.label}${p.unit ? ` (${p.unit})` : ""}: ${p.doc}`,
      });
      const label = element("div", { class: "label" });
      const value = element("span", { class: "value" });
      label.append(element("span", {}, p.label), value);
      const input = element("input", {
        type: "range",
        min: "0",
        max: "1000",
        "aria-label": `${g.name} ${p.label}`,
      });
      row.append(label, input);
      box.append(row);
      slider(
        input,
        p,
        flock.groups[k].params[p.name],
        (v) => (flock.groups[k].params[p.name] = v),
        (v) => (value.textContent = `${v}${p.unit ? ` ${p.unit}` : ""}`),
      );
    }
    groupsBox.append(box);
  });
  const legend = document.getElementById("legend");
  for (const [color, name, meaning] of look.legend) {
    const row = element("div", { title: meaning });
    row.append(
      element("span", { class: "swatch", style: `background:${css(color)}` }),
      `${name}: ${meaning}`,
    );
    legend.append(row);
  }
  document.getElementById("title").textContent = config.name;
  document.getElementById("fold").addEventListener("click", () => {
    document.body.classList.toggle("folded");
    resize();
  });

  // The frame-rate guard: where drawing cannot keep 30 fps (a software renderer, a big scene,
  // a slow phone), the trails are drawn coarser, then shorter, down to 30% of their length
  // (shorter ones no longer show the path); they come back when there is time to spare.
  // Trails cost the most to draw: every line, and every pixel of it.
  const guard = {
    // Levels from the best: full trails, then samples joined by 2 and 3 (short segments, the
    // same shape), then shorter and shorter trails.
    levels: [
      [1, 1],
      [1, 2],
      [1, 3],
      [0.75, 3],
      [0.56, 3],
      [0.42, 3],
      [0.3, 3],
    ],
    level: 0,
    fraction: 1,
    stride: 1,
    enabled: true,
    /** One step down below 30 fps, up above 50; `most`: the largest stride any trail can
     * join samples by, so a level that would draw as the one before it is passed over (a
     * step a second is slow enough: a big scene's trails would take seconds to settle). */
    adjust(fps, most = Infinity) {
      const same = (l) =>
        this.levels[l][0] === this.levels[l - 1][0] &&
        Math.min(this.levels[l][1], most) === Math.min(this.levels[l - 1][1], most);
      const last = this.levels.length - 1;
      if (!this.enabled) this.level = 0;
      else if (fps < 30 && this.level < last) do this.level++; while (this.level < last && same(this.level));
      else if (fps > 50) this.level = Math.max(0, this.level - 1);
      while (this.level > 0 && same(this.level)) this.level--;
      [this.fraction, this.stride] = this.levels[this.level];
    },
  };

  // Selection: a click (or tap) that did not drag picks the agent under it.
  let selected = -1;
  const selection = document.getElementById("selection");
  const select = (i) => {
    selected = i;
    overlay.group.visible = false;
    selection.textContent = i < 0 ? "" : `agent ${i} · ${flock.groups[flock.groupOf[i]].name}`;
  };
  const raycaster = new THREE.Raycaster();
  let down = null;
  canvas.addEventListener("pointerdown", (e) => (down = [e.clientX, e.clientY]));
  canvas.addEventListener("pointerup", (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 6) return;
    const rect = canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(
      ((e.clientX - rect.left) / rect.width) * 2 - 1,
      -((e.clientY - rect.top) / rect.height) * 2 + 1,
    );
    raycaster.setFromCamera(ndc, camera);
    agents.mesh.boundingSphere = null; // agents moved since the last pick
    const hit = raycaster.intersectObject(agents.mesh)[0];
    select(hit ? hit.instanceId : -1);
  });
  window.addEventListener("keydown", (e) => {
    // A focused control keeps its own keys (Space presses a button, arrows move a slider).
    if (e.target instanceof Element && e.target.closest("button, input") && !["r", "R", "."].includes(e.key))
      return;
    if (e.key === " ") togglePlay();
    else if (e.key === ".") stepOnce();
    else if (e.key === "r" || e.key === "R") start();
    else if (e.key === "Escape") select(-1);
    else return;
    e.preventDefault();
  });

  function resize() {
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(1, height);
    if (!placed) {
      const distance = cam.distance ?? fitDistance(low, high, cam.fov, camera.aspect, eye);
      camera.position.copy(centre).addScaledVector(eye, distance);
      const extent = Math.hypot(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
      camera.near = Math.max(0.01, distance / 1000);
      camera.far = distance + 4 * extent;
      controls.maxDistance = 20 * extent;
      placed = true;
    }
    camera.updateProjectionMatrix();
  }
  window.addEventListener("resize", resize);
  resize();

  // The loop. window.wander3d: the page's own counters (frames drawn, steps taken) and the
  // selection, for benchmarks, tests and the curious (the browser's console).
  const clock = document.getElementById("clock");
  /** Agent i's position on the page in CSS pixels [x, y], as drawn now. */
  const onScreen = (i) => {
    const at = new THREE.Vector3(...flock.positionAt(i, agents.poser.alpha, [0, 0, 0])).project(camera);
    const rect = canvas.getBoundingClientRect();
    return [rect.left + ((at.x + 1) / 2) * rect.width, rect.top + ((1 - at.y) / 2) * rect.height];
  };
  const counters = {
    frames: 0,
    steps: 0,
    stepMs: 0,
    drawMs: 0,
    dt: SCENE.dt,
    trails: guard,
    trailStride: () => Math.max(1, ...trails.map((t) => t.stride)),
    trailSegments: () =>
      trails.map((t) => ({ head: t.head, capacity: t.capacity, segments: t.drawnSegments(), ...t.plan })),
    selected: () => selected,
    cones: () => (baked ? "baked" : "instanced"),
    bakeCones,
    select,
    onScreen,
  };
  window.wander3d = counters;
  // The box's corners bound every trail: where a world unit looks largest on screen.
  const boxCorners = [0, 1, 2, 3, 4, 5, 6, 7].map((c) =>
    [0, 1, 2].map((a) => ((c >> a) & 1 ? high[a] : low[a])),
  );
  const bufferSize = new THREE.Vector2();
  let last = performance.now();
  let second = last;
  let framesThen = 0;
  let fps = 0;
  renderer.setAnimationLoop((now) => {
    const seconds = Math.max(0, (now - last) / 1000);
    last = now;
    const began = performance.now();
    if (playing) agents.poser.alpha = advanceBy(seconds * speed);
    const stepped = performance.now();
    counters.stepMs += stepped - began;
    agents.draw();
    if (baked) baked.update(agents.mesh.instanceMatrix.array);
    controls.update();
    camera.updateMatrixWorld();
    const buffer = renderer.getDrawingBufferSize(bufferSize);
    const pixels = pixelsPerUnit(camera, boxCorners, buffer.x, buffer.y);
    for (const t of trails) t.draw(flock, agents.poser.alpha, guard.fraction, guard.stride, pixels);
    const drawnAt = [0, 0, 0];
    if (selected >= 0 && showOverlay.checked)
      overlay.show(flock, selected, flock.positionAt(selected, agents.poser.alpha, drawnAt), camera);
    else overlay.group.visible = false;
    renderer.render(scene, camera);
    counters.drawMs += performance.now() - stepped;
    counters.frames += 1;
    counters.steps = flock.step;
    if (now - second >= 1000) {
      fps = ((counters.frames - framesThen) * 1000) / (now - second);
      framesThen = counters.frames;
      second = now;
      if (showTrails.checked && trails.length)
        guard.adjust(fps, Math.max(...trails.map((t) => t.guardStrides.at(-1))));
    }
    const t = (flock.step * flock.dt).toFixed(1);
    const text = `t = ${t} s · ${flock.count.toLocaleString("en")} agents · ${fps.toFixed(0)} fps`;
    // Only when it changes (ten times a second): a new text a frame had Chromium repaint and
    // re-rasterise the HUD every frame, a raster task in the GPU process each time.
    if (clock.textContent !== text) clock.textContent = text;
  });
}

if (query.has("steps")) {
  const steps = Number(query.get("steps"));
  const out = document.getElementById("positions");
  if (!Number.isInteger(steps) || steps < 0)
    throw new Error(`?steps= needs a whole number of steps >= 0, not ${query.get("steps")}`);
  out.textContent = positionsAfter(steps);
  out.dataset.steps = String(steps);
  document.body.classList.add("positions");
  document.getElementById("title").textContent = config.name;
  document.getElementById("clock").textContent =
    `every agent's position after ${steps} steps (particle,x,y,z), as wander3d run writes them`;
} else {
  try {
    live();
  } catch (e) {
    // Most likely no WebGL 2 here: say so on the page, not only in the console.
    document.getElementById("clock").textContent = `This browser cannot draw the scene: ${e.message}`;
    throw e;
  }
}
