// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// Wander.cs: wander3d's wander steering for C# games (Unity, Godot 4 C#, any .NET), identical
// to the engine.
//
// A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
// same scene, start and seed give the same positions at every step. .NET standard library only
// (C# 7.3, no engine API). The contract it follows is docs/ports.md of wander3d: IEEE doubles
// evaluated in the engine's order, its own sin/cos/atan2/asin/exp (detmath), and a
// counter-based random stream keyed by (seed, agent, step, draw).
//
//   var flock = new Flock(Scene.Create());        // agents spawned in the box
//   // each frame:
//   double alpha = flock.Update(frameSeconds);    // fixed dt steps; alpha for drawing
//   flock.PositionAt(i, alpha, out x, out y, out z);
//
// Parameters are per group (flock.Groups[g].Params) and may be changed at any time; they act
// from the next step. Units: lengths in world units, times in seconds, +y is up.

using System;
using System.Globalization;

namespace Wander3d
{
    /// <summary>How a group moves its wander target (wander3d's five methods).</summary>
    public enum WanderMethod
    {
        Sphere = 0, // Reynolds: a point on a sphere ahead, nudged at random each step
        Angle = 1, // yaw and pitch of the target random-walk (the 2D tutorials' angle)
        Noise = 2, // yaw and pitch follow smooth noise curves
        Seek = 3, // seek a random point of the box, a new one every Interval s
        Random = 4, // a fresh random direction every 1/30 s
    }

    /// <summary>How the target becomes a steering force.</summary>
    public enum Steering
    {
        Force = 0, // the vector to the target is the steering force (Reynolds)
        Desired = 1, // desired velocity towards the target at MaxSpeed, minus the velocity
    }

    /// <summary>One group's parameters; edit them at any time, they act from the next step.</summary>
    public sealed class GroupParams
    {
        public WanderMethod Method = WanderMethod.Sphere;
        public Steering Steering = Steering.Force;
        public double MaxSpeed = 40.0; // units/s
        public double MaxForce = 60.0; // mass*units/s^2: limit on the steering force
        public double Mass = 1.0; // acceleration = force / mass
        public double InitialSpeed = 20.0; // units/s, for agents spawned by the port
        public double Distance = 30.0; // units: the wander sphere's centre ahead of the agent
        public double Radius = 12.0; // units: the wander sphere's radius
        public double Jitter = 10.0; // units/sqrt(s): sphere's random displacement
        public double Rate = 0.8; // rad/sqrt(s): angle's random walk of yaw and pitch
        public double Frequency = 0.3; // 1/s: noise's pace
        public double Interval = 4.0; // s: seek's time between new points
        public double Vertical = 1.0; // 0..1: up/down freedom (1 isotropic, 0 level)

        public GroupParams Clone()
        {
            return (GroupParams)MemberwiseClone();
        }
    }

    /// <summary>A group of identical agents: its name, how many, its parameters.</summary>
    public sealed class GroupSpec
    {
        public string Name;
        public int Count;
        public GroupParams Params;
    }

    /// <summary>What a flock is made from: seed, step, box and groups (Scene.Create() gives
    /// the tuned scene's).</summary>
    public sealed class SceneSpec
    {
        public string Name;
        public uint Seed; // seeds every random number of the run
        public double Dt; // seconds per fixed step
        public double[] BoxMin; // lowest corner (x, y, z units)
        public double[] BoxMax; // highest corner (x, y, z units)
        public double Margin; // agents start turning back this far inside a wall (units)
        public GroupSpec[] Groups;
    }

    // ---------------------------------------------------------------- the scene (generated)
    // BEGIN SCENE: `wander3d port` writes the scene's parameters here.
    public static class Scene
    {
        public static SceneSpec Create()
        {
            return new SceneSpec
            {
                Name = "Default",
                Seed = 7, // any integer in [0, 2^32): seeds every random number of the run
                Dt = 0.0166667, // seconds per fixed step
                BoxMin = new[] { -100.0, -60.0, -100.0 }, // lowest corner (units)
                BoxMax = new[] { 100.0, 60.0, 100.0 }, // highest corner (units)
                Margin = 15.0, // agents start turning back this far inside a wall (units)
                Groups = new[]
                {
                    new GroupSpec
                    {
                        Name = "wanderers",
                        Count = 300, // agents
                        Params = new GroupParams
                        {
                            Method = WanderMethod.Sphere,
                            Steering = Steering.Force,
                            MaxSpeed = 40.0, // units/s
                            MaxForce = 60.0, // mass*units/s^2: limit on the steering force
                            Mass = 1.0, // acceleration = force / mass
                            InitialSpeed = 20.0, // units/s, for agents spawned by the port
                            Distance = 30.0, // units: the wander sphere's centre ahead of the agent
                            Radius = 12.0, // units: the wander sphere's radius
                            Jitter = 10.0, // units/sqrt(s): sphere's random displacement
                            Rate = 0.8, // rad/sqrt(s): angle's random walk of yaw and pitch
                            Frequency = 0.3, // 1/s: noise's pace
                            Interval = 4.0, // s: seek's time between new points
                            Vertical = 1.0, // 0..1: up/down freedom (1 isotropic, 0 level)
                        },
                    },
                },
            };
        }
    }
    // END SCENE

    // ---------------------------------------------------------------- detmath (engine/detmath.py)
    /// <summary>sin, cos, atan2, asin and exp from + - * / sqrt floor only, line for line the
    /// engine's, so every platform computes them alike (the platform's Math differs in the
    /// last bit between runtimes).</summary>
    public static class DetMath
    {
        const double PIO2_1 = 1.57079632673412561417e00;
        const double PIO2_2 = 6.07710050630396597660e-11;
        const double PIO2_2T = 2.02226624879595063154e-21;
        const double INV_PIO2 = 6.36619772367581382433e-01;
        const double PIO4 = 7.85398163397448278999e-01;
        const double S1 = -1.66666666666666324348e-01;
        const double S2 = 8.33333333332248946124e-03;
        const double S3 = -1.98412698298579493134e-04;
        const double S4 = 2.75573137070700676789e-06;
        const double S5 = -2.50507602534068634195e-08;
        const double S6 = 1.58969099521155010221e-10;
        const double C1 = 4.16666666666666019037e-02;
        const double C2 = -1.38888888888741095749e-03;
        const double C3 = 2.48015872894767294178e-05;
        const double C4 = -2.75573143513906633035e-07;
        const double C5 = 2.08757232129817482790e-09;
        const double C6 = -1.13596475577881948265e-11;

        static double SinKernel(double x)
        {
            double z = x * x;
            double w = z * z;
            double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
            return x + z * x * (S1 + z * r);
        }

        static double CosKernel(double x)
        {
            double z = x * x;
            double w = z * z;
            double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
            double hz = 0.5 * z;
            w = 1.0 - hz;
            return w + (((1.0 - w) - hz) + z * r);
        }

        /// <summary>x = r + n pi/2 with |r| about pi/4 at most; q = n mod 4.</summary>
        static double Reduce(double x, out double q)
        {
            if (-PIO4 <= x && x <= PIO4)
            {
                q = 0.0;
                return x;
            }
            double n = Math.Floor(x * INV_PIO2 + 0.5);
            double t = x - n * PIO2_1;
            double w = n * PIO2_2;
            double r = t - w;
            w = n * PIO2_2T - ((t - r) - w);
            q = n - 4.0 * Math.Floor(n * 0.25);
            return r - w;
        }

        /// <summary>sin(x) and cos(x) of x radians, sharing one reduction.</summary>
        public static void SinCos(double x, out double sin, out double cos)
        {
            double q;
            double r = Reduce(x, out q);
            double s = SinKernel(r);
            double c = CosKernel(r);
            if (q == 0.0)
            {
                sin = s;
                cos = c;
            }
            else if (q == 1.0)
            {
                sin = c;
                cos = -s;
            }
            else if (q == 2.0)
            {
                sin = -s;
                cos = -c;
            }
            else
            {
                sin = -c;
                cos = s;
            }
        }

        const double ATAN_HI0 = 4.63647609000806093515e-01;
        const double ATAN_HI1 = 7.85398163397448278999e-01;
        const double ATAN_HI2 = 9.82793723247329054082e-01;
        const double ATAN_HI3 = 1.57079632679489655800e00;
        const double ATAN_LO0 = 2.26987774529616870924e-17;
        const double ATAN_LO1 = 3.06161699786838301793e-17;
        const double ATAN_LO2 = 1.39033110312309984516e-17;
        const double ATAN_LO3 = 6.12323399573676603587e-17;
        const double AT0 = 3.33333333333329318027e-01;
        const double AT1 = -1.99999999998764832476e-01;
        const double AT2 = 1.42857142725034663711e-01;
        const double AT3 = -1.11111104054623557880e-01;
        const double AT4 = 9.09088713343650656196e-02;
        const double AT5 = -7.69187620504482999495e-02;
        const double AT6 = 6.66107313738753120669e-02;
        const double AT7 = -5.83357013379057348645e-02;
        const double AT8 = 4.97687799461593236017e-02;
        const double AT9 = -3.65315727442169155270e-02;
        const double AT10 = 1.62858201153657823623e-02;

        static double AtanPositive(double a)
        {
            if (double.IsNaN(a))
                return a;
            if (a >= 7.378697629483821e19) // 2^66: atan is pi/2 to the last bit
                return ATAN_HI3 + ATAN_LO3;
            int part;
            double x;
            if (a < 0.4375)
            {
                if (a < 7.450580596923828e-09) // 2^-27: atan(a) = a to the last bit
                    return a;
                part = -1;
                x = a;
            }
            else if (a < 0.6875)
            {
                part = 0;
                x = (2.0 * a - 1.0) / (2.0 + a);
            }
            else if (a < 1.1875)
            {
                part = 1;
                x = (a - 1.0) / (a + 1.0);
            }
            else if (a < 2.4375)
            {
                part = 2;
                x = (a - 1.5) / (1.0 + 1.5 * a);
            }
            else
            {
                part = 3;
                x = -1.0 / a;
            }
            double z = x * x;
            double w = z * z;
            double s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
            double s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
            if (part < 0)
                return x - x * (s1 + s2);
            double hi, lo;
            if (part == 0)
            {
                hi = ATAN_HI0;
                lo = ATAN_LO0;
            }
            else if (part == 1)
            {
                hi = ATAN_HI1;
                lo = ATAN_LO1;
            }
            else if (part == 2)
            {
                hi = ATAN_HI2;
                lo = ATAN_LO2;
            }
            else
            {
                hi = ATAN_HI3;
                lo = ATAN_LO3;
            }
            return hi - ((x * (s1 + s2) - lo) - x);
        }

        const double PI = 3.1415926535897931160e00;
        const double PI_LO = 1.2246467991473531772e-16;
        const double PIO2_HI = 1.57079632679489655800e00;
        const double PIO2_LO = 6.12323399573676603587e-17;

        static bool SignBit(double x)
        {
            return BitConverter.DoubleToInt64Bits(x) < 0;
        }

        /// <summary>The angle of (x, y) in [-pi, pi], as Math.Atan2 (signed zeros and
        /// infinities included).</summary>
        public static double Atan2(double y, double x)
        {
            if (double.IsNaN(x) || double.IsNaN(y))
                return x + y;
            bool negativeY = y < 0.0 || (y == 0.0 && SignBit(y));
            bool negativeX = x < 0.0 || (x == 0.0 && SignBit(x));
            double ay = negativeY ? -y : y;
            double ax = negativeX ? -x : x;
            double z;
            if (ay == 0.0)
                z = negativeX ? PI : 0.0;
            else if (ax == 0.0)
                z = PIO2_HI;
            else if (double.IsPositiveInfinity(ax))
            {
                if (double.IsPositiveInfinity(ay))
                    z = negativeX ? 0.75 * PI : 0.25 * PI;
                else
                    z = negativeX ? PI : 0.0;
            }
            else if (double.IsPositiveInfinity(ay))
                z = PIO2_HI;
            else
            {
                double ratio = ay / ax;
                if (ratio > 1.152921504606847e18) // 2^60: |y| dwarfs |x|
                    z = PIO2_HI + 0.5 * PI_LO;
                else if (negativeX && ratio < 8.673617379884035e-19) // 2^-60: y vanishes
                    z = PI;
                else
                {
                    z = AtanPositive(ratio);
                    if (negativeX)
                        z = PI - (z - PI_LO);
                }
            }
            return negativeY ? -z : z;
        }

        const double PS0 = 1.66666666666666657415e-01;
        const double PS1 = -3.25565818622400915405e-01;
        const double PS2 = 2.01212532134862925881e-01;
        const double PS3 = -4.00555345006794114027e-02;
        const double PS4 = 7.91534994289814532176e-04;
        const double PS5 = 3.47933107596021167570e-05;
        const double QS1 = -2.40339491173441421878e00;
        const double QS2 = 2.02094576023350569471e00;
        const double QS3 = -6.88283971605453293030e-01;
        const double QS4 = 7.70381505559019352791e-02;
        const double SPLIT = 134217729.0; // 2^27 + 1: Veltkamp's split into 26 + 27 bits

        /// <summary>asin(x) in [-pi/2, pi/2] for x in [-1, 1] (NaN outside).</summary>
        public static double Asin(double x)
        {
            double a = x < 0.0 ? -x : x;
            if (a >= 1.0)
            {
                if (a == 1.0)
                    return x * PIO2_HI + x * PIO2_LO;
                return (x - x) / (x - x);
            }
            double t, p, q;
            if (a < 0.5)
            {
                if (a < 7.450580596923828e-09) // 2^-27
                    return x;
                t = x * x;
                p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
                q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
                return x + x * (p / q);
            }
            double w = 1.0 - a;
            t = w * 0.5;
            p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
            q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
            double s = Math.Sqrt(t);
            double r;
            if (a >= 0.975)
                r = PIO2_HI - (2.0 * (s + s * (p / q)) - PIO2_LO);
            else
            {
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

        const double LN2_HI = 6.93147180369123816490e-01;
        const double LN2_LO = 1.90821492927058770002e-10;
        const double INV_LN2 = 1.44269504088896338700e00;
        const double HALF_LN2 = 0.34657359027997264;
        const double P1 = 1.66666666666666019037e-01;
        const double P2 = -2.77777777770155933842e-03;
        const double P3 = 6.61375632143793436117e-05;
        const double P4 = -1.65339022054652515390e-06;
        const double P5 = 4.13813679705723846039e-08;

        /// <summary>2^k for a whole number k in [-1074, 1023], exactly.</summary>
        static double Pow2(double k)
        {
            double b = 2.0;
            if (k < 0.0)
            {
                b = 0.5;
                k = -k;
            }
            double result = 1.0;
            while (k > 0.0)
            {
                double half = Math.Floor(k * 0.5);
                if (k - 2.0 * half == 1.0)
                    result *= b;
                b *= b;
                k = half;
            }
            return result;
        }

        /// <summary>e^x: 0 below -745.2, infinity above 709.8.</summary>
        public static double Exp(double x)
        {
            if (double.IsNaN(x))
                return x;
            if (x > 709.782712893384)
                return double.PositiveInfinity;
            if (x < -745.1332191019411)
                return 0.0;
            double a = x < 0.0 ? -x : x;
            if (a < 3.725290298461914e-09) // 2^-28: 1 + x to the last bit
                return 1.0 + x;
            double t, c;
            if (a <= HALF_LN2)
            {
                t = x * x;
                c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
                return 1.0 - ((x * c) / (c - 2.0) - x);
            }
            double k = Math.Floor(x * INV_LN2 + 0.5);
            double hi = x - k * LN2_HI;
            double lo = k * LN2_LO;
            double r = hi - lo;
            t = r * r;
            c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
            double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
            if (k < -1021.0)
                return y * Pow2(k + 1000.0) * Pow2(-1000.0);
            if (k > 1023.0)
                return y * 2.0 * Pow2(k - 1.0);
            return y * Pow2(k);
        }

        /// <summary>Python's float %: a floor modulo (C#'s % truncates). Exact.</summary>
        public static double FloorMod(double a, double b)
        {
            double m = a % b;
            if (m != 0.0 && (m < 0.0) != (b < 0.0))
                m += b;
            else if (m == 0.0)
                m = b < 0.0 ? -0.0 : 0.0;
            return m;
        }

        // The engine's min and max (numba's): the first argument unless the second is
        // smaller (larger). Math.Min/Max differ on signed zeros between runtimes.
        public static double Min(double a, double b)
        {
            return b < a ? b : a;
        }

        public static double Max(double a, double b)
        {
            return b > a ? b : a;
        }
    }

    // ---------------------------------------------------------------- the random stream
    /// <summary>The counter-based random stream: every number is a hash of (seed, agent,
    /// step, draw), so a run does not depend on how steps are batched.</summary>
    public static class RandomStream
    {
        public const ulong Golden = 0x9E3779B97F4A7C15UL;
        const ulong Mix1 = 0xBF58476D1CE4E5B9UL;
        const ulong Mix2 = 0x94D049BB133111EBUL;
        const ulong StepStride = 0xD1B54A32D192ED03UL;
        const ulong OctaveSalt = 0xA0761D6478BD642FUL;
        const ulong SeedSalt = 0x5DEECE66DUL;
        const double Unit = 1.0 / 9007199254740992.0; // 2^-53
        const double Unit21 = 1.0 / 2097152.0; // 2^-21
        const double OctaveRatio = 2.0 * 1.0693; // nudged off 2: the lattices never align

        /// <summary>splitmix64's finaliser: a bijective, well-mixed hash.</summary>
        public static ulong Mix(ulong x)
        {
            unchecked
            {
                x = (x ^ (x >> 30)) * Mix1;
                x = (x ^ (x >> 27)) * Mix2;
                return x ^ (x >> 31);
            }
        }

        public static ulong SeedKey(uint seed)
        {
            return Mix(seed ^ SeedSalt);
        }

        public static ulong AgentKey(ulong seedKey, long agent)
        {
            return unchecked(Mix(seedKey ^ ((ulong)agent * Golden)));
        }

        public static ulong StreamKey(ulong agentKey, long step)
        {
            return unchecked(agentKey + (ulong)step * StepStride);
        }

        /// <summary>mix(key + n * Golden): the hash behind every draw.</summary>
        public static ulong HashAt(ulong key, long n)
        {
            return unchecked(Mix(key + (ulong)n * Golden));
        }

        /// <summary>The draw-th uniform double in [0, 1) of stream key.</summary>
        public static double Uniform(ulong key, long draw)
        {
            return (double)(HashAt(key, draw + 1) >> 11) * Unit;
        }

        /// <summary>A point uniform in the unit ball (not within 1e-3 of its centre), by
        /// rejection from the cube: three 21-bit coordinates per hash.</summary>
        public static void InUnitBall(ulong key, out double x, out double y, out double z)
        {
            for (long draw = 0; ; draw++)
            {
                ulong bits = HashAt(key, draw + 1);
                x = (double)(bits & 0x1FFFFFUL) * (2.0 * Unit21) - 1.0;
                y = (double)((bits >> 21) & 0x1FFFFFUL) * (2.0 * Unit21) - 1.0;
                z = (double)((bits >> 42) & 0x1FFFFFUL) * (2.0 * Unit21) - 1.0;
                double r2 = x * x + y * y + z * z;
                if (1e-6 < r2 && r2 <= 1.0)
                    return;
            }
        }

        /// <summary>Smooth 1D gradient (Perlin) noise of curve key at x, in about [-1, 1].
        /// The gradients at the cell's ends depend on the key and the cell only, and a curve
        /// stays in a cell for many steps, so cache[at..at+2] keeps (cell, g0, g1): the same
        /// values for a fraction of the hashing (NaN: nothing cached).</summary>
        static double GradientNoise(ulong key, double x, double[] cache, int at)
        {
            double cell = Math.Floor(x);
            double f = x - cell;
            if (cache[at] != cell)
            {
                long c = (long)cell;
                cache[at + 1] = (double)(HashAt(key, c) >> 11) * Unit * 2.0 - 1.0;
                cache[at + 2] = (double)(HashAt(key, c + 1) >> 11) * Unit * 2.0 - 1.0;
                cache[at] = cell;
            }
            double g0 = cache[at + 1];
            double g1 = cache[at + 2];
            double fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
            return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0));
        }

        /// <summary>Two octaves of gradient noise at an irrational ratio, about [-1, 1]
        /// (cache[at..at+5]: both octaves' gradients).</summary>
        public static double SmoothNoise(ulong key, double x, double[] cache, int at)
        {
            double second = GradientNoise(key ^ OctaveSalt, x * OctaveRatio + 0.5, cache, at + 3);
            return (GradientNoise(key, x, cache, at) + 0.5 * second) * (1.0 / 1.5);
        }
    }

    // ---------------------------------------------------------------- frames and angles
    static class Frame
    {
        public const double Pi = 3.141592653589793;
        public const double HalfPi = Pi / 2;

        public static double ReflectPitch(double pitch)
        {
            if (pitch > HalfPi)
                return Pi - pitch;
            if (pitch < -HalfPi)
                return -Pi - pitch;
            return pitch;
        }

        /// <summary>The noise method's target (yaw, pitch): two noise curves plus offsets
        /// (cache[at..at+11]: the curves' gradients).</summary>
        public static double NoiseAngles(
            ulong key0,
            ulong key1,
            double phase0,
            double phase1,
            double t,
            double vertical,
            double offsetYaw,
            double offsetPitch,
            double[] cache,
            int at,
            out double pitch
        )
        {
            double yaw = Pi * RandomStream.SmoothNoise(key0, phase0 + t, cache, at) + offsetYaw;
            double curve = RandomStream.SmoothNoise(key1, phase1 + t, cache, at + 6);
            double p = HalfPi * DetMath.Min(1.0, DetMath.Max(-1.0, curve)) * vertical;
            pitch = ReflectPitch(p + offsetPitch);
            return yaw;
        }

        /// <summary>Noise offsets moved by the deltas: yaw wrapped to [-pi, pi), pitch kept in
        /// [-pi, pi].</summary>
        public static double ShiftOffsets(
            double offsetYaw,
            double offsetPitch,
            double deltaYaw,
            double deltaPitch,
            out double pitch
        )
        {
            pitch = DetMath.Min(Pi, DetMath.Max(-Pi, offsetPitch + deltaPitch));
            return DetMath.FloorMod(offsetYaw + deltaYaw + Pi, 2.0 * Pi) - Pi;
        }

        /// <summary>Unit direction at yaw (towards side) and pitch (towards up = side x heading).</summary>
        public static void DirectionFromAngles(
            double yaw,
            double pitch,
            double hx,
            double hy,
            double hz,
            double sx,
            double sy,
            double sz,
            out double x,
            out double y,
            out double z
        )
        {
            double ux = sy * hz - sz * hy;
            double uy = sz * hx - sx * hz;
            double uz = sx * hy - sy * hx;
            double sinPitch, cosPitch, sinYaw, cosYaw;
            DetMath.SinCos(pitch, out sinPitch, out cosPitch);
            DetMath.SinCos(yaw, out sinYaw, out cosYaw);
            double a = cosPitch * cosYaw;
            double b = cosPitch * sinYaw;
            double c = sinPitch;
            x = a * hx + b * sx + c * ux;
            y = a * hy + b * sy + c * uy;
            z = a * hz + b * sz + c * uz;
        }

        /// <summary>Inverse of DirectionFromAngles for a unit direction: yaw, and pitch.</summary>
        public static double AnglesFromDirection(
            double wx,
            double wy,
            double wz,
            double hx,
            double hy,
            double hz,
            double sx,
            double sy,
            double sz,
            out double pitch
        )
        {
            double ux = sy * hz - sz * hy;
            double uy = sz * hx - sx * hz;
            double uz = sx * hy - sy * hx;
            double yaw = DetMath.Atan2(wx * sx + wy * sy + wz * sz, wx * hx + wy * hy + wz * hz);
            double up = wx * ux + wy * uy + wz * uz;
            pitch = DetMath.Asin(DetMath.Min(1.0, DetMath.Max(-1.0, up)));
            return yaw;
        }

        /// <summary>A unit vector perpendicular to unit a: a crossed with its least-aligned
        /// world axis.</summary>
        public static void Perpendicular(
            double ax,
            double ay,
            double az,
            out double x,
            out double y,
            out double z
        )
        {
            double px, py, pz;
            if (Math.Abs(ax) <= Math.Abs(ay) && Math.Abs(ax) <= Math.Abs(az))
            {
                px = 0.0;
                py = az;
                pz = -ay;
            }
            else if (Math.Abs(ay) <= Math.Abs(az))
            {
                px = -az;
                py = 0.0;
                pz = ax;
            }
            else
            {
                px = ay;
                py = -ax;
                pz = 0.0;
            }
            double n = Math.Sqrt(px * px + py * py + pz * pz);
            x = px / n;
            y = py / n;
            z = pz / n;
        }

        /// <summary>The level side of unit heading h (h x up, normalised), or any
        /// perpendicular for a vertical heading.</summary>
        public static void LevelSide(double hx, double hy, double hz, out double x, out double y, out double z)
        {
            double sx = -hz, sz = hx;
            double level = Math.Sqrt(sx * sx + sz * sz);
            if (level > 1e-9)
            {
                x = sx / level;
                y = 0.0;
                z = sz / level;
            }
            else
                Perpendicular(hx, hy, hz, out x, out y, out z);
        }

        /// <summary>v rotated by the minimal rotation taking unit a onto unit b, in place
        /// (parallel transport; Rodrigues' formula without a normalised axis).</summary>
        public static void Transport(
            ref double vx,
            ref double vy,
            ref double vz,
            double ax,
            double ay,
            double az,
            double bx,
            double by,
            double bz
        )
        {
            double c = ax * bx + ay * by + az * bz;
            if (c < -1.0 + 1e-9)
            {
                // Half turn about a unit vector perpendicular to a.
                double px, py, pz;
                Perpendicular(ax, ay, az, out px, out py, out pz);
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

        /// <summary>Transport of v and w by the same rotation, sharing its set-up.</summary>
        public static void TransportPair(
            ref double vx,
            ref double vy,
            ref double vz,
            ref double wx,
            ref double wy,
            ref double wz,
            double ax,
            double ay,
            double az,
            double bx,
            double by,
            double bz
        )
        {
            double c = ax * bx + ay * by + az * bz;
            if (c < -1.0 + 1e-9)
            {
                Transport(ref vx, ref vy, ref vz, ax, ay, az, bx, by, bz);
                Transport(ref wx, ref wy, ref wz, ax, ay, az, bx, by, bz);
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
    }

    // ---------------------------------------------------------------- the flock
    /// <summary>A group of the flock: its name, agents First .. First + Count - 1, and its
    /// parameters (edit them at any time).</summary>
    public sealed class Group
    {
        public readonly string Name;
        public readonly int First;
        public readonly int Count;
        public GroupParams Params;

        public Group(string name, int first, int count, GroupParams parameters)
        {
            Name = name;
            First = first;
            Count = count;
            Params = parameters;
        }
    }

    /// <summary>
    /// Agents of one or more groups wandering in a box, advanced in fixed steps of Dt seconds.
    /// State is in flat arrays, agent i's vector at [3i, 3i+1, 3i+2]: Position, Velocity
    /// (units/s), Heading (unit), Target (the wander target, for debug drawing), Force (the
    /// last step's steering force).
    /// </summary>
    public sealed class Flock
    {
        /// <summary>A frame longer than this (s) counts as this long: a stall (a breakpoint, a
        /// loading hitch) makes no burst of steps.</summary>
        public const double MaxFrameSeconds = 0.25;

        const double RampFraction = 0.25; // the containment push ramps to full over this part of the margin
        const double Lookahead = 0.25; // s: agents look this far ahead (plus their stopping time)
        const double RandomHold = 1.0 / 30.0; // s: the random method's direction is held this long
        const double PitchSpread = 0.7; // rad: the angle method's pitch spread at vertical 1
        const double LevelSeconds = 0.14; // s: at most this often the side vector is pulled level
        const double Tiny = 1e-12;
        const ulong SpawnSalt = 0x2545F4914F6CDD1DUL; // the port's own draws' stream

        public readonly uint Seed;
        public readonly double Dt;
        public readonly double[] Low = new double[3];
        public readonly double[] High = new double[3];
        public readonly double Margin;
        public readonly Group[] Groups;
        public readonly int Count;
        public readonly int[] GroupOf;
        public long StepCount { get; private set; } // steps taken since the start

        public readonly double[] Position;
        public readonly double[] Previous; // positions before the last step, for drawing
        public readonly double[] Velocity;
        public readonly double[] Heading;
        public readonly double[] Target;
        public readonly double[] Force;
        readonly double[] side;
        readonly double[] wander;
        readonly double[] angles; // yaw, pitch (noise: offsets of its curves)
        readonly ulong[] noiseKeys;
        readonly double[] noisePhase;
        readonly double[] gradients; // the noise curves' cached cells and gradients, 12 per agent
        readonly double[] seekPoint;
        readonly double[] seekTimer;
        readonly long[] held; // random method: the hold whose direction is in heldForce
        readonly double[] heldForce;
        readonly ulong[] agentKeys;
        readonly Constants[] constants; // per group, refreshed by each Advance
        double accumulator; // s of frame time not yet stepped

        /// <summary>A flock of scene's groups (their parameters copied). start: the text of a
        /// start.txt (wander3d's exact start of the scene), or null to spawn agents by the
        /// port's own rule (see Spawn).</summary>
        public Flock(SceneSpec scene, string start = null)
        {
            Seed = scene.Seed;
            Dt = scene.Dt;
            Array.Copy(scene.BoxMin, Low, 3);
            Array.Copy(scene.BoxMax, High, 3);
            Margin = scene.Margin;
            Groups = new Group[scene.Groups.Length];
            constants = new Constants[Groups.Length];
            int n = 0;
            for (int g = 0; g < Groups.Length; g++)
            {
                GroupSpec spec = scene.Groups[g];
                Groups[g] = new Group(spec.Name, n, spec.Count, spec.Params.Clone());
                constants[g] = new Constants();
                n += spec.Count;
            }
            Count = n;
            GroupOf = new int[n];
            for (int g = 0; g < Groups.Length; g++)
                for (int i = Groups[g].First; i < Groups[g].First + Groups[g].Count; i++)
                    GroupOf[i] = g;
            Position = new double[3 * n];
            Previous = new double[3 * n];
            Velocity = new double[3 * n];
            Heading = new double[3 * n];
            Target = new double[3 * n];
            Force = new double[3 * n];
            side = new double[3 * n];
            wander = new double[3 * n];
            angles = new double[2 * n];
            noiseKeys = new ulong[2 * n];
            noisePhase = new double[2 * n];
            gradients = new double[12 * n];
            seekPoint = new double[3 * n];
            seekTimer = new double[n];
            held = new long[n];
            heldForce = new double[3 * n];
            agentKeys = new ulong[n];
            ulong seedKey = RandomStream.SeedKey(Seed);
            for (int i = 0; i < n; i++)
                agentKeys[i] = RandomStream.AgentKey(seedKey, i);
            if (start == null)
                Spawn();
            else
                LoadStart(start);
        }

        /// <summary>Read a start.txt: wander3d's exact starting state of this scene.</summary>
        public void LoadStart(string text)
        {
            string[] lines = text.Replace("\r", "").Split('\n'); // a checkout may add \r
            int comments = 0; // the licence lines on top
            while (comments < lines.Length && lines[comments].StartsWith("#", StringComparison.Ordinal))
                comments++;
            if (comments > 0)
            {
                string[] rest = new string[lines.Length - comments];
                Array.Copy(lines, comments, rest, 0, rest.Length);
                lines = rest;
            }
            if (lines.Length < Count + 2 || lines[0] != "wander3d-start 1" || lines[1] != "agents " + Count)
                throw new FormatException("not a wander3d start of " + Count + " agents");
            for (int i = 0; i < Count; i++)
            {
                string[] f = lines[i + 2].Split(' ');
                if (f.Length != 26 || f[0] != GroupOf[i].ToString(CultureInfo.InvariantCulture))
                    throw new FormatException("start line " + (i + 3) + " is not agent " + i + "'s");
                double[][] vectors = { Position, Velocity, Heading, side, wander };
                for (int k = 0; k < vectors.Length; k++)
                    for (int c = 0; c < 3; c++)
                        vectors[k][3 * i + c] = Bits(f[1 + 3 * k + c]);
                angles[2 * i] = Bits(f[16]);
                angles[2 * i + 1] = Bits(f[17]);
                noisePhase[2 * i] = Bits(f[18]);
                noisePhase[2 * i + 1] = Bits(f[19]);
                for (int c = 0; c < 3; c++)
                    seekPoint[3 * i + c] = Bits(f[20 + c]);
                seekTimer[i] = Bits(f[23]);
                noiseKeys[2 * i] = Hex(f[24]);
                noiseKeys[2 * i + 1] = Hex(f[25]);
            }
            Forget();
            Restart();
        }

        static ulong Hex(string text)
        {
            return ulong.Parse(text, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
        }

        static double Bits(string text)
        {
            return BitConverter.Int64BitsToDouble(unchecked((long)Hex(text)));
        }

        /// <summary>
        /// Start every agent afresh (the port's own rule, from the seed; not wander3d's start,
        /// which start.txt carries): positions uniform in the box inside the margin, headings
        /// uniform in direction with their up component scaled by Vertical, speed
        /// InitialSpeed, the wander target straight ahead (angle, noise: a random yaw and
        /// pitch), seek points uniform.
        /// </summary>
        public void Spawn()
        {
            Forget();
            for (int i = 0; i < Count; i++)
            {
                GroupParams p = Groups[GroupOf[i]].Params;
                ulong key = SpawnKey(i);
                for (int a = 0; a < 3; a++)
                {
                    double low = Low[a] + Margin;
                    double span = High[a] - Margin - low;
                    Position[3 * i + a] = low + RandomStream.Uniform(key, a) * span;
                    seekPoint[3 * i + a] = low + RandomStream.Uniform(key, 3 + a) * span;
                }
                double hx, hy, hz;
                RandomStream.InUnitBall(key, out hx, out hy, out hz);
                hy *= p.Vertical;
                double h = Math.Sqrt(hx * hx + hy * hy + hz * hz);
                if (h < 1e-9)
                {
                    hx = 1.0;
                    hy = 0.0;
                    hz = 0.0;
                    h = 1.0;
                }
                hx /= h;
                hy /= h;
                hz /= h;
                Set3(Heading, i, hx, hy, hz);
                Set3(Velocity, i, hx * p.InitialSpeed, hy * p.InitialSpeed, hz * p.InitialSpeed);
                double sx, sy, sz;
                Frame.LevelSide(hx, hy, hz, out sx, out sy, out sz);
                Set3(side, i, sx, sy, sz);
                double yaw = (2.0 * RandomStream.Uniform(key, 6) - 1.0) * Frame.Pi;
                double pitch = (2.0 * RandomStream.Uniform(key, 7) - 1.0) * Frame.HalfPi * p.Vertical;
                bool angle = p.Method == WanderMethod.Angle;
                angles[2 * i] = angle ? yaw : 0.0;
                angles[2 * i + 1] = angle ? pitch : 0.0;
                for (int k = 0; k < 2; k++)
                {
                    // Below 2^63, as the engine draws them: the top bit cleared.
                    noiseKeys[2 * i + k] = RandomStream.HashAt(key, 9 + k) & 0x7FFFFFFFFFFFFFFFUL;
                    noisePhase[2 * i + k] = RandomStream.Uniform(key, 11 + k) * 1024.0;
                }
                seekTimer[i] = RandomStream.Uniform(key, 13) * p.Interval;
                double wx = hx, wy = hy, wz = hz;
                if (angle)
                    Frame.DirectionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
                else if (p.Method == WanderMethod.Noise)
                {
                    double noisePitch;
                    double noiseYaw = Frame.NoiseAngles(
                        noiseKeys[2 * i],
                        noiseKeys[2 * i + 1],
                        noisePhase[2 * i],
                        noisePhase[2 * i + 1],
                        0.0,
                        p.Vertical,
                        0.0,
                        0.0,
                        gradients,
                        12 * i,
                        out noisePitch
                    );
                    Frame.DirectionFromAngles(noiseYaw, noisePitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
                }
                Set3(wander, i, wx, wy, wz);
            }
            Restart();
        }

        /// <summary>
        /// Switch group g to wander method, each agent continuing from where its target is now
        /// (as wander3d's app does): the wander direction keeps pointing where it did (from
        /// seek: from the sphere's centre to the point sought); angle and noise measure its yaw
        /// and pitch in a fresh level frame (noise: new curves, offset to pass through it); seek
        /// seeks the shown target, kept inside the margin. New random draws come from the
        /// agent's spawn stream at the current step. Setting Params.Method directly switches
        /// without this care (the target may jump once).
        /// </summary>
        public void SetMethod(int g, WanderMethod method)
        {
            Group group = Groups[g];
            GroupParams p = group.Params;
            WanderMethod old = p.Method;
            if (method == old)
                return;
            double t = StepCount * Dt * p.Frequency;
            for (int i = group.First; i < group.First + group.Count; i++)
            {
                int i3 = 3 * i;
                double px = Position[i3], py = Position[i3 + 1], pz = Position[i3 + 2];
                double hx = Heading[i3], hy = Heading[i3 + 1], hz = Heading[i3 + 2];
                double wx = wander[i3], wy = wander[i3 + 1], wz = wander[i3 + 2];
                if (old == WanderMethod.Seek)
                {
                    wx = seekPoint[i3] - (px + hx * p.Distance);
                    wy = seekPoint[i3 + 1] - (py + hy * p.Distance);
                    wz = seekPoint[i3 + 2] - (pz + hz * p.Distance);
                }
                double w = Math.Sqrt(wx * wx + wy * wy + wz * wz);
                if (w > Tiny)
                {
                    wx /= w;
                    wy /= w;
                    wz /= w;
                }
                else
                {
                    wx = hx;
                    wy = hy;
                    wz = hz;
                }
                Set3(wander, i, wx, wy, wz);
                ulong key = RandomStream.StreamKey(SpawnKey(i), StepCount);
                if (method == WanderMethod.Angle || method == WanderMethod.Noise)
                {
                    double sx, sy, sz, pitch;
                    Frame.LevelSide(hx, hy, hz, out sx, out sy, out sz);
                    Set3(side, i, sx, sy, sz);
                    double yaw = Frame.AnglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, out pitch);
                    if (method == WanderMethod.Angle)
                    {
                        angles[2 * i] = yaw;
                        angles[2 * i + 1] = pitch;
                    }
                    else
                    {
                        for (int k = 0; k < 2; k++)
                        {
                            noiseKeys[2 * i + k] = RandomStream.HashAt(key, 1 + k) & 0x7FFFFFFFFFFFFFFFUL;
                            noisePhase[2 * i + k] = RandomStream.Uniform(key, 3 + k) * 1024.0;
                        }
                        for (int j = 12 * i; j < 12 * i + 12; j++)
                            gradients[j] = double.NaN;
                        double curvePitch, offsetPitch;
                        double curveYaw = Frame.NoiseAngles(
                            noiseKeys[2 * i],
                            noiseKeys[2 * i + 1],
                            noisePhase[2 * i],
                            noisePhase[2 * i + 1],
                            t,
                            p.Vertical,
                            0.0,
                            0.0,
                            gradients,
                            12 * i,
                            out curvePitch
                        );
                        angles[2 * i] = Frame.ShiftOffsets(0.0, 0.0, yaw - curveYaw, pitch - curvePitch, out offsetPitch);
                        angles[2 * i + 1] = offsetPitch;
                    }
                }
                else if (method == WanderMethod.Seek)
                {
                    for (int a = 0; a < 3; a++)
                    {
                        double shown =
                            old == WanderMethod.Seek
                                ? seekPoint[i3 + a]
                                : Position[i3 + a] + Heading[i3 + a] * p.Distance + wander[i3 + a] * p.Radius;
                        seekPoint[i3 + a] = DetMath.Min(High[a] - Margin, DetMath.Max(Low[a] + Margin, shown));
                    }
                    seekTimer[i] = RandomStream.Uniform(key, 5) * p.Interval;
                }
                held[i] = -1;
            }
            p.Method = method;
            PlaceTargets();
        }

        /// <summary>Agent i's spawn stream key (the port's own draws: spawn, SetMethod).</summary>
        ulong SpawnKey(int i)
        {
            return RandomStream.Mix(agentKeys[i] ^ SpawnSalt);
        }

        /// <summary>Drop the cached noise gradients (the noise keys changed).</summary>
        void Forget()
        {
            for (int j = 0; j < gradients.Length; j++)
                gradients[j] = double.NaN;
        }

        static void Set3(double[] array, int i, double x, double y, double z)
        {
            array[3 * i] = x;
            array[3 * i + 1] = y;
            array[3 * i + 2] = z;
        }

        void Restart()
        {
            StepCount = 0;
            accumulator = 0.0;
            for (int i = 0; i < Count; i++)
                held[i] = -1;
            Array.Copy(Position, Previous, Position.Length);
            PlaceTargets();
        }

        /// <summary>
        /// Advance by a frame of frameSeconds (capped at MaxFrameSeconds): as many fixed steps
        /// as the accumulated time holds. Returns alpha in [0, 1): how far the display time is
        /// between the last two steps, for PositionAt. The run is the same at any frame rate.
        /// </summary>
        public double Update(double frameSeconds)
        {
            accumulator += Math.Min(Math.Max(frameSeconds, 0.0), MaxFrameSeconds);
            int steps = 0;
            while (accumulator >= Dt)
            {
                accumulator -= Dt;
                steps++;
            }
            if (steps > 0)
            {
                // Only the last step's start is drawn from: the steps before it are not seen.
                if (steps > 1)
                    Advance(steps - 1);
                Array.Copy(Position, Previous, Position.Length);
                Advance(1);
            }
            return accumulator / Dt;
        }

        /// <summary>Agent i's drawn position at alpha between its last two steps.</summary>
        public void PositionAt(int i, double alpha, out double x, out double y, out double z)
        {
            int j = 3 * i;
            x = Previous[j] + (Position[j] - Previous[j]) * alpha;
            y = Previous[j + 1] + (Position[j + 1] - Previous[j + 1]) * alpha;
            z = Previous[j + 2] + (Position[j + 2] - Previous[j + 2]) * alpha;
        }

        /// <summary>Agent i's wander sphere, for debug drawing: its centre and radius (0 for
        /// seek, whose target is a point of the box).</summary>
        public double WanderSphere(int i, out double x, out double y, out double z)
        {
            GroupParams p = Groups[GroupOf[i]].Params;
            x = Position[3 * i] + Heading[3 * i] * p.Distance;
            y = Position[3 * i + 1] + Heading[3 * i + 1] * p.Distance;
            z = Position[3 * i + 2] + Heading[3 * i + 2] * p.Distance;
            return p.Method == WanderMethod.Seek ? 0.0 : p.Radius;
        }

        /// <summary>Per group, what a step needs of its parameters (read each Advance, so edits
        /// act from the next step; refreshed in place, so a frame allocates nothing).</summary>
        sealed class Constants
        {
            public WanderMethod Method;
            public bool Desired;
            public double Distance, Radius, JitterStep, RateStep, Frequency, OffsetFade, Interval;
            public double Vertical, MaxSpeed, MaxForce, InverseMass, StopTime, PitchDecay, PitchKick;

            public void Read(GroupParams p, double dt)
            {
                double rootDt = Math.Sqrt(dt);
                Method = p.Method;
                Desired = p.Steering == Steering.Desired;
                Distance = p.Distance;
                Radius = p.Radius;
                JitterStep = p.Jitter * rootDt;
                RateStep = p.Rate * rootDt;
                Frequency = p.Frequency;
                OffsetFade = DetMath.Exp(-dt * p.Frequency);
                Interval = p.Interval;
                Vertical = p.Vertical;
                MaxSpeed = p.MaxSpeed;
                MaxForce = p.MaxForce;
                InverseMass = 1.0 / p.Mass;
                StopTime = 0.5 * p.Mass / p.MaxForce;
                // The angle method's pitch walk (engine: kernel.pitch_walk): an
                // Ornstein-Uhlenbeck walk with a spread of Vertical * PitchSpread rad.
                double spread = p.Vertical * PitchSpread;
                if (p.Rate <= 0.0)
                {
                    PitchDecay = 1.0;
                    PitchKick = 0.0;
                }
                else if (spread <= 0.0)
                {
                    PitchDecay = 0.0;
                    PitchKick = 0.0;
                }
                else
                {
                    PitchDecay = DetMath.Exp(-dt * p.Rate * p.Rate / (6.0 * spread * spread));
                    PitchKick = spread * Math.Sqrt(3.0 * (1.0 - PitchDecay * PitchDecay));
                }
            }
        }

        /// <summary>Take steps fixed steps of Dt (the engine's kernel.advance, agent by agent:
        /// agents are independent, so each keeps its state in locals for all the steps).</summary>
        public void Advance(int steps)
        {
            for (int g = 0; g < Groups.Length; g++)
                constants[g].Read(Groups[g].Params, Dt);
            // Pull the side level every 2^k steps, the most within LevelSeconds.
            long levelSteps = 1;
            while (2 * levelSteps * Dt <= LevelSeconds)
                levelSteps *= 2;
            for (int i = 0; i < Count; i++)
                StepAgent(i, constants[GroupOf[i]], StepCount, steps, levelSteps - 1);
            StepCount += steps;
            PlaceTargets();
        }

        /// <summary>The shown target of every agent: its seek point, or its point on the wander
        /// sphere.</summary>
        void PlaceTargets()
        {
            for (int i = 0; i < Count; i++)
            {
                GroupParams p = Groups[GroupOf[i]].Params;
                for (int a = 0; a < 3; a++)
                {
                    int j = 3 * i + a;
                    Target[j] =
                        p.Method == WanderMethod.Seek
                            ? seekPoint[j]
                            : Position[j] + Heading[j] * p.Distance + wander[j] * p.Radius;
                }
            }
        }

        void StepAgent(int i, Constants g, long firstStep, int steps, long levelMask)
        {
            double dt = Dt;
            double margin = Margin;
            double lox = Low[0], loy = Low[1], loz = Low[2];
            double hix = High[0], hiy = High[1], hiz = High[2];
            double inverseRamp = margin > 0.0 ? 1.0 / (margin * RampFraction) : 0.0;
            // Random method: which hold a step falls in (its centre, so rounding never splits
            // a hold), and the white-noise scaling where a step is longer than a hold.
            double randomHolds = DetMath.Min(1.0, dt / RandomHold);
            double randomGain = Math.Sqrt(DetMath.Min(1.0, RandomHold / dt));
            WanderMethod method = g.Method;
            double distance = g.Distance, radius = g.Radius, vertical = g.Vertical;
            double maxSpeed = g.MaxSpeed, maxForce = g.MaxForce, stopTime = g.StopTime;

            int i3 = 3 * i;
            double px = Position[i3], py = Position[i3 + 1], pz = Position[i3 + 2];
            double vx = Velocity[i3], vy = Velocity[i3 + 1], vz = Velocity[i3 + 2];
            double hx = Heading[i3], hy = Heading[i3 + 1], hz = Heading[i3 + 2];
            double sx = side[i3], sy = side[i3 + 1], sz = side[i3 + 2];
            double wx = wander[i3], wy = wander[i3 + 1], wz = wander[i3 + 2];
            double yaw = angles[2 * i], pitch = angles[2 * i + 1];
            double fx = 0.0, fy = 0.0, fz = 0.0;
            ulong agent = agentKeys[i];

            for (long step = firstStep; step < firstStep + steps; step++)
            {
                ulong key = RandomStream.StreamKey(agent, step);

                // 1. Containment, per axis: + pushes towards high, - towards low.
                double ix = 0.0, iy = 0.0, iz = 0.0;
                double aheadX = px + vx * (Lookahead + Math.Abs(vx) * stopTime);
                double aheadY = py + vy * (Lookahead + Math.Abs(vy) * stopTime);
                double aheadZ = pz + vz * (Lookahead + Math.Abs(vz) * stopTime);
                if (margin > 0.0)
                {
                    if (hx < 0.0)
                        ix = DetMath.Min(1.0, DetMath.Max(0.0, (lox + margin - aheadX) * inverseRamp));
                    else if (hx > 0.0)
                        ix = -DetMath.Min(1.0, DetMath.Max(0.0, (aheadX - (hix - margin)) * inverseRamp));
                    if (hy < 0.0)
                        iy = DetMath.Min(1.0, DetMath.Max(0.0, (loy + margin - aheadY) * inverseRamp));
                    else if (hy > 0.0)
                        iy = -DetMath.Min(1.0, DetMath.Max(0.0, (aheadY - (hiy - margin)) * inverseRamp));
                    if (hz < 0.0)
                        iz = DetMath.Min(1.0, DetMath.Max(0.0, (loz + margin - aheadZ) * inverseRamp));
                    else if (hz > 0.0)
                        iz = -DetMath.Min(1.0, DetMath.Max(0.0, (aheadZ - (hiz - margin)) * inverseRamp));
                }
                double weight = DetMath.Max(Math.Abs(ix), DetMath.Max(Math.Abs(iy), Math.Abs(iz)));

                // 2. The wander target.
                double usedYaw = 0.0, usedPitch = 0.0; // the noise method's target angles
                double tx, ty, tz;
                if (method == WanderMethod.Seek)
                {
                    seekTimer[i] -= dt;
                    if (seekTimer[i] <= 0.0)
                    {
                        seekPoint[i3] = lox + margin + RandomStream.Uniform(key, 0) * (hix - lox - 2 * margin);
                        seekPoint[i3 + 1] = loy + margin + RandomStream.Uniform(key, 1) * (hiy - loy - 2 * margin);
                        seekPoint[i3 + 2] = loz + margin + RandomStream.Uniform(key, 2) * (hiz - loz - 2 * margin);
                        seekTimer[i] += g.Interval;
                    }
                    tx = seekPoint[i3];
                    ty = seekPoint[i3 + 1];
                    tz = seekPoint[i3 + 2];
                }
                else
                {
                    if (method == WanderMethod.Sphere)
                    {
                        double ux, uy, uz;
                        RandomStream.InUnitBall(key, out ux, out uy, out uz);
                        double qx = wx * radius + ux * g.JitterStep;
                        double qy = wy * radius + uy * g.JitterStep * vertical;
                        double qz = wz * radius + uz * g.JitterStep;
                        double q = Math.Sqrt(qx * qx + qy * qy + qz * qz);
                        // The point can reach the centre only if jitter*sqrt(dt) >= radius.
                        if (q > 1e-9 * radius)
                        {
                            double inverse = 1.0 / q;
                            wx = qx * inverse;
                            wy = qy * inverse;
                            wz = qz * inverse;
                        }
                    }
                    else if (method == WanderMethod.Angle)
                    {
                        yaw += (2.0 * RandomStream.Uniform(key, 0) - 1.0) * g.RateStep;
                        pitch = pitch * g.PitchDecay + (2.0 * RandomStream.Uniform(key, 1) - 1.0) * g.PitchKick;
                        if (yaw >= Frame.Pi || yaw < -Frame.Pi)
                            yaw = DetMath.FloorMod(yaw + Frame.Pi, 2.0 * Frame.Pi) - Frame.Pi;
                        pitch = Frame.ReflectPitch(pitch);
                        Frame.DirectionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
                    }
                    else if (method == WanderMethod.Noise)
                    {
                        // Offsets from wall turns fade, so the agent returns to its own curve.
                        yaw *= g.OffsetFade;
                        pitch *= g.OffsetFade;
                        usedYaw = Frame.NoiseAngles(
                            noiseKeys[2 * i],
                            noiseKeys[2 * i + 1],
                            noisePhase[2 * i],
                            noisePhase[2 * i + 1],
                            step * dt * g.Frequency,
                            vertical,
                            yaw,
                            pitch,
                            gradients,
                            12 * i,
                            out usedPitch
                        );
                        Frame.DirectionFromAngles(usedYaw, usedPitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
                    }
                    else
                    {
                        // Random: a fresh uniform direction every RandomHold s.
                        long hold = (long)((step + 0.5) * randomHolds);
                        if (hold != held[i])
                        {
                            held[i] = hold;
                            double ux, uy, uz;
                            RandomStream.InUnitBall(RandomStream.StreamKey(agent, hold), out ux, out uy, out uz);
                            uy *= vertical;
                            double u = Math.Sqrt(ux * ux + uy * uy + uz * uz);
                            if (u < 1e-9)
                            {
                                // vertical = 0 and a purely vertical draw
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
                    if ((ix > 0.0 && wx < 0.0) || (ix < 0.0 && wx > 0.0))
                    {
                        wx = -wx;
                        turned = true;
                    }
                    if ((iy > 0.0 && wy < 0.0) || (iy < 0.0 && wy > 0.0))
                    {
                        wy = -wy;
                        turned = true;
                    }
                    if ((iz > 0.0 && wz < 0.0) || (iz < 0.0 && wz > 0.0))
                    {
                        wz = -wz;
                        turned = true;
                    }
                    if (turned && method == WanderMethod.Angle)
                        yaw = Frame.AnglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, out pitch);
                    else if (turned && method == WanderMethod.Noise)
                    {
                        // Shift the noise curves so they continue from the turned target.
                        double turnedPitch;
                        double turnedYaw = Frame.AnglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, out turnedPitch);
                        yaw = Frame.ShiftOffsets(yaw, pitch, turnedYaw - usedYaw, turnedPitch - usedPitch, out pitch);
                        usedYaw = turnedYaw;
                        usedPitch = turnedPitch;
                    }
                    tx = px + hx * distance + wx * radius;
                    ty = py + hy * distance + wy * radius;
                    tz = pz + hz * distance + wz * radius;
                }

                // 3. Steering, blended with containment.
                double dx = tx - px, dy = ty - py, dz = tz - pz;
                if (g.Desired)
                {
                    double d = Math.Sqrt(dx * dx + dy * dy + dz * dz);
                    if (d > Tiny)
                    {
                        double inverse = 1.0 / d;
                        dx = dx * inverse;
                        dy = dy * inverse;
                        dz = dz * inverse;
                    }
                    else
                    {
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
                if (weight > 0.0)
                {
                    double c = maxForce * weight / Math.Sqrt(ix * ix + iy * iy + iz * iz);
                    fx += ix * c;
                    fy += iy * c;
                    fz += iz * c;
                }

                // 4. Vehicle model: truncate the force, integrate (lengths compared squared).
                double f2 = fx * fx + fy * fy + fz * fz;
                if (f2 > maxForce * maxForce)
                {
                    double scale = maxForce / Math.Sqrt(f2);
                    fx = fx * scale;
                    fy = fy * scale;
                    fz = fz * scale;
                }
                double accel = g.InverseMass * dt;
                vx += fx * accel;
                vy += fy * accel;
                vz += fz * accel;
                double speed2 = vx * vx + vy * vy + vz * vz;
                bool moving = speed2 > 1e-18;
                double nx = 0.0, ny = 0.0, nz = 0.0;
                if (moving)
                {
                    double inverse = 1.0 / Math.Sqrt(speed2);
                    nx = vx * inverse;
                    ny = vy * inverse;
                    nz = vz * inverse;
                    if (speed2 > maxSpeed * maxSpeed)
                    {
                        vx = nx * maxSpeed;
                        vy = ny * maxSpeed;
                        vz = nz * maxSpeed;
                    }
                }
                px += vx * dt;
                py += vy * dt;
                pz += vz * dt;

                // 5. Carry the frame and the target with the heading.
                if (moving)
                {
                    if (method == WanderMethod.Angle || method == WanderMethod.Noise)
                    {
                        Frame.TransportPair(ref sx, ref sy, ref sz, ref wx, ref wy, ref wz, hx, hy, hz, nx, ny, nz);
                        // Pull the side level (same sign, so it never flips): fully for a level
                        // heading, less towards vertical, where the level side swings fast.
                        double level2 = nx * nx + nz * nz;
                        if ((step & levelMask) == 0 && level2 > 1e-12)
                        {
                            double inverse = 1.0 / Math.Sqrt(level2);
                            double lx = -nz * inverse, lz = nx * inverse;
                            if (lx * sx + lz * sz < 0.0)
                            {
                                lx = -lx;
                                lz = -lz;
                            }
                            sx += level2 * (lx - sx);
                            sy -= level2 * sy;
                            sz += level2 * (lz - sz);
                            inverse = 1.0 / Math.Sqrt(sx * sx + sy * sy + sz * sz);
                            sx = sx * inverse;
                            sy = sy * inverse;
                            sz = sz * inverse;
                        }
                    }
                    else
                        Frame.Transport(ref wx, ref wy, ref wz, hx, hy, hz, nx, ny, nz);
                    hx = nx;
                    hy = ny;
                    hz = nz;
                }

                // 6. The hard guarantee: reflect agents that left the box.
                bool crossed = false;
                if (px < lox || px > hix)
                {
                    px = px < lox ? 2.0 * lox - px : 2.0 * hix - px;
                    px = DetMath.Min(hix, DetMath.Max(lox, px));
                    vx = -vx;
                    hx = -hx;
                    sx = -sx;
                    wx = -wx;
                    crossed = true;
                }
                if (py < loy || py > hiy)
                {
                    py = py < loy ? 2.0 * loy - py : 2.0 * hiy - py;
                    py = DetMath.Min(hiy, DetMath.Max(loy, py));
                    vy = -vy;
                    hy = -hy;
                    sy = -sy;
                    wy = -wy;
                    crossed = true;
                }
                if (pz < loz || pz > hiz)
                {
                    pz = pz < loz ? 2.0 * loz - pz : 2.0 * hiz - pz;
                    pz = DetMath.Min(hiz, DetMath.Max(loz, pz));
                    vz = -vz;
                    hz = -hz;
                    sz = -sz;
                    wz = -wz;
                    crossed = true;
                }
                if (crossed && (method == WanderMethod.Angle || method == WanderMethod.Noise))
                {
                    // The mirror flips the frame's handedness; re-express the target in it.
                    double w = Math.Sqrt(wx * wx + wy * wy + wz * wz);
                    double mirroredPitch;
                    double mirroredYaw = Frame.AnglesFromDirection(wx / w, wy / w, wz / w, hx, hy, hz, sx, sy, sz, out mirroredPitch);
                    if (method == WanderMethod.Angle)
                    {
                        yaw = mirroredYaw;
                        pitch = mirroredPitch;
                    }
                    else
                        yaw = Frame.ShiftOffsets(yaw, pitch, mirroredYaw - usedYaw, mirroredPitch - usedPitch, out pitch);
                }
            }

            Set3(Position, i, px, py, pz);
            Set3(Velocity, i, vx, vy, vz);
            Set3(Heading, i, hx, hy, hz);
            Set3(side, i, sx, sy, sz);
            Set3(wander, i, wx, wy, wz);
            angles[2 * i] = yaw;
            angles[2 * i + 1] = pitch;
            Set3(Force, i, fx, fy, fz);
        }
    }
}
