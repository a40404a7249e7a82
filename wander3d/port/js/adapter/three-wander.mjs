// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// three-wander.mjs: three.js adapter for wander.mjs (the core). three is your import: pass
// the THREE namespace in; nothing of three is bundled here.
//
//   const agents = new WanderInstances(THREE, flock, geometry, material);  // one InstancedMesh
//   scene.add(agents.mesh);
//   // each frame: agents.update(clock.getDelta());
//
// Geometry is drawn facing +z: each agent's +z axis is turned onto its heading, its +y kept
// as close to world up as the heading allows.

const FORWARD = [0, 0, 1];

/** Writes agent i's pose (interpolated position, heading) into matrix-like helpers. */
class Poser {
  constructor(THREE, flock) {
    this.flock = flock;
    this.position = new THREE.Vector3();
    this.heading = new THREE.Vector3();
    this.forward = new THREE.Vector3(...FORWARD);
    this.quaternion = new THREE.Quaternion();
    this.scale = new THREE.Vector3(1, 1, 1);
    this.matrix = new THREE.Matrix4();
    this.out = [0, 0, 0];
    this.alpha = 1; // where between the last two steps to draw: 1 (the last) until update()
  }

  /** Step the flock by a frame of `seconds`; remember where to draw between steps. */
  update(seconds) {
    this.alpha = this.flock.update(seconds);
  }

  /** Agent i's pose now: sets this.position and this.quaternion. */
  pose(i) {
    const f = this.flock;
    f.positionAt(i, this.alpha, this.out);
    this.position.set(this.out[0], this.out[1], this.out[2]);
    this.heading.set(f.heading[3 * i], f.heading[3 * i + 1], f.heading[3 * i + 2]);
    this.quaternion.setFromUnitVectors(this.forward, this.heading);
  }
}

/** Every agent of a flock as one InstancedMesh (the fast way for hundreds or thousands). */
export class WanderInstances {
  constructor(THREE, flock, geometry, material) {
    this.flock = flock;
    this.poser = new Poser(THREE, flock);
    this.mesh = new THREE.InstancedMesh(geometry, material, flock.count);
    this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.mesh.frustumCulled = false; // agents roam the whole box
    this.debugGroup = null;
    this.draw();
  }

  /** Advance by a frame of `seconds` (fixed-dt steps inside) and move the instances. */
  update(seconds) {
    this.poser.update(seconds);
    this.draw();
  }

  draw() {
    const p = this.poser;
    for (let i = 0; i < this.flock.count; i++) {
      p.pose(i);
      p.matrix.compose(p.position, p.quaternion, p.scale);
      this.mesh.setMatrixAt(i, p.matrix);
    }
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
    const p = this.poser;
    this.objects.forEach((object, i) => {
      p.pose(i);
      object.position.copy(p.position);
      object.quaternion.copy(p.quaternion);
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
  const matrix = new THREE.Matrix4();
  group.userData.follow = () => {
    for (let i = 0; i < flock.count; i++) {
      const [x, y, z, r] = flock.wanderSphere(i);
      matrix.makeScale(r, r, r).setPosition(x, y, z);
      spheres.setMatrixAt(i, matrix);
      matrix.makeTranslation(flock.target[3 * i], flock.target[3 * i + 1], flock.target[3 * i + 2]);
      dots.setMatrixAt(i, matrix);
    }
    spheres.instanceMatrix.needsUpdate = true;
    dots.instanceMatrix.needsUpdate = true;
  };
  group.userData.follow();
  return group;
}
