// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// wander.mjs: wander3d's wander steering for JavaScript games, identical to the engine.
//
// A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
// same scene, start and seed give the same positions at every step. Standard JavaScript only
// (an ES module; browsers and Node alike). The contract it follows is docs/ports.md of
// wander3d: IEEE doubles evaluated in the engine's order, its own sin/cos/atan2/asin/exp
// (detmath), and a counter-based random stream keyed by (seed, agent, step, draw).
//
//   import { Flock, SCENE } from "./wander.mjs";
//   const flock = new Flock(SCENE);              // agents spawned in the box
//   // each frame:
//   const alpha = flock.update(frameSeconds);    // fixed dt steps; alpha for drawing
//   flock.positionAt(i, alpha, out);             // interpolated position of agent i
//
// Parameters are per group (flock.groups[g].params) and may be changed at any time; they act
// from the next step. Units: lengths in world units, times in seconds, +y is up.

// ---------------------------------------------------------------- the scene (generated)
// BEGIN SCENE: `wander3d port` writes the scene's parameters here.
export const SCENE = {
  name: "Default",
  seed: 7, // any integer in [0, 2^32): seeds every random number of the run
  dt: 0.0166667, // seconds per fixed step
  box: {
    min: [-100.0, -60.0, -100.0], // lowest corner (units)
    max: [100.0, 60.0, 100.0], // highest corner (units)
    margin: 15.0, // agents start turning back this far inside a wall (units)
  },
  groups: [
    {
      name: "wanderers",
      count: 300, // agents
      params: {
        method: "sphere", // sphere | angle | noise | seek | random
        steering: "force", // force: the vector to the target is the force; desired: velocity towards it
        maxSpeed: 40.0, // units/s
        maxForce: 60.0, // mass*units/s^2: limit on the steering force
        mass: 1.0, // acceleration = force / mass
        initialSpeed: 20.0, // units/s, for agents spawned by the port
        distance: 30.0, // units: the wander sphere's centre ahead of the agent
        radius: 12.0, // units: the wander sphere's radius
        jitter: 10.0, // units/sqrt(s): sphere's random displacement
        rate: 0.8, // rad/sqrt(s): angle's random walk of yaw and pitch
        frequency: 0.3, // 1/s: noise's pace
        interval: 4.0, // s: seek's time between new points
        vertical: 1.0, // 0..1: up/down freedom (1 isotropic, 0 level)
      },
    },
  ],
};
// END SCENE

// ---------------------------------------------------------------- detmath (engine/detmath.py)
// sin, cos, atan2, asin and exp from + - * / sqrt floor only, line for line the engine's.

const PIO2_1 = 1.57079632673412561417e0;
const PIO2_2 = 6.0771005063039659766e-11;
const PIO2_2T = 2.02226624879595063154e-21;
const INV_PIO2 = 6.36619772367581382433e-1;
const PIO4 = 7.85398163397448278999e-1;
const S1 = -1.66666666666666324348e-1;
const S2 = 8.33333333332248946124e-3;
const S3 = -1.98412698298579493134e-4;
const S4 = 2.75573137070700676789e-6;
const S5 = -2.50507602534068634195e-8;
const S6 = 1.58969099521155010221e-10;
const C1 = 4.16666666666666019037e-2;
const C2 = -1.38888888888741095749e-3;
const C3 = 2.48015872894767294178e-5;
const C4 = -2.75573143513906633035e-7;
const C5 = 2.0875723212981748279e-9;
const C6 = -1.13596475577881948265e-11;

function sinKernel(x) {
  const z = x * x;
  const w = z * z;
  const r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  return x + z * x * (S1 + z * r);
}

function cosKernel(x) {
  const z = x * x;
  let w = z * z;
  const r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
  const hz = 0.5 * z;
  w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + z * r);
}

let reducedQ = 0; // the quarter turn of the last reduce(): n mod 4

function reduce(x) {
  if (-PIO4 <= x && x <= PIO4) {
    reducedQ = 0;
    return x;
  }
  const n = Math.floor(x * INV_PIO2 + 0.5);
  const t = x - n * PIO2_1;
  let w = n * PIO2_2;
  const r = t - w;
  w = n * PIO2_2T - ((t - r) - w);
  reducedQ = n - 4.0 * Math.floor(n * 0.25);
  return r - w;
}

let cosOut = 0; // the cosine of the last sincos()

/** sin(x), setting cosOut to cos(x): one shared reduction (bit for bit sin and cos). */
function sincos(x) {
  const r = reduce(x);
  const s = sinKernel(r);
  const c = cosKernel(r);
  if (reducedQ === 0) {
    cosOut = c;
    return s;
  }
  if (reducedQ === 1) {
    cosOut = -s;
    return c;
  }
  if (reducedQ === 2) {
    cosOut = -c;
    return -s;
  }
  cosOut = s;
  return -c;
}

const ATAN_HI = [4.63647609000806093515e-1, 7.85398163397448278999e-1, 9.82793723247329054082e-1, 1.570796326794896558e0];
const ATAN_LO = [2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17];
const AT0 = 3.33333333333329318027e-1;
const AT1 = -1.99999999998764832476e-1;
const AT2 = 1.42857142725034663711e-1;
const AT3 = -1.1111110405462355788e-1;
const AT4 = 9.09088713343650656196e-2;
const AT5 = -7.69187620504482999495e-2;
const AT6 = 6.66107313738753120669e-2;
const AT7 = -5.83357013379057348645e-2;
const AT8 = 4.97687799461593236017e-2;
const AT9 = -3.6531572744216915527e-2;
const AT10 = 1.62858201153657823623e-2;

function atanPositive(a) {
  if (a !== a) return a;
  if (a >= 7.378697629483821e19) return ATAN_HI[3] + ATAN_LO[3];
  let part;
  let x;
  if (a < 0.4375) {
    if (a < 7.450580596923828e-9) return a;
    part = -1;
    x = a;
  } else if (a < 0.6875) {
    part = 0;
    x = (2.0 * a - 1.0) / (2.0 + a);
  } else if (a < 1.1875) {
    part = 1;
    x = (a - 1.0) / (a + 1.0);
  } else if (a < 2.4375) {
    part = 2;
    x = (a - 1.5) / (1.0 + 1.5 * a);
  } else {
    part = 3;
    x = -1.0 / a;
  }
  const z = x * x;
  const w = z * z;
  const s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
  const s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
  if (part < 0) return x - x * (s1 + s2);
  return ATAN_HI[part] - ((x * (s1 + s2) - ATAN_LO[part]) - x);
}

const PI = 3.141592653589793116e0;
const PI_LO = 1.2246467991473531772e-16;
const PIO2_HI = 1.570796326794896558e0;
const PIO2_LO = 6.12323399573676603587e-17;
const HALF_PI = Math.PI / 2;

function atan2(y, x) {
  if (x !== x || y !== y) return x + y;
  const negativeY = y < 0.0 || (y === 0.0 && Object.is(y, -0));
  const negativeX = x < 0.0 || (x === 0.0 && Object.is(x, -0));
  const ay = negativeY ? -y : y;
  const ax = negativeX ? -x : x;
  let z;
  if (ay === 0.0) {
    z = negativeX ? PI : 0.0;
  } else if (ax === 0.0) {
    z = PIO2_HI;
  } else if (ax === Infinity) {
    if (ay === Infinity) z = negativeX ? 0.75 * PI : 0.25 * PI;
    else z = negativeX ? PI : 0.0;
  } else if (ay === Infinity) {
    z = PIO2_HI;
  } else {
    const ratio = ay / ax;
    if (ratio > 1.152921504606847e18) {
      z = PIO2_HI + 0.5 * PI_LO;
    } else if (negativeX && ratio < 8.673617379884035e-19) {
      z = PI;
    } else {
      z = atanPositive(ratio);
      if (negativeX) z = PI - (z - PI_LO);
    }
  }
  return negativeY ? -z : z;
}

const PS0 = 1.66666666666666657415e-1;
const PS1 = -3.25565818622400915405e-1;
const PS2 = 2.01212532134862925881e-1;
const PS3 = -4.00555345006794114027e-2;
const PS4 = 7.91534994289814532176e-4;
const PS5 = 3.4793310759602116757e-5;
const QS1 = -2.40339491173441421878e0;
const QS2 = 2.02094576023350569471e0;
const QS3 = -6.8828397160545329303e-1;
const QS4 = 7.70381505559019352791e-2;
const SPLIT = 134217729.0;

function asin(x) {
  const a = x < 0.0 ? -x : x;
  if (a >= 1.0) {
    if (a === 1.0) return x * PIO2_HI + x * PIO2_LO;
    return (x - x) / (x - x);
  }
  let t;
  let p;
  let q;
  if (a < 0.5) {
    if (a < 7.450580596923828e-9) return x;
    t = x * x;
    p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
    q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
    return x + x * (p / q);
  }
  let w = 1.0 - a;
  t = w * 0.5;
  p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
  q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
  const s = Math.sqrt(t);
  let r;
  if (a >= 0.975) {
    r = PIO2_HI - (2.0 * (s + s * (p / q)) - PIO2_LO);
  } else {
    let c = SPLIT * s;
    w = c - (c - s);
    c = (t - w * w) / (s + w);
    p = 2.0 * s * (p / q) - (PIO2_LO - 2.0 * c);
    q = PIO4 - 2.0 * w;
    r = PIO4 - (p - q);
  }
  return x < 0.0 ? -r : r;
}

const LN2_HI = 6.9314718036912381649e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.442695040888963387e0;
const HALF_LN2 = 0.34657359027997264;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.6533902205465251539e-6;
const P5 = 4.13813679705723846039e-8;

function pow2(k) {
  let base = 2.0;
  if (k < 0.0) {
    base = 0.5;
    k = -k;
  }
  let result = 1.0;
  while (k > 0.0) {
    const half = Math.floor(k * 0.5);
    if (k - 2.0 * half === 1.0) result *= base;
    base *= base;
    k = half;
  }
  return result;
}

function exp(x) {
  if (x !== x) return x;
  if (x > 709.782712893384) return Infinity;
  if (x < -745.1332191019411) return 0.0;
  const a = x < 0.0 ? -x : x;
  if (a < 3.725290298461914e-9) return 1.0 + x;
  if (a <= HALF_LN2) {
    const t = x * x;
    const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    return 1.0 - ((x * c) / (c - 2.0) - x);
  }
  const k = Math.floor(x * INV_LN2 + 0.5);
  const hi = x - k * LN2_HI;
  const lo = k * LN2_LO;
  const r = hi - lo;
  const t = r * r;
  const c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  const y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  if (k < -1021.0) return y * pow2(k + 1000.0) * pow2(-1000.0);
  if (k > 1023.0) return y * 2.0 * pow2(k - 1.0);
  return y * pow2(k);
}

/** Python's float %: a floor modulo (JS % truncates). Exact, like the engine's. */
function floorMod(a, b) {
  let m = a % b;
  if (m !== 0 && (m < 0) !== (b < 0)) m += b;
  else if (m === 0) m = b < 0 ? -0 : 0;
  return m;
}

// ---------------------------------------------------------------- the random stream
// 64-bit unsigned integers as (hi, lo) uint32 halves: JavaScript has no uint64, and BigInt is
// far slower. Results of 64-bit helpers land in H, L (no allocation per call).

let H = 0;
let L = 0;

/** (H, L) = (ah, al) * (bh, bl) mod 2^64. */
function mul64(ah, al, bh, bl) {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const t = a0 * b0;
  const m1 = a1 * b0 + (t >>> 16);
  const m2 = a0 * b1 + (m1 & 0xffff);
  const high = a1 * b1 + (m1 >>> 16) + (m2 >>> 16); // the high word of al * bl
  H = (high + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  L = Math.imul(al, bl) >>> 0;
}

/** (H, L) = (ah, al) + (bh, bl) mod 2^64. */
function add64(ah, al, bh, bl) {
  const lo = al + bl;
  const carry = lo > 0xffffffff ? 1 : 0;
  L = lo >>> 0;
  H = (ah + bh + carry) >>> 0;
}

const GOLDEN_HI = 0x9e3779b9;
const GOLDEN_LO = 0x7f4a7c15;
const MIX1_HI = 0xbf58476d;
const MIX1_LO = 0x1ce4e5b9;
const MIX2_HI = 0x94d049bb;
const MIX2_LO = 0x133111eb;
const STRIDE_HI = 0xd1b54a32;
const STRIDE_LO = 0xd192ed03;
const OCTAVE_SALT_HI = 0xa0761d64;
const OCTAVE_SALT_LO = 0x78bd642f;
const SEED_SALT_HI = 0x5;
const SEED_SALT_LO = 0xdeece66d;
const SPAWN_SALT_HI = 0x2545f491; // the port's own spawn stream (not the engine's start)
const SPAWN_SALT_LO = 0x4f6cdd1d;
const TWO32 = 4294967296;
const UNIT = 1.0 / 9007199254740992.0; // 2^-53
const UNIT20 = 2.0 * (1.0 / 2097152.0); // 2 * 2^-21

/** (H, L) = splitmix64's finaliser of (hi, lo). */
function mix(hi, lo) {
  let l = (lo ^ ((lo >>> 30) | (hi << 2))) >>> 0;
  let h = (hi ^ (hi >>> 30)) >>> 0;
  mul64(h, l, MIX1_HI, MIX1_LO);
  l = (L ^ ((L >>> 27) | (H << 5))) >>> 0;
  h = (H ^ (H >>> 27)) >>> 0;
  mul64(h, l, MIX2_HI, MIX2_LO);
  l = (L ^ ((L >>> 31) | (H << 1))) >>> 0;
  h = (H ^ (H >>> 31)) >>> 0;
  H = h;
  L = l;
}

/** (H, L) = uint64(n) for a whole number |n| < 2^53 (two's complement when negative). */
function fromNumber(n) {
  H = n >= 0 && n < TWO32 ? 0 : Math.floor(n / TWO32) >>> 0;
  L = n >>> 0;
}

/** (H, L) = mix(key + uint64(n) * GOLDEN): the hash behind every draw. */
function hashAt(keyHi, keyLo, n) {
  fromNumber(n);
  mul64(H, L, GOLDEN_HI, GOLDEN_LO);
  add64(keyHi, keyLo, H, L);
  mix(H, L);
}

/** (H, L) >> 11 as a double in [0, 2^53). */
function top53() {
  return H * 2097152 + (L >>> 11);
}

/** The draw-th uniform double in [0, 1) of stream (keyHi, keyLo). */
function uniform(keyHi, keyLo, draw) {
  hashAt(keyHi, keyLo, draw + 1);
  return top53() * UNIT;
}

/** (H, L) = the stream key of an agent in a step (or a hold): agentKey + step * STRIDE. */
function streamKey(agentHi, agentLo, step) {
  fromNumber(step);
  mul64(H, L, STRIDE_HI, STRIDE_LO);
  add64(agentHi, agentLo, H, L);
}

let ballY = 0; // y and z of the last inUnitBall()
let ballZ = 0;

/** A point uniform in the unit ball (not within 1e-3 of its centre): x, with ballY, ballZ. */
function inUnitBall(keyHi, keyLo) {
  for (let draw = 0; ; draw++) {
    hashAt(keyHi, keyLo, draw + 1);
    const x = (L & 0x1fffff) * UNIT20 - 1.0;
    const y = (((L >>> 21) | (H << 11)) & 0x1fffff) * UNIT20 - 1.0;
    const z = ((H >>> 10) & 0x1fffff) * UNIT20 - 1.0;
    const r2 = x * x + y * y + z * z;
    if (1e-6 < r2 && r2 <= 1.0) {
      ballY = y;
      ballZ = z;
      return x;
    }
  }
}

const OCTAVE_RATIO = 2.0 * 1.0693;

/**
 * Gradient noise of curve (keyHi, keyLo) at x. The gradients at the cell's two ends depend on
 * the key and the cell only, and a curve stays in one cell for many steps, so they are kept
 * in cache[at..at+2] (cell, g0, g1): the same values, a fraction of the hashing.
 */
function gradientNoise(keyHi, keyLo, x, cache, at) {
  const cell = Math.floor(x);
  const f = x - cell;
  if (cache[at] !== cell) {
    hashAt(keyHi, keyLo, cell);
    cache[at + 1] = top53() * UNIT * 2.0 - 1.0;
    hashAt(keyHi, keyLo, cell + 1);
    cache[at + 2] = top53() * UNIT * 2.0 - 1.0;
    cache[at] = cell;
  }
  const g0 = cache[at + 1];
  const g1 = cache[at + 2];
  const fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
  return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0));
}

/** Two octaves of gradient noise (cache[at..at+5] holds both octaves' gradients). */
function smoothNoise(keyHi, keyLo, x, cache, at) {
  const second = gradientNoise((keyHi ^ OCTAVE_SALT_HI) >>> 0, (keyLo ^ OCTAVE_SALT_LO) >>> 0, x * OCTAVE_RATIO + 0.5, cache, at + 3);
  return (gradientNoise(keyHi, keyLo, x, cache, at) + 0.5 * second) * (1.0 / 1.5);
}

// ---------------------------------------------------------------- frames and angles

let outY = 0; // y, z of the last function returning a vector (x is its return value)
let outZ = 0;

function reflectPitch(pitch) {
  if (pitch > HALF_PI) return Math.PI - pitch;
  if (pitch < -HALF_PI) return -Math.PI - pitch;
  return pitch;
}

let pitchOut = 0; // the pitch of the last noiseAngles() / anglesFromDirection() / shiftOffsets()

/** The noise method's target yaw (and pitchOut); cache[at..at+11]: its curves' gradients. */
function noiseAngles(k0h, k0l, k1h, k1l, phase0, phase1, t, vertical, offsetYaw, offsetPitch, cache, at) {
  const yaw = Math.PI * smoothNoise(k0h, k0l, phase0 + t, cache, at) + offsetYaw;
  const pitch = HALF_PI * Math.min(1.0, Math.max(-1.0, smoothNoise(k1h, k1l, phase1 + t, cache, at + 6))) * vertical;
  pitchOut = reflectPitch(pitch + offsetPitch);
  return yaw;
}

function shiftOffsets(offsetYaw, offsetPitch, deltaYaw, deltaPitch) {
  pitchOut = Math.min(Math.PI, Math.max(-Math.PI, offsetPitch + deltaPitch));
  return floorMod(offsetYaw + deltaYaw + Math.PI, 2.0 * Math.PI) - Math.PI;
}

function directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz) {
  const ux = sy * hz - sz * hy;
  const uy = sz * hx - sx * hz;
  const uz = sx * hy - sy * hx;
  const sinPitch = sincos(pitch);
  const cosPitch = cosOut;
  const sinYaw = sincos(yaw);
  const cosYaw = cosOut;
  const a = cosPitch * cosYaw;
  const b = cosPitch * sinYaw;
  const c = sinPitch;
  outY = a * hy + b * sy + c * uy;
  outZ = a * hz + b * sz + c * uz;
  return a * hx + b * sx + c * ux;
}

function anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz) {
  const ux = sy * hz - sz * hy;
  const uy = sz * hx - sx * hz;
  const uz = sx * hy - sy * hx;
  const yaw = atan2(wx * sx + wy * sy + wz * sz, wx * hx + wy * hy + wz * hz);
  const up = wx * ux + wy * uy + wz * uz;
  pitchOut = asin(Math.min(1.0, Math.max(-1.0, up)));
  return yaw;
}

function perpendicular(ax, ay, az) {
  let px;
  let py;
  let pz;
  if (Math.abs(ax) <= Math.abs(ay) && Math.abs(ax) <= Math.abs(az)) {
    px = 0.0;
    py = az;
    pz = -ay;
  } else if (Math.abs(ay) <= Math.abs(az)) {
    px = -az;
    py = 0.0;
    pz = ax;
  } else {
    px = ay;
    py = -ax;
    pz = 0.0;
  }
  const n = Math.sqrt(px * px + py * py + pz * pz);
  outY = py / n;
  outZ = pz / n;
  return px / n;
}

/** v rotated by the minimal rotation taking unit a onto unit b (parallel transport). */
function transport(vx, vy, vz, ax, ay, az, bx, by, bz) {
  const c = ax * bx + ay * by + az * bz;
  if (c < -1.0 + 1e-9) {
    const px = perpendicular(ax, ay, az);
    const py = outY;
    const pz = outZ;
    const d = 2.0 * (px * vx + py * vy + pz * vz);
    outY = d * py - vy;
    outZ = d * pz - vz;
    return d * px - vx;
  }
  const kx = ay * bz - az * by;
  const ky = az * bx - ax * bz;
  const kz = ax * by - ay * bx;
  const s = (kx * vx + ky * vy + kz * vz) / (1.0 + c);
  outY = c * vy + (kz * vx - kx * vz) + s * ky;
  outZ = c * vz + (kx * vy - ky * vx) + s * kz;
  return c * vx + (ky * vz - kz * vy) + s * kx;
}

const pair = new Float64Array(6); // transportPair's result: v then w

function transportPair(vx, vy, vz, wx, wy, wz, ax, ay, az, bx, by, bz) {
  const c = ax * bx + ay * by + az * bz;
  if (c < -1.0 + 1e-9) {
    pair[0] = transport(vx, vy, vz, ax, ay, az, bx, by, bz);
    pair[1] = outY;
    pair[2] = outZ;
    pair[3] = transport(wx, wy, wz, ax, ay, az, bx, by, bz);
    pair[4] = outY;
    pair[5] = outZ;
    return;
  }
  const kx = ay * bz - az * by;
  const ky = az * bx - ax * bz;
  const kz = ax * by - ay * bx;
  const inverse = 1.0 / (1.0 + c);
  const s = (kx * vx + ky * vy + kz * vz) * inverse;
  const t = (kx * wx + ky * wy + kz * wz) * inverse;
  pair[0] = c * vx + (ky * vz - kz * vy) + s * kx;
  pair[1] = c * vy + (kz * vx - kx * vz) + s * ky;
  pair[2] = c * vz + (kx * vy - ky * vx) + s * kz;
  pair[3] = c * wx + (ky * wz - kz * wy) + t * kx;
  pair[4] = c * wy + (kz * wx - kx * wz) + t * ky;
  pair[5] = c * wz + (kx * wy - ky * wx) + t * kz;
}

// ---------------------------------------------------------------- the flock

export const METHODS = ["sphere", "angle", "noise", "seek", "random"];
const SPHERE = 0;
const ANGLE = 1;
const NOISE = 2;
const SEEK = 3;

const RAMP_FRACTION = 0.25; // the containment push ramps to full over this part of the margin
const LOOKAHEAD = 0.25; // s: agents look this far ahead (plus their stopping time) for walls
const RANDOM_HOLD = 1.0 / 30.0; // s: the random method's force is held this long
const PITCH_SPREAD = 0.7; // rad: the angle method's pitch spread at vertical 1
const LEVEL_SECONDS = 0.14; // s: at most this often the side vector is pulled level
const TINY = 1e-12;
/** A frame longer than this (s) counts as this long: a stalled tab makes no burst of steps. */
export const MAX_FRAME_SECONDS = 0.25;

/** The level side of unit heading h (h x up, normalised; x, with outY, outZ), or any
 * perpendicular for a vertical heading. */
function levelSide(hx, hy, hz) {
  const sx = -hz;
  const sz = hx;
  const level = Math.sqrt(sx * sx + sz * sz);
  if (level > 1e-9) {
    outY = 0.0;
    outZ = sz / level;
    return sx / level;
  }
  return perpendicular(hx, hy, hz);
}

/** The angle method's pitch walk per step: [decay, kick] (engine: kernel.pitch_walk). */
function pitchWalk(rate, vertical, dt) {
  const spread = vertical * PITCH_SPREAD;
  if (rate <= 0.0) return [1.0, 0.0];
  if (spread <= 0.0) return [0.0, 0.0];
  const decay = exp((-dt * rate * rate) / (6.0 * spread * spread));
  return [decay, spread * Math.sqrt(3.0 * (1.0 - decay * decay))];
}

/**
 * Agents of one or more groups wandering in a box, advanced in fixed steps of `dt` seconds.
 *
 * State is in flat typed arrays, agent i's vector at [3i, 3i+1, 3i+2]: `position`, `velocity`
 * (units/s), `heading` (unit), `target` (the wander target, for debug drawing), `force`
 * (the last step's steering force). `groups[g].params` holds each group's parameters.
 */
export class Flock {
  /**
   * @param scene  {seed, dt, box: {min, max, margin}, groups: [{name, count, params}]}, e.g.
   *               SCENE; the parameter objects are copied.
   * @param start  optional: the text of a start.txt (wander3d's exact start of the scene);
   *               without it agents are spawned by the port's own rule (see spawn()).
   */
  constructor(scene = SCENE, start = null) {
    this.seed = scene.seed;
    this.dt = scene.dt;
    this.low = scene.box.min.slice();
    this.high = scene.box.max.slice();
    this.margin = scene.box.margin;
    this.groups = scene.groups.map((g) => ({ name: g.name, count: g.count, params: { ...g.params } }));
    const n = this.groups.reduce((sum, g) => sum + g.count, 0);
    this.count = n;
    this.step = 0; // steps taken since the start
    this.groupOf = new Int32Array(n);
    let first = 0;
    this.groups.forEach((g, index) => {
      g.first = first;
      this.groupOf.fill(index, first, first + g.count);
      first += g.count;
    });
    this.position = new Float64Array(3 * n);
    this.previous = new Float64Array(3 * n); // positions before the last step, for drawing
    this.velocity = new Float64Array(3 * n);
    this.heading = new Float64Array(3 * n);
    this.side = new Float64Array(3 * n);
    this.wander = new Float64Array(3 * n);
    this.target = new Float64Array(3 * n);
    this.force = new Float64Array(3 * n);
    this.angles = new Float64Array(2 * n); // yaw, pitch (noise: offsets of its curves)
    this.noiseKeys = new Uint32Array(4 * n); // two uint64 keys as hi, lo words
    this.noisePhase = new Float64Array(2 * n);
    this.gradients = new Float64Array(12 * n).fill(NaN); // noise curves' cells and gradients
    this.seekPoint = new Float64Array(3 * n);
    this.seekTimer = new Float64Array(n);
    this.held = new Float64Array(n).fill(-1); // random method: the hold drawn in heldForce
    this.heldForce = new Float64Array(3 * n);
    this.accumulator = 0; // s of frame time not yet stepped
    mix(SEED_SALT_HI, (this.seed ^ SEED_SALT_LO) >>> 0);
    this.seedHi = H;
    this.seedLo = L;
    this.agentKeys = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      mul64(0, i, GOLDEN_HI, GOLDEN_LO);
      mix((this.seedHi ^ H) >>> 0, (this.seedLo ^ L) >>> 0);
      this.agentKeys[2 * i] = H;
      this.agentKeys[2 * i + 1] = L;
    }
    if (start === null) this.spawn();
    else this.loadStart(start);
    this.previous.set(this.position);
    this.placeTargets();
  }

  /** Read a start.txt: wander3d's exact starting state of this scene (docs/ports.md). */
  loadStart(text) {
    // A git checkout on Windows may give start.txt "\r\n" line ends.
    const lines = text.split(/\r?\n/);
    while (lines.length > 0 && lines[0].startsWith("#")) lines.shift(); // the licence lines
    if (lines[0] !== "wander3d-start 1" || lines[1] !== `agents ${this.count}`) {
      throw new Error(`not a wander3d start of ${this.count} agents`);
    }
    const view = new DataView(new ArrayBuffer(8));
    const bits = (hex) => {
      view.setUint32(0, parseInt(hex.slice(0, 8), 16));
      view.setUint32(4, parseInt(hex.slice(8, 16), 16));
      return view.getFloat64(0);
    };
    const vectors = [this.position, this.velocity, this.heading, this.side, this.wander];
    for (let i = 0; i < this.count; i++) {
      const f = lines[i + 2].split(" ");
      if (f.length !== 26 || Number(f[0]) !== this.groupOf[i]) throw new Error(`start line ${i + 3} is not agent ${i}'s`);
      vectors.forEach((v, k) => {
        for (let c = 0; c < 3; c++) v[3 * i + c] = bits(f[1 + 3 * k + c]);
      });
      this.angles[2 * i] = bits(f[16]);
      this.angles[2 * i + 1] = bits(f[17]);
      this.noisePhase[2 * i] = bits(f[18]);
      this.noisePhase[2 * i + 1] = bits(f[19]);
      for (let c = 0; c < 3; c++) this.seekPoint[3 * i + c] = bits(f[20 + c]);
      this.seekTimer[i] = bits(f[23]);
      for (let k = 0; k < 2; k++) {
        this.noiseKeys[4 * i + 2 * k] = parseInt(f[24 + k].slice(0, 8), 16);
        this.noiseKeys[4 * i + 2 * k + 1] = parseInt(f[24 + k].slice(8, 16), 16);
      }
    }
    this.gradients.fill(NaN);
  }

  /**
   * Start every agent afresh (the port's own rule, from the seed; not wander3d's start, which
   * start.txt carries): positions uniform in the box inside the margin, headings uniform in
   * direction with their up component scaled by `vertical`, speed `initialSpeed`, the wander
   * target straight ahead (angle, noise: a random yaw and pitch), seek points uniform.
   */
  spawn() {
    this.gradients.fill(NaN);
    const inner = [0, 1, 2].map((a) => [this.low[a] + this.margin, this.high[a] - this.margin - (this.low[a] + this.margin)]);
    for (let i = 0; i < this.count; i++) {
      const p = this.groups[this.groupOf[i]].params;
      const [kh, kl] = this.spawnKey(i);
      for (let a = 0; a < 3; a++) {
        this.position[3 * i + a] = inner[a][0] + uniform(kh, kl, a) * inner[a][1];
        this.seekPoint[3 * i + a] = inner[a][0] + uniform(kh, kl, 3 + a) * inner[a][1];
      }
      let hx = inUnitBall(kh, kl);
      let hy = ballY * p.vertical;
      let hz = ballZ;
      let h = Math.sqrt(hx * hx + hy * hy + hz * hz);
      if (h < 1e-9) {
        hx = 1.0;
        hy = 0.0;
        hz = 0.0;
        h = 1.0;
      }
      hx /= h;
      hy /= h;
      hz /= h;
      const speed = p.initialSpeed ?? p.maxSpeed / 2;
      this.heading.set([hx, hy, hz], 3 * i);
      this.velocity.set([hx * speed, hy * speed, hz * speed], 3 * i);
      const sx = levelSide(hx, hy, hz);
      const sy = outY;
      const sz = outZ;
      this.side.set([sx, sy, sz], 3 * i);
      const yaw = (2.0 * uniform(kh, kl, 6) - 1.0) * Math.PI;
      const pitch = (2.0 * uniform(kh, kl, 7) - 1.0) * HALF_PI * p.vertical;
      this.angles.set(p.method === "angle" ? [yaw, pitch] : [0.0, 0.0], 2 * i);
      for (let k = 0; k < 2; k++) {
        hashAt(kh, kl, 9 + k);
        this.noiseKeys[4 * i + 2 * k] = H & 0x7fffffff; // below 2^63, as the engine draws them
        this.noiseKeys[4 * i + 2 * k + 1] = L;
        this.noisePhase[2 * i + k] = uniform(kh, kl, 11 + k) * 1024.0;
      }
      this.seekTimer[i] = uniform(kh, kl, 13) * p.interval;
      let wx = hx;
      let wy = hy;
      let wz = hz;
      if (p.method === "angle") {
        wx = directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz);
        wy = outY;
        wz = outZ;
      } else if (p.method === "noise") {
        const k = this.noiseKeys;
        const nYaw = noiseAngles(k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3], this.noisePhase[2 * i], this.noisePhase[2 * i + 1], 0.0, p.vertical, 0.0, 0.0, this.gradients, 12 * i);
        wx = directionFromAngles(nYaw, pitchOut, hx, hy, hz, sx, sy, sz);
        wy = outY;
        wz = outZ;
      }
      this.wander.set([wx, wy, wz], 3 * i);
    }
    this.step = 0;
    this.held.fill(-1);
  }

  /**
   * Switch group `g` to wander `method`, each agent continuing from where its target is now
   * (as wander3d's app does): the wander direction keeps pointing where it did (from seek:
   * from the sphere's centre to the point sought); angle and noise measure its yaw and pitch
   * in a fresh level frame (noise: new curves, offset to pass through it); seek seeks the
   * shown target, kept inside the margin. New random draws come from the agent's spawn
   * stream at the current step. Setting params.method directly switches without this care.
   */
  setMethod(g, method) {
    const group = this.groups[g];
    const p = group.params;
    if (!METHODS.includes(method)) throw new Error(`no wander method ${method} (${METHODS.join(", ")})`);
    const old = p.method;
    if (method === old) return;
    const t = this.step * this.dt * p.frequency;
    for (let i = group.first; i < group.first + group.count; i++) {
      const i3 = 3 * i;
      const [px, py, pz] = this.position.subarray(i3, i3 + 3);
      const [hx, hy, hz] = this.heading.subarray(i3, i3 + 3);
      let [wx, wy, wz] = this.wander.subarray(i3, i3 + 3);
      if (old === "seek") {
        wx = this.seekPoint[i3] - (px + hx * p.distance);
        wy = this.seekPoint[i3 + 1] - (py + hy * p.distance);
        wz = this.seekPoint[i3 + 2] - (pz + hz * p.distance);
      }
      const w = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (w > TINY) {
        wx /= w;
        wy /= w;
        wz /= w;
      } else {
        wx = hx;
        wy = hy;
        wz = hz;
      }
      this.wander.set([wx, wy, wz], i3);
      streamKey(...this.spawnKey(i), this.step);
      const kh = H;
      const kl = L;
      if (method === "angle" || method === "noise") {
        const sx = levelSide(hx, hy, hz);
        const sy = outY;
        const sz = outZ;
        this.side.set([sx, sy, sz], i3);
        const yaw = anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz);
        const pitch = pitchOut;
        if (method === "angle") {
          this.angles.set([yaw, pitch], 2 * i);
        } else {
          for (let k = 0; k < 2; k++) {
            hashAt(kh, kl, 1 + k);
            this.noiseKeys[4 * i + 2 * k] = H & 0x7fffffff;
            this.noiseKeys[4 * i + 2 * k + 1] = L;
            this.noisePhase[2 * i + k] = uniform(kh, kl, 3 + k) * 1024.0;
          }
          this.gradients.fill(NaN, 12 * i, 12 * i + 12);
          const k = this.noiseKeys;
          const curveYaw = noiseAngles(k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3], this.noisePhase[2 * i], this.noisePhase[2 * i + 1], t, p.vertical, 0.0, 0.0, this.gradients, 12 * i);
          const offsetYaw = shiftOffsets(0.0, 0.0, yaw - curveYaw, pitch - pitchOut);
          this.angles.set([offsetYaw, pitchOut], 2 * i);
        }
      } else if (method === "seek") {
        for (let a = 0; a < 3; a++) {
          const shown = old === "seek" ? this.seekPoint[i3 + a] : this.position[i3 + a] + this.heading[i3 + a] * p.distance + this.wander[i3 + a] * p.radius;
          this.seekPoint[i3 + a] = Math.min(this.high[a] - this.margin, Math.max(this.low[a] + this.margin, shown));
        }
        this.seekTimer[i] = uniform(kh, kl, 5) * p.interval;
      }
      this.held[i] = -1;
    }
    p.method = method;
    this.placeTargets();
  }

  /** Agent i's spawn stream key: [hi, lo]. */
  spawnKey(i) {
    mix((this.agentKeys[2 * i] ^ SPAWN_SALT_HI) >>> 0, (this.agentKeys[2 * i + 1] ^ SPAWN_SALT_LO) >>> 0);
    return [H, L];
  }

  /**
   * Advance by a frame of `frameSeconds` (capped at MAX_FRAME_SECONDS): as many fixed steps
   * as the accumulated time holds. Returns alpha in [0, 1): how far the display time is
   * between the last two steps, for positionAt(). The run is the same at any frame rate.
   */
  update(frameSeconds) {
    this.accumulator += Math.min(Math.max(frameSeconds, 0), MAX_FRAME_SECONDS);
    while (this.accumulator >= this.dt) {
      this.advance(1);
      this.accumulator -= this.dt;
    }
    return this.accumulator / this.dt;
  }

  /** Agent i's position at `alpha` between its last two steps (0: the one before the last,
   * 1: the last), into out[0..2]. */
  positionAt(i, alpha, out) {
    for (let a = 0; a < 3; a++) {
      const before = this.previous[3 * i + a];
      out[a] = before + (this.position[3 * i + a] - before) * alpha;
    }
    return out;
  }

  /** Agent i's wander sphere, for debug drawing: [centre x, y, z, radius] (seek: radius 0). */
  wanderSphere(i) {
    const p = this.groups[this.groupOf[i]].params;
    const c = [0, 1, 2].map((a) => this.position[3 * i + a] + this.heading[3 * i + a] * p.distance);
    return [...c, p.method === "seek" ? 0 : p.radius];
  }

  /** Take `steps` fixed steps of dt (the engine's kernel.advance, agent by agent). */
  advance(steps = 1) {
    const dt = this.dt;
    const margin = this.margin;
    const [lox, loy, loz] = this.low;
    const [hix, hiy, hiz] = this.high;
    const rootDt = Math.sqrt(dt);
    const randomHolds = Math.min(1.0, dt / RANDOM_HOLD);
    const randomGain = Math.sqrt(Math.min(1.0, RANDOM_HOLD / dt));
    let levelSteps = 1;
    while (2 * levelSteps * dt <= LEVEL_SECONDS) levelSteps *= 2;
    const inverseRamp = margin > 0.0 ? 1.0 / (margin * RAMP_FRACTION) : 0.0;
    // Per group, from its parameters as they are now.
    const constants = this.groups.map((g) => {
      const p = g.params;
      const method = METHODS.indexOf(p.method);
      if (method < 0) throw new Error(`group ${g.name}: no wander method ${p.method}`);
      const [pitchDecay, pitchKick] = pitchWalk(p.rate, p.vertical, dt);
      return {
        method,
        desired: p.steering === "desired",
        distance: p.distance,
        radius: p.radius,
        jitterStep: p.jitter * rootDt,
        rateStep: p.rate * rootDt,
        frequency: p.frequency,
        offsetFade: exp(-dt * p.frequency),
        interval: p.interval,
        vertical: p.vertical,
        maxSpeed: p.maxSpeed,
        maxForce: p.maxForce,
        inverseMass: 1.0 / p.mass,
        stopTime: (0.5 * p.mass) / p.maxForce,
        pitchDecay,
        pitchKick,
      };
    });
    for (let n = 0; n < steps; n++) {
      this.previous.set(this.position);
      const step = this.step;
      streamKey(0, 0, step);
      const strideHi = H; // step * STRIDE, added to each agent's key
      const strideLo = L;
      const level = step % levelSteps === 0;
      for (let i = 0; i < this.count; i++) {
        this.stepAgent(i, step, constants[this.groupOf[i]], strideHi, strideLo, level, dt, margin, lox, loy, loz, hix, hiy, hiz, inverseRamp, randomHolds, randomGain);
      }
      this.step = step + 1;
    }
    this.placeTargets();
  }

  /** The shown target of every agent: its seek point, or its point on the wander sphere. */
  placeTargets() {
    for (let i = 0; i < this.count; i++) {
      const p = this.groups[this.groupOf[i]].params;
      for (let a = 0; a < 3; a++) {
        const j = 3 * i + a;
        this.target[j] = p.method === "seek" ? this.seekPoint[j] : this.position[j] + this.heading[j] * p.distance + this.wander[j] * p.radius;
      }
    }
  }

  stepAgent(i, step, g, strideHi, strideLo, level, dt, margin, lox, loy, loz, hix, hiy, hiz, inverseRamp, randomHolds, randomGain) {
    const i3 = 3 * i;
    let px = this.position[i3];
    let py = this.position[i3 + 1];
    let pz = this.position[i3 + 2];
    let vx = this.velocity[i3];
    let vy = this.velocity[i3 + 1];
    let vz = this.velocity[i3 + 2];
    let hx = this.heading[i3];
    let hy = this.heading[i3 + 1];
    let hz = this.heading[i3 + 2];
    let sx = this.side[i3];
    let sy = this.side[i3 + 1];
    let sz = this.side[i3 + 2];
    let wx = this.wander[i3];
    let wy = this.wander[i3 + 1];
    let wz = this.wander[i3 + 2];
    let yaw = this.angles[2 * i];
    let pitch = this.angles[2 * i + 1];
    const method = g.method;
    const distance = g.distance;
    const radius = g.radius;
    const vertical = g.vertical;
    const maxSpeed = g.maxSpeed;
    const maxForce = g.maxForce;
    const agentHi = this.agentKeys[2 * i];
    const agentLo = this.agentKeys[2 * i + 1];
    add64(agentHi, agentLo, strideHi, strideLo);
    const keyHi = H;
    const keyLo = L;

    // 1. Containment, per axis: + pushes towards high, - towards low.
    let ix = 0.0;
    let iy = 0.0;
    let iz = 0.0;
    const stopTime = g.stopTime;
    const aheadX = px + vx * (LOOKAHEAD + Math.abs(vx) * stopTime);
    const aheadY = py + vy * (LOOKAHEAD + Math.abs(vy) * stopTime);
    const aheadZ = pz + vz * (LOOKAHEAD + Math.abs(vz) * stopTime);
    if (margin > 0.0) {
      if (hx < 0.0) ix = Math.min(1.0, Math.max(0.0, (lox + margin - aheadX) * inverseRamp));
      else if (hx > 0.0) ix = -Math.min(1.0, Math.max(0.0, (aheadX - (hix - margin)) * inverseRamp));
      if (hy < 0.0) iy = Math.min(1.0, Math.max(0.0, (loy + margin - aheadY) * inverseRamp));
      else if (hy > 0.0) iy = -Math.min(1.0, Math.max(0.0, (aheadY - (hiy - margin)) * inverseRamp));
      if (hz < 0.0) iz = Math.min(1.0, Math.max(0.0, (loz + margin - aheadZ) * inverseRamp));
      else if (hz > 0.0) iz = -Math.min(1.0, Math.max(0.0, (aheadZ - (hiz - margin)) * inverseRamp));
    }
    const weight = Math.max(Math.abs(ix), Math.max(Math.abs(iy), Math.abs(iz)));

    // 2. The wander target.
    let usedYaw = 0.0;
    let usedPitch = 0.0;
    let tx;
    let ty;
    let tz;
    if (method === SEEK) {
      this.seekTimer[i] -= dt;
      if (this.seekTimer[i] <= 0.0) {
        this.seekPoint[i3] = lox + margin + uniform(keyHi, keyLo, 0) * (hix - lox - 2 * margin);
        this.seekPoint[i3 + 1] = loy + margin + uniform(keyHi, keyLo, 1) * (hiy - loy - 2 * margin);
        this.seekPoint[i3 + 2] = loz + margin + uniform(keyHi, keyLo, 2) * (hiz - loz - 2 * margin);
        this.seekTimer[i] += g.interval;
      }
      tx = this.seekPoint[i3];
      ty = this.seekPoint[i3 + 1];
      tz = this.seekPoint[i3 + 2];
    } else {
      if (method === SPHERE) {
        const ux = inUnitBall(keyHi, keyLo);
        const qx = wx * radius + ux * g.jitterStep;
        const qy = wy * radius + ballY * g.jitterStep * vertical;
        const qz = wz * radius + ballZ * g.jitterStep;
        const q = Math.sqrt(qx * qx + qy * qy + qz * qz);
        if (q > 1e-9 * radius) {
          const inverse = 1.0 / q;
          wx = qx * inverse;
          wy = qy * inverse;
          wz = qz * inverse;
        }
      } else if (method === ANGLE) {
        yaw += (2.0 * uniform(keyHi, keyLo, 0) - 1.0) * g.rateStep;
        pitch = pitch * g.pitchDecay + (2.0 * uniform(keyHi, keyLo, 1) - 1.0) * g.pitchKick;
        if (yaw >= Math.PI || yaw < -Math.PI) yaw = floorMod(yaw + Math.PI, 2.0 * Math.PI) - Math.PI;
        pitch = reflectPitch(pitch);
        wx = directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz);
        wy = outY;
        wz = outZ;
      } else if (method === NOISE) {
        yaw *= g.offsetFade;
        pitch *= g.offsetFade;
        const k = this.noiseKeys;
        usedYaw = noiseAngles(k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3], this.noisePhase[2 * i], this.noisePhase[2 * i + 1], step * dt * g.frequency, vertical, yaw, pitch, this.gradients, 12 * i);
        usedPitch = pitchOut;
        wx = directionFromAngles(usedYaw, usedPitch, hx, hy, hz, sx, sy, sz);
        wy = outY;
        wz = outZ;
      } else {
        // RANDOM: a fresh uniform direction every RANDOM_HOLD s.
        const hold = Math.trunc((step + 0.5) * randomHolds);
        if (hold !== this.held[i]) {
          this.held[i] = hold;
          streamKey(agentHi, agentLo, hold);
          let ux = inUnitBall(H, L);
          let uy = ballY * vertical;
          let uz = ballZ;
          let u = Math.sqrt(ux * ux + uy * uy + uz * uz);
          if (u < 1e-9) {
            ux = 1.0;
            uy = 0.0;
            uz = 0.0;
            u = 1.0;
          }
          const gain = randomGain / u;
          this.heldForce[i3] = ux * gain;
          this.heldForce[i3 + 1] = uy * gain;
          this.heldForce[i3 + 2] = uz * gain;
        }
        wx = this.heldForce[i3];
        wy = this.heldForce[i3 + 1];
        wz = this.heldForce[i3 + 2];
      }
      // Turn the target inward on axes heading into a wall (a mirror keeps it on the sphere).
      let turned = false;
      if ((ix > 0.0 && wx < 0.0) || (ix < 0.0 && wx > 0.0)) {
        wx = -wx;
        turned = true;
      }
      if ((iy > 0.0 && wy < 0.0) || (iy < 0.0 && wy > 0.0)) {
        wy = -wy;
        turned = true;
      }
      if ((iz > 0.0 && wz < 0.0) || (iz < 0.0 && wz > 0.0)) {
        wz = -wz;
        turned = true;
      }
      if (turned && method === ANGLE) {
        yaw = anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz);
        pitch = pitchOut;
      } else if (turned && method === NOISE) {
        const turnedYaw = anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz);
        const turnedPitch = pitchOut;
        yaw = shiftOffsets(yaw, pitch, turnedYaw - usedYaw, turnedPitch - usedPitch);
        pitch = pitchOut;
        usedYaw = turnedYaw;
        usedPitch = turnedPitch;
      }
      tx = px + hx * distance + wx * radius;
      ty = py + hy * distance + wy * radius;
      tz = pz + hz * distance + wz * radius;
    }

    // 3. Steering, blended with containment.
    let dx = tx - px;
    let dy = ty - py;
    let dz = tz - pz;
    if (g.desired) {
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (d > TINY) {
        const inverse = 1.0 / d;
        dx *= inverse;
        dy *= inverse;
        dz *= inverse;
      } else {
        dx = hx;
        dy = hy;
        dz = hz;
      }
      dx = dx * maxSpeed - vx;
      dy = dy * maxSpeed - vy;
      dz = dz * maxSpeed - vz;
    }
    dy *= vertical;
    const keep = 1.0 - weight;
    let fx = dx * keep;
    let fy = dy * keep;
    let fz = dz * keep;
    if (weight > 0.0) {
      const c = (maxForce * weight) / Math.sqrt(ix * ix + iy * iy + iz * iz);
      fx += ix * c;
      fy += iy * c;
      fz += iz * c;
    }

    // 4. Vehicle model: truncate the force, integrate.
    const f2 = fx * fx + fy * fy + fz * fz;
    if (f2 > maxForce * maxForce) {
      const scale = maxForce / Math.sqrt(f2);
      fx *= scale;
      fy *= scale;
      fz *= scale;
    }
    const gain = g.inverseMass * dt;
    vx += fx * gain;
    vy += fy * gain;
    vz += fz * gain;
    const speed2 = vx * vx + vy * vy + vz * vz;
    const moving = speed2 > 1e-18;
    let nx = 0.0;
    let ny = 0.0;
    let nz = 0.0;
    if (moving) {
      const inverse = 1.0 / Math.sqrt(speed2);
      nx = vx * inverse;
      ny = vy * inverse;
      nz = vz * inverse;
      if (speed2 > maxSpeed * maxSpeed) {
        vx = nx * maxSpeed;
        vy = ny * maxSpeed;
        vz = nz * maxSpeed;
      }
    }
    px += vx * dt;
    py += vy * dt;
    pz += vz * dt;

    // 5. Carry the frame and the target with the heading.
    if (moving) {
      if (method === ANGLE || method === NOISE) {
        transportPair(sx, sy, sz, wx, wy, wz, hx, hy, hz, nx, ny, nz);
        sx = pair[0];
        sy = pair[1];
        sz = pair[2];
        wx = pair[3];
        wy = pair[4];
        wz = pair[5];
        // Pull the side level (fully for a level heading, less towards vertical).
        const level2 = nx * nx + nz * nz;
        if (level && level2 > 1e-12) {
          let inverse = 1.0 / Math.sqrt(level2);
          let lx = -nz * inverse;
          let lz = nx * inverse;
          if (lx * sx + lz * sz < 0.0) {
            lx = -lx;
            lz = -lz;
          }
          sx += level2 * (lx - sx);
          sy -= level2 * sy;
          sz += level2 * (lz - sz);
          inverse = 1.0 / Math.sqrt(sx * sx + sy * sy + sz * sz);
          sx *= inverse;
          sy *= inverse;
          sz *= inverse;
        }
      } else {
        wx = transport(wx, wy, wz, hx, hy, hz, nx, ny, nz);
        wy = outY;
        wz = outZ;
      }
      hx = nx;
      hy = ny;
      hz = nz;
    }

    // 6. The hard guarantee: reflect agents that left the box.
    let crossed = false;
    if (px < lox || px > hix) {
      px = px < lox ? 2.0 * lox - px : 2.0 * hix - px;
      px = Math.min(hix, Math.max(lox, px));
      vx = -vx;
      hx = -hx;
      sx = -sx;
      wx = -wx;
      crossed = true;
    }
    if (py < loy || py > hiy) {
      py = py < loy ? 2.0 * loy - py : 2.0 * hiy - py;
      py = Math.min(hiy, Math.max(loy, py));
      vy = -vy;
      hy = -hy;
      sy = -sy;
      wy = -wy;
      crossed = true;
    }
    if (pz < loz || pz > hiz) {
      pz = pz < loz ? 2.0 * loz - pz : 2.0 * hiz - pz;
      pz = Math.min(hiz, Math.max(loz, pz));
      vz = -vz;
      hz = -hz;
      sz = -sz;
      wz = -wz;
      crossed = true;
    }
    if (crossed && (method === ANGLE || method === NOISE)) {
      // The mirror flips the frame's handedness; re-express the target in it.
      const w = Math.sqrt(wx * wx + wy * wy + wz * wz);
      const mirroredYaw = anglesFromDirection(wx / w, wy / w, wz / w, hx, hy, hz, sx, sy, sz);
      const mirroredPitch = pitchOut;
      if (method === ANGLE) {
        yaw = mirroredYaw;
        pitch = mirroredPitch;
      } else {
        yaw = shiftOffsets(yaw, pitch, mirroredYaw - usedYaw, mirroredPitch - usedPitch);
        pitch = pitchOut;
      }
    }

    this.position[i3] = px;
    this.position[i3 + 1] = py;
    this.position[i3 + 2] = pz;
    this.velocity[i3] = vx;
    this.velocity[i3 + 1] = vy;
    this.velocity[i3 + 2] = vz;
    this.heading[i3] = hx;
    this.heading[i3 + 1] = hy;
    this.heading[i3 + 2] = hz;
    this.side[i3] = sx;
    this.side[i3 + 1] = sy;
    this.side[i3 + 2] = sz;
    this.wander[i3] = wx;
    this.wander[i3 + 1] = wy;
    this.wander[i3 + 2] = wz;
    this.angles[2 * i] = yaw;
    this.angles[2 * i + 1] = pitch;
    this.force[i3] = fx;
    this.force[i3 + 1] = fy;
    this.force[i3 + 2] = fz;
  }
}

// ---------------------------------------------------------------- numbers as wander3d writes them

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * A double as wander3d's CSV writes it (Apache Arrow): shortest round-trip digits, plain
 * decimal for exponents -6..9, else d.ddde+X / e-X (docs/ports.md, "The conformance CSV").
 */
export function formatDouble(x) {
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [mantissa, exponent] = x.toExponential().split("e");
  return layout(mantissa.replace(".", ""), Number(exponent));
}

/** A float32 (a double that is one, e.g. from Math.fround) as wander3d's CSV writes it. */
export function formatFloat32(x) {
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const negative = x < 0;
  const a = negative ? -x : x;
  // The float32 rounding interval of a: half an ulp each side (exact in doubles); the lower
  // half-gap is half as wide at a power of two. Ends count when the significand is even.
  f32[0] = a;
  const bits = u32[0];
  u32[0] = bits + 1;
  const up = f32[0];
  u32[0] = bits - 1;
  const down = f32[0];
  const hi = up === Infinity ? a + (a - down) / 2 : (a + up) / 2; // the largest float32: as wide
  const lo = (a + down) / 2;
  const even = (bits & 1) === 0;
  // The fewest digits with a candidate inside: 9 always suffice, and a valid n gives a valid
  // n + 1 (append a zero), so bisect.
  let fewest = 1;
  let most = 9;
  while (fewest < most) {
    const n = (fewest + most) >> 1;
    if (shortestCandidate(a, n, lo, hi, even)) most = n;
    else fewest = n + 1;
  }
  shortestCandidate(a, fewest, lo, hi, even);
  const text = String(candidateDigits).replace(/0+$/, "");
  return (negative ? "-" : "") + layout(text, candidateShift + String(candidateDigits).length - 1);
}

let candidateDigits = 0; // the digits and the exponent of their last one, of shortestCandidate()
let candidateShift = 0;

/**
 * Whether an n-digit decimal lies in the rounding interval [lo, hi] of a (ends only when
 * `even`): of the correctly rounded n-digit decimal of a and its two neighbours, the nearest
 * a inside; a tie goes to the even last digit, as Arrow writes. Sets candidateDigits/Shift.
 */
function shortestCandidate(a, n, lo, hi, even) {
  const text = a.toExponential(n - 1);
  const e = text.indexOf("e");
  const digits = Number(text.slice(0, e).replace(".", ""));
  const shift = Number(text.slice(e + 1)) - (n - 1);
  let bestGap = Infinity;
  for (let d = digits - 1; d <= digits + 1; d++) {
    if (d <= 0) continue;
    const v = Number(`${d}e${shift}`);
    if (even ? v < lo || v > hi : v <= lo || v >= hi) continue;
    const gap = Math.abs(v - a);
    if (gap < bestGap || (gap === bestGap && d % 2 === 0)) {
      bestGap = gap;
      candidateDigits = d;
      candidateShift = shift;
    }
  }
  return bestGap !== Infinity;
}

/** digits d1..dn (no trailing zeros, possibly a leading "-") at decimal exponent e of d1. */
function layout(digits, e) {
  const sign = digits.startsWith("-") ? "-" : "";
  const d = digits.replace("-", "").replace(/0+$/, "") || "0";
  const n = d.length;
  if (e >= -6 && e < 10) {
    if (e >= n - 1) return sign + d + "0".repeat(e - n + 1);
    if (e >= 0) return `${sign}${d.slice(0, e + 1)}.${d.slice(e + 1)}`;
    return `${sign}0.${"0".repeat(-e - 1)}${d}`;
  }
  const mantissa = n > 1 ? `${d[0]}.${d.slice(1)}` : d;
  return `${sign}${mantissa}e${e < 0 ? "-" : "+"}${Math.abs(e)}`;
}

/** Python's round(): to the nearest integer, halves to even. */
export function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
