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
// Two ways in. The hosted flock steps a scene's groups for you:
//
//   import { Flock, SCENE } from "./wander.mjs";
//   const flock = new Flock(SCENE);              // agents spawned in the box
//   const alpha = flock.update(frameSeconds);    // each frame: fixed dt steps; alpha for drawing
//   flock.positionAt(i, alpha, out);             // interpolated position of agent i
//
// The composable call gives your own characters the wander force, to add to their own:
//
//   const wander = new Wander({ params: new WanderParams(SCENE.groups[0].params), seed: 7, box });
//   const agent = wander.agent(id, position, velocity);          // one per character
//   wander.steer(agent, position, velocity, dt);                 // each fixed tick: then
//   force = agent.force + agent.containment + your own forces    // (component by component)
//   if (integrate(position, velocity, force, wander.params, dt, heading)) wander.follow(agent, heading);
//   box.reflect(agent, position, velocity);
//
// Parameters (a WanderParams per group or kind of character) may be changed at any time; they
// act from the next step. Units: lengths in world units, times in seconds, +y is up. Nothing is
// allocated per step.

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
      color: "#ffb000", // as wander3d draws the group
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
// sin, cos, atan2, asin and exp from + - * / sqrt floor only: the engine's operations in the
// engine's order (sin and cos share one reduction; atan2 has atan_positive written in).

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

// The hot helpers from here on take and give doubles through small typed arrays (trig, arc,
// gradient, curve, HL, ball, drawn, ...), not through parameters, return values or module
// `let`s: V8 boxes a double passed to or returned by a function it did not inline (and one
// written to a module variable) in a new heap number, which made garbage every step.
const trig = new Float64Array(3);

/** trig[1] = sin(trig[0]) and trig[2] = cos(trig[0]), from one shared reduction: the engine's
 * reduce, sin kernel and cos kernel, written out in one function. */
function sincos() {
  const x = trig[0];
  let r = x;
  let quarter = 0; // n mod 4
  if (!(-PIO4 <= x && x <= PIO4)) {
    const n = Math.floor(x * INV_PIO2 + 0.5);
    const t = x - n * PIO2_1;
    let w = n * PIO2_2;
    const reduced = t - w;
    w = n * PIO2_2T - ((t - reduced) - w);
    quarter = n - 4.0 * Math.floor(n * 0.25);
    r = reduced - w;
  }
  const z = r * r;
  const w = z * z;
  const sr = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  const s = r + z * r * (S1 + z * sr);
  const cr = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
  const hz = 0.5 * z;
  const cw = 1.0 - hz;
  const c = cw + (((1.0 - cw) - hz) + z * cr);
  if (quarter === 0) {
    trig[1] = s;
    trig[2] = c;
  } else if (quarter === 1) {
    trig[1] = c;
    trig[2] = -s;
  } else if (quarter === 2) {
    trig[1] = -s;
    trig[2] = -c;
  } else {
    trig[1] = -c;
    trig[2] = s;
  }
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

const PI = 3.141592653589793116e0;
const PI_LO = 1.2246467991473531772e-16;
const PIO2_HI = 1.570796326794896558e0;
const PIO2_LO = 6.12323399573676603587e-17;
const HALF_PI = Math.PI / 2;

const arc = new Float64Array(2);

/** arc[0] = atan2(arc[0], arc[1]): the engine's atan2 of y, x (its atan_positive written in). */
function atan2() {
  const y = arc[0];
  const x = arc[1];
  if (x !== x || y !== y) {
    arc[0] = x + y;
    return;
  }
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
      // atan(ratio), ratio > 0 (the engine's atan_positive).
      const a = ratio;
      if (a >= 7.378697629483821e19) {
        z = ATAN_HI[3] + ATAN_LO[3];
      } else if (a < 7.450580596923828e-9) {
        z = a;
      } else {
        let part;
        let t;
        if (a < 0.4375) {
          part = -1;
          t = a;
        } else if (a < 0.6875) {
          part = 0;
          t = (2.0 * a - 1.0) / (2.0 + a);
        } else if (a < 1.1875) {
          part = 1;
          t = (a - 1.0) / (a + 1.0);
        } else if (a < 2.4375) {
          part = 2;
          t = (a - 1.5) / (1.0 + 1.5 * a);
        } else {
          part = 3;
          t = -1.0 / a;
        }
        const tt = t * t;
        const w = tt * tt;
        const s1 = tt * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
        const s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
        z = part < 0 ? t - t * (s1 + s2) : ATAN_HI[part] - ((t * (s1 + s2) - ATAN_LO[part]) - t);
      }
      if (negativeX) z = PI - (z - PI_LO);
    }
  }
  arc[0] = negativeY ? -z : z;
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

/** arc[0] = asin(arc[0]): the engine's. */
function asin() {
  const x = arc[0];
  const a = x < 0.0 ? -x : x;
  if (a >= 1.0) {
    arc[0] = a === 1.0 ? x * PIO2_HI + x * PIO2_LO : (x - x) / (x - x);
    return;
  }
  let t;
  let p;
  let q;
  if (a < 0.5) {
    if (a < 7.450580596923828e-9) return; // asin(x) = x
    t = x * x;
    p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
    q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
    arc[0] = x + x * (p / q);
    return;
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
  arc[0] = x < 0.0 ? -r : r;
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
// 64-bit unsigned integers as (hi, lo) 32-bit halves: JavaScript has no uint64, and BigInt is
// far slower. The halves are kept as int32 (the same bits, read signed): V8 keeps an int32 in
// a small integer, where a uint32 of 2^31 or more passed to a function would be a new heap
// number each time. The 64-bit helpers leave their result in HL: [hi, lo].

const HL = new Int32Array(2);

/** HL = (ah, al) * (bh, bl) mod 2^64. */
function mul64(ah, al, bh, bl) {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const t = a0 * b0;
  const m1 = a1 * b0 + (t >>> 16);
  const m2 = a0 * b1 + (m1 & 0xffff);
  const high = a1 * b1 + (m1 >>> 16) + (m2 >>> 16); // the high word of al * bl
  HL[0] = high + Math.imul(ah, bl) + Math.imul(al, bh);
  HL[1] = Math.imul(al, bl);
}

/** HL = (ah, al) + (bh, bl) mod 2^64. */
function add64(ah, al, bh, bl) {
  const lo = (al >>> 0) + (bl >>> 0);
  HL[1] = lo;
  HL[0] = ah + bh + (lo > 0xffffffff ? 1 : 0);
}

const GOLDEN_HI = 0x9e3779b9 | 0;
const GOLDEN_LO = 0x7f4a7c15 | 0;
const MIX1_HI = 0xbf58476d | 0;
const MIX1_LO = 0x1ce4e5b9 | 0;
const MIX2_HI = 0x94d049bb | 0;
const MIX2_LO = 0x133111eb | 0;
const STRIDE_HI = 0xd1b54a32 | 0;
const STRIDE_LO = 0xd192ed03 | 0;
const OCTAVE_SALT_HI = 0xa0761d64 | 0;
const OCTAVE_SALT_LO = 0x78bd642f | 0;
const SEED_SALT_HI = 0x5;
const SEED_SALT_LO = 0xdeece66d | 0;
const SPAWN_SALT_HI = 0x2545f491 | 0; // the port's own spawn stream (not the engine's start)
const SPAWN_SALT_LO = 0x4f6cdd1d | 0;
const TWO32 = 4294967296;
const UNIT = 1.0 / 9007199254740992.0; // 2^-53
const UNIT20 = 2.0 * (1.0 / 2097152.0); // 2 * 2^-21

/** HL = splitmix64's finaliser of (hi, lo). */
function mix(hi, lo) {
  let l = lo ^ ((lo >>> 30) | (hi << 2));
  let h = hi ^ (hi >>> 30);
  mul64(h, l, MIX1_HI, MIX1_LO);
  l = HL[1] ^ ((HL[1] >>> 27) | (HL[0] << 5));
  h = HL[0] ^ (HL[0] >>> 27);
  mul64(h, l, MIX2_HI, MIX2_LO);
  l = HL[1] ^ ((HL[1] >>> 31) | (HL[0] << 1));
  h = HL[0] ^ (HL[0] >>> 31);
  HL[0] = h;
  HL[1] = l;
}

/** HL = uint64(n) for a whole number |n| < 2^53 (two's complement when negative). */
function fromNumber(n) {
  HL[0] = n >= 0 && n < TWO32 ? 0 : Math.floor(n / TWO32);
  HL[1] = n;
}

/** HL = mix(key + uint64(n) * GOLDEN): the hash behind every draw. */
function hashAt(keyHi, keyLo, n) {
  fromNumber(n);
  mul64(HL[0], HL[1], GOLDEN_HI, GOLDEN_LO);
  add64(keyHi, keyLo, HL[0], HL[1]);
  mix(HL[0], HL[1]);
}

/** HL >> 11 as a double in [0, 2^53). */
function top53() {
  return (HL[0] >>> 0) * 2097152 + (HL[1] >>> 11);
}

/** The draw-th uniform double in [0, 1) of stream (keyHi, keyLo). */
function uniform(keyHi, keyLo, draw) {
  hashAt(keyHi, keyLo, draw + 1);
  return top53() * UNIT;
}

/** HL = the stream key of an agent in a step (or a hold): agentKey + step * STRIDE. */
function streamKey(agentHi, agentLo, step) {
  fromNumber(step);
  mul64(HL[0], HL[1], STRIDE_HI, STRIDE_LO);
  add64(agentHi, agentLo, HL[0], HL[1]);
}

const ball = new Float64Array(3); // the last inUnitBall()

/** ball = a point uniform in the unit ball (not within 1e-3 of its centre). */
function inUnitBall(keyHi, keyLo) {
  for (let draw = 0; ; draw++) {
    hashAt(keyHi, keyLo, draw + 1);
    const x = (HL[1] & 0x1fffff) * UNIT20 - 1.0;
    const y = (((HL[1] >>> 21) | (HL[0] << 11)) & 0x1fffff) * UNIT20 - 1.0;
    const z = ((HL[0] >>> 10) & 0x1fffff) * UNIT20 - 1.0;
    const r2 = x * x + y * y + z * z;
    if (1e-6 < r2 && r2 <= 1.0) {
      ball[0] = x;
      ball[1] = y;
      ball[2] = z;
      return;
    }
  }
}

const drawn = new Float64Array(3);

/** drawn[0..count-1] = the uniform draws 0..count-1 of stream (keyHi, keyLo). */
function drawUniforms(keyHi, keyLo, count) {
  for (let d = 0; d < count; d++) {
    hashAt(keyHi, keyLo, d + 1);
    drawn[d] = top53() * UNIT;
  }
}

const OCTAVE_RATIO = 2.0 * 1.0693;
const gradient = new Float64Array(2);

/**
 * gradient[1] = gradient noise of curve (keyHi, keyLo) at x = gradient[0]. The gradients at
 * the cell's two ends depend on the key and the cell only, and a curve stays in one cell for
 * many steps, so they are kept in cache[at..at+2] (cell, g0, g1): the same values, a fraction
 * of the hashing.
 */
function gradientNoise(keyHi, keyLo, cache, at) {
  const x = gradient[0];
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
  gradient[1] = 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0));
}

/** gradient[1] = two octaves of gradient noise at gradient[0] (cache[at..at+5] holds both
 * octaves' gradients). */
function smoothNoise(keyHi, keyLo, cache, at) {
  const x = gradient[0];
  gradient[0] = x * OCTAVE_RATIO + 0.5;
  gradientNoise(keyHi ^ OCTAVE_SALT_HI, keyLo ^ OCTAVE_SALT_LO, cache, at + 3);
  const second = gradient[1];
  gradient[0] = x;
  gradientNoise(keyHi, keyLo, cache, at);
  gradient[1] = (gradient[1] + 0.5 * second) * (1.0 / 1.5);
}

// ---------------------------------------------------------------- frames and angles
// Vectors are arrays of 3; an agent's angles are angles[0..5]: the target's yaw and pitch (the
// noise method: offsets added to its curves), the noise method's yaw and pitch this step, and
// a yaw and pitch measured from a direction.

const curve = new Float64Array(2); // noiseAngles' time t and vertical

/** The noise method's target angles into angles[2..3]: its two curves (keys: hi, lo, hi, lo;
 * phases; cache: their gradients) at time curve[0], pitch scaled by vertical = curve[1], plus
 * the offsets angles[0..1], the pitch reflected at the poles. */
function noiseAngles(keys, phase, cache, angles) {
  const t = curve[0];
  gradient[0] = phase[0] + t;
  smoothNoise(keys[0], keys[1], cache, 0);
  const yaw = Math.PI * gradient[1] + angles[0];
  gradient[0] = phase[1] + t;
  smoothNoise(keys[2], keys[3], cache, 6);
  const pitch = HALF_PI * Math.min(1.0, Math.max(-1.0, gradient[1])) * curve[1] + angles[1];
  angles[2] = yaw;
  angles[3] = pitch > HALF_PI ? Math.PI - pitch : pitch < -HALF_PI ? -Math.PI - pitch : pitch;
}

/** The noise offsets angles[0..1] shifted by the measured angles[4..5] less the used [2..3]. */
function shiftOffsets(angles) {
  const pitch = Math.min(Math.PI, Math.max(-Math.PI, angles[1] + (angles[5] - angles[3])));
  angles[0] = floorMod(angles[0] + (angles[4] - angles[2]) + Math.PI, 2.0 * Math.PI) - Math.PI;
  angles[1] = pitch;
}

/** out = the unit direction at yaw angles[at], pitch angles[at + 1] in the frame of heading h
 * and side s (up = s x h). */
function directionFromAngles(angles, at, h, s, out) {
  const hx = h[0];
  const hy = h[1];
  const hz = h[2];
  const sx = s[0];
  const sy = s[1];
  const sz = s[2];
  const ux = sy * hz - sz * hy;
  const uy = sz * hx - sx * hz;
  const uz = sx * hy - sy * hx;
  trig[0] = angles[at + 1];
  sincos();
  const sinPitch = trig[1];
  const cosPitch = trig[2];
  trig[0] = angles[at];
  sincos();
  const sinYaw = trig[1];
  const cosYaw = trig[2];
  const a = cosPitch * cosYaw;
  const b = cosPitch * sinYaw;
  const c = sinPitch;
  out[0] = a * hx + b * sx + c * ux;
  out[1] = a * hy + b * sy + c * uy;
  out[2] = a * hz + b * sz + c * uz;
}

/** angles[at], angles[at + 1] = the yaw and pitch of unit w in the frame of heading h and side s. */
function anglesFromDirection(w, h, s, angles, at) {
  const wx = w[0];
  const wy = w[1];
  const wz = w[2];
  const hx = h[0];
  const hy = h[1];
  const hz = h[2];
  const sx = s[0];
  const sy = s[1];
  const sz = s[2];
  const ux = sy * hz - sz * hy;
  const uy = sz * hx - sx * hz;
  const uz = sx * hy - sy * hx;
  arc[0] = wx * sx + wy * sy + wz * sz;
  arc[1] = wx * hx + wy * hy + wz * hz;
  atan2();
  const yaw = arc[0];
  const up = wx * ux + wy * uy + wz * uz;
  arc[0] = Math.min(1.0, Math.max(-1.0, up));
  asin();
  angles[at] = yaw;
  angles[at + 1] = arc[0];
}

/** out = a unit vector square to a. */
function perpendicular(a, out) {
  const ax = a[0];
  const ay = a[1];
  const az = a[2];
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
  out[0] = px / n;
  out[1] = py / n;
  out[2] = pz / n;
}

const square = new Float64Array(3); // transport's perpendicular

/** out = v rotated by the minimal rotation taking unit a onto unit b (parallel transport);
 * out may be v. */
function transport(v, a, b, out) {
  const vx = v[0];
  const vy = v[1];
  const vz = v[2];
  const ax = a[0];
  const ay = a[1];
  const az = a[2];
  const bx = b[0];
  const by = b[1];
  const bz = b[2];
  const c = ax * bx + ay * by + az * bz;
  if (c < -1.0 + 1e-9) {
    perpendicular(a, square);
    const px = square[0];
    const py = square[1];
    const pz = square[2];
    const d = 2.0 * (px * vx + py * vy + pz * vz);
    out[0] = d * px - vx;
    out[1] = d * py - vy;
    out[2] = d * pz - vz;
    return;
  }
  const kx = ay * bz - az * by;
  const ky = az * bx - ax * bz;
  const kz = ax * by - ay * bx;
  const s = (kx * vx + ky * vy + kz * vz) / (1.0 + c);
  out[0] = c * vx + (ky * vz - kz * vy) + s * kx;
  out[1] = c * vy + (kz * vx - kx * vz) + s * ky;
  out[2] = c * vz + (kx * vy - ky * vx) + s * kz;
}

/** v and w, in place, transported from unit a to unit b as transport() does each. */
function transportPair(v, w, a, b) {
  const ax = a[0];
  const ay = a[1];
  const az = a[2];
  const bx = b[0];
  const by = b[1];
  const bz = b[2];
  const c = ax * bx + ay * by + az * bz;
  if (c < -1.0 + 1e-9) {
    transport(v, a, b, v);
    transport(w, a, b, w);
    return;
  }
  const vx = v[0];
  const vy = v[1];
  const vz = v[2];
  const wx = w[0];
  const wy = w[1];
  const wz = w[2];
  const kx = ay * bz - az * by;
  const ky = az * bx - ax * bz;
  const kz = ax * by - ay * bx;
  const inverse = 1.0 / (1.0 + c);
  const s = (kx * vx + ky * vy + kz * vz) * inverse;
  const t = (kx * wx + ky * wy + kz * wz) * inverse;
  v[0] = c * vx + (ky * vz - kz * vy) + s * kx;
  v[1] = c * vy + (kz * vx - kx * vz) + s * ky;
  v[2] = c * vz + (kx * vy - ky * vx) + s * kz;
  w[0] = c * wx + (ky * wz - kz * wy) + t * kx;
  w[1] = c * wy + (kz * wx - kx * wz) + t * ky;
  w[2] = c * wz + (kx * wy - ky * wx) + t * kz;
}

// ---------------------------------------------------------------- the behaviour (composable)

/** wander3d's methods by the engine's ids (its METHOD_TABLE in wander3d/engine/methods.py). */
export const METHOD_IDS = Object.freeze({ sphere: 0, angle: 1, noise: 2, seek: 3, random: 4 });
export const METHODS = Object.freeze(Object.keys(METHOD_IDS));
const SPHERE = METHOD_IDS.sphere;
const ANGLE = METHOD_IDS.angle;
const NOISE = METHOD_IDS.noise;
const SEEK = METHOD_IDS.seek;

const RAMP_FRACTION = 0.25; // the containment push ramps to full over this part of the margin
const LOOKAHEAD = 0.25; // s: agents look this far ahead (plus their stopping time) for walls
const RANDOM_HOLD = 1.0 / 30.0; // s: the random method's force is held this long
const PITCH_SPREAD = 0.7; // rad: the angle method's pitch spread at vertical 1
const LEVEL_SECONDS = 0.14; // s: at most this often the side vector is pulled level
const TINY = 1e-12;
/** A frame longer than this (s) counts as this long: a stalled tab makes no burst of steps. */
export const MAX_FRAME_SECONDS = 0.25;

/** out = the level side of unit heading h (h x up, normalised), or any perpendicular for a
 * vertical heading. */
function levelSide(h, out) {
  const sx = -h[2];
  const sz = h[0];
  const level = Math.sqrt(sx * sx + sz * sz);
  if (level > 1e-9) {
    out[0] = sx / level;
    out[1] = 0.0;
    out[2] = sz / level;
  } else {
    perpendicular(h, out);
  }
}

const uprightSide = new Float64Array(3); // uprightFrame's level side

/**
 * The upright frame of a model facing unit heading h, into out[0..8]: its left (up x
 * forward), its up (the direction nearest world +y that is square to the heading: the core's
 * level side crossed with the heading) and its forward (the heading). Models drawn with +z
 * forward and +y up take these as their x, y and z axes and never roll or flip.
 */
export function uprightFrame(h, out) {
  levelSide(h, uprightSide);
  const hx = h[0];
  const hy = h[1];
  const hz = h[2];
  const sx = uprightSide[0];
  const sy = uprightSide[1];
  const sz = uprightSide[2];
  out[0] = -sx;
  out[1] = -sy;
  out[2] = -sz;
  out[3] = sy * hz - sz * hy;
  out[4] = sz * hx - sx * hz;
  out[5] = sx * hy - sy * hx;
  out[6] = hx;
  out[7] = hy;
  out[8] = hz;
  return out;
}

/**
 * One kind of character's wander parameters: a scene group's (the scene block above gives each
 * one's unit and meaning), wander3d's defaults for those not given. Edit them at any time:
 * they act from the next steer, and what is derived from them is recomputed then (once per
 * Wander, never per agent). As in wander3d's app, a new frequency keeps each noise agent
 * where it is on its curves, and a new interval shortens a longer seek countdown at once.
 */
export class WanderParams {
  constructor(values = {}) {
    this.method = "sphere"; // sphere | angle | noise | seek | random
    this.steering = "force"; // force | desired
    this.maxSpeed = 40.0;
    this.maxForce = 60.0;
    this.mass = 1.0;
    this.initialSpeed = null; // for spawned agents; null: maxSpeed / 2
    this.distance = 30.0;
    this.radius = 12.0;
    this.jitter = 10.0;
    this.rate = 0.8;
    this.frequency = 0.3;
    this.interval = 4.0;
    this.vertical = 1.0;
    Object.assign(this, values);
  }
}

const unit = new Float64Array(3); // reflect's wander direction, made unit

/**
 * The axis-aligned box seek draws its points from and containment keeps agents in: corners
 * `min`, `max` ([x, y, z] units) and `margin` (units: agents start turning back this far inside
 * a wall). Optional for every method but seek.
 */
export class WanderBox {
  constructor({ min = [-100.0, -60.0, -100.0], max = [100.0, 60.0, 100.0], margin = 15.0 } = {}) {
    this.min = Float64Array.from(min);
    this.max = Float64Array.from(max);
    this.margin = margin;
  }

  /**
   * Stage 6, the hard guarantee: an agent that left the box is mirrored back in (position,
   * velocity, its frame and target, in place). Returns whether it was.
   */
  reflect(agent, position, velocity) {
    const lo = this.min;
    const hi = this.max;
    const h = agent.heading;
    const s = agent.side;
    const w = agent.wander;
    let crossed = false;
    for (let a = 0; a < 3; a++) {
      const p = position[a];
      if (p < lo[a] || p > hi[a]) {
        const mirrored = p < lo[a] ? 2.0 * lo[a] - p : 2.0 * hi[a] - p;
        position[a] = Math.min(hi[a], Math.max(lo[a], mirrored));
        velocity[a] = -velocity[a];
        h[a] = -h[a];
        s[a] = -s[a];
        w[a] = -w[a];
        crossed = true;
      }
    }
    if (crossed && (agent.method === ANGLE || agent.method === NOISE)) {
      // The mirror flips the frame's handedness; re-express the target in it.
      const n = Math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
      unit[0] = w[0] / n;
      unit[1] = w[1] / n;
      unit[2] = w[2] / n;
      const angles = agent.angles;
      anglesFromDirection(unit, h, s, angles, 4);
      if (agent.method === ANGLE) {
        angles[0] = angles[4];
        angles[1] = angles[5];
      } else {
        shiftOffsets(angles);
      }
    }
    return crossed;
  }
}

/**
 * One agent's wander state: everything of the step but its position and velocity, which are
 * the game's. Made by a Wander (agent, spawn, fromStart), never by hand; drop it to remove the
 * agent. After each steer: `force` (the wander steering), `containment` (the box's push,
 * -0 when it does not push) and `target` (the point steered to).
 */
export class WanderAgent {
  /** @param heading where the unit heading lives (e.g. a view into an array of them). */
  constructor(id, heading = new Float64Array(3)) {
    this.id = id; // any integer in [0, 2^53), unique among one seed's live agents
    this.key = new Int32Array(2); // the agent's random stream: mix(seedKey ^ id * GOLDEN)
    this.step = 0; // the agent's steps so far: its stream and noise time follow them
    this.heading = heading;
    this.side = new Float64Array(3); // angle, noise: the frame's side vector (kept level)
    this.wander = new Float64Array(3); // the target's unit direction from the sphere's centre
    // [0..1]: the target's yaw and pitch (angle), or offsets added to its curves (noise);
    // [2..3]: the noise method's yaw and pitch of the last steer (reflect re-expresses them);
    // [4..5]: room for angles measured from a direction.
    this.angles = new Float64Array(6);
    this.noiseKeys = new Int32Array(4); // noise: two uint64 curve keys as hi, lo words
    this.noisePhase = new Float64Array(2);
    this.noiseCache = new Float64Array(12).fill(NaN); // the curves' cells and end gradients
    this.seekPoint = new Float64Array(3);
    this.seekTimer = 0.0; // s until seek draws a new point
    // The params' frequency the noise phases follow and interval the seek timer follows: a
    // steer that finds another carries the phases and the timer over (see steer).
    this.frequency = 0.3;
    this.interval = 4.0;
    this.held = -1; // random: the hold whose direction is in heldDirection
    this.heldDirection = new Float64Array(3);
    this.method = SPHERE; // the method of the last steer (follow and reflect use it)
    this.level = false; // whether the last steer's step pulls the side level
    this.force = new Float64Array(3);
    this.containment = new Float64Array(3);
    this.target = new Float64Array(3);
  }
}

/** The angle method's pitch walk per step: [decay, kick] (engine: kernel.pitch_walk). */
function pitchWalk(rate, vertical, dt) {
  const spread = vertical * PITCH_SPREAD;
  if (rate <= 0.0) return [1.0, 0.0];
  if (spread <= 0.0) return [0.0, 0.0];
  const decay = exp((-dt * rate * rate) / (6.0 * spread * spread));
  return [decay, spread * Math.sqrt(3.0 * (1.0 - decay * decay))];
}

/** What a Wander derives from its parameters and dt (docs/ports.md, "One step"), and from
 * which values. */
class Derived {
  constructor() {
    this.dt = NaN; // NaN equals nothing: the first steer derives
    this.methodName = "";
    this.steering = "";
    this.jitter = NaN;
    this.rate = NaN;
    this.frequency = NaN;
    this.vertical = NaN;
    this.mass = NaN;
    this.maxForce = NaN;
    this.margin = NaN;
    this.method = SPHERE;
    this.desired = false;
    this.jitterStep = 0.0;
    this.rateStep = 0.0;
    this.offsetFade = 0.0;
    this.stopTime = 0.0;
    this.pitchDecay = 0.0;
    this.pitchKick = 0.0;
    this.randomHolds = 0.0;
    this.randomGain = 0.0;
    this.levelSteps = 1;
    this.inverseRamp = 0.0;
  }
}

/**
 * The wander behaviour of one kind of character: its `params` (a WanderParams), `seed`
 * (uint32) and `box` (a WanderBox, or null for none). Many agents share it. Per agent, once a
 * fixed tick: steer, then the game's combining and integration, then follow and reflect
 * (docs/ports.md, "The composable call"):
 *
 *   wander.steer(agent, position, velocity, dt);   // agent.force, agent.containment
 *   force = agent.force + agent.containment (+ the game's own forces)
 *   if (integrate(position, velocity, force, wander.params, dt, heading)) wander.follow(agent, heading);
 *   box.reflect(agent, position, velocity);
 *
 * Vectors are arrays of 3 numbers (Array or Float64Array), changed in place.
 */
export class Wander {
  constructor({ params = new WanderParams(), seed = 0, box = null } = {}) {
    this.params = params instanceof WanderParams ? params : new WanderParams(params);
    this.seed = seed;
    this.box = box;
    mix(SEED_SALT_HI, seed ^ SEED_SALT_LO);
    this.seedKey = Int32Array.of(HL[0], HL[1]);
    this.derived = new Derived();
  }

  /** The constants of `dt` and the parameters as they are now (recomputed when one changed). */
  derive(dt) {
    const p = this.params;
    const k = this.derived;
    const margin = this.box === null ? 0.0 : this.box.margin;
    if (
      dt === k.dt && p.method === k.methodName && p.steering === k.steering && p.jitter === k.jitter &&
      p.rate === k.rate && p.frequency === k.frequency && p.vertical === k.vertical && p.mass === k.mass &&
      p.maxForce === k.maxForce && margin === k.margin
    ) {
      return k;
    }
    const method = METHOD_IDS[p.method];
    if (method === undefined) throw new Error(`no wander method ${p.method} (${METHODS.join(", ")})`);
    if (method === SEEK && this.box === null) throw new Error("the seek method needs a box");
    const rootDt = Math.sqrt(dt);
    [k.pitchDecay, k.pitchKick] = pitchWalk(p.rate, p.vertical, dt);
    k.method = method;
    k.desired = p.steering === "desired";
    k.jitterStep = p.jitter * rootDt;
    k.rateStep = p.rate * rootDt;
    k.offsetFade = exp(-dt * p.frequency);
    k.stopTime = (0.5 * p.mass) / p.maxForce;
    // The random method's hold a step falls in, and its white-noise gain beyond one hold a step.
    k.randomHolds = Math.min(1.0, dt / RANDOM_HOLD);
    k.randomGain = Math.sqrt(Math.min(1.0, RANDOM_HOLD / dt));
    k.levelSteps = 1; // the side is pulled level every levelSteps steps, within LEVEL_SECONDS
    while (2 * k.levelSteps * dt <= LEVEL_SECONDS) k.levelSteps *= 2;
    k.inverseRamp = margin > 0.0 ? 1.0 / (margin * RAMP_FRACTION) : 0.0;
    k.dt = dt;
    k.methodName = p.method;
    k.steering = p.steering;
    k.jitter = p.jitter;
    k.rate = p.rate;
    k.frequency = p.frequency;
    k.vertical = p.vertical;
    k.mass = p.mass;
    k.maxForce = p.maxForce;
    k.margin = margin;
    return k;
  }

  /**
   * Stages 1-3 of a step for one agent at `position` moving at `velocity` (units, units/s):
   * the containment look-ahead, the method's target (advancing the agent's random state),
   * steering. Writes agent.force (the wander steering), agent.containment (-0, -0, -0 when the
   * box does not push; add it to the force first: their sum is wander3d's blended force, bit
   * for bit) and agent.target; counts the agent's step.
   */
  steer(agent, position, velocity, dt) {
    const k = this.derive(dt);
    const p = this.params;
    const method = k.method;
    const distance = p.distance;
    const radius = p.radius;
    const vertical = p.vertical;
    const maxSpeed = p.maxSpeed;
    const maxForce = p.maxForce;
    const px = position[0];
    const py = position[1];
    const pz = position[2];
    const vx = velocity[0];
    const vy = velocity[1];
    const vz = velocity[2];
    const heading = agent.heading;
    const hx = heading[0];
    const hy = heading[1];
    const hz = heading[2];
    const side = agent.side;
    const direction = agent.wander;
    let wx = direction[0];
    let wy = direction[1];
    let wz = direction[2];
    const angles = agent.angles;
    let yaw = angles[0];
    let pitch = angles[1];
    const step = agent.step;
    // The step's stream key (agent key + step * STRIDE), made where a method draws from it.
    const agentHi = agent.key[0];
    const agentLo = agent.key[1];

    // 1. Containment, per axis: + pushes towards high, - towards low.
    let ix = 0.0;
    let iy = 0.0;
    let iz = 0.0;
    const box = this.box;
    const margin = k.margin;
    if (margin > 0.0) {
      const lo = box.min;
      const hi = box.max;
      const inverseRamp = k.inverseRamp;
      const stopTime = k.stopTime;
      const aheadX = px + vx * (LOOKAHEAD + Math.abs(vx) * stopTime);
      const aheadY = py + vy * (LOOKAHEAD + Math.abs(vy) * stopTime);
      const aheadZ = pz + vz * (LOOKAHEAD + Math.abs(vz) * stopTime);
      if (hx < 0.0) ix = Math.min(1.0, Math.max(0.0, (lo[0] + margin - aheadX) * inverseRamp));
      else if (hx > 0.0) ix = -Math.min(1.0, Math.max(0.0, (aheadX - (hi[0] - margin)) * inverseRamp));
      if (hy < 0.0) iy = Math.min(1.0, Math.max(0.0, (lo[1] + margin - aheadY) * inverseRamp));
      else if (hy > 0.0) iy = -Math.min(1.0, Math.max(0.0, (aheadY - (hi[1] - margin)) * inverseRamp));
      if (hz < 0.0) iz = Math.min(1.0, Math.max(0.0, (lo[2] + margin - aheadZ) * inverseRamp));
      else if (hz > 0.0) iz = -Math.min(1.0, Math.max(0.0, (aheadZ - (hi[2] - margin)) * inverseRamp));
    }
    const weight = Math.max(Math.abs(ix), Math.max(Math.abs(iy), Math.abs(iz)));

    // 2. The wander target.
    angles[2] = 0.0; // the noise method's angles this step
    angles[3] = 0.0;
    let tx;
    let ty;
    let tz;
    if (method === SEEK) {
      const point = agent.seekPoint;
      if (p.interval !== agent.interval) {
        // A shorter interval applies now, not after the current (longer) countdown.
        agent.seekTimer = Math.min(agent.seekTimer, p.interval);
        agent.interval = p.interval;
      }
      agent.seekTimer -= dt;
      if (agent.seekTimer <= 0.0) {
        const lo = box.min;
        const hi = box.max;
        const m = box.margin;
        streamKey(agentHi, agentLo, step);
        drawUniforms(HL[0], HL[1], 3);
        point[0] = lo[0] + m + drawn[0] * (hi[0] - lo[0] - 2 * m);
        point[1] = lo[1] + m + drawn[1] * (hi[1] - lo[1] - 2 * m);
        point[2] = lo[2] + m + drawn[2] * (hi[2] - lo[2] - 2 * m);
        agent.seekTimer += p.interval;
      }
      tx = point[0];
      ty = point[1];
      tz = point[2];
    } else {
      if (method === SPHERE) {
        streamKey(agentHi, agentLo, step);
        inUnitBall(HL[0], HL[1]);
        const qx = wx * radius + ball[0] * k.jitterStep;
        const qy = wy * radius + ball[1] * k.jitterStep * vertical;
        const qz = wz * radius + ball[2] * k.jitterStep;
        const q = Math.sqrt(qx * qx + qy * qy + qz * qz);
        if (q > 1e-9 * radius) {
          const inverse = 1.0 / q;
          wx = qx * inverse;
          wy = qy * inverse;
          wz = qz * inverse;
        }
      } else if (method === ANGLE) {
        streamKey(agentHi, agentLo, step);
        drawUniforms(HL[0], HL[1], 2);
        yaw += (2.0 * drawn[0] - 1.0) * k.rateStep;
        pitch = pitch * k.pitchDecay + (2.0 * drawn[1] - 1.0) * k.pitchKick;
        if (yaw >= Math.PI || yaw < -Math.PI) yaw = floorMod(yaw + Math.PI, 2.0 * Math.PI) - Math.PI;
        pitch = pitch > HALF_PI ? Math.PI - pitch : pitch < -HALF_PI ? -Math.PI - pitch : pitch; // reflected at the poles
        angles[0] = yaw;
        angles[1] = pitch;
        directionFromAngles(angles, 0, heading, side, direction);
        wx = direction[0];
        wy = direction[1];
        wz = direction[2];
      } else if (method === NOISE) {
        if (p.frequency !== agent.frequency) {
          // The noise coordinate is time * frequency: keep it where it is, or a new frequency
          // would move the agent to an unrelated point of its curves (the engine's
          // Simulation.update_group does the same).
          const shift = step * dt * (agent.frequency - p.frequency);
          agent.noisePhase[0] += shift;
          agent.noisePhase[1] += shift;
          agent.frequency = p.frequency;
        }
        yaw *= k.offsetFade;
        pitch *= k.offsetFade;
        angles[0] = yaw;
        angles[1] = pitch;
        curve[0] = step * dt * p.frequency;
        curve[1] = vertical;
        noiseAngles(agent.noiseKeys, agent.noisePhase, agent.noiseCache, angles);
        directionFromAngles(angles, 2, heading, side, direction);
        wx = direction[0];
        wy = direction[1];
        wz = direction[2];
      } else {
        // RANDOM: a fresh uniform direction every RANDOM_HOLD s.
        const held = agent.heldDirection;
        const hold = Math.trunc((step + 0.5) * k.randomHolds);
        if (hold !== agent.held) {
          agent.held = hold;
          streamKey(agentHi, agentLo, hold);
          inUnitBall(HL[0], HL[1]);
          let ux = ball[0];
          let uy = ball[1] * vertical;
          let uz = ball[2];
          let u = Math.sqrt(ux * ux + uy * uy + uz * uz);
          if (u < 1e-9) {
            ux = 1.0;
            uy = 0.0;
            uz = 0.0;
            u = 1.0;
          }
          const gain = k.randomGain / u;
          held[0] = ux * gain;
          held[1] = uy * gain;
          held[2] = uz * gain;
        }
        wx = held[0];
        wy = held[1];
        wz = held[2];
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
      if (turned && (method === ANGLE || method === NOISE)) {
        direction[0] = wx;
        direction[1] = wy;
        direction[2] = wz;
        anglesFromDirection(direction, heading, side, angles, 4);
        if (method === ANGLE) {
          yaw = angles[4];
          pitch = angles[5];
        } else {
          // Shift the noise curves so they continue from the turned target.
          angles[0] = yaw;
          angles[1] = pitch;
          shiftOffsets(angles);
          yaw = angles[0];
          pitch = angles[1];
          angles[2] = angles[4];
          angles[3] = angles[5];
        }
      }
      tx = px + hx * distance + wx * radius;
      ty = py + hy * distance + wy * radius;
      tz = pz + hz * distance + wz * radius;
    }

    // 3. Steering; containment apart, to be added first.
    let dx = tx - px;
    let dy = ty - py;
    let dz = tz - pz;
    if (k.desired) {
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
    const force = agent.force;
    force[0] = dx * keep;
    force[1] = dy * keep;
    force[2] = dz * keep;
    const containment = agent.containment;
    if (weight > 0.0) {
      const c = (maxForce * weight) / Math.sqrt(ix * ix + iy * iy + iz * iz);
      containment[0] = ix * c;
      containment[1] = iy * c;
      containment[2] = iz * c;
    } else {
      // x + -0 is x, bit for bit: force + containment is the force itself.
      containment[0] = -0.0;
      containment[1] = -0.0;
      containment[2] = -0.0;
    }

    direction[0] = wx;
    direction[1] = wy;
    direction[2] = wz;
    angles[0] = yaw;
    angles[1] = pitch;
    agent.target[0] = tx;
    agent.target[1] = ty;
    agent.target[2] = tz;
    agent.method = method;
    agent.level = step % k.levelSteps === 0;
    agent.step = step + 1;
  }

  /**
   * Stage 5: the agent now faces unit `heading` (after moving); its frame and wander target
   * are carried with it (parallel transport; the side pulled level on level steps). Call it
   * every tick the agent moved, not when it did not.
   */
  follow(agent, heading) {
    const nx = heading[0];
    const ny = heading[1];
    const nz = heading[2];
    const h = agent.heading;
    const w = agent.wander;
    if (agent.method === ANGLE || agent.method === NOISE) {
      const s = agent.side;
      transportPair(s, w, h, heading);
      let sx = s[0];
      let sy = s[1];
      let sz = s[2];
      // Pull the side level (fully for a level heading, less towards vertical).
      const level2 = nx * nx + nz * nz;
      if (agent.level && level2 > 1e-12) {
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
      s[0] = sx;
      s[1] = sy;
      s[2] = sz;
    } else {
      transport(w, h, heading, w);
    }
    h[0] = nx;
    h[1] = ny;
    h[2] = nz;
  }

  /** The agent's wander sphere at `position`, for debug drawing: out = [centre x, y, z,
   * radius] (radius 0 for seek). */
  sphere(agent, position, out = [0, 0, 0, 0]) {
    const p = this.params;
    for (let a = 0; a < 3; a++) out[a] = position[a] + agent.heading[a] * p.distance;
    out[3] = p.method === "seek" ? 0.0 : p.radius;
    return out;
  }

  /** The agent's target as drawn at `position`: its seek point, or its point on the wander
   * sphere (into out[0..2]). */
  shownTarget(agent, position, out = [0, 0, 0]) {
    const p = this.params;
    for (let a = 0; a < 3; a++) {
      out[a] = p.method === "seek" ? agent.seekPoint[a] : position[a] + agent.heading[a] * p.distance + agent.wander[a] * p.radius;
    }
    return out;
  }

  /**
   * A new agent for a character the game placed at `position` moving at `velocity`: heading
   * along the velocity (+x when it is zero), the rest drawn from the agent's spawn stream
   * (docs/ports.md, "Start", steps 3-6; the seek point of step 1 when there is a box).
   */
  agent(id, position, velocity, agent = new WanderAgent(id)) {
    this.identify(agent, id);
    const [kh, kl] = this.spawnKey(agent);
    let hx = velocity[0];
    let hy = velocity[1];
    let hz = velocity[2];
    const h = Math.sqrt(hx * hx + hy * hy + hz * hz);
    if (h > 0.0) {
      hx /= h;
      hy /= h;
      hz /= h;
    } else {
      hx = 1.0;
      hy = 0.0;
      hz = 0.0;
    }
    if (this.box !== null) this.drawSeekPoint(agent, kh, kl);
    this.drawState(agent, kh, kl, hx, hy, hz);
    return agent;
  }

  /**
   * A new agent started by the ports' own rule (docs/ports.md, "Start"; the same in every
   * port, from the seed and id alone): its position (inside the box's margin) and velocity
   * written into `position` and `velocity`.
   */
  spawn(id, position, velocity, agent = new WanderAgent(id)) {
    if (this.box === null) throw new Error("spawning needs a box");
    this.identify(agent, id);
    const [kh, kl] = this.spawnKey(agent);
    const lo = this.box.min;
    const hi = this.box.max;
    const margin = this.box.margin;
    for (let a = 0; a < 3; a++) {
      const a0 = lo[a] + margin;
      position[a] = a0 + uniform(kh, kl, a) * (hi[a] - margin - a0);
    }
    this.drawSeekPoint(agent, kh, kl);
    const p = this.params;
    inUnitBall(kh, kl);
    let hx = ball[0];
    let hy = ball[1] * p.vertical;
    let hz = ball[2];
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
    velocity[0] = hx * speed;
    velocity[1] = hy * speed;
    velocity[2] = hz * speed;
    this.drawState(agent, kh, kl, hx, hy, hz);
    return agent;
  }

  /** An agent from one entry of readStart(): wander3d's exact start (position and velocity
   * are the entry's, for the game to copy). */
  fromStart(id, entry, agent = new WanderAgent(id)) {
    this.identify(agent, id);
    agent.heading.set(entry.heading);
    agent.side.set(entry.side);
    agent.wander.set(entry.wander);
    agent.angles[0] = entry.yaw;
    agent.angles[1] = entry.pitch;
    agent.noiseKeys.set(entry.noiseKeys);
    agent.noisePhase.set(entry.noisePhase);
    agent.seekPoint.set(entry.seekPoint);
    agent.seekTimer = entry.seekTimer;
    return agent;
  }

  /**
   * Move one agent at `position` from the current method to `method` so that its target
   * stays where it is (as wander3d's app does): the wander direction keeps pointing where it
   * did (from seek: from the sphere's centre to the point sought); angle and noise measure its
   * yaw and pitch in a fresh level frame (noise: new curves, offset to pass through it); seek
   * seeks the shown target, kept inside the margin. New draws come from the agent's spawn
   * stream at its step. Switch every agent of the Wander, then set params.method = method
   * (setting params.method alone switches without this care).
   */
  switchMethod(agent, position, method, dt) {
    const p = this.params;
    if (!METHODS.includes(method)) throw new Error(`no wander method ${method} (${METHODS.join(", ")})`);
    if (method === "seek" && this.box === null) throw new Error("the seek method needs a box");
    const old = p.method;
    if (method === old) return;
    const h = agent.heading;
    const w = agent.wander;
    if (old === "seek") {
      for (let a = 0; a < 3; a++) w[a] = agent.seekPoint[a] - (position[a] + h[a] * p.distance);
    }
    const n = Math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (let a = 0; a < 3; a++) w[a] = n > TINY ? w[a] / n : h[a];
    const [sh, sl] = this.spawnKey(agent);
    streamKey(sh, sl, agent.step);
    const kh = HL[0];
    const kl = HL[1];
    const angles = agent.angles;
    if (method === "angle" || method === "noise") {
      levelSide(h, agent.side);
      anglesFromDirection(w, h, agent.side, angles, 4);
      if (method === "angle") {
        angles[0] = angles[4];
        angles[1] = angles[5];
      } else {
        for (let j = 0; j < 2; j++) {
          hashAt(kh, kl, 1 + j);
          agent.noiseKeys[2 * j] = HL[0] & 0x7fffffff;
          agent.noiseKeys[2 * j + 1] = HL[1];
          agent.noisePhase[j] = uniform(kh, kl, 3 + j) * 1024.0;
        }
        agent.noiseCache.fill(NaN);
        agent.frequency = p.frequency;
        // The new curves, offset to pass through the target's angles.
        angles[0] = 0.0;
        angles[1] = 0.0;
        curve[0] = agent.step * dt * p.frequency;
        curve[1] = p.vertical;
        noiseAngles(agent.noiseKeys, agent.noisePhase, agent.noiseCache, angles);
        shiftOffsets(angles);
      }
    } else if (method === "seek") {
      const lo = this.box.min;
      const hi = this.box.max;
      const margin = this.box.margin;
      for (let a = 0; a < 3; a++) {
        const shown = old === "seek" ? agent.seekPoint[a] : position[a] + h[a] * p.distance + w[a] * p.radius;
        agent.seekPoint[a] = Math.min(hi[a] - margin, Math.max(lo[a] + margin, shown));
      }
      agent.seekTimer = uniform(kh, kl, 5) * p.interval;
      agent.interval = p.interval;
    }
    agent.held = -1;
    agent.method = METHOD_IDS[method];
  }

  /** A fresh start of an agent's state for `id` (its random key; step 0). */
  identify(agent, id) {
    agent.id = id;
    fromNumber(id);
    mul64(HL[0], HL[1], GOLDEN_HI, GOLDEN_LO);
    mix(this.seedKey[0] ^ HL[0], this.seedKey[1] ^ HL[1]);
    agent.key[0] = HL[0];
    agent.key[1] = HL[1];
    agent.step = 0;
    agent.held = -1;
    agent.noiseCache.fill(NaN);
    agent.method = METHOD_IDS[this.params.method] ?? SPHERE;
    agent.angles.fill(0.0);
    agent.frequency = this.params.frequency;
    agent.interval = this.params.interval;
  }

  /** The agent's spawn stream key: [hi, lo]. */
  spawnKey(agent) {
    mix(agent.key[0] ^ SPAWN_SALT_HI, agent.key[1] ^ SPAWN_SALT_LO);
    return [HL[0], HL[1]];
  }

  /** The seek point of the spawn rule's step 1: uniform inside the box's margin. */
  drawSeekPoint(agent, kh, kl) {
    const lo = this.box.min;
    const hi = this.box.max;
    const margin = this.box.margin;
    for (let a = 0; a < 3; a++) {
      const a0 = lo[a] + margin;
      agent.seekPoint[a] = a0 + uniform(kh, kl, 3 + a) * (hi[a] - margin - a0);
    }
  }

  /** Steps 3-6 of the spawn rule for unit heading h, from spawn stream (kh, kl). */
  drawState(agent, kh, kl, hx, hy, hz) {
    const p = this.params;
    const h = agent.heading;
    h[0] = hx;
    h[1] = hy;
    h[2] = hz;
    levelSide(h, agent.side);
    const angles = agent.angles;
    angles[0] = (2.0 * uniform(kh, kl, 6) - 1.0) * Math.PI;
    angles[1] = (2.0 * uniform(kh, kl, 7) - 1.0) * HALF_PI * p.vertical;
    for (let j = 0; j < 2; j++) {
      hashAt(kh, kl, 9 + j);
      agent.noiseKeys[2 * j] = HL[0] & 0x7fffffff; // below 2^63, as the engine draws them
      agent.noiseKeys[2 * j + 1] = HL[1];
      agent.noisePhase[j] = uniform(kh, kl, 11 + j) * 1024.0;
    }
    agent.seekTimer = uniform(kh, kl, 13) * p.interval;
    agent.wander.set(h);
    if (p.method === "angle") {
      directionFromAngles(angles, 0, h, agent.side, agent.wander);
    } else {
      angles[0] = 0.0;
      angles[1] = 0.0;
      if (p.method === "noise") {
        curve[0] = 0.0;
        curve[1] = p.vertical;
        noiseAngles(agent.noiseKeys, agent.noisePhase, agent.noiseCache, angles);
        directionFromAngles(angles, 2, h, agent.side, agent.wander);
      }
    }
  }
}

/**
 * Stage 4, the vehicle model, for games without their own: `force` (the total: the agent's
 * force + containment, then the game's own) is truncated to params.maxForce in place (it then
 * holds the force applied); velocity += force * (dt / mass), clamped to params.maxSpeed;
 * position += velocity * dt. Returns whether the agent moves, and then writes its new unit
 * heading (taken before the speed clamp) into `heading`.
 */
export function integrate(position, velocity, force, params, dt, heading) {
  let fx = force[0];
  let fy = force[1];
  let fz = force[2];
  const maxForce = params.maxForce;
  const f2 = fx * fx + fy * fy + fz * fz;
  if (f2 > maxForce * maxForce) {
    const scale = maxForce / Math.sqrt(f2);
    fx *= scale;
    fy *= scale;
    fz *= scale;
    force[0] = fx;
    force[1] = fy;
    force[2] = fz;
  }
  const gain = (1.0 / params.mass) * dt;
  let vx = velocity[0] + fx * gain;
  let vy = velocity[1] + fy * gain;
  let vz = velocity[2] + fz * gain;
  const speed2 = vx * vx + vy * vy + vz * vz;
  const moving = speed2 > 1e-18;
  if (moving) {
    const inverse = 1.0 / Math.sqrt(speed2);
    const nx = vx * inverse;
    const ny = vy * inverse;
    const nz = vz * inverse;
    heading[0] = nx;
    heading[1] = ny;
    heading[2] = nz;
    const maxSpeed = params.maxSpeed;
    if (speed2 > maxSpeed * maxSpeed) {
      vx = nx * maxSpeed;
      vy = ny * maxSpeed;
      vz = nz * maxSpeed;
    }
  }
  velocity[0] = vx;
  velocity[1] = vy;
  velocity[2] = vz;
  position[0] += vx * dt;
  position[1] += vy * dt;
  position[2] += vz * dt;
  return moving;
}

/**
 * The agents of a start.txt (wander3d's exact start of a scene, docs/ports.md "Start"), one
 * entry each, in order: {group, position, velocity, heading, side, wander, yaw, pitch,
 * noisePhase, seekPoint, seekTimer, noiseKeys}. Throws on a text that is not one.
 */
export function readStart(text) {
  // A git checkout on Windows may give start.txt "\r\n" line ends.
  const lines = text.split(/\r?\n/);
  let at = 0;
  while (at < lines.length && lines[at].startsWith("#")) at++; // the licence lines
  const count = /^agents (\d+)$/.exec(lines[at + 1] ?? "");
  if (lines[at] !== "wander3d-start 1" || count === null) throw new Error("not a wander3d start");
  const view = new DataView(new ArrayBuffer(8));
  const double = (hex) => {
    view.setUint32(0, parseInt(hex.slice(0, 8), 16));
    view.setUint32(4, parseInt(hex.slice(8, 16), 16));
    return view.getFloat64(0);
  };
  const entries = [];
  for (let i = 0; i < Number(count[1]); i++) {
    const f = (lines[at + 2 + i] ?? "").split(" ");
    if (f.length !== 26) throw new Error(`start line ${at + 3 + i} is not agent ${i}'s`);
    const vector = (first) => Float64Array.of(double(f[first]), double(f[first + 1]), double(f[first + 2]));
    const keys = new Int32Array(4);
    for (let j = 0; j < 2; j++) {
      keys[2 * j] = parseInt(f[24 + j].slice(0, 8), 16);
      keys[2 * j + 1] = parseInt(f[24 + j].slice(8, 16), 16);
    }
    entries.push({
      group: Number(f[0]),
      position: vector(1),
      velocity: vector(4),
      heading: vector(7),
      side: vector(10),
      wander: vector(13),
      yaw: double(f[16]),
      pitch: double(f[17]),
      noisePhase: Float64Array.of(double(f[18]), double(f[19])),
      seekPoint: vector(20),
      seekTimer: double(f[23]),
      noiseKeys: keys,
    });
  }
  return entries;
}

// ---------------------------------------------------------------- the hosted flock

/**
 * Agents of one or more groups wandering in a box, advanced in fixed steps of `dt` seconds:
 * the composable call above in a loop (agent i's id is i), so the two cannot differ.
 *
 * State is in flat typed arrays, agent i's vector at [3i, 3i+1, 3i+2]: `position`, `velocity`
 * (units/s), `heading` (unit), `target` (the shown wander target, for debug drawing), `force`
 * (the last step's force as applied). `groups[g].params` holds each group's parameters (a
 * WanderParams), `wanders[g]` its Wander, `agents[i]` agent i's WanderAgent.
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
    // dt is passed to steer and integrate for every agent. A field that only ever held numbers
    // V8 reads as a bare double, to be boxed anew for each call it is not inlined into; first
    // given null, the field holds dt as one boxed number, passed as it is.
    this.dt = null;
    this.dt = scene.dt;
    this.box = new WanderBox(scene.box);
    this.groups = scene.groups.map((g) => ({ name: g.name, count: g.count, color: g.color, params: new WanderParams(g.params), first: 0 }));
    this.wanders = this.groups.map((g) => new Wander({ params: g.params, seed: this.seed, box: this.box }));
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
    this.previousHeading = new Float64Array(3 * n); // headings before the last step
    this.target = new Float64Array(3 * n);
    this.force = new Float64Array(3 * n);
    const view = (array, i) => array.subarray(3 * i, 3 * i + 3);
    this.agents = Array.from({ length: n }, (_, i) => new WanderAgent(i, view(this.heading, i)));
    this.positions = Array.from({ length: n }, (_, i) => view(this.position, i));
    this.velocities = Array.from({ length: n }, (_, i) => view(this.velocity, i));
    this.forces = Array.from({ length: n }, (_, i) => view(this.force, i));
    this.targets = Array.from({ length: n }, (_, i) => view(this.target, i));
    this.nextHeading = new Float64Array(3); // integrate's heading, within a step
    this.drawnHeading = new Float64Array(3); // poseAt's
    this.frame = new Float64Array(9);
    this.accumulator = 0; // s of frame time not yet stepped
    if (start === null) this.spawn();
    else this.loadStart(start);
  }

  /** Read a start.txt: wander3d's exact starting state of this scene (docs/ports.md). */
  loadStart(text) {
    const entries = readStart(text);
    if (entries.length !== this.count) throw new Error(`not a wander3d start of ${this.count} agents`);
    entries.forEach((entry, i) => {
      if (entry.group !== this.groupOf[i]) throw new Error(`start line for agent ${i} is another group's`);
      this.wanders[entry.group].fromStart(i, entry, this.agents[i]);
      this.positions[i].set(entry.position);
      this.velocities[i].set(entry.velocity);
    });
    this.restarted();
  }

  /**
   * Start every agent afresh (the port's own rule, from the seed; not wander3d's start, which
   * start.txt carries): positions uniform in the box inside the margin, headings uniform in
   * direction with their up component scaled by `vertical`, speed `initialSpeed`, the wander
   * target straight ahead (angle, noise: a random yaw and pitch), seek points uniform.
   */
  spawn() {
    for (let i = 0; i < this.count; i++) {
      this.wanders[this.groupOf[i]].spawn(i, this.positions[i], this.velocities[i], this.agents[i]);
    }
    this.restarted();
  }

  restarted() {
    this.step = 0;
    this.force.fill(0);
    this.previous.set(this.position);
    this.previousHeading.set(this.heading);
    this.placeTargets();
  }

  /**
   * Switch group `g` to wander `method`, each agent's target staying where it is (as wander3d's
   * app does; Wander.switchMethod). Setting params.method directly switches without this care.
   */
  setMethod(g, method) {
    const group = this.groups[g];
    const wander = this.wanders[g];
    if (!METHODS.includes(method)) throw new Error(`no wander method ${method} (${METHODS.join(", ")})`);
    for (let i = group.first; i < group.first + group.count; i++) {
      wander.switchMethod(this.agents[i], this.positions[i], method, this.dt);
    }
    group.params.method = method;
    this.placeTargets();
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

  /** Agent i's heading at `alpha` between its last two steps, as positionAt(): the two
   * headings blended and made unit again (the last one where they are opposite). */
  headingAt(i, alpha, out) {
    for (let a = 0; a < 3; a++) {
      const before = this.previousHeading[3 * i + a];
      out[a] = before + (this.heading[3 * i + a] - before) * alpha;
    }
    const x = out[0];
    const y = out[1];
    const z = out[2];
    const n = Math.sqrt(x * x + y * y + z * z);
    if (n > 1e-6) {
      out[0] = x / n;
      out[1] = y / n;
      out[2] = z / n;
    } else {
      for (let a = 0; a < 3; a++) out[a] = this.heading[3 * i + a];
    }
    return out;
  }

  /** Agent i as drawn at `alpha`: out[0..2] its position (positionAt), out[3..11] its upright
   * frame (uprightFrame of headingAt): a model's x, y, z axes, +z forward and +y up. */
  poseAt(i, alpha, out) {
    this.positionAt(i, alpha, out);
    const h = this.headingAt(i, alpha, this.drawnHeading);
    uprightFrame(h, this.frame);
    for (let k = 0; k < 9; k++) out[3 + k] = this.frame[k];
    return out;
  }

  /** Agent i's wander sphere, for debug drawing: [centre x, y, z, radius] (seek: radius 0). */
  wanderSphere(i, out = [0, 0, 0, 0]) {
    return this.wanders[this.groupOf[i]].sphere(this.agents[i], this.positions[i], out);
  }

  /** Take `steps` fixed steps of dt: per agent, the composable call (steer, force +
   * containment, integrate, follow when moving, reflect), as wander3d's kernel.advance. */
  advance(steps = 1) {
    for (let n = 0; n < steps; n++) {
      this.previous.set(this.position);
      this.previousHeading.set(this.heading);
      this.stepAgents(this.dt);
      this.step++;
    }
    this.placeTargets();
  }

  /** One step of every agent (dt: this.dt, see the constructor). */
  stepAgents(dt) {
    const heading = this.nextHeading;
    for (let i = 0; i < this.count; i++) {
      const wander = this.wanders[this.groupOf[i]];
      const agent = this.agents[i];
      const position = this.positions[i];
      const velocity = this.velocities[i];
      const force = this.forces[i];
      wander.steer(agent, position, velocity, dt);
      for (let a = 0; a < 3; a++) force[a] = agent.force[a] + agent.containment[a];
      if (integrate(position, velocity, force, wander.params, dt, heading)) wander.follow(agent, heading);
      this.box.reflect(agent, position, velocity);
    }
  }

  /** The shown target of every agent: its seek point, or its point on the wander sphere. */
  placeTargets() {
    for (let i = 0; i < this.count; i++) {
      this.wanders[this.groupOf[i]].shownTarget(this.agents[i], this.positions[i], this.targets[i]);
    }
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
