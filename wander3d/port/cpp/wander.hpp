// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// wander.hpp: wander3d's wander steering for C++ games (Unreal, any engine), identical to the
// engine.
//
// A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
// same scene, start and seed give the same positions at every step. C++17, standard library
// only, header only, no exceptions. The contract it follows is docs/ports.md of wander3d: IEEE
// doubles evaluated in the engine's order with no fused multiply-add, its own
// sin/cos/atan2/asin/exp (detmath), and a counter-based random stream keyed by (seed, agent,
// step, draw).
//
// Two ways in. The behaviour, composed inside your own character's tick (a force you add to
// your own, as Yuka and OpenSteer give it):
//
//   wander3d::Wander wander(params, seed, box);             // one per kind of character
//   wander3d::WanderAgent agent = wander.agent(id, position, velocity);
//   // each fixed tick:
//   wander.steer(agent, position, velocity, dt);            // agent.force, agent.containment
//   wander3d::Vec3 force = agent.force + agent.containment; // that sum first, then your own
//   force += mySeek;
//   wander3d::Vec3 heading;
//   if (wander3d::integrate(position, velocity, force, wander.params, dt, heading))
//       wander.follow(agent, heading);                      // (or integrate yourself)
//   wander.box.reflect(agent, position, velocity);          // (or your own collision)
//
// Or the hosted flock, a loop of exactly those calls over a scene's agents:
//
//   wander3d::Flock flock(wander3d::scene());         // agents spawned in the box
//   flock.loadStart(startText);                       // optional: wander3d's exact start
//   double alpha = flock.update(frameSeconds);        // each frame: fixed-dt steps
//   wander3d::Vec3 drawn = flock.positionAt(i, alpha);
//
// Parameters (WanderParams) may be changed at any time; they act from the next step. Units:
// lengths in world units, times in seconds; +y is up and the frame is right-handed.
//
// Floating point: the header keeps its own arithmetic exact whatever the build's flags allow
// (GCC's -ffp-contract=fast, its default, and MSVC's /fp:fast): the pragmas below are pushed
// here and popped at the end, so your own code keeps your flags. Clang disregards every
// pragma under -ffp-contract=fast (its documented behaviour), so on x86 its functions are
// compiled without FMA instructions and the entry points are not inlined into your code.
// Never build with fast-math (-ffast-math, -Ofast): it reorders arithmetic and may flush tiny
// numbers to zero for the whole program. Unreal: `FPSemantics = FPSemanticsMode.Precise;` in
// the module's Build.cs (MSVC builds /fp:fast by default).

#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

// ---------------------------------------------------------------- floating point (pushed)
#if defined(__clang__)
// Clang first: it also defines __GNUC__ (and _MSC_VER as clang-cl). float_control(precise)
// switches fast-math off here and contraction back on, so contract(off) comes after it; the
// float_control stack restores both at the end.
#pragma float_control(precise, on, push)
#pragma clang fp contract(off)
#if defined(__x86_64__) || defined(__i386__)
// -ffp-contract=fast fuses in clang's code generator, past any pragma: code without FMA
// instructions cannot fuse. An entry point inlined into a caller compiled with FMA would be
// fused there, so entry points stay calls.
#pragma clang attribute push(__attribute__((target("no-fma"))), apply_to = function)
#define WANDER3D_ENTRY __attribute__((noinline))
#define WANDER3D_NO_FMA_PUSHED
#endif
#elif defined(__GNUC__)
// GCC does not inline a function built with other options into its caller, so these
// functions keep theirs inside code built with -ffp-contract=fast (GCC's default for C++).
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off", "no-fast-math")
#elif defined(_MSC_VER)
#pragma float_control(precise, on, push)
#pragma fp_contract(off)
#endif
#ifndef WANDER3D_ENTRY
#define WANDER3D_ENTRY
#endif
// The step's stages, forced inline into the public calls and into the flock's loop.
#if defined(_MSC_VER) && !defined(__clang__)
#define WANDER3D_INLINE __forceinline
#else
#define WANDER3D_INLINE inline __attribute__((always_inline))
#endif

namespace wander3d {

/// A vector of world units (or units/s, or a unit direction): x, y, z with +y up.
struct Vec3 {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
};

inline Vec3 operator+(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(const Vec3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline Vec3& operator+=(Vec3& a, const Vec3& b) {
    a.x += b.x;
    a.y += b.y;
    a.z += b.z;
    return a;
}

/// How a kind of character moves its wander target (wander3d's five methods; the values are
/// the engine's method ids).
enum class Method {
    Sphere = 0,  // Reynolds: a point on a sphere ahead, nudged at random each step
    Angle = 1,   // yaw and pitch of the target random-walk (the 2D tutorials' angle)
    Noise = 2,   // yaw and pitch follow smooth noise curves
    Seek = 3,    // seek a random point of the box, a new one every interval s
    Random = 4,  // a fresh random direction every 1/30 s
};

/// wander3d's name of each Method, in id order (as scene files spell them).
constexpr const char* METHOD_NAMES[] = {"sphere", "angle", "noise", "seek", "random"};

/// How the target becomes a steering force.
enum class Steering {
    Force = 0,    // the vector to the target is the steering force (Reynolds)
    Desired = 1,  // desired velocity towards the target at maxSpeed, minus the velocity
};

/// One kind of character's parameters; edit them at any time, they act from the next step.
/// As in wander3d's app, a new frequency keeps each noise agent where it is on its curves,
/// and a new interval shortens a longer seek countdown at once.
struct WanderParams {
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

struct WanderAgent;

/// The region seek draws its points from and containment keeps agents in (units): agents
/// start turning back `margin` inside a wall, and reflect() mirrors back one that crossed it.
struct WanderBox {
    Vec3 min{-100.0, -60.0, -100.0};  // lowest corner
    Vec3 max{100.0, 60.0, 100.0};     // highest corner
    double margin = 15.0;             // agents start turning back this far inside a wall

    /// Stage 6, the hard guarantee: an agent outside the box is mirrored back in (position,
    /// velocity, its frame and target). True when it was.
    WANDER3D_ENTRY bool reflect(WanderAgent& agent, Vec3& position, Vec3& velocity) const;
};

/// A group of identical agents of a scene: its name, how many, their parameters.
struct GroupSpec {
    std::string name;
    int count = 0;
    WanderParams params;
};

/// What a flock is made from: seed, step, box and groups (scene() gives the tuned scene's).
struct SceneSpec {
    std::string name;
    std::uint32_t seed = 0;  // seeds every random number of the run
    double dt = 1.0 / 60.0;  // seconds per fixed step
    WanderBox box;
    std::vector<GroupSpec> groups;
};

// ---------------------------------------------------------------- the scene (generated)
// BEGIN SCENE: `wander3d port` writes the scene's parameters here.
inline SceneSpec scene() {
    SceneSpec s;
    s.name = "Default";
    s.seed = 7;  // any integer in [0, 2^32): seeds every random number of the run
    s.dt = 0.0166667;  // seconds per fixed step
    s.box.min = {-100.0, -60.0, -100.0};  // lowest corner (units)
    s.box.max = {100.0, 60.0, 100.0};  // highest corner (units)
    s.box.margin = 15.0;  // agents start turning back this far inside a wall (units)
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

// Angles in radians. Named as turns: the legacy macros of game engines (Unreal's PI,
// HALF_PI, ...) must find nothing to expand in this header.
constexpr double HALF_TURN = 3.141592653589793;  // pi
constexpr double QUARTER_TURN = HALF_TURN / 2;
constexpr double FULL_TURN = 2.0 * HALF_TURN;

// ---------------------------------------------------------------- detmath (engine/detmath.py)
// sin, cos, atan2, asin and exp from + - * / sqrt floor only, line for line the engine's, so
// every platform computes them alike (math libraries differ in the last bit).
namespace detmath {

// Classification by comparison and bits, not <cmath>'s inline functions: under clang on x86
// those could not be inlined into this header's functions (built without FMA, see the top).
inline bool isNan(double x) { return x != x; }
inline bool isInf(double x) { return x == HUGE_VAL || x == -HUGE_VAL; }
inline bool signBit(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits >> 63) != 0;
}

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
    if (isNan(a)) return a;
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

constexpr double HALF_TURN_LO = 1.2246467991473531772e-16;
constexpr double PIO2_HI = 1.57079632679489655800e00;
constexpr double PIO2_LO = 6.12323399573676603587e-17;

/// The angle of (x, y) in [-pi, pi], as std::atan2 (signed zeros and infinities included).
inline double atan2(double y, double x) {
    if (isNan(x) || isNan(y)) return x + y;
    bool negativeY = signBit(y);
    bool negativeX = signBit(x);
    double ay = negativeY ? -y : y;
    double ax = negativeX ? -x : x;
    double z;
    if (ay == 0.0) {
        z = negativeX ? HALF_TURN : 0.0;
    } else if (ax == 0.0) {
        z = PIO2_HI;
    } else if (isInf(ax)) {
        if (isInf(ay))
            z = negativeX ? 0.75 * HALF_TURN : 0.25 * HALF_TURN;
        else
            z = negativeX ? HALF_TURN : 0.0;
    } else if (isInf(ay)) {
        z = PIO2_HI;
    } else {
        double ratio = ay / ax;
        if (ratio > 1.152921504606847e18) {  // 2^60: |y| dwarfs |x|
            z = PIO2_HI + 0.5 * HALF_TURN_LO;
        } else if (negativeX && ratio < 8.673617379884035e-19) {  // 2^-60: y vanishes
            z = HALF_TURN;
        } else {
            z = atanPositive(ratio);
            if (negativeX) z = HALF_TURN - (z - HALF_TURN_LO);
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
    if (isNan(x)) return x;
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
// (larger), as std::min and std::max; std::fmin/fmax may differ on signed zeros. Named so
// that no min/max macro (<windows.h> without NOMINMAX) can expand them.
inline double minOf(double a, double b) { return b < a ? b : a; }
inline double maxOf(double a, double b) { return b > a ? b : a; }

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

inline double reflectPitch(double pitch) {
    if (pitch > QUARTER_TURN) return HALF_TURN - pitch;
    if (pitch < -QUARTER_TURN) return -HALF_TURN - pitch;
    return pitch;
}

/// The noise method's target: yaw (returned) and pitch from two noise curves plus offsets
/// (cache[0..11]: the curves' gradients).
inline double noiseAngles(std::uint64_t key0, std::uint64_t key1, double phase0, double phase1,
                          double t, double vertical, double offsetYaw, double offsetPitch,
                          double* cache, double& pitch) {
    double yaw = HALF_TURN * stream::smoothNoise(key0, phase0 + t, cache) + offsetYaw;
    double curve = stream::smoothNoise(key1, phase1 + t, cache + 6);
    double p = QUARTER_TURN * detmath::minOf(1.0, detmath::maxOf(-1.0, curve)) * vertical;
    pitch = reflectPitch(p + offsetPitch);
    return yaw;
}

/// Noise offsets moved by the deltas: yaw wrapped to [-pi, pi) (returned), pitch in [-pi, pi].
inline double shiftOffsets(double offsetYaw, double offsetPitch, double deltaYaw,
                           double deltaPitch, double& pitch) {
    pitch = detmath::minOf(HALF_TURN, detmath::maxOf(-HALF_TURN, offsetPitch + deltaPitch));
    return detmath::floorMod(offsetYaw + deltaYaw + HALF_TURN, FULL_TURN) - HALF_TURN;
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
    pitch = detmath::asin(detmath::minOf(1.0, detmath::maxOf(-1.0, up)));
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
WANDER3D_INLINE void transport(double& vx, double& vy, double& vz, double ax, double ay, double az,
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
WANDER3D_INLINE void transportPair(double& vx, double& vy, double& vz, double& wx, double& wy,
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

// ---------------------------------------------------------------- the behaviour (composable)

/// One agent's wander state: everything the step carries except its position and velocity,
/// which are the game's. Made by Wander::agent (an agent the game placed), Wander::spawn (the
/// port's own start) or readStart (wander3d's exact start); dropping an agent is dropping
/// this. The game reads `force`, `containment` and `heading`; the rest is the behaviour's.
struct WanderAgent {
    std::int64_t id = 0;          // unique among the live agents of one seed, in [0, 2^53)
    std::uint64_t key = 0;        // its random stream: stream::agentKey(seed's key, id)
    std::int64_t step = 0;        // ticks steered: its random stream's and noise curves' time
    Vec3 heading{1.0, 0.0, 0.0};  // unit: where it faces
    Vec3 side{0.0, 0.0, 1.0};     // unit, across the heading (angle and noise keep it level)
    Vec3 wander{1.0, 0.0, 0.0};   // unit: the target's direction from the sphere's centre
    double yaw = 0.0;    // angle: the target's yaw; noise: the offset added to its yaw curve
    double pitch = 0.0;  // angle: the target's pitch; noise: the offset added to its pitch curve
    std::uint64_t noiseKeys[2] = {0, 0};  // noise: its two curves (below 2^63)
    double noisePhase[2] = {0.0, 0.0};    // noise: where on them it started
    // noise: each curve octave's cell and its two gradients, a pure function of the curves
    // kept to skip hashing (NaN: nothing kept).
    double noiseCache[12] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    Vec3 seekPoint;          // seek: the point sought
    double seekTimer = 0.0;  // seek: seconds until the next point
    // The params.frequency its noise phases follow and the params.interval its seek timer
    // follows: steer() finding another carries the phases and the timer over to it.
    double frequency = 0.3;
    double interval = 4.0;
    std::int64_t held = -1;  // random: the hold whose direction is heldDirection (-1: none)
    Vec3 heldDirection;
    // What the last tick's steer() found.
    Method method = Method::Sphere;  // the method its state is for (its kind's at that tick)
    Vec3 force;        // the wander steering force (mass*units/s^2)
    Vec3 containment;  // the box's push (mass*units/s^2); (-0, -0, -0) when it does not push
    double usedYaw = 0.0;    // noise: the target's yaw and pitch that tick (reflect needs them)
    double usedPitch = 0.0;
};

/// The wander behaviour of one kind of character: its parameters, its seed and optionally
/// the box it keeps to. Many agents share one; each call takes one agent's state. Not
/// thread-safe across one Wander's calls except where said: steer() refreshes the constants
/// derived from params and dt when they changed; from several threads, call refresh(dt)
/// once before the parallel loop (steer() then only reads the Wander).
class Wander {
public:
    WanderParams params;  // edit at any time: acts from the next steer()
    WanderBox box;        // containment and seek's points, when hasBox
    bool hasBox = false;

    /// Unbounded: no containment, no target turned from walls; seek keeps its points.
    Wander(const WanderParams& kind, std::uint32_t seedValue)
        : params(kind), seed_(seedValue), seedKey_(stream::seedKey(seedValue)) {}

    /// Kept inside region: containment pushes back from its margin, reflect() is the wall.
    Wander(const WanderParams& kind, std::uint32_t seedValue, const WanderBox& region)
        : params(kind), box(region), hasBox(true), seed_(seedValue), seedKey_(stream::seedKey(seedValue)) {}

    /// The seed (any integer in [0, 2^32)) every agent's random stream derives from.
    std::uint32_t seed() const { return seed_; }

    /// An agent the game placed, at position, moving at velocity: it faces the velocity (+x
    /// when that is zero); its frame, angles, noise curves and seek timer are drawn from its
    /// spawn stream; it seeks a point of the box (without one: its position). `id`: any
    /// integer in [0, 2^53), unique among the live agents of this seed, so agents can come
    /// and go without changing the others' runs (the same id repeats the same stream).
    WANDER3D_ENTRY WanderAgent agent(std::int64_t id, const Vec3& position, const Vec3& velocity) const {
        WanderAgent a = keyed(id);
        const std::uint64_t k = spawnKey(a);
        const double s = std::sqrt(velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z);
        Vec3 heading{1.0, 0.0, 0.0};
        if (s > 0.0) heading = {velocity.x / s, velocity.y / s, velocity.z / s};
        a.seekPoint = hasBox ? regionPoint(box, k, 3) : position;
        start(a, k, heading);
        return a;
    }

    /// An agent started by the port's own rule (docs/ports.md, "Start"): a position uniform
    /// in `region` inside its margin, a heading uniform in direction with its up component
    /// scaled by vertical, speed initialSpeed; written into position and velocity. The same
    /// seed and id start alike in every port.
    WANDER3D_ENTRY WanderAgent spawn(std::int64_t id, const WanderBox& region, Vec3& position,
                                     Vec3& velocity) const {
        WanderAgent a = keyed(id);
        const std::uint64_t k = spawnKey(a);
        position = regionPoint(region, k, 0);
        a.seekPoint = regionPoint(region, k, 3);
        double hx, hy, hz;
        stream::inUnitBall(k, hx, hy, hz);
        hy *= params.vertical;
        double h = std::sqrt(hx * hx + hy * hy + hz * hz);
        if (h < 1e-9) {
            hx = 1.0;
            hy = 0.0;
            hz = 0.0;
            h = 1.0;
        }
        const Vec3 heading{hx / h, hy / h, hz / h};
        velocity = heading * params.initialSpeed;
        start(a, k, heading);
        return a;
    }

    /// Recompute what derives from params, dt and the box's margin if any of them changed
    /// since the last time (steer() calls it).
    WANDER3D_ENTRY void refresh(double dt) {
        if (stale(dt)) derive(dt);
    }

    /// Stages 1-3 of a tick: the containment look-ahead (with a box), the method's target
    /// (the agent's random state advances; the target turned inward on axes heading into a
    /// wall) and steering. Writes agent.force (the wander steering) and agent.containment
    /// (the box's push, -0 when none): force + containment, that sum first, is wander3d's
    /// blended force bit for bit. Counts the agent's step. No allocation.
    WANDER3D_ENTRY void steer(WanderAgent& agent, const Vec3& position, const Vec3& velocity, double dt) {
        if (stale(dt)) derive(dt);
        steerInline(agent, position, velocity, dt);
    }

    /// Stage 5: the agent now faces `heading` (unit); its frame and target are carried with
    /// it (parallel transport; angle and noise pull the side level on level steps). Call it
    /// each tick the agent moved, after steer().
    WANDER3D_ENTRY void follow(WanderAgent& agent, const Vec3& heading) const { followInline(agent, heading); }

    /// The agent's shown target now (for debug drawing): its seek point, or the point on its
    /// wander sphere (centre `distance` ahead along the heading, `radius` along the wander
    /// direction), as wander3d shows it after a step.
    WANDER3D_ENTRY Vec3 target(const WanderAgent& agent, const Vec3& position) const {
        if (params.method == Method::Seek) return agent.seekPoint;
        const Vec3& h = agent.heading;
        const Vec3& w = agent.wander;
        return {position.x + h.x * params.distance + w.x * params.radius,
                position.y + h.y * params.distance + w.y * params.radius,
                position.z + h.z * params.distance + w.z * params.radius};
    }

    /// The wander sphere's centre (for debug drawing); its radius is params.radius (seek has
    /// none: its target is a point of the box).
    Vec3 sphereCentre(const WanderAgent& agent, const Vec3& position) const {
        return {position.x + agent.heading.x * params.distance,
                position.y + agent.heading.y * params.distance,
                position.z + agent.heading.z * params.distance};
    }

    /// Switch an agent to method `to`, continuing from where its target is (as wander3d's app
    /// does): the wander direction keeps pointing where it did (from seek: from the sphere's
    /// centre to the point sought); angle and noise measure its yaw and pitch in a fresh
    /// level frame (noise: new curves, offset to pass through it); seek seeks the shown
    /// target, kept inside the box's margin. New draws come from the agent's spawn stream at
    /// its step. Call it for each agent of the kind, then set params.method = to (setting
    /// params.method alone switches too, but each target may jump once).
    WANDER3D_ENTRY void switchMethod(WanderAgent& agent, const Vec3& position, Method to, double dt) const {
        const Method from = agent.method;
        if (to == from) return;
        const WanderParams& p = params;
        const double px = position.x, py = position.y, pz = position.z;
        const double hx = agent.heading.x, hy = agent.heading.y, hz = agent.heading.z;
        double wx = agent.wander.x, wy = agent.wander.y, wz = agent.wander.z;
        if (from == Method::Seek) {
            wx = agent.seekPoint.x - (px + hx * p.distance);
            wy = agent.seekPoint.y - (py + hy * p.distance);
            wz = agent.seekPoint.z - (pz + hz * p.distance);
        }
        const double w = std::sqrt(wx * wx + wy * wy + wz * wz);
        if (w > TINY) {
            wx /= w;
            wy /= w;
            wz /= w;
        } else {
            wx = hx;
            wy = hy;
            wz = hz;
        }
        agent.wander = {wx, wy, wz};
        const std::uint64_t key = stream::streamKey(spawnKey(agent), agent.step);
        if (to == Method::Angle || to == Method::Noise) {
            double sx, sy, sz, pitch;
            frame::levelSide(hx, hy, hz, sx, sy, sz);
            agent.side = {sx, sy, sz};
            const double yaw = frame::anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, pitch);
            if (to == Method::Angle) {
                agent.yaw = yaw;
                agent.pitch = pitch;
            } else {
                for (int k = 0; k < 2; k++) {
                    agent.noiseKeys[k] = stream::hashAt(key, 1 + k) & 0x7FFFFFFFFFFFFFFFull;
                    agent.noisePhase[k] = stream::uniform(key, 3 + k) * 1024.0;
                }
                for (double& c : agent.noiseCache) c = NAN;
                agent.frequency = p.frequency;
                const double t = static_cast<double>(agent.step) * dt * p.frequency;
                double curvePitch, offsetPitch;
                const double curveYaw = frame::noiseAngles(agent.noiseKeys[0], agent.noiseKeys[1],
                                                           agent.noisePhase[0], agent.noisePhase[1], t,
                                                           p.vertical, 0.0, 0.0, agent.noiseCache, curvePitch);
                agent.yaw = frame::shiftOffsets(0.0, 0.0, yaw - curveYaw, pitch - curvePitch, offsetPitch);
                agent.pitch = offsetPitch;
            }
        } else if (to == Method::Seek) {
            const Vec3 shown = from == Method::Seek ? agent.seekPoint : target(agent, position);
            agent.seekPoint = shown;
            if (hasBox) {
                agent.seekPoint.x = detmath::minOf(box.max.x - box.margin, detmath::maxOf(box.min.x + box.margin, shown.x));
                agent.seekPoint.y = detmath::minOf(box.max.y - box.margin, detmath::maxOf(box.min.y + box.margin, shown.y));
                agent.seekPoint.z = detmath::minOf(box.max.z - box.margin, detmath::maxOf(box.min.z + box.margin, shown.z));
            }
            agent.seekTimer = stream::uniform(key, 5) * p.interval;
            agent.interval = p.interval;
        }
        agent.held = -1;
        agent.method = to;
    }

private:
    friend class Flock;

    /// Whether params, dt or the margin changed since derive() (compared bit for bit: a
    /// signed zero changes a result's sign).
    WANDER3D_INLINE bool stale(double dt) const {
        const double inputs[] = {dt, params.jitter, params.rate, params.frequency, params.mass,
                                 params.maxForce, params.vertical, hasBox ? box.margin : 0.0};
        std::uint64_t now[8];
        std::memcpy(now, inputs, sizeof now);
        std::uint64_t differs = 0;
        for (int k = 0; k < 8; k++) differs |= now[k] ^ derivedFrom_[k];
        return differs != 0;
    }

    /// What steer() and follow() need of params, dt and the margin, computed.
    void derive(double dt) {
        const double margin = hasBox ? box.margin : 0.0;
        const double inputs[] = {dt, params.jitter, params.rate, params.frequency, params.mass,
                                 params.maxForce, params.vertical, margin};
        std::memcpy(derivedFrom_, inputs, sizeof inputs);
        const double rootDt = std::sqrt(dt);
        d_.jitterStep = params.jitter * rootDt;
        d_.rateStep = params.rate * rootDt;
        d_.offsetFade = detmath::exp(-dt * params.frequency);
        d_.inverseMass = 1.0 / params.mass;
        d_.stopTime = 0.5 * params.mass / params.maxForce;
        // The angle method's pitch walk (engine: kernel.pitch_walk): an Ornstein-Uhlenbeck
        // walk with a spread of vertical * PITCH_SPREAD rad.
        const double spread = params.vertical * PITCH_SPREAD;
        if (params.rate <= 0.0) {
            d_.pitchDecay = 1.0;
            d_.pitchKick = 0.0;
        } else if (spread <= 0.0) {
            d_.pitchDecay = 0.0;
            d_.pitchKick = 0.0;
        } else {
            d_.pitchDecay = detmath::exp(-dt * params.rate * params.rate / (6.0 * spread * spread));
            d_.pitchKick = spread * std::sqrt(3.0 * (1.0 - d_.pitchDecay * d_.pitchDecay));
        }
        // Random method: which hold a step falls in (its centre, so rounding never splits a
        // hold), and the white-noise scaling where a step is longer than a hold.
        d_.randomHolds = detmath::minOf(1.0, dt / RANDOM_HOLD);
        d_.randomGain = std::sqrt(detmath::minOf(1.0, RANDOM_HOLD / dt));
        // Pull the side level every 2^k steps, the most within LEVEL_SECONDS.
        std::int64_t levelSteps = 1;
        while (static_cast<double>(2 * levelSteps) * dt <= LEVEL_SECONDS) levelSteps *= 2;
        d_.levelMask = levelSteps - 1;
        d_.inverseRamp = margin > 0.0 ? 1.0 / (margin * RAMP_FRACTION) : 0.0;
    }

    /// steer(), inlined, with the derived constants already current for dt (the flock
    /// refreshes them once per advance: no edit can come between its steps).
    WANDER3D_INLINE void steerInline(WanderAgent& agent, const Vec3& position, const Vec3& velocity, double dt) {
        using detmath::maxOf;
        using detmath::minOf;
        const WanderParams& p = params;
        const Method method = p.method;
        const double distance = p.distance, radius = p.radius, vertical = p.vertical;
        const double px = position.x, py = position.y, pz = position.z;
        const double vx = velocity.x, vy = velocity.y, vz = velocity.z;
        const double hx = agent.heading.x, hy = agent.heading.y, hz = agent.heading.z;
        const double sx = agent.side.x, sy = agent.side.y, sz = agent.side.z;
        double wx = agent.wander.x, wy = agent.wander.y, wz = agent.wander.z;
        double yaw = agent.yaw, pitch = agent.pitch;
        const std::int64_t step = agent.step;
        const std::uint64_t key = stream::streamKey(agent.key, step);

        // 1. Containment, per axis: + pushes towards high, - towards low.
        double ix = 0.0, iy = 0.0, iz = 0.0;
        const double margin = hasBox ? box.margin : 0.0;
        if (margin > 0.0) {
            const double stopTime = d_.stopTime, inverseRamp = d_.inverseRamp;
            const double aheadX = px + vx * (LOOKAHEAD + std::fabs(vx) * stopTime);
            const double aheadY = py + vy * (LOOKAHEAD + std::fabs(vy) * stopTime);
            const double aheadZ = pz + vz * (LOOKAHEAD + std::fabs(vz) * stopTime);
            const Vec3& lo = box.min;
            const Vec3& hi = box.max;
            if (hx < 0.0)
                ix = minOf(1.0, maxOf(0.0, (lo.x + margin - aheadX) * inverseRamp));
            else if (hx > 0.0)
                ix = -minOf(1.0, maxOf(0.0, (aheadX - (hi.x - margin)) * inverseRamp));
            if (hy < 0.0)
                iy = minOf(1.0, maxOf(0.0, (lo.y + margin - aheadY) * inverseRamp));
            else if (hy > 0.0)
                iy = -minOf(1.0, maxOf(0.0, (aheadY - (hi.y - margin)) * inverseRamp));
            if (hz < 0.0)
                iz = minOf(1.0, maxOf(0.0, (lo.z + margin - aheadZ) * inverseRamp));
            else if (hz > 0.0)
                iz = -minOf(1.0, maxOf(0.0, (aheadZ - (hi.z - margin)) * inverseRamp));
        }
        const double weight = maxOf(std::fabs(ix), maxOf(std::fabs(iy), std::fabs(iz)));

        // 2. The wander target.
        double usedYaw = 0.0, usedPitch = 0.0;  // the noise method's target angles
        double tx, ty, tz;
        if (method == Method::Seek) {
            if (p.interval != agent.interval) {
                // A shorter interval applies now, not after the current (longer) countdown.
                agent.seekTimer = minOf(agent.seekTimer, p.interval);
                agent.interval = p.interval;
            }
            agent.seekTimer -= dt;
            if (agent.seekTimer <= 0.0) {
                if (hasBox) {
                    const Vec3& lo = box.min;
                    const Vec3& hi = box.max;
                    agent.seekPoint.x = lo.x + margin + stream::uniform(key, 0) * (hi.x - lo.x - 2 * margin);
                    agent.seekPoint.y = lo.y + margin + stream::uniform(key, 1) * (hi.y - lo.y - 2 * margin);
                    agent.seekPoint.z = lo.z + margin + stream::uniform(key, 2) * (hi.z - lo.z - 2 * margin);
                }
                agent.seekTimer += p.interval;
            }
            tx = agent.seekPoint.x;
            ty = agent.seekPoint.y;
            tz = agent.seekPoint.z;
        } else {
            if (method == Method::Sphere) {
                double ux, uy, uz;
                stream::inUnitBall(key, ux, uy, uz);
                const double qx = wx * radius + ux * d_.jitterStep;
                const double qy = wy * radius + uy * d_.jitterStep * vertical;
                const double qz = wz * radius + uz * d_.jitterStep;
                const double q = std::sqrt(qx * qx + qy * qy + qz * qz);
                // The point can reach the centre only if jitter*sqrt(dt) >= radius.
                if (q > 1e-9 * radius) {
                    const double inverse = 1.0 / q;
                    wx = qx * inverse;
                    wy = qy * inverse;
                    wz = qz * inverse;
                }
            } else if (method == Method::Angle) {
                yaw += (2.0 * stream::uniform(key, 0) - 1.0) * d_.rateStep;
                pitch = pitch * d_.pitchDecay + (2.0 * stream::uniform(key, 1) - 1.0) * d_.pitchKick;
                if (yaw >= HALF_TURN || yaw < -HALF_TURN)
                    yaw = detmath::floorMod(yaw + HALF_TURN, FULL_TURN) - HALF_TURN;
                pitch = frame::reflectPitch(pitch);
                frame::directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
            } else if (method == Method::Noise) {
                if (p.frequency != agent.frequency) {
                    // The noise coordinate is time * frequency: keep it where it is, or a new
                    // frequency would move the agent to an unrelated point of its curves (the
                    // engine's Simulation.update_group does the same).
                    const double shift = static_cast<double>(step) * dt * (agent.frequency - p.frequency);
                    agent.noisePhase[0] += shift;
                    agent.noisePhase[1] += shift;
                    agent.frequency = p.frequency;
                }
                // Offsets from wall turns fade, so the agent returns to its own curve.
                yaw *= d_.offsetFade;
                pitch *= d_.offsetFade;
                usedYaw = frame::noiseAngles(agent.noiseKeys[0], agent.noiseKeys[1],
                                             agent.noisePhase[0], agent.noisePhase[1],
                                             static_cast<double>(step) * dt * p.frequency,
                                             vertical, yaw, pitch, agent.noiseCache, usedPitch);
                frame::directionFromAngles(usedYaw, usedPitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
            } else {
                // Random: a fresh uniform direction every RANDOM_HOLD s.
                const auto hold = static_cast<std::int64_t>((static_cast<double>(step) + 0.5) * d_.randomHolds);
                if (hold != agent.held) {
                    agent.held = hold;
                    double ux, uy, uz;
                    stream::inUnitBall(stream::streamKey(agent.key, hold), ux, uy, uz);
                    uy *= vertical;
                    double u = std::sqrt(ux * ux + uy * uy + uz * uz);
                    if (u < 1e-9) {  // vertical = 0 and a purely vertical draw
                        ux = 1.0;
                        uy = 0.0;
                        uz = 0.0;
                        u = 1.0;
                    }
                    const double gain = d_.randomGain / u;
                    agent.heldDirection = {ux * gain, uy * gain, uz * gain};
                }
                wx = agent.heldDirection.x;
                wy = agent.heldDirection.y;
                wz = agent.heldDirection.z;
            }
            // Turn the target inward on axes heading into a wall, so the agent does not head
            // straight back out; a mirror keeps it on the sphere.
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
                const double turnedYaw = frame::anglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, turnedPitch);
                yaw = frame::shiftOffsets(yaw, pitch, turnedYaw - usedYaw, turnedPitch - usedPitch, pitch);
                usedYaw = turnedYaw;
                usedPitch = turnedPitch;
            }
            tx = px + hx * distance + wx * radius;
            ty = py + hy * distance + wy * radius;
            tz = pz + hz * distance + wz * radius;
        }

        // 3. Steering; containment separately (the kernel adds it to the force: -0 adds
        // nothing, signed zeros included).
        double dx = tx - px, dy = ty - py, dz = tz - pz;
        if (p.steering == Steering::Desired) {
            const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
            if (d > TINY) {
                const double inverse = 1.0 / d;
                dx = dx * inverse;
                dy = dy * inverse;
                dz = dz * inverse;
            } else {
                dx = hx;
                dy = hy;
                dz = hz;
            }
            dx = dx * p.maxSpeed - vx;
            dy = dy * p.maxSpeed - vy;
            dz = dz * p.maxSpeed - vz;
        }
        dy *= vertical;
        const double keep = 1.0 - weight;
        agent.force = {dx * keep, dy * keep, dz * keep};
        if (weight > 0.0) {
            const double c = p.maxForce * weight / std::sqrt(ix * ix + iy * iy + iz * iz);
            agent.containment = {ix * c, iy * c, iz * c};
        } else {
            agent.containment = {-0.0, -0.0, -0.0};
        }
        agent.wander = {wx, wy, wz};
        agent.yaw = yaw;
        agent.pitch = pitch;
        agent.usedYaw = usedYaw;
        agent.usedPitch = usedPitch;
        agent.method = method;
        agent.step = step + 1;
    }

    /// follow(), inlined.
    WANDER3D_INLINE void followInline(WanderAgent& agent, const Vec3& heading) const {
        const double hx = agent.heading.x, hy = agent.heading.y, hz = agent.heading.z;
        const double nx = heading.x, ny = heading.y, nz = heading.z;
        double wx = agent.wander.x, wy = agent.wander.y, wz = agent.wander.z;
        if (agent.method == Method::Angle || agent.method == Method::Noise) {
            double sx = agent.side.x, sy = agent.side.y, sz = agent.side.z;
            frame::transportPair(sx, sy, sz, wx, wy, wz, hx, hy, hz, nx, ny, nz);
            // Pull the side level (same sign, so it never flips): fully for a level heading,
            // less towards vertical, where the level side swings fast. agent.step - 1 is the
            // tick steer() counted.
            const double level2 = nx * nx + nz * nz;
            if (((agent.step - 1) & d_.levelMask) == 0 && level2 > 1e-12) {
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
            agent.side = {sx, sy, sz};
        } else {
            frame::transport(wx, wy, wz, hx, hy, hz, nx, ny, nz);
        }
        agent.wander = {wx, wy, wz};
        agent.heading = heading;
    }

    static constexpr double RAMP_FRACTION = 0.25;  // the containment push ramps to full over this part of the margin
    static constexpr double LOOKAHEAD = 0.25;  // s: agents look this far ahead (plus their stopping time)
    static constexpr double RANDOM_HOLD = 1.0 / 30.0;  // s: the random method's direction is held this long
    static constexpr double PITCH_SPREAD = 0.7;  // rad: the angle method's pitch spread at vertical 1
    static constexpr double LEVEL_SECONDS = 0.14;  // s: at most this often the side is pulled level
    static constexpr double TINY = 1e-12;
    static constexpr std::uint64_t SPAWN_SALT = 0x2545F4914F6CDD1Dull;  // the port's own draws' stream

    std::uint32_t seed_;
    std::uint64_t seedKey_;

    /// What steer() and follow() need of params, dt and the margin (refresh()).
    struct Derived {
        double jitterStep = 0, rateStep = 0, offsetFade = 0, inverseMass = 0, stopTime = 0;
        double pitchDecay = 0, pitchKick = 0, randomHolds = 0, randomGain = 0, inverseRamp = 0;
        std::int64_t levelMask = 0;
    } d_;
    // The bits of (dt, jitter, rate, frequency, mass, maxForce, vertical, margin) d_ is for;
    // all ones (a NaN no input has) until the first refresh().
    std::uint64_t derivedFrom_[8] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull};

    WanderAgent keyed(std::int64_t id) const {
        WanderAgent a;
        a.id = id;
        a.key = stream::agentKey(seedKey_, id);
        return a;
    }

    /// The agent's spawn stream: the port's own draws (spawn, agent, switchMethod).
    static std::uint64_t spawnKey(const WanderAgent& a) { return stream::mix(a.key ^ SPAWN_SALT); }

    /// A point of region inside its margin from draws first .. first + 2 of k.
    static Vec3 regionPoint(const WanderBox& region, std::uint64_t k, std::int64_t first) {
        double out[3];
        const double low[] = {region.min.x, region.min.y, region.min.z};
        const double high[] = {region.max.x, region.max.y, region.max.z};
        for (int a = 0; a < 3; a++) {
            const double lo = low[a] + region.margin;
            out[a] = lo + stream::uniform(k, first + a) * ((high[a] - region.margin) - lo);
        }
        return {out[0], out[1], out[2]};
    }

    /// Steps 3-6 of the port's start (docs/ports.md): the frame from the heading, then the
    /// angles, noise curves, seek timer and wander direction from k's draws.
    void start(WanderAgent& a, std::uint64_t k, const Vec3& heading) const {
        const WanderParams& p = params;
        const double hx = heading.x, hy = heading.y, hz = heading.z;
        a.heading = heading;
        double sx, sy, sz;
        frame::levelSide(hx, hy, hz, sx, sy, sz);
        a.side = {sx, sy, sz};
        const double yaw = (2.0 * stream::uniform(k, 6) - 1.0) * HALF_TURN;
        const double pitch = (2.0 * stream::uniform(k, 7) - 1.0) * QUARTER_TURN * p.vertical;
        const bool angle = p.method == Method::Angle;
        a.yaw = angle ? yaw : 0.0;
        a.pitch = angle ? pitch : 0.0;
        for (int j = 0; j < 2; j++) {
            // Below 2^63, as the engine draws them: the top bit cleared.
            a.noiseKeys[j] = stream::hashAt(k, 9 + j) & 0x7FFFFFFFFFFFFFFFull;
            a.noisePhase[j] = stream::uniform(k, 11 + j) * 1024.0;
        }
        a.seekTimer = stream::uniform(k, 13) * p.interval;
        double wx = hx, wy = hy, wz = hz;
        if (angle) {
            frame::directionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
        } else if (p.method == Method::Noise) {
            double noisePitch;
            const double noiseYaw = frame::noiseAngles(a.noiseKeys[0], a.noiseKeys[1], a.noisePhase[0],
                                                       a.noisePhase[1], 0.0, p.vertical, 0.0, 0.0,
                                                       a.noiseCache, noisePitch);
            frame::directionFromAngles(noiseYaw, noisePitch, hx, hy, hz, sx, sy, sz, wx, wy, wz);
        }
        a.wander = {wx, wy, wz};
        a.method = p.method;
        a.frequency = p.frequency;
        a.interval = p.interval;
    }
};

namespace detail {

/// integrate(), inlined; inverseMass is 1.0 / params.mass (the flock's is computed once).
WANDER3D_INLINE bool integrate(Vec3& position, Vec3& velocity, const Vec3& force, const WanderParams& params,
                               double inverseMass, double dt, Vec3& heading) {
    double fx = force.x, fy = force.y, fz = force.z;
    const double maxForce = params.maxForce, maxSpeed = params.maxSpeed;
    // Lengths compared squared: within the limits, no square root or division.
    const double f2 = fx * fx + fy * fy + fz * fz;
    if (f2 > maxForce * maxForce) {
        const double scale = maxForce / std::sqrt(f2);
        fx = fx * scale;
        fy = fy * scale;
        fz = fz * scale;
    }
    const double gain = inverseMass * dt;
    double vx = velocity.x + fx * gain;
    double vy = velocity.y + fy * gain;
    double vz = velocity.z + fz * gain;
    const double speed2 = vx * vx + vy * vy + vz * vz;
    const bool moving = speed2 > 1e-18;
    if (moving) {
        const double inverse = 1.0 / std::sqrt(speed2);
        const double nx = vx * inverse, ny = vy * inverse, nz = vz * inverse;
        if (speed2 > maxSpeed * maxSpeed) {
            vx = nx * maxSpeed;
            vy = ny * maxSpeed;
            vz = nz * maxSpeed;
        }
        heading = {nx, ny, nz};
    }
    velocity = {vx, vy, vz};
    position = {position.x + vx * dt, position.y + vy * dt, position.z + vz * dt};
    return moving;
}

/// One axis of WanderBox::reflect(): a coordinate outside [low, high] mirrored back at the
/// wall (and kept inside), the motion, the frame and the target turned back on that axis.
WANDER3D_INLINE bool reflectAxis(double low, double high, double& p, double& v, double& h, double& s, double& w) {
    if (!(p < low || p > high)) return false;
    const double mirrored = p < low ? 2.0 * low - p : 2.0 * high - p;
    p = detmath::minOf(high, detmath::maxOf(low, mirrored));
    v = -v;
    h = -h;
    s = -s;
    w = -w;
    return true;
}

/// WanderBox::reflect(), inlined.
WANDER3D_INLINE bool reflect(const WanderBox& box, WanderAgent& agent, Vec3& position, Vec3& velocity) {
    // Axis by axis, x then y then z (each reads only its own axis).
    bool crossed = reflectAxis(box.min.x, box.max.x, position.x, velocity.x, agent.heading.x, agent.side.x,
                               agent.wander.x);
    crossed = reflectAxis(box.min.y, box.max.y, position.y, velocity.y, agent.heading.y, agent.side.y,
                          agent.wander.y) ||
              crossed;
    crossed = reflectAxis(box.min.z, box.max.z, position.z, velocity.z, agent.heading.z, agent.side.z,
                          agent.wander.z) ||
              crossed;
    if (crossed && (agent.method == Method::Angle || agent.method == Method::Noise)) {
        // The mirror flips the frame's handedness; re-express the target in it.
        const Vec3& hd = agent.heading;
        const Vec3& sd = agent.side;
        const Vec3& wd = agent.wander;
        const double wn = std::sqrt(wd.x * wd.x + wd.y * wd.y + wd.z * wd.z);
        double mirroredPitch;
        const double mirroredYaw = frame::anglesFromDirection(wd.x / wn, wd.y / wn, wd.z / wn, hd.x, hd.y, hd.z,
                                                              sd.x, sd.y, sd.z, mirroredPitch);
        if (agent.method == Method::Angle) {
            agent.yaw = mirroredYaw;
            agent.pitch = mirroredPitch;
        } else {
            agent.yaw = frame::shiftOffsets(agent.yaw, agent.pitch, mirroredYaw - agent.usedYaw,
                                            mirroredPitch - agent.usedPitch, agent.pitch);
        }
    }
    return crossed;
}

}  // namespace detail

/// Stage 4, the vehicle model, for a game without its own: the force truncated to
/// params.maxForce, velocity += force * (1/mass * dt), clamped to params.maxSpeed, position
/// += velocity * dt. Returns whether the agent moves and then writes its new unit heading
/// (taken before the speed clamp) into heading; pass that to Wander::follow.
WANDER3D_ENTRY inline bool integrate(Vec3& position, Vec3& velocity, const Vec3& force, const WanderParams& params,
                                     double dt, Vec3& heading) {
    return detail::integrate(position, velocity, force, params, 1.0 / params.mass, dt, heading);
}

inline bool WanderBox::reflect(WanderAgent& agent, Vec3& position, Vec3& velocity) const {
    return detail::reflect(*this, agent, position, velocity);
}

// ---------------------------------------------------------------- wander3d's exact start

/// One agent of a start.txt: its group, where it is, how it moves, its wander state.
struct StartAgent {
    int group = 0;
    Vec3 position;
    Vec3 velocity;
    WanderAgent agent;
};

namespace startfile {

inline std::uint64_t hex(const std::string& text) { return std::strtoull(text.c_str(), nullptr, 16); }

inline double bits(const std::string& text) {
    const std::uint64_t b = hex(text);
    double d;
    static_assert(sizeof d == sizeof b, "IEEE-754 binary64 doubles");
    std::memcpy(&d, &b, sizeof d);
    return d;
}

}  // namespace startfile

/// Read start.txt's text (wander3d's exact start of `scene`, docs/ports.md "Start") into
/// `out`: agent i gets id i and its group's method. False, and `out` left alone, when the
/// text is not a start of the scene's agents (count, groups in order, fields). No exceptions:
/// game engines build without them.
WANDER3D_ENTRY inline bool readStart(const std::string& text, const SceneSpec& scene, std::vector<StartAgent>& out) {
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
    std::vector<int> groupOf;
    for (std::size_t g = 0; g < scene.groups.size(); g++)
        groupOf.insert(groupOf.end(), static_cast<std::size_t>(scene.groups[g].count), static_cast<int>(g));
    const std::size_t count = groupOf.size();
    if (lines.size() < count + 2 || lines[0] != "wander3d-start 1" || lines[1] != "agents " + std::to_string(count))
        return false;
    std::vector<StartAgent> agents(count);
    const std::uint64_t seedKey = stream::seedKey(scene.seed);
    for (std::size_t i = 0; i < count; i++) {
        std::vector<std::string> f;
        const std::string& line = lines[i + 2];
        for (std::size_t at = 0; at <= line.size();) {
            std::size_t end = line.find(' ', at);
            if (end == std::string::npos) end = line.size();
            f.push_back(line.substr(at, end - at));
            at = end + 1;
        }
        if (f.size() != 26 || f[0] != std::to_string(groupOf[i])) return false;
        using startfile::bits;
        StartAgent& s = agents[i];
        s.group = groupOf[i];
        s.position = {bits(f[1]), bits(f[2]), bits(f[3])};
        s.velocity = {bits(f[4]), bits(f[5]), bits(f[6])};
        WanderAgent& a = s.agent;
        a.id = static_cast<std::int64_t>(i);
        a.key = stream::agentKey(seedKey, a.id);
        a.heading = {bits(f[7]), bits(f[8]), bits(f[9])};
        a.side = {bits(f[10]), bits(f[11]), bits(f[12])};
        a.wander = {bits(f[13]), bits(f[14]), bits(f[15])};
        a.yaw = bits(f[16]);
        a.pitch = bits(f[17]);
        a.noisePhase[0] = bits(f[18]);
        a.noisePhase[1] = bits(f[19]);
        a.seekPoint = {bits(f[20]), bits(f[21]), bits(f[22])};
        a.seekTimer = bits(f[23]);
        a.noiseKeys[0] = startfile::hex(f[24]);
        a.noiseKeys[1] = startfile::hex(f[25]);
        const WanderParams& kind = scene.groups[static_cast<std::size_t>(s.group)].params;
        a.method = kind.method;
        a.frequency = kind.frequency;
        a.interval = kind.interval;
    }
    out = std::move(agents);
    return true;
}

// ---------------------------------------------------------------- the hosted flock

/// A group of the flock: its name and its behaviour (edit wander.params at any time).
struct Group {
    std::string name;
    Wander wander;
};

/// A scene's agents wandering in its box, advanced in fixed steps of dt seconds: a loop of
/// the composable calls (steer, integrate, follow, reflect) over agents in index order, each
/// agent's id its index at the start. Agent i's state: position[i], velocity[i] (units/s),
/// agents[i] (its heading, its forces...), groupOf[i].
class Flock {
public:
    /// A frame longer than this (s) counts as this long: a stall (a breakpoint, a loading
    /// hitch) makes no burst of steps.
    static constexpr double MAX_FRAME_SECONDS = 0.25;

    double dt;                       // seconds per fixed step
    WanderBox box;                   // every group's box (edits act from the next step)
    std::vector<Group> groups;
    std::vector<WanderAgent> agents;
    std::vector<Vec3> position;
    std::vector<Vec3> previous;  // positions before the last step, for drawing
    std::vector<Vec3> velocity;
    std::vector<int> groupOf;
    std::int64_t stepCount = 0;  // steps taken since the start

    /// A flock of scene's groups (parameters copied), spawned by the port's own rule
    /// (Wander::spawn); loadStart() puts it at wander3d's exact start instead.
    WANDER3D_ENTRY explicit Flock(const SceneSpec& scene) : dt(scene.dt), box(scene.box), seed_(scene.seed) {
        for (const GroupSpec& spec : scene.groups) {
            groups.push_back(Group{spec.name, Wander(spec.params, seed_, box)});
            for (int i = 0; i < spec.count; i++) {
                groupOf.push_back(static_cast<int>(groups.size()) - 1);
                agents.emplace_back();
                agents.back().id = nextId_++;
            }
        }
        position.resize(agents.size());
        velocity.resize(agents.size());
        spawn();
    }

    /// The seed of every group's random streams.
    std::uint32_t seed() const { return seed_; }

    /// How many agents there are.
    int count() const { return static_cast<int>(agents.size()); }

    /// Start from a start.txt's text: wander3d's exact starting state, for a flock of the
    /// scene's agents (as many per group as the text holds). False (and the flock unchanged)
    /// when the text is not a start of this flock's groups and counts.
    WANDER3D_ENTRY bool loadStart(const std::string& text) {
        SceneSpec scene;
        scene.seed = seed_;
        for (const Group& g : groups) scene.groups.push_back(GroupSpec{g.name, 0, g.wander.params});
        for (int g : groupOf) scene.groups[static_cast<std::size_t>(g)].count++;
        std::vector<StartAgent> start;
        if (!readStart(text, scene, start)) return false;
        for (std::size_t i = 0; i < start.size(); i++) {
            groupOf[i] = start[i].group;
            position[i] = start[i].position;
            velocity[i] = start[i].velocity;
            agents[i] = start[i].agent;
        }
        nextId_ = static_cast<std::int64_t>(start.size());
        restart();
        return true;
    }

    /// Start every agent afresh by the port's own rule (Wander::spawn; not wander3d's start,
    /// which start.txt carries), each with its own id.
    WANDER3D_ENTRY void spawn() {
        for (std::size_t i = 0; i < agents.size(); i++)
            agents[i] = groups[static_cast<std::size_t>(groupOf[i])].wander.spawn(agents[i].id, box, position[i], velocity[i]);
        restart();
    }

    /// Add an agent of group g at position with velocity (Wander::agent) with a new id;
    /// returns its index (the last).
    WANDER3D_ENTRY int add(int g, const Vec3& at, const Vec3& moving) {
        const WanderAgent a = groups[static_cast<std::size_t>(g)].wander.agent(nextId_++, at, moving);
        return append(g, a, at, moving);
    }

    /// Add an agent of group g started by the port's own rule; returns its index.
    WANDER3D_ENTRY int addSpawned(int g) {
        Vec3 at, moving;
        const WanderAgent a = groups[static_cast<std::size_t>(g)].wander.spawn(nextId_++, box, at, moving);
        return append(g, a, at, moving);
    }

    /// Remove agent i; the agents after it move down one index (their runs are unchanged).
    WANDER3D_ENTRY void remove(int i) {
        const auto at = static_cast<std::ptrdiff_t>(i);
        agents.erase(agents.begin() + at);
        position.erase(position.begin() + at);
        previous.erase(previous.begin() + at);
        velocity.erase(velocity.begin() + at);
        groupOf.erase(groupOf.begin() + at);
    }

    /// Switch group g to method, each agent continuing from where its target is
    /// (Wander::switchMethod).
    WANDER3D_ENTRY void setMethod(int g, Method method) {
        Wander& wander = groups[static_cast<std::size_t>(g)].wander;
        wander.box = box;
        for (std::size_t i = 0; i < agents.size(); i++)
            if (groupOf[i] == g) wander.switchMethod(agents[i], position[i], method, dt);
        wander.params.method = method;
    }

    /// Advance by a frame of frameSeconds (capped at MAX_FRAME_SECONDS): as many fixed steps
    /// as the accumulated time holds. Returns alpha in [0, 1): how far the display time is
    /// between the last two steps, for positionAt(). The run is the same at any frame rate.
    WANDER3D_ENTRY double update(double frameSeconds) {
        accumulator_ += detmath::minOf(detmath::maxOf(frameSeconds, 0.0), MAX_FRAME_SECONDS);
        int steps = 0;
        while (accumulator_ >= dt) {
            accumulator_ -= dt;
            steps++;
        }
        if (steps > 0) {
            // Only the last step's start is drawn from: the steps before it are not seen.
            if (steps > 1) advance(steps - 1);
            previous = position;
            advance(1);
        }
        return accumulator_ / dt;
    }

    /// Agent i's drawn position at alpha between its last two steps.
    Vec3 positionAt(int i, double alpha) const {
        const Vec3& a = previous[static_cast<std::size_t>(i)];
        const Vec3& b = position[static_cast<std::size_t>(i)];
        return {a.x + (b.x - a.x) * alpha, a.y + (b.y - a.y) * alpha, a.z + (b.z - a.z) * alpha};
    }

    /// Agent i's shown target (Wander::target), for debug drawing.
    Vec3 target(int i) const {
        const auto j = static_cast<std::size_t>(i);
        return groups[static_cast<std::size_t>(groupOf[j])].wander.target(agents[j], position[j]);
    }

    /// Agent i's wander sphere, for debug drawing: its centre, and its radius returned (0 for
    /// seek, whose target is a point of the box).
    double wanderSphere(int i, Vec3& centre) const {
        const auto j = static_cast<std::size_t>(i);
        const Wander& wander = groups[static_cast<std::size_t>(groupOf[j])].wander;
        centre = wander.sphereCentre(agents[j], position[j]);
        return wander.params.method == Method::Seek ? 0.0 : wander.params.radius;
    }

    /// Take `steps` fixed steps of dt: per agent, the composable tick (agents are
    /// independent, so each takes all its steps in turn).
    WANDER3D_ENTRY void advance(int steps) {
        for (Group& g : groups) {
            g.wander.box = box;
            g.wander.hasBox = true;
            g.wander.refresh(dt);
        }
        Group* const kinds = groups.data();
        WanderAgent* const a = agents.data();
        Vec3* const p = position.data();
        Vec3* const v = velocity.data();
        const int* const kindOf = groupOf.data();
        const std::size_t n = agents.size();
        for (std::size_t i = 0; i < n; i++) {
            Wander& wander = kinds[kindOf[i]].wander;
            for (int s = 0; s < steps; s++) tick(wander, a[i], p[i], v[i], dt);
        }
        stepCount += steps;
    }

private:
    std::uint32_t seed_;
    std::int64_t nextId_ = 0;  // the id the next agent added gets
    double accumulator_ = 0.0;  // s of frame time not yet stepped

    /// One fixed tick of one agent, as a game composes it with nothing of its own added.
    /// (The calls' inline forms: the same functions, inlined into the loop.)
    WANDER3D_INLINE static void tick(Wander& wander, WanderAgent& agent, Vec3& at, Vec3& moving, double seconds) {
        wander.steerInline(agent, at, moving, seconds);
        Vec3 heading;
        if (detail::integrate(at, moving, agent.force + agent.containment, wander.params, wander.d_.inverseMass,
                              seconds, heading))
            wander.followInline(agent, heading);
        detail::reflect(wander.box, agent, at, moving);
    }

    int append(int g, const WanderAgent& a, const Vec3& at, const Vec3& moving) {
        agents.push_back(a);
        position.push_back(at);
        previous.push_back(at);
        velocity.push_back(moving);
        groupOf.push_back(g);
        return count() - 1;
    }

    void restart() {
        stepCount = 0;
        accumulator_ = 0.0;
        previous = position;
    }
};

}  // namespace wander3d

// ---------------------------------------------------------------- floating point (popped)
#undef WANDER3D_ENTRY
#undef WANDER3D_INLINE
#if defined(__clang__)
#ifdef WANDER3D_NO_FMA_PUSHED
#pragma clang attribute pop
#undef WANDER3D_NO_FMA_PUSHED
#endif
#pragma float_control(pop)
#elif defined(__GNUC__)
#pragma GCC pop_options
#elif defined(_MSC_VER)
#pragma float_control(pop)
// fp_contract has no push: back to the command line's setting (on under /fp:fast and
// /fp:contract, off otherwise).
#if defined(_M_FP_FAST) || defined(_M_FP_CONTRACT)
#pragma fp_contract(on)
#endif
#endif
