// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// three-wander.mjs: three.js adapter for wander.mjs (the core). three is your import: pass
// the THREE namespace in; nothing of three is bundled here.
//
//   const agents = new WanderInstances(THREE, flock, geometry, material);  // one InstancedMesh
//   scene.add(agents.mesh);
//   // each frame: agents.update(clock.getDelta());
//
// Geometry is drawn facing +z with +y up. Each agent's +z is turned onto its heading and its
// +y kept as close to world up as the heading allows (the core's upright frame: a fish or a
// bird never rolls or flips), its position and heading interpolated between its last two steps.

/** Writes agent i's pose (interpolated position and upright frame) as a model matrix. */
class Poser {
  constructor(THREE, flock) {
    this.flock = flock;
    this.pose = new Float64Array(12);
    this.matrix = new THREE.Matrix4();
    // Where to draw between the last two steps: 1 (the last) until update(). First given null,
    // the field holds a boxed number that goes to the core as it is, once per agent, where a
    // field that only ever held numbers would be boxed anew for each (the core's dt likewise).
    this.alpha = null;
    this.alpha = 1;
  }

  /** Step the flock by a frame of `seconds`; remember where to draw between steps. */
  update(seconds) {
    this.alpha = this.flock.update(seconds);
  }

  /** Agent i's model matrix now, column-major into out[at..at+15]: its frame's x, y, z axes,
   * then its position (three's Matrix4.elements and instance matrices are laid out so). */
  write(i, out, at) {
    const q = this.flock.poseAt(i, this.alpha, this.pose);
    for (let c = 0; c < 3; c++) {
      out[at + 4 * c] = q[3 + 3 * c];
      out[at + 4 * c + 1] = q[4 + 3 * c];
      out[at + 4 * c + 2] = q[5 + 3 * c];
      out[at + 4 * c + 3] = 0;
      out[at + 12 + c] = q[c];
    }
    out[at + 15] = 1;
  }

  /** Agent i's model matrix now, as this.matrix. */
  place(i) {
    this.write(i, this.matrix.elements, 0);
    return this.matrix;
  }
}

/** Every group's colour, or null when a group has none. */
function groupColors(flock) {
  return flock.groups.every((g) => g.color) ? flock.groups.map((g) => g.color) : null;
}

/**
 * Every agent of a flock as one InstancedMesh (the fast way for hundreds or thousands).
 * `colors`: one per group (anything THREE.Color.set takes), the instances' colours; by default
 * the groups' own (SCENE's `color`); null for none (the material's colour alone).
 */
export class WanderInstances {
  constructor(THREE, flock, geometry, material, colors = groupColors(flock)) {
    this.flock = flock;
    this.poser = new Poser(THREE, flock);
    this.mesh = new THREE.InstancedMesh(geometry, material, flock.count);
    this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.mesh.frustumCulled = false; // agents roam the whole box
    if (colors) {
      const color = new THREE.Color();
      for (let i = 0; i < flock.count; i++) this.mesh.setColorAt(i, color.set(colors[flock.groupOf[i]]));
      this.mesh.instanceColor.needsUpdate = true;
    }
    this.debugGroup = null;
    this.draw();
  }

  /** Advance by a frame of `seconds` (fixed-dt steps inside) and move the instances. */
  update(seconds) {
    this.poser.update(seconds);
    this.draw();
  }

  draw() {
    const matrices = this.mesh.instanceMatrix.array;
    for (let i = 0; i < this.flock.count; i++) this.poser.write(i, matrices, 16 * i);
    this.mesh.instanceMatrix.needsUpdate = true;
    if (this.debugGroup) this.debugGroup.userData.follow();
  }

  /** A debug overlay (wander sphere and target per agent) that follows the flock. */
  debug(THREE) {
    this.debugGroup = debugOverlay(THREE, this.flock);
    return this.debugGroup;
  }
}

/** One Object3D per agent (your own models): each is placed and turned every frame. */
export class WanderObjects {
  constructor(THREE, flock, objects) {
    if (objects.length !== flock.count) throw new Error(`need ${flock.count} objects, got ${objects.length}`);
    this.flock = flock;
    this.objects = objects;
    this.poser = new Poser(THREE, flock);
    this.debugGroup = null;
    this.draw();
  }

  update(seconds) {
    this.poser.update(seconds);
    this.draw();
  }

  draw() {
    this.objects.forEach((object, i) => {
      const matrix = this.poser.place(i);
      object.position.setFromMatrixPosition(matrix);
      object.quaternion.setFromRotationMatrix(matrix);
    });
    if (this.debugGroup) this.debugGroup.userData.follow();
  }

  debug(THREE) {
    this.debugGroup = debugOverlay(THREE, this.flock);
    return this.debugGroup;
  }
}

/** Wireframe wander spheres and target dots (as of the last step), in one Group. */
function debugOverlay(THREE, flock) {
  const group = new THREE.Group();
  const sphereGeometry = new THREE.SphereGeometry(1, 12, 8);
  const spheres = new THREE.InstancedMesh(
    sphereGeometry,
    new THREE.MeshBasicMaterial({ color: 0x4fc3f7, wireframe: true, transparent: true, opacity: 0.35 }),
    flock.count,
  );
  const dots = new THREE.InstancedMesh(
    new THREE.SphereGeometry(0.6, 8, 6),
    new THREE.MeshBasicMaterial({ color: 0xff5252 }),
    flock.count,
  );
  spheres.frustumCulled = false;
  dots.frustumCulled = false;
  group.add(spheres, dots);
  const sphere = [0, 0, 0, 0];
  group.userData.follow = () => {
    const a = spheres.instanceMatrix.array;
    const b = dots.instanceMatrix.array;
    for (let i = 0; i < flock.count; i++) {
      // Scale and translation matrices, column-major, written in place (nothing allocated).
      const r = flock.wanderSphere(i, sphere)[3];
      a.fill(0, 16 * i, 16 * i + 16);
      b.fill(0, 16 * i, 16 * i + 16);
      a[16 * i] = a[16 * i + 5] = a[16 * i + 10] = r;
      b[16 * i] = b[16 * i + 5] = b[16 * i + 10] = 1;
      for (let k = 0; k < 3; k++) {
        a[16 * i + 12 + k] = sphere[k];
        b[16 * i + 12 + k] = flock.target[3 * i + k];
      }
      a[16 * i + 15] = b[16 * i + 15] = 1;
    }
    spheres.instanceMatrix.needsUpdate = true;
    dots.instanceMatrix.needsUpdate = true;
  };
  group.userData.follow();
  return group;
}
