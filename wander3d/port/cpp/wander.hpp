// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// wander.hpp: wander3d's wander steering for C++ games (Unreal, any engine), identical to the
// engine.
//
// A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
// same scene, start and seed give the same positions at every step. C++17, standard library
// only, header only. The contract it follows is docs/ports.md of wander3d: IEEE doubles
// evaluated in the engine's order with no fused multiply-add (build with -ffp-contract=off on
// GCC; the pragmas below cover Clang and MSVC), its own sin/cos/atan2/asin/exp (detmath), and
// a counter-based random stream keyed by (seed, agent, step, draw).
//
//   wander3d::Flock flock(wander3d::scene());         // agents spawned in the box
//   flock.loadStart(startText);                       // optional: wander3d's exact start
//   // each frame:
//   double alpha = flock.update(frameSeconds);        // fixed dt steps; alpha for drawing
//   double x, y, z;
//   flock.positionAt(i, alpha, x, y, z);              // interpolated position of agent i
//
// Parameters are per group (flock.groups[g].params) and may be changed at any time; they act
// from the next step. Units: lengths in world units, times in seconds, +y is up.

#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(_MSC_VER)
#pragma fp_contract(off)
#endif

namespace wander3d {

/// How a group moves its wander target (wander3d's five methods).
enum class Method {
    Sphere = 0,  // Reynolds: a point on a sphere ahead, nudged at random each step
    Angle = 1,   // yaw and pitch of the target random-walk (the 2D tutorials' angle)
    Noise = 2,   // yaw and pitch follow smooth noise curves
    Seek = 3,    // seek a random point of the box, a new one every interval s
    Random = 4,  // a fresh random direction every 1/30 s
};

/// How the target becomes a steering force.
enum class Steering {
    Force = 0,    // the vector to the target is the steering force (Reynolds)
    Desired = 1,  // desired velocity towards the target at maxSpeed, minus the velocity
};

/// One group's parameters; edit them at any time, they act from the next step.
struct GroupParams {
    Method method = Method::Sphere;
    Steering steering = Steering::Force;
    double maxSpeed = 40.0;      // units/s
    double maxForce = 60.0;      // mass*units/s^2: limit on the steering force
    double mass = 1.0;           // acceleration = force / mass
    double initialSpeed = 20.0;  // units/s, for agents spawned by the port
    double distance = 30.0;      // units: the wander sphere's centre ahead of the agent
    double radius = 12.0;        // units: the wander sphere's radius
    double jitter = 10.0;        // units/sqrt(s): sphere's random displacement
    double rate = 0.8;           // rad/sqrt(s): angle's random walk of yaw and pitch
    double frequency = 0.3;      // 1/s: noise's pace
    double interval = 4.0;       // s: seek's time between new points
    double vertical = 1.0;       // 0..1: up/down freedom (1 isotropic, 0 level)
};

/// A group of identical agents: its name, how many, its parameters.
struct GroupSpec {
    std::string name;
    int count = 0;
    GroupParams params;
};

/// What a flock is made from: seed, step, box and groups (scene() gives the tuned scene's).
struct SceneSpec {
    std::string name;
    std::uint32_t seed = 0;               // seeds every random number of the run
    double dt = 1.0 / 60.0;               // seconds per fixed step
    std::array<double, 3> boxMin{};       // lowest corner (units)
    std::array<double, 3> boxMax{};       // highest corner (units)
    double margin = 0.0;                  // agents start turning back this far inside a wall
    std::vector<GroupSpec> groups;
};

// ---------------------------------------------------------------- the scene (generated)
// BEGIN SCENE: `wander3d port` writes the scene's parameters here.
inline SceneSpec scene() {
    SceneSpec s;
    s.name = "Default";
    s.seed = 7;  // any integer in [0, 2^32): seeds every random number of the run
    s.dt = 0.0166667;  // seconds per fixed step
    s.boxMin = {-100.0, -60.0, -100.0};  // lowest corner (units)
    s.boxMax = {100.0, 60.0, 100.0};  // highest corner (units)
    s.margin = 15.0;  // agents start turning back this far inside a wall (units)
    {
        GroupSpec g;
        g.name = "wanderers";
        g.count = 300;  // agents
        g.params.method = Method::Sphere;
        g.params.steering = Steering::Force;
        g.params.maxSpeed = 40.0;  // units/s
        g.params.maxForce = 60.0;  // mass*units/s^2: limit on the steering force
        g.params.mass = 1.0;  // acceleration = force / mass
        g.params.initialSpeed = 20.0;  // units/s, for agents spawned by the port
        g.params.distance = 30.0;  // units: the wander sphere's centre ahead of the agent
        g.params.radius = 12.0;  // units: the wander sphere's radius
        g.params.jitter = 10.0;  // units/sqrt(s): sphere's random displacement
        g.params.rate = 0.8;  // rad/sqrt(s): angle's random walk of yaw and pitch
        g.params.frequency = 0.3;  // 1/s: noise's pace
        g.params.interval = 4.0;  // s: seek's time between new points
        g.params.vertical = 1.0;  // 0..1: up/down freedom (1 isotropic, 0 level)
        s.groups.push_back(g);
    }
    return s;
}
// END SCENE

// ---------------------------------------------------------------- detmath (engine/detmath.py)
// sin, cos, atan2, asin and exp from + - * / sqrt floor only, line for line the engine's, so
// every platform computes them alike (math libraries differ in the last bit).
namespace detmath {

constexpr double PIO2_1 = 1.57079632673412561417e00;
constexpr double PIO2_2 = 6.07710050630396597660e-11;
constexpr double PIO2_2T = 2.02226624879595063154e-21;
constexpr double INV_PIO2 = 6.36619772367581382433e-01;
constexpr double PIO4 = 7.85398163397448278999e-01;
constexpr double S1 = -1.66666666666666324348e-01;
constexpr double S2 = 8.33333333332248946124e-03;
constexpr double S3 = -1.98412698298579493134e-04;
constexpr double S4 = 2.75573137070700676789e-06;
constexpr double S5 = -2.50507602534068634195e-08;
constexpr double S6 = 1.58969099521155010221e-10;
constexpr double C1 = 4.16666666666666019037e-02;
constexpr double C2 = -1.38888888888741095749e-03;
constexpr double C3 = 2.48015872894767294178e-05;
constexpr double C4 = -2.75573143513906633035e-07;
constexpr double C5 = 2.08757232129817482790e-09;
constexpr double C6 = -1.13596475577881948265e-11;

inline double sinKernel(double x) {
    double z = x * x;
    double w = z * z;
    double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    return x + z * x * (S1 + z * r);
}

inline double cosKernel(double x) {
    double z = x * x;
    double w = z * z;
    double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    double hz = 0.5 * z;
    w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + z * r);
}

/// x = r + n pi/2 with |r| about pi/4 at most; q = n mod 4.
inline double reduce(double x, double& q) {
    if (-PIO4 <= x && x <= PIO4) {
        q = 0.0;
        return x;
    }
    double n = std::floor(x * INV_PIO2 + 0.5);
    double t = x - n * PIO2_1;
    double w = n * PIO2_2;
    double r = t - w;
    w = n * PIO2_2T - ((t - r) - w);
    q = n - 4.0 * std::floor(n * 0.25);
    return r - w;
}

/// sin(x) and cos(x) of x radians, sharing one reduction.
inline void sincos(double x, double& sin, double& cos) {
    double q;
    double r = reduce(x, q);
    double s = sinKernel(r);
    double c = cosKernel(r);
    if (q == 0.0) {
        sin = s;
        cos = c;
    } else if (q == 1.0) {
        sin = c;
        cos = -s;
    } else if (q == 2.0) {
        sin = -s;
        cos = -c;
    } else {
        sin = -c;
        cos = s;
    }
}

constexpr double ATAN_HI[4] = {4.63647609000806093515e-01, 7.85398163397448278999e-01,
                               9.82793723247329054082e-01, 1.57079632679489655800e00};
constexpr double ATAN_LO[4] = {2.26987774529616870924e-17, 3.06161699786838301793e-17,
                               1.39033110312309984516e-17, 6.12323399573676603587e-17};
constexpr double AT0 = 3.33333333333329318027e-01;
constexpr double AT1 = -1.99999999998764832476e-01;
constexpr double AT2 = 1.42857142725034663711e-01;
constexpr double AT3 = -1.11111104054623557880e-01;
constexpr double AT4 = 9.09088713343650656196e-02;
constexpr double AT5 = -7.69187620504482999495e-02;
constexpr double AT6 = 6.66107313738753120669e-02;
constexpr double AT7 = -5.83357013379057348645e-02;
constexpr double AT8 = 4.97687799461593236017e-02;
constexpr double AT9 = -3.65315727442169155270e-02;
constexpr double AT10 = 1.62858201153657823623e-02;

inline double atanPositive(double a) {
    if (std::isnan(a)) return a;
    if (a >= 7.378697629483821e19) return ATAN_HI[3] + ATAN_LO[3];  // 2^66: pi/2 to the last bit
    int part;
    double x;
    if (a < 0.4375) {
        if (a < 7.450580596923828e-09) return a;  // 2^-27: atan(a) = a to the last bit
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
    double z = x * x;
    double w = z * z;
    double s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
    double s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
    if (part < 0) return x - x * (s1 + s2);
    return ATAN_HI[part] - ((x * (s1 + s2) - ATAN_LO[part]) - x);
}

constexpr double PI = 3.1415926535897931160e00;
constexpr double PI_LO = 1.2246467991473531772e-16;
constexpr double PIO2_HI = 1.57079632679489655800e00;
constexpr double PIO2_LO = 6.12323399573676603587e-17;

/// The angle of (x, y) in [-pi, pi], as std::atan2 (signed zeros and infinities included).
inline double atan2(double y, double x) {
    if (std::isnan(x) || std::isnan(y)) return x + y;
    bool negativeY = std::signbit(y);
    bool negativeX = std::signbit(x);
    double ay = negativeY ? -y : y;
    double ax = negativeX ? -x : x;
    double z;
    if (ay == 0.0) {
        z = negativeX ? PI : 0.0;
    } else if (ax == 0.0) {
        z = PIO2_HI;
    } else if (std::isinf(ax)) {
        if (std::isinf(ay))
            z = negativeX ? 0.75 * PI : 0.25 * PI;
        else
            z = negativeX ? PI : 0.0;
    } else if (std::isinf(ay)) {
        z = PIO2_HI;
    } else {
        double ratio = ay / ax;
        if (ratio > 1.152921504606847e18) {  // 2^60: |y| dwarfs |x|
            z = PIO2_HI + 0.5 * PI_LO;
        } else if (negativeX && ratio < 8.673617379884035e-19) {  // 2^-60: y vanishes
            z = PI;
        } else {
            z = atanPositive(ratio);
            if (negativeX) z = PI - (z - PI_LO);
        }
    }
    return negativeY ? -z : z;
}

constexpr double PS0 = 1.66666666666666657415e-01;
constexpr double PS1 = -3.25565818622400915405e-01;
constexpr double PS2 = 2.01212532134862925881e-01;
constexpr double PS3 = -4.00555345006794114027e-02;
constexpr double PS4 = 7.91534994289814532176e-04;
constexpr double PS5 = 3.47933107596021167570e-05;
constexpr double QS1 = -2.40339491173441421878e00;
constexpr double QS2 = 2.02094576023350569471e00;
constexpr double QS3 = -6.88283971605453293030e-01;
constexpr double QS4 = 7.70381505559019352791e-02;
constexpr double SPLIT = 134217729.0;  // 2^27 + 1: Veltkamp's split into 26 + 27 bits

/// asin(x) in [-pi/2, pi/2] for x in [-1, 1] (NaN outside).
inline double asin(double x) {
    double a = x < 0.0 ? -x : x;
    if (a >= 1.0) {
        if (a == 1.0) return x * PIO2_HI + x * PIO2_LO;
        return (x - x) / (x - x);
    }
    double t, p, q;
    if (a < 0.5) {
        if (a < 7.450580596923828e-09) return x;  // 2^-27
        t = x * x;
        p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
        q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
        return x + x * (p / q);
    }
    double w = 1.0 - a;
    t = w * 0.5;
    p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
    q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
    double s = std::sqrt(t);
    double r;
    if (a >= 0.975) {
        r = PIO2_HI - (2.0 * (s + s * (p / q)) - PIO2_LO);
    } else {
        // s's leading 26 bits (fdlibm zeroes its low word), so that w * w is exact.
        double c = SPLIT * s;
        w = c - (c - s);
        c = (t - w * w) / (s + w);
        p = 2.0 * s * (p / q) - (PIO2_LO - 2.0 * c);
        q = PIO4 - 2.0 * w;
        r = PIO4 - (p - q);
    }
    return x < 0.0 ? -r : r;
}

constexpr double LN2_HI = 6.93147180369123816490e-01;
constexpr double LN2_LO = 1.90821492927058770002e-10;
constexpr double INV_LN2 = 1.44269504088896338700e00;
constexpr double HALF_LN2 = 0.34657359027997264;
constexpr double P1 = 1.66666666666666019037e-01;
constexpr double P2 = -2.77777777770155933842e-03;
constexpr double P3 = 6.61375632143793436117e-05;
constexpr double P4 = -1.65339022054652515390e-06;
constexpr double P5 = 4.13813679705723846039e-08;

/// 2^k for a whole number k in [-1074, 1023], exactly.
inline double pow2(double k) {
    double base = 2.0;
    if (k < 0.0) {
        base = 0.5;
        k = -k;
    }
    double result = 1.0;
    while (k > 0.0) {
        double half = std::floor(k * 0.5);
        if (k - 2.0 * half == 1.0) result *= base;
        base *= base;
        k = half;
    }
    return result;
}

/// e^x: 0 below -745.2, infinity above 709.8.
inline double exp(double x) {
    if (std::isnan(x)) return x;
    if (x > 709.782712893384) return HUGE_VAL;
    if (x < -745.1332191019411) return 0.0;
    double a = x < 0.0 ? -x : x;
    if (a < 3.725290298461914e-09) return 1.0 + x;  // 2^-28: 1 + x to the last bit
    double t, c;
    if (a <= HALF_LN2) {
        t = x * x;
        c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
        return 1.0 - ((x * c) / (c - 2.0) - x);
    }
    double k = std::floor(x * INV_LN2 + 0.5);
    double hi = x - k * LN2_HI;
    double lo = k * LN2_LO;
    double r = hi - lo;
    t = r * r;
    c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    if (k < -1021.0) return y * pow2(k + 1000.0) * pow2(-1000.0);
    if (k > 1023.0) return y * 2.0 * pow2(k - 1.0);
    return y * pow2(k);
}

/// Python's float %: a floor modulo (std::fmod truncates). Exact.
inline double floorMod(double a, double b) {
    double m = std::fmod(a, b);
    if (m != 0.0 && (m < 0.0) != (b < 0.0))
        m += b;
    else if (m == 0.0)
        m = b < 0.0 ? -0.0 : 0.0;
    return m;
}

// The engine's min and max (numba's): the first argument unless the second is smaller
// (larger), as std::min and std::max; std::fmin/fmax may differ on signed zeros.
inline double min(double a, double b) { return b < a ? b : a; }
inline double max(double a, double b) { return b > a ? b : a; }

}  // namespace detmath

// ---------------------------------------------------------------- the random stream
// Every number is a hash of (seed, agent, step, draw), so a run does not depend on how steps
// are batched.
namespace stream {

constexpr std::uint64_t GOLDEN = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t MIX1 = 0xBF58476D1CE4E5B9ull;
constexpr std::uint64_t MIX2 = 0x94D049BB133111EBull;
constexpr std::uint64_t STEP_STRIDE = 0xD1B54A32D192ED03ull;
constexpr std::uint64_t OCTAVE_SALT = 0xA0761D6478BD642Full;
constexpr std::uint64_t SEED_SALT = 0x5DEECE66Dull;
constexpr double UNIT = 1.0 / 9007199254740992.0;  // 2^-53
constexpr double UNIT21 = 1.0 / 2097152.0;         // 2^-21
constexpr double OCTAVE_RATIO = 2.0 * 1.0693;      // nudged off 2: the lattices never align

/// splitmix64's finaliser: a bijective, well-mixed hash.
inline std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * MIX1;
    x = (x ^ (x >> 27)) * MIX2;
    return x ^ (x >> 31);
}

inline std::uint64_t seedKey(std::uint32_t seed) { return mix(seed ^ SEED_SALT); }

inline std::uint64_t agentKey(std::uint64_t seedKey, std::int64_t agent) {
    return mix(seedKey ^ (static_cast<std::uint64_t>(agent) * GOLDEN));
}

inline std::uint64_t streamKey(std::uint64_t agentKey, std::int64_t step) {
    return agentKey + static_cast<std::uint64_t>(step) * STEP_STRIDE;
}

/// mix(key + n * GOLDEN): the hash behind every draw.
inline std::uint64_t hashAt(std::uint64_t key, std::int64_t n) {
    return mix(key + static_cast<std::uint64_t>(n) * GOLDEN);
}

/// The draw-th uniform double in [0, 1) of stream key.
inline double uniform(std::uint64_t key, std::int64_t draw) {
    return static_cast<double>(hashAt(key, draw + 1) >> 11) * UNIT;
}

/// A point uniform in the unit ball (not within 1e-3 of its centre), by rejection from the
/// cube: three 21-bit coordinates per hash.
inline void inUnitBall(std::uint64_t key, double& x, double& y, double& z) {
    for (std::int64_t draw = 0;; draw++) {
        std::uint64_t bits = hashAt(key, draw + 1);
        x = static_cast<double>(bits & 0x1FFFFFull) * (2.0 * UNIT21) - 1.0;
        y = static_cast<double>((bits >> 21) & 0x1FFFFFull) * (2.0 * UNIT21) - 1.0;
        z = static_cast<double>((bits >> 42) & 0x1FFFFFull) * (2.0 * UNIT21) - 1.0;
        double r2 = x * x + y * y + z * z;
        if (1e-6 < r2 && r2 <= 1.0) return;
    }
}

/// Smooth 1D gradient (Perlin) noise of curve key at x, in about [-1, 1]. The gradients at the
/// cell's ends depend on the key and the cell only, and a curve stays in a cell for many
/// steps, so cache[0..2] keeps (cell, g0, g1): the same values for a fraction of the hashing
/// (NaN: nothing cached).
inline double gradientNoise(std::uint64_t key, double x, double* cache) {
    double cell = std::floor(x);
    double f = x - cell;
    if (cache[0] != cell) {
        auto c = static_cast<std::int64_t>(cell);
        cache[1] = static_cast<double>(hashAt(key, c) >> 11) * UNIT * 2.0 - 1.0;
        cache[2] = static_cast<double>(hashAt(key, c + 1) >> 11) * UNIT * 2.0 - 1.0;
        cache[0] = cell;
    }
    double g0 = cache[1];
    double g1 = cache[2];
    double fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0));
}

/// Two octaves of gradient noise at an irrational frequency ratio, in about [-1, 1]
/// (cache[0..5]: both octaves' gradients).
inline double smoothNoise(std::uint64_t key, double x, double* cache) {
    double second = gradientNoise(key ^ OCTAVE_SALT, x * OCTAVE_RATIO + 0.5, cache + 3);
    return (gradientNoise(key, x, cache) + 0.5 * second) * (1.0 / 1.5);
}

}  // namespace stream

// ---------------------------------------------------------------- frames and angles
namespace frame {

constexpr double PI = 3.141592653589793;
constexpr double HALF_PI = PI / 2;

inline double reflectPitch(double pitch) {
    if (pitch > HALF_PI) return PI - pitch;
    if (pitch < -HALF_PI) return -PI - pitch;
    return pitch;
}

/// The noise method's target: yaw (returned) and pitch from two noise curves plus offsets
/// (cache[0..11]: the curves' gradients).
inline double noiseAngles(std::uint64_t key0, std::uint64_t key1, double phase0, double phase1,
                          double t, double vertical, double offsetYaw, double offsetPitch,
                          double* cache, double& pitch) {
    double yaw = PI * stream::smoothNoise(key0, phase0 + t, cache) + offsetYaw;
    double curve = stream::smoothNoise(key1, phase1 + t, cache + 6);
    double p = HALF_PI * detmath::min(1.0, detmath::max(-1.0, curve)) * vertical;
    pitch = reflectPitch(p + offsetPitch);
    return yaw;
}

/// Noise offsets moved by the deltas: yaw wrapped to [-pi, pi) (returned), pitch in [-pi, pi].
inline double shiftOffsets(double offsetYaw, double offsetPitch, double deltaYaw,
                           double deltaPitch, double& pitch) {
    pitch = detmath::min(PI, detmath::max(-PI, offsetPitch + deltaPitch));
    return detmath::floorMod(offsetYaw + deltaYaw + PI, 2.0 * PI) - PI;
}

/// Unit direction at yaw (towards side) and pitch (towards up = side x heading).
inline void directionFromAngles(double yaw, double pitch, double hx, double hy, double hz,
                                double sx, double sy, double sz, double& x, double& y,
                                double& z) {
    double ux = sy * hz - sz * hy;
    double uy = sz * hx - sx * hz;
    double uz = sx * hy - sy * hx;
    double sinPitch, cosPitch, sinYaw, cosYaw;
    detmath::sincos(pitch, sinPitch, cosPitch);
    detmath::sincos(yaw, sinYaw, cosYaw);
    double a = cosPitch * cosYaw;
    double b = cosPitch * sinYaw;
    double c = sinPitch;
    x = a * hx + b * sx + c * ux;
    y = a * hy + b * sy + c * uy;
    z = a * hz + b * sz + c * uz;
}

/// Inverse of directionFromAngles for a unit direction: yaw (returned) and pitch.
inline double anglesFromDirection(double wx, double wy, double wz, double hx, double hy,
                                  double hz, double sx, double sy, double sz, double& pitch) {
    double ux = sy * hz - sz * hy;
    double uy = sz * hx - sx * hz;
    double uz = sx * hy - sy * hx;
    double yaw = detmath::atan2(wx * sx + wy * sy + wz * sz, wx * hx + wy * hy + wz * hz);
    double up = wx * ux + wy * uy + wz * uz;
    pitch = detmath::asin(detmath::min(1.0, detmath::max(-1.0, up)));
    return yaw;
}

/// A unit vector perpendicular to unit a: a crossed with its least-aligned world axis.
inline void perpendicular(double ax, double ay, double az, double& x, double& y, double& z) {
    double px, py, pz;
    if (std::fabs(ax) <= std::fabs(ay) && std::fabs(ax) <= std::fabs(az)) {
        px = 0.0;
        py = az;
        pz = -ay;
    } else if (std::fabs(ay) <= std::fabs(az)) {
        px = -az;
        py = 0.0;
        pz = ax;
    } else {
        px = ay;
        py = -ax;
        pz = 0.0;
    }
    double n = std::sqrt(px * px + py * py + pz * pz);
    x = px / n;
    y = py / n;
    z = pz / n;
}

/// The level side of unit heading h (h x up, normalised), or any perpendicular for a vertical
/// heading.
inline void levelSide(double hx, double hy, double hz, double& x, double& y, double& z) {
    double sx = -hz, sz = hx;
    double level = std::sqrt(sx * sx + sz * sz);
    if (level > 1e-9) {
        x = sx / level;
        y = 0.0;
        z = sz / level;
    } else {
        perpendicular(hx, hy, hz, x, y, z);
    }
}

/// v rotated in place by the minimal rotation taking unit a onto unit b (parallel transport;
/// Rodrigues' formula without a normalised axis).
inline void transport(double& vx, double& vy, double& vz, double ax, double ay, double az,
                      double bx, double by, double bz) {
    double c = ax * bx + ay * by + az * bz;
    if (c < -1.0 + 1e-9) {
        // Half turn about a unit vector perpendicular to a.
        double px, py, pz;
        perpendicular(ax, ay, az, px, py, pz);
        double d = 2.0 * (px * vx + py * vy + pz * vz);
        vx = d * px - vx;
        vy = d * py - vy;
        vz = d * pz - vz;
        return;
    }
    double kx = ay * bz - az * by;
    double ky = az * bx - ax * bz;
    double kz = ax * by - ay * bx;
    double s = (kx * vx + ky * vy + kz * vz) / (1.0 + c);
    double x = c * vx + (ky * vz - kz * vy) + s * kx;
    double y = c * vy + (kz * vx - kx * vz) + s * ky;
    double z = c * vz + (kx * vy - ky * vx) + s * kz;
    vx = x;
    vy = y;
    vz = z;
}

/// transport of v and w by the same rotation, sharing its set-up.
inline void transportPair(double& vx, double& vy, double& vz, double& wx, double& wy,
                          double& wz, double ax, double ay, double az, double bx, double by,
                          double bz) {
    double c = ax * bx + ay * by + az * bz;
    if (c < -1.0 + 1e-9) {
        transport(vx, vy, vz, ax, ay, az, bx, by, bz);
        transport(wx, wy, wz, ax, ay, az, bx, by, bz);
        return;
    }
    double kx = ay * bz - az * by;
    double ky = az * bx - ax * bz;
    double kz = ax * by - ay * bx;
    double inverse = 1.0 / (1.0 + c);
    double s = (kx * vx + ky * vy + kz * vz) * inverse;
    double t = (kx * wx + ky * wy + kz * wz) * inverse;
    double x1 = c * vx + (ky * vz - kz * vy) + s * kx;
    double y1 = c * vy + (kz * vx - kx * vz) + s * ky;
    double z1 = c * vz + (kx * vy - ky * vx) + s * kz;
    double x2 = c * wx + (ky * wz - kz * wy) + t * kx;
    double y2 = c * wy + (kz * wx - kx * wz) + t * ky;
    double z2 = c * wz + (kx * wy - ky * wx) + t * kz;
    vx = x1;
    vy = y1;
    vz = z1;
    wx = x2;
    wy = y2;
    wz = z2;
}

}  // namespace frame

// ---------------------------------------------------------------- the flock

/// A group of the flock: its name, agents first .. first + count - 1, and its parameters
/// (edit them at any time).
struct Group {
    std::string name;
    int first = 0;
    int count = 0;
    GroupParams params;
};

/// Agents of one or more groups wandering in a box, advanced in fixed steps of dt seconds.
/// State is in flat vectors, agent i's vector at [3i, 3i+1, 3i+2]: position, velocity
/// (units/s), heading (unit), target (the wander target, for debug drawing), force (the last
/// step's steering force).
class Flock {
public:
    /// A frame longer than this (s) counts as this long: a stall (a breakpoint, a loading
    /// hitch) makes no burst of steps.
    static constexpr double MAX_FRAME_SECONDS = 0.25;

    std::uint32_t seed;
    double dt;
    std::array<double, 3> low, high;
    double margin;
    std::vector<Group> groups;
    int count = 0;
    std::vector<int> groupOf;
    std::int64_t stepCount = 0;  // steps taken since the start

    std::vector<double> position;
    std::vector<double> previous;  // positions before the last step, for drawing
    std::vector<double> velocity;
    std::vector<double> heading;
    std::vector<double> target;
    std::vector<double> force;

    /// A flock of scene's groups (parameters copied), spawned by the port's own rule (see
    /// spawn()); loadStart() puts it at wander3d's exact start instead.
    explicit Flock(const SceneSpec& scene)
        : seed(scene.seed), dt(scene.dt), low(scene.boxMin), high(scene.boxMax),
          margin(scene.margin) {
        for (const GroupSpec& spec : scene.groups) {
            groups.push_back(Group{spec.name, count, spec.count, spec.params});
            groupOf.insert(groupOf.end(), static_cast<std::size_t>(spec.count),
                           static_cast<int>(groups.size()) - 1);
            count += spec.count;
        }
        const auto n3 = static_cast<std::size_t>(3 * count);
        const auto n = static_cast<std::size_t>(count);
        for (std::vector<double>* v : {&position, &previous, &velocity, &heading, &target, &force,
                                       &side, &wander, &seekPoint, &heldForce})
            v->assign(n3, 0.0);
        angles.assign(2 * n, 0.0);
        noiseKeys.assign(2 * n, 0);
        noisePhase.assign(2 * n, 0.0);
        gradients.assign(12 * n, NAN);
        seekTimer.assign(n, 0.0);
        held.assign(n, -1);
        agentKeys.resize(n);
        std::uint64_t key = stream::seedKey(seed);
        for (int i = 0; i < count; i++) agentKeys[i] = stream::agentKey(key, i);
        spawn();
    }

    /// Start from a start.txt's text: wander3d's exact starting state of this scene. False
    /// (and the flock unchanged) when the text is not a start of this scene's agents. No
    /// exceptions: game engines build without them.
    bool loadStart(const std::string& text) {
        std::vector<std::string> lines;
        for (std::size_t at = 0; at < text.size();) {
            std::size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            std::size_t length = end - at;
            if (length > 0 && text[end - 1] == '\r') length--;  // a checkout may add \r
            // The licence lines on top are comments.
            if (!(lines.empty() && length > 0 && text[at] == '#')) lines.push_back(text.substr(at, length));
            at = end + 1;
        }
        if (lines.size() < static_cast<std::size_t>(count) + 2 || lines[0] != "wander3d-start 1" ||
            lines[1] != "agents " + std::to_string(count))
            return false;
        std::vector<std::vector<std::string>> rows;
        for (int i = 0; i < count; i++) {
            std::vector<std::string> f;
            const std::string& line = lines[static_cast<std::size_t>(i) + 2];
            for (std::size_t at = 0; at <= line.size();) {
                std::size_t end = line.find(' ', at);
                if (end == std::string::npos) end = line.size();
                f.push_back(line.substr(at, end - at));
                at = end + 1;
            }
            if (f.size() != 26 || f[0] != std::to_string(groupOf[i])) return false;
            rows.push_back(f);
        }
        for (int i = 0; i < count; i++) {
            const std::vector<std::string>& f = rows[static_cast<std::size_t>(i)];
            std::vector<double>* vectors[] = {&position, &velocity, &heading, &side, &wander};
            for (int k = 0; k < 5; k++)
                for (int c = 0; c < 3; c++) (*vectors[k])[3 * i + c] = bits(f[1 + 3 * k + c]);
            angles[2 * i] = bits(f[16]);
            angles[2 * i + 1] = bits(f[17]);
            noisePhase[2 * i] = bits(f[18]);
            noisePhase[2 * i + 1] = bits(f[19]);
            for (int c = 0; c < 3; c++) seekPoint[3 * i + c] = bits(f[20 + c]);
            seekTimer[i] = bits(f[23]);
            noiseKeys[2 * i] = hex(f[24]);
            noiseKeys[2 * i + 1] = hex(f[25]);
        }
        std::fill(gradients.begin(), gradients.end(), NAN);  // the noise keys changed
        restart();
        return true;
    }

    /// Start every agent afresh (the port's own rule, from the seed; not wander3d's start,
    /// which start.txt carries): positions uniform in the box inside the margin, headings
    /// uniform in direction with their up component scaled by vertical, speed initialSpeed,
    /// the wander target straight ahead (angle, noise: a random yaw and pitch), seek points
    /// uniform.
    void spawn() {
        std::fill(gradients.begin(), gradients.end(), NAN);  // the noise keys change
        for (int i = 0; i < count; i++) {
            const GroupParams& p = groups[groupOf[i]].params;
            std::uint64_t key = spawnKey(i);
            for (int a = 0; a < 3; a++) {
                double lo = low[a] + margin;
                double span = high[a] - margin - lo;
                position[3 * i + a] = lo + stream::uniform(key, a) * span;
                seekPoint[3 * i + a] = lo + stream::uniform(key, 3 + a) * span;
            }
            double hx, hy, hz;
            stream::inUnitBall(key, hx, hy, hz);
            hy *= p.vertical;
            double h = std::sqrt(hx * hx + hy * hy + hz * hz);
            if (h < 1e-9) {
                hx = 1.0;
                hy = 0.0;
                hz = 0.0;
                h = 1.0;
            }
            hx /= h;
            hy /= h;
            hz /= h;
            set3(heading, i, hx, hy, hz);
            set3(velocity, i, hx * p.initialSpeed, hy * p.initialSpeed, hz * p.initialSpeed);
            double sx, sy, sz;
            frame::levelSide(hx, hy, hz, sx, sy, sz);
            set3(side, i, sx, sy, sz);
            double yaw = (2.0 * stream::uniform(key, 6) - 1.0) * frame::PI;
            double pitch = (2.0 * stream::uniform(key, 7) - 1.0) * frame::HALF_PI * p.vertical;
            bool angle = p.method == Method::Angle;
            angles[2 * i] = angle ? yaw : 0.0;
            angles[2 * i + 1] = angle ? pitch : 0.0;
            for (int k = 0; k < 2; k++) {
                // Below 2^63, as the engine draws them: the top bit cleared.
                noiseKeys[2 * i + k] = stream::hashAt(key, 9 + k) & 0x7FFFFFFFFFFFFFFFull;
                noisePhase[2 * i + k] = stream::uniform(key, 11 + k) * 1024.0;
            }
            seekTimer[i] = stream::uniform(key, 13) * p.interval;
            double wx = hx, wy = hy, wz = hz;
            if (angle) {
                frame::directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
            } else if (p.method == Method::Noise) {
                double noisePitch;
                double noiseYaw = frame::noiseAngles(noiseKeys[2 * i], noiseKeys[2 * i + 1],
                                                     noisePhase[2 * i], noisePhase[2 * i + 1], 0.0,
                                                     p.vertical, 0.0, 0.0, &gradients[12 * i],
                                                     noisePitch);
                frame::directionFromAngles(noiseYaw, noisePitch, hx, hy, hz, sx, sy, sz, wx, wy,
                                           wz);
            }
            set3(wander, i, wx, wy, wz);
        }
        restart();
    }

    /// Switch group g to wander method, each agent continuing from where its target is now (as
    /// wander3d's app does): the wander direction keeps pointing where it did (from seek: from
    /// the sphere's centre to the point sought); angle and noise measure its yaw and pitch in a
    /// fresh level frame (noise: new curves, offset to pass through it); seek seeks the shown
    /// target, kept inside the margin. New random draws come from the agent's spawn stream at
    /// the current step. Setting params.method directly switches without this care (the
    /// target may jump once).
    void setMethod(int g, Method method) {
        const Group& group = groups[static_cast<std::size_t>(g)];
        GroupParams& p = groups[static_cast<std::size_t>(g)].params;
        const Method old = p.method;
        if (method == old) return;
        const double t = static_cast<double>(stepCount) * dt * p.frequency;
        for (int i = group.first; i < group.first + group.count; i++) {
            const int i3 = 3 * i;
            const double px = position[i3], py = position[i3 + 1], pz = position[i3 + 2];
            const double hx = heading[i3], hy = heading[i3 + 1], hz = heading[i3 + 2];
            double wx = wander[i3], wy = wander[i3 + 1], wz = wander[i3 + 2];
            if (old == Method::Seek) {
                wx = seekPoint[i3] - (px + hx * p.distance);
                wy = seekPoint[i3 + 1] - (py + hy * p.distance);
                wz = seekPoint[i3 + 2] - (pz + hz * p.distance);
            }
            double w = std::sqrt(wx * wx + wy * wy + wz * wz);
            if (w > TINY) {
                wx /= w;
                wy /= w;
                wz /= w;
            } else {
                wx = hx;
                wy = hy;
                wz = hz;
            }
            set3(wander, i, wx, wy, wz);
            const std::uint64_t key = stream::streamKey(spawnKey(i), stepCount);
            if (method == Method::Angle || method == Method::Noise) {
                double sx, sy, sz, pitch;
                frame::levelSide(hx, hy, hz, sx, sy, sz);
                set3(side, i, sx, sy, sz);
                double yaw = frame::anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, pitch);
                if (method == Method::Angle) {
                    angles[2 * i] = yaw;
                    angles[2 * i + 1] = pitch;
                } else {
                    for (int k = 0; k < 2; k++) {
                        noiseKeys[2 * i + k] = stream::hashAt(key, 1 + k) & 0x7FFFFFFFFFFFFFFFull;
                        noisePhase[2 * i + k] = stream::uniform(key, 3 + k) * 1024.0;
                    }
                    std::fill(&gradients[12 * i], &gradients[12 * i] + 12, NAN);
                    double curvePitch, offsetPitch;
                    double curveYaw = frame::noiseAngles(noiseKeys[2 * i], noiseKeys[2 * i + 1],
                                                         noisePhase[2 * i], noisePhase[2 * i + 1], t,
                                                         p.vertical, 0.0, 0.0, &gradients[12 * i],
                                                         curvePitch);
                    angles[2 * i] = frame::shiftOffsets(0.0, 0.0, yaw - curveYaw, pitch - curvePitch,
                                                        offsetPitch);
                    angles[2 * i + 1] = offsetPitch;
                }
            } else if (method == Method::Seek) {
                for (int a = 0; a < 3; a++) {
                    double shown = old == Method::Seek ? seekPoint[i3 + a]
                                                       : position[i3 + a] + heading[i3 + a] * p.distance +
                                                             wander[i3 + a] * p.radius;
                    seekPoint[i3 + a] = detmath::min(high[a] - margin, detmath::max(low[a] + margin, shown));
                }
                seekTimer[i] = stream::uniform(key, 5) * p.interval;
            }
            held[i] = -1;
        }
        p.method = method;
        placeTargets();
    }

    /// Advance by a frame of frameSeconds (capped at MAX_FRAME_SECONDS): as many fixed steps
    /// as the accumulated time holds. Returns alpha in [0, 1): how far the display time is
    /// between the last two steps, for positionAt(). The run is the same at any frame rate.
    double update(double frameSeconds) {
        accumulator += std::min(std::max(frameSeconds, 0.0), MAX_FRAME_SECONDS);
        int steps = 0;
        while (accumulator >= dt) {
            accumulator -= dt;
            steps++;
        }
        if (steps > 0) {
            // Only the last step's start is drawn from: the steps before it are not seen.
            if (steps > 1) advance(steps - 1);
            previous = position;
            advance(1);
        }
        return accumulator / dt;
    }

    /// Agent i's drawn position at alpha between its last two steps.
    void positionAt(int i, double alpha, double& x, double& y, double& z) const {
        const std::size_t j = 3 * static_cast<std::size_t>(i);
        x = previous[j] + (position[j] - previous[j]) * alpha;
        y = previous[j + 1] + (position[j + 1] - previous[j + 1]) * alpha;
        z = previous[j + 2] + (position[j + 2] - previous[j + 2]) * alpha;
    }

    /// Agent i's wander sphere, for debug drawing: its centre, and its radius returned (0 for
    /// seek, whose target is a point of the box).
    double wanderSphere(int i, double& x, double& y, double& z) const {
        const GroupParams& p = groups[groupOf[i]].params;
        x = position[3 * i] + heading[3 * i] * p.distance;
        y = position[3 * i + 1] + heading[3 * i + 1] * p.distance;
        z = position[3 * i + 2] + heading[3 * i + 2] * p.distance;
        return p.method == Method::Seek ? 0.0 : p.radius;
    }

    /// Take steps fixed steps of dt (the engine's kernel.advance, agent by agent: agents are
    /// independent, so each keeps its state in locals for all the steps).
    void advance(int steps) {
        constants.resize(groups.size());  // allocates once: a frame allocates nothing
        for (std::size_t g = 0; g < groups.size(); g++) constants[g].read(groups[g].params, dt);
        // Pull the side level every 2^k steps, the most within LEVEL_SECONDS.
        std::int64_t levelSteps = 1;
        while (static_cast<double>(2 * levelSteps) * dt <= LEVEL_SECONDS) levelSteps *= 2;
        for (int i = 0; i < count; i++)
            stepAgent(i, constants[groupOf[i]], stepCount, steps, levelSteps - 1);
        stepCount += steps;
        placeTargets();
    }

private:
    static constexpr double RAMP_FRACTION = 0.25;  // the containment push ramps to full over this part of the margin
    static constexpr double LOOKAHEAD = 0.25;  // s: agents look this far ahead (plus their stopping time)
    static constexpr double RANDOM_HOLD = 1.0 / 30.0;  // s: the random method's direction is held this long
    static constexpr double PITCH_SPREAD = 0.7;  // rad: the angle method's pitch spread at vertical 1
    static constexpr double LEVEL_SECONDS = 0.14;  // s: at most this often the side is pulled level
    static constexpr double TINY = 1e-12;
    static constexpr std::uint64_t SPAWN_SALT = 0x2545F4914F6CDD1Dull;  // the port's own draws' stream

    std::vector<double> side;
    std::vector<double> wander;
    std::vector<double> angles;  // yaw, pitch (noise: offsets of its curves)
    std::vector<std::uint64_t> noiseKeys;
    std::vector<double> noisePhase;
    std::vector<double> gradients;  // the noise curves' cached cells and gradients, 12 per agent
    std::vector<double> seekPoint;
    std::vector<double> seekTimer;
    std::vector<std::int64_t> held;  // random method: the hold whose direction is in heldForce
    std::vector<double> heldForce;
    std::vector<std::uint64_t> agentKeys;
    double accumulator = 0.0;  // s of frame time not yet stepped

    /// Per group, what a step needs of its parameters (read each advance, so edits act from
    /// the next step).
    struct Constants {
        Method method = Method::Sphere;
        bool desired = false;
        double distance = 0, radius = 0, jitterStep = 0, rateStep = 0, frequency = 0;
        double offsetFade = 0, interval = 0, vertical = 0, maxSpeed = 0, maxForce = 0;
        double inverseMass = 0, stopTime = 0, pitchDecay = 0, pitchKick = 0;

        void read(const GroupParams& p, double dt) {
            const double rootDt = std::sqrt(dt);
            method = p.method;
            desired = p.steering == Steering::Desired;
            distance = p.distance;
            radius = p.radius;
            jitterStep = p.jitter * rootDt;
            rateStep = p.rate * rootDt;
            frequency = p.frequency;
            offsetFade = detmath::exp(-dt * p.frequency);
            interval = p.interval;
            vertical = p.vertical;
            maxSpeed = p.maxSpeed;
            maxForce = p.maxForce;
            inverseMass = 1.0 / p.mass;
            stopTime = 0.5 * p.mass / p.maxForce;
            // The angle method's pitch walk (engine: kernel.pitch_walk): an Ornstein-Uhlenbeck
            // walk with a spread of vertical * PITCH_SPREAD rad.
            double spread = p.vertical * PITCH_SPREAD;
            if (p.rate <= 0.0) {
                pitchDecay = 1.0;
                pitchKick = 0.0;
            } else if (spread <= 0.0) {
                pitchDecay = 0.0;
                pitchKick = 0.0;
            } else {
                pitchDecay = detmath::exp(-dt * p.rate * p.rate / (6.0 * spread * spread));
                pitchKick = spread * std::sqrt(3.0 * (1.0 - pitchDecay * pitchDecay));
            }
        }
    };
    std::vector<Constants> constants;  // per group, refreshed by each advance

    /// Agent i's spawn stream key (the port's own draws: spawn, setMethod).
    std::uint64_t spawnKey(int i) const { return stream::mix(agentKeys[i] ^ SPAWN_SALT); }

    static std::uint64_t hex(const std::string& text) {
        return std::strtoull(text.c_str(), nullptr, 16);
    }

    static double bits(const std::string& text) {
        std::uint64_t b = hex(text);
        double d;
        static_assert(sizeof d == sizeof b, "IEEE-754 binary64 doubles");
        std::memcpy(&d, &b, sizeof d);
        return d;
    }

    static void set3(std::vector<double>& v, int i, double x, double y, double z) {
        v[3 * i] = x;
        v[3 * i + 1] = y;
        v[3 * i + 2] = z;
    }

    void restart() {
        stepCount = 0;
        accumulator = 0.0;
        std::fill(held.begin(), held.end(), -1);
        previous = position;
        placeTargets();
    }

    /// The shown target of every agent: its seek point, or its point on the wander sphere.
    void placeTargets() {
        for (int i = 0; i < count; i++) {
            const GroupParams& p = groups[groupOf[i]].params;
            for (int a = 0; a < 3; a++) {
                int j = 3 * i + a;
                target[j] = p.method == Method::Seek
                                ? seekPoint[j]
                                : position[j] + heading[j] * p.distance + wander[j] * p.radius;
            }
        }
    }

    void stepAgent(int i, const Constants& g, std::int64_t firstStep, int steps,
                   std::int64_t levelMask) {
        using detmath::max;
        using detmath::min;
        const double lox = low[0], loy = low[1], loz = low[2];
        const double hix = high[0], hiy = high[1], hiz = high[2];
        const double inverseRamp = margin > 0.0 ? 1.0 / (margin * RAMP_FRACTION) : 0.0;
        // Random method: which hold a step falls in (its centre, so rounding never splits a
        // hold), and the white-noise scaling where a step is longer than a hold.
        const double randomHolds = min(1.0, dt / RANDOM_HOLD);
        const double randomGain = std::sqrt(min(1.0, RANDOM_HOLD / dt));
        const Method method = g.method;
        const double distance = g.distance, radius = g.radius, vertical = g.vertical;
        const double maxSpeed = g.maxSpeed, maxForce = g.maxForce, stopTime = g.stopTime;

        const int i3 = 3 * i;
        double px = position[i3], py = position[i3 + 1], pz = position[i3 + 2];
        double vx = velocity[i3], vy = velocity[i3 + 1], vz = velocity[i3 + 2];
        double hx = heading[i3], hy = heading[i3 + 1], hz = heading[i3 + 2];
        double sx = side[i3], sy = side[i3 + 1], sz = side[i3 + 2];
        double wx = wander[i3], wy = wander[i3 + 1], wz = wander[i3 + 2];
        double yaw = angles[2 * i], pitch = angles[2 * i + 1];
        double fx = 0.0, fy = 0.0, fz = 0.0;
        const std::uint64_t agent = agentKeys[i];

        for (std::int64_t step = firstStep; step < firstStep + steps; step++) {
            const std::uint64_t key = stream::streamKey(agent, step);

            // 1. Containment, per axis: + pushes towards high, - towards low.
            double ix = 0.0, iy = 0.0, iz = 0.0;
            double aheadX = px + vx * (LOOKAHEAD + std::fabs(vx) * stopTime);
            double aheadY = py + vy * (LOOKAHEAD + std::fabs(vy) * stopTime);
            double aheadZ = pz + vz * (LOOKAHEAD + std::fabs(vz) * stopTime);
            if (margin > 0.0) {
                if (hx < 0.0)
                    ix = min(1.0, max(0.0, (lox + margin - aheadX) * inverseRamp));
                else if (hx > 0.0)
                    ix = -min(1.0, max(0.0, (aheadX - (hix - margin)) * inverseRamp));
                if (hy < 0.0)
                    iy = min(1.0, max(0.0, (loy + margin - aheadY) * inverseRamp));
                else if (hy > 0.0)
                    iy = -min(1.0, max(0.0, (aheadY - (hiy - margin)) * inverseRamp));
                if (hz < 0.0)
                    iz = min(1.0, max(0.0, (loz + margin - aheadZ) * inverseRamp));
                else if (hz > 0.0)
                    iz = -min(1.0, max(0.0, (aheadZ - (hiz - margin)) * inverseRamp));
            }
            double weight = max(std::fabs(ix), max(std::fabs(iy), std::fabs(iz)));

            // 2. The wander target.
            double usedYaw = 0.0, usedPitch = 0.0;  // the noise method's target angles
            double tx, ty, tz;
            if (method == Method::Seek) {
                seekTimer[i] -= dt;
                if (seekTimer[i] <= 0.0) {
                    seekPoint[i3] = lox + margin + stream::uniform(key, 0) * (hix - lox - 2 * margin);
                    seekPoint[i3 + 1] = loy + margin + stream::uniform(key, 1) * (hiy - loy - 2 * margin);
                    seekPoint[i3 + 2] = loz + margin + stream::uniform(key, 2) * (hiz - loz - 2 * margin);
                    seekTimer[i] += g.interval;
                }
                tx = seekPoint[i3];
                ty = seekPoint[i3 + 1];
                tz = seekPoint[i3 + 2];
            } else {
                if (method == Method::Sphere) {
                    double ux, uy, uz;
                    stream::inUnitBall(key, ux, uy, uz);
                    double qx = wx * radius + ux * g.jitterStep;
                    double qy = wy * radius + uy * g.jitterStep * vertical;
                    double qz = wz * radius + uz * g.jitterStep;
                    double q = std::sqrt(qx * qx + qy * qy + qz * qz);
                    // The point can reach the centre only if jitter*sqrt(dt) >= radius.
                    if (q > 1e-9 * radius) {
                        double inverse = 1.0 / q;
                        wx = qx * inverse;
                        wy = qy * inverse;
                        wz = qz * inverse;
                    }
                } else if (method == Method::Angle) {
                    yaw += (2.0 * stream::uniform(key, 0) - 1.0) * g.rateStep;
                    pitch = pitch * g.pitchDecay + (2.0 * stream::uniform(key, 1) - 1.0) * g.pitchKick;
                    if (yaw >= frame::PI || yaw < -frame::PI)
                        yaw = detmath::floorMod(yaw + frame::PI, 2.0 * frame::PI) - frame::PI;
                    pitch = frame::reflectPitch(pitch);
                    frame::directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
                } else if (method == Method::Noise) {
                    // Offsets from wall turns fade, so the agent returns to its own curve.
                    yaw *= g.offsetFade;
                    pitch *= g.offsetFade;
                    usedYaw = frame::noiseAngles(noiseKeys[2 * i], noiseKeys[2 * i + 1],
                                                 noisePhase[2 * i], noisePhase[2 * i + 1],
                                                 static_cast<double>(step) * dt * g.frequency,
                                                 vertical, yaw, pitch, &gradients[12 * i],
                                                 usedPitch);
                    frame::directionFromAngles(usedYaw, usedPitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
                } else {
                    // Random: a fresh uniform direction every RANDOM_HOLD s.
                    auto hold = static_cast<std::int64_t>((static_cast<double>(step) + 0.5) * randomHolds);
                    if (hold != held[i]) {
                        held[i] = hold;
                        double ux, uy, uz;
                        stream::inUnitBall(stream::streamKey(agent, hold), ux, uy, uz);
                        uy *= vertical;
                        double u = std::sqrt(ux * ux + uy * uy + uz * uz);
                        if (u < 1e-9) {  // vertical = 0 and a purely vertical draw
                            ux = 1.0;
                            uy = 0.0;
                            uz = 0.0;
                            u = 1.0;
                        }
                        double gain = randomGain / u;
                        heldForce[i3] = ux * gain;
                        heldForce[i3 + 1] = uy * gain;
                        heldForce[i3 + 2] = uz * gain;
                    }
                    wx = heldForce[i3];
                    wy = heldForce[i3 + 1];
                    wz = heldForce[i3 + 2];
                }
                // Turn the target inward on axes heading into a wall, so the agent does not
                // head straight back out; a mirror keeps it on the sphere.
                bool turned = false;
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
                if (turned && method == Method::Angle) {
                    yaw = frame::anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, pitch);
                } else if (turned && method == Method::Noise) {
                    // Shift the noise curves so they continue from the turned target.
                    double turnedPitch;
                    double turnedYaw = frame::anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, turnedPitch);
                    yaw = frame::shiftOffsets(yaw, pitch, turnedYaw - usedYaw, turnedPitch - usedPitch, pitch);
                    usedYaw = turnedYaw;
                    usedPitch = turnedPitch;
                }
                tx = px + hx * distance + wx * radius;
                ty = py + hy * distance + wy * radius;
                tz = pz + hz * distance + wz * radius;
            }

            // 3. Steering, blended with containment.
            double dx = tx - px, dy = ty - py, dz = tz - pz;
            if (g.desired) {
                double d = std::sqrt(dx * dx + dy * dy + dz * dz);
                if (d > TINY) {
                    double inverse = 1.0 / d;
                    dx = dx * inverse;
                    dy = dy * inverse;
                    dz = dz * inverse;
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
            double keep = 1.0 - weight;
            fx = dx * keep;
            fy = dy * keep;
            fz = dz * keep;
            if (weight > 0.0) {
                double c = maxForce * weight / std::sqrt(ix * ix + iy * iy + iz * iz);
                fx += ix * c;
                fy += iy * c;
                fz += iz * c;
            }

            // 4. Vehicle model: truncate the force, integrate (lengths compared squared).
            double f2 = fx * fx + fy * fy + fz * fz;
            if (f2 > maxForce * maxForce) {
                double scale = maxForce / std::sqrt(f2);
                fx = fx * scale;
                fy = fy * scale;
                fz = fz * scale;
            }
            double accel = g.inverseMass * dt;
            vx += fx * accel;
            vy += fy * accel;
            vz += fz * accel;
            double speed2 = vx * vx + vy * vy + vz * vz;
            bool moving = speed2 > 1e-18;
            double nx = 0.0, ny = 0.0, nz = 0.0;
            if (moving) {
                double inverse = 1.0 / std::sqrt(speed2);
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
                if (method == Method::Angle || method == Method::Noise) {
                    frame::transportPair(sx, sy, sz, wx, wy, wz, hx, hy, hz, nx, ny, nz);
                    // Pull the side level (same sign, so it never flips): fully for a level
                    // heading, less towards vertical, where the level side swings fast.
                    double level2 = nx * nx + nz * nz;
                    if ((step & levelMask) == 0 && level2 > 1e-12) {
                        double inverse = 1.0 / std::sqrt(level2);
                        double lx = -nz * inverse, lz = nx * inverse;
                        if (lx * sx + lz * sz < 0.0) {
                            lx = -lx;
                            lz = -lz;
                        }
                        sx += level2 * (lx - sx);
                        sy -= level2 * sy;
                        sz += level2 * (lz - sz);
                        inverse = 1.0 / std::sqrt(sx * sx + sy * sy + sz * sz);
                        sx = sx * inverse;
                        sy = sy * inverse;
                        sz = sz * inverse;
                    }
                } else {
                    frame::transport(wx, wy, wz, hx, hy, hz, nx, ny, nz);
                }
                hx = nx;
                hy = ny;
                hz = nz;
            }

            // 6. The hard guarantee: reflect agents that left the box.
            bool crossed = false;
            if (px < lox || px > hix) {
                px = px < lox ? 2.0 * lox - px : 2.0 * hix - px;
                px = min(hix, max(lox, px));
                vx = -vx;
                hx = -hx;
                sx = -sx;
                wx = -wx;
                crossed = true;
            }
            if (py < loy || py > hiy) {
                py = py < loy ? 2.0 * loy - py : 2.0 * hiy - py;
                py = min(hiy, max(loy, py));
                vy = -vy;
                hy = -hy;
                sy = -sy;
                wy = -wy;
                crossed = true;
            }
            if (pz < loz || pz > hiz) {
                pz = pz < loz ? 2.0 * loz - pz : 2.0 * hiz - pz;
                pz = min(hiz, max(loz, pz));
                vz = -vz;
                hz = -hz;
                sz = -sz;
                wz = -wz;
                crossed = true;
            }
            if (crossed && (method == Method::Angle || method == Method::Noise)) {
                // The mirror flips the frame's handedness; re-express the target in it.
                double w = std::sqrt(wx * wx + wy * wy + wz * wz);
                double mirroredPitch;
                double mirroredYaw = frame::anglesFromDirection(wx / w, wy / w, wz / w, hx, hy, hz, sx, sy, sz, mirroredPitch);
                if (method == Method::Angle) {
                    yaw = mirroredYaw;
                    pitch = mirroredPitch;
                } else {
                    yaw = frame::shiftOffsets(yaw, pitch, mirroredYaw - usedYaw, mirroredPitch - usedPitch, pitch);
                }
            }
        }

        set3(position, i, px, py, pz);
        set3(velocity, i, vx, vy, vz);
        set3(heading, i, hx, hy, hz);
        set3(side, i, sx, sy, sz);
        set3(wander, i, wx, wy, wz);
        angles[2 * i] = yaw;
        angles[2 * i + 1] = pitch;
        set3(force, i, fx, fy, fz);
    }
};

}  // namespace wander3d
