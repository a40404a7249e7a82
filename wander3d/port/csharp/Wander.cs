// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// Wander.cs: wander3d's wander steering for C# games (Unity, Godot 4 .NET, any .NET), identical
// to the engine.
//
// A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
// same scene, start and seed give the same positions at every step. .NET standard library only
// (C# 7.3, no engine API). The contract it follows is docs/ports.md of wander3d: IEEE doubles
// evaluated in the engine's order, its own sin/cos/atan2/asin/exp (detmath), and a
// counter-based random stream keyed by (seed, agent, step, draw).
//
// Two ways in, on the same functions. The composable call, from a character's own fixed update
// (its position and velocity are the game's; the wander gives a force to add to its others):
//
//   var wander = new Wander(parameters, seed, box);              // one per kind of character
//   WanderAgent agent = wander.Agent(id, position, velocity);    // one per character
//   // each fixed tick:
//   wander.Steer(agent, position, velocity, dt);                 // agent.Force, agent.Containment
//   Double3 force = agent.Force + agent.Containment + seek;     // that sum first, then the game's
//   Double3 heading;
//   if (Wander.Integrate(ref position, ref velocity, force, wander.Params, dt, out heading))
//       wander.Follow(agent, heading);                           // skip when it did not move
//   box.Reflect(agent, ref position, ref velocity);              // the hard walls (optional)
//
// The hosted flock, that loop over a scene's agents:
//
//   var flock = new Flock(WanderScene.Create());   // agents spawned in the box
//   double alpha = flock.Update(frameSeconds);     // fixed dt steps; alpha for drawing
//   Double3 p = flock.PositionAt(i, alpha);
//
// Parameters (WanderParams) may be changed at any time; they act from the next step. Units:
// lengths in world units, times in seconds; the frame is right-handed with +y up (an engine
// adapter converts: Unity's frame is left-handed, z negated).

using System;
using System.Globalization;
using System.Runtime.CompilerServices;

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

    /// <summary>Three doubles: a position (units), a velocity (units/s), a force or a unit
    /// direction, in wander3d's frame (right-handed, +y up).</summary>
    public struct Double3
    {
        public double X, Y, Z;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public Double3(double x, double y, double z)
        {
            X = x;
            Y = y;
            Z = z;
        }

        /// <summary>Component by component. IEEE addition of -0.0 changes nothing, so adding a
        /// containment of (-0, -0, -0) leaves a force as it is, bit for bit.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static Double3 operator +(Double3 a, Double3 b)
        {
            return new Double3(a.X + b.X, a.Y + b.Y, a.Z + b.Z);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static Double3 operator -(Double3 a, Double3 b)
        {
            return new Double3(a.X - b.X, a.Y - b.Y, a.Z - b.Z);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static Double3 operator *(Double3 a, double s)
        {
            return new Double3(a.X * s, a.Y * s, a.Z * s);
        }

        /// <summary>sqrt(x*x + y*y + z*z).</summary>
        public double Length
        {
            get { return Math.Sqrt(X * X + Y * Y + Z * Z); }
        }

        public override string ToString()
        {
            return string.Format(CultureInfo.InvariantCulture, "({0:R}, {1:R}, {2:R})", X, Y, Z);
        }
    }

    /// <summary>
    /// One kind of character's parameters (a scene group's). Edit them at any time: they act
    /// from the next step, and what is derived from them (and from dt) is recomputed once
    /// when a value or dt changed, never per agent. A value outside its range throws
    /// ArgumentOutOfRangeException naming the parameter.
    /// </summary>
    public sealed class WanderParams
    {
        WanderMethod method = WanderMethod.Sphere;
        Steering steering = Steering.Force;
        double maxSpeed = 40.0;
        double maxForce = 60.0;
        double mass = 1.0;
        double initialSpeed = 20.0;
        double distance = 30.0;
        double radius = 12.0;
        double jitter = 10.0;
        double rate = 0.8;
        double frequency = 0.3;
        double interval = 4.0;
        double vertical = 1.0;

        // Bumped by every change, so that each Wander sharing these parameters sees it.
        internal int version;
        internal double InverseMass = 1.0; // 1 / Mass, for Integrate

        /// <summary>How the target moves. Setting it directly switches without care (the
        /// target may jump once); Wander.ContinueFrom or Flock.SetMethod switch smoothly.</summary>
        public WanderMethod Method
        {
            get { return method; }
            set
            {
                method = value;
                version++;
            }
        }

        /// <summary>How the target becomes a steering force.</summary>
        public Steering Steering
        {
            get { return steering; }
            set
            {
                steering = value;
                version++;
            }
        }

        /// <summary>units/s: speed limit (> 0).</summary>
        public double MaxSpeed
        {
            get { return maxSpeed; }
            set { maxSpeed = Checked(value, "MaxSpeed", 0.0, true, double.MaxValue); }
        }

        /// <summary>mass*units/s^2: limit on the steering force (> 0).</summary>
        public double MaxForce
        {
            get { return maxForce; }
            set { maxForce = Checked(value, "MaxForce", 0.0, true, double.MaxValue); }
        }

        /// <summary>acceleration = force / mass (>= 1e-6).</summary>
        public double Mass
        {
            get { return mass; }
            set
            {
                mass = Checked(value, "Mass", 1e-6, false, double.MaxValue);
                InverseMass = 1.0 / mass;
            }
        }

        /// <summary>units/s: the speed of agents the port spawns (>= 0).</summary>
        public double InitialSpeed
        {
            get { return initialSpeed; }
            set { initialSpeed = Checked(value, "InitialSpeed", 0.0, false, double.MaxValue); }
        }

        /// <summary>units: the wander sphere's centre ahead of the agent (>= 0).</summary>
        public double Distance
        {
            get { return distance; }
            set { distance = Checked(value, "Distance", 0.0, false, double.MaxValue); }
        }

        /// <summary>units: the wander sphere's radius (> 0).</summary>
        public double Radius
        {
            get { return radius; }
            set { radius = Checked(value, "Radius", 0.0, true, double.MaxValue); }
        }

        /// <summary>units/sqrt(s): the sphere method's random displacement (>= 0).</summary>
        public double Jitter
        {
            get { return jitter; }
            set { jitter = Checked(value, "Jitter", 0.0, false, double.MaxValue); }
        }

        /// <summary>rad/sqrt(s): the angle method's random walk of yaw and pitch (>= 0).</summary>
        public double Rate
        {
            get { return rate; }
            set { rate = Checked(value, "Rate", 0.0, false, double.MaxValue); }
        }

        /// <summary>1/s: the noise method's pace (> 0).</summary>
        public double Frequency
        {
            get { return frequency; }
            set { frequency = Checked(value, "Frequency", 0.0, true, double.MaxValue); }
        }

        /// <summary>s: the seek method's time between new points (> 0).</summary>
        public double Interval
        {
            get { return interval; }
            set { interval = Checked(value, "Interval", 0.0, true, double.MaxValue); }
        }

        /// <summary>0..1: up/down freedom (1 isotropic, 0 level).</summary>
        public double Vertical
        {
            get { return vertical; }
            set { vertical = Checked(value, "Vertical", 0.0, false, 1.0); }
        }

        public WanderParams Clone()
        {
            return (WanderParams)MemberwiseClone();
        }

        double Checked(double value, string name, double low, bool open, double high)
        {
            if (double.IsNaN(value) || (open ? value <= low : value < low) || value > high)
            {
                string range = (open ? "> " : ">= ") + low.ToString("R", CultureInfo.InvariantCulture);
                if (high < double.MaxValue)
                    range += " and <= " + high.ToString("R", CultureInfo.InvariantCulture);
                throw new ArgumentOutOfRangeException(name, value, name + " must be " + range);
            }
            version++;
            return value;
        }
    }

    /// <summary>
    /// An axis-aligned box: the region seek draws its points from, the band inside its walls
    /// where containment turns agents back (Margin), and the walls Reflect mirrors agents off.
    /// Immutable: make a new one to move it.
    /// </summary>
    public sealed class WanderBox
    {
        const double RampFraction = 0.25; // the containment push ramps to full over this part of the margin

        // The corners as plain doubles: Mono copies a whole struct to read one of its fields.
        internal readonly double LowX, LowY, LowZ, HighX, HighY, HighZ;

        /// <summary>units: agents start turning back this far inside a wall (0: only Reflect
        /// keeps them in).</summary>
        public readonly double Margin;

        internal readonly double InverseRamp;

        public WanderBox(Double3 min, Double3 max, double margin)
        {
            if (!(min.X < max.X && min.Y < max.Y && min.Z < max.Z))
                throw new ArgumentException("a box's min must be below its max on every axis");
            double smallest = Math.Min(max.X - min.X, Math.Min(max.Y - min.Y, max.Z - min.Z));
            if (!(margin >= 0.0 && 2.0 * margin < smallest))
                throw new ArgumentOutOfRangeException("margin", margin, "margin must be >= 0 and less than half the box's smallest extent");
            LowX = min.X;
            LowY = min.Y;
            LowZ = min.Z;
            HighX = max.X;
            HighY = max.Y;
            HighZ = max.Z;
            Margin = margin;
            InverseRamp = margin > 0.0 ? 1.0 / (margin * RampFraction) : 0.0;
        }

        /// <summary>units: the lowest corner.</summary>
        public Double3 Min
        {
            get { return new Double3(LowX, LowY, LowZ); }
        }

        /// <summary>units: the highest corner.</summary>
        public Double3 Max
        {
            get { return new Double3(HighX, HighY, HighZ); }
        }

        /// <summary>
        /// Stage 6, the hard guarantee: an agent outside the box is mirrored back in (position,
        /// velocity, and the agent's frame and target). True if it was. Call it after
        /// integrating; a game with its own collision may skip it.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool Reflect(WanderAgent agent, ref Double3 position, ref Double3 velocity)
        {
            return Reflect(ref agent.State, ref position, ref velocity);
        }

        /// <summary>Reflect on the agent's state.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool Reflect(ref AgentState a, ref Double3 position, ref Double3 velocity)
        {
            if (position.X < LowX || position.X > HighX || position.Y < LowY || position.Y > HighY || position.Z < LowZ || position.Z > HighZ)
            {
                Mirror(ref a, ref position, ref velocity);
                return true;
            }
            return false;
        }

        void Mirror(ref AgentState a, ref Double3 position, ref Double3 velocity)
        {
            double px = position.X, py = position.Y, pz = position.Z;
            double lox = LowX, loy = LowY, loz = LowZ;
            double hix = HighX, hiy = HighY, hiz = HighZ;
            Double3 h = new Double3(a.hx, a.hy, a.hz), s = new Double3(a.sx, a.sy, a.sz), w = new Double3(a.wx, a.wy, a.wz);
            if (px < lox || px > hix)
            {
                px = px < lox ? 2.0 * lox - px : 2.0 * hix - px;
                position.X = DetMath.Min(hix, DetMath.Max(lox, px));
                velocity.X = -velocity.X;
                h.X = -h.X;
                s.X = -s.X;
                w.X = -w.X;
            }
            if (py < loy || py > hiy)
            {
                py = py < loy ? 2.0 * loy - py : 2.0 * hiy - py;
                position.Y = DetMath.Min(hiy, DetMath.Max(loy, py));
                velocity.Y = -velocity.Y;
                h.Y = -h.Y;
                s.Y = -s.Y;
                w.Y = -w.Y;
            }
            if (pz < loz || pz > hiz)
            {
                pz = pz < loz ? 2.0 * loz - pz : 2.0 * hiz - pz;
                position.Z = DetMath.Min(hiz, DetMath.Max(loz, pz));
                velocity.Z = -velocity.Z;
                h.Z = -h.Z;
                s.Z = -s.Z;
                w.Z = -w.Z;
            }
            a.hx = h.X;
            a.hy = h.Y;
            a.hz = h.Z;
            a.sx = s.X;
            a.sy = s.Y;
            a.sz = s.Z;
            a.wx = w.X;
            a.wy = w.Y;
            a.wz = w.Z;
            WanderMethod method = a.tickMethod;
            if (method == WanderMethod.Angle || method == WanderMethod.Noise)
            {
                // The mirror flips the frame's handedness; re-express the target in it.
                double n = Math.Sqrt(w.X * w.X + w.Y * w.Y + w.Z * w.Z);
                double pitch;
                double yaw = Frame.AnglesFromDirection(w.X / n, w.Y / n, w.Z / n, h.X, h.Y, h.Z, s.X, s.Y, s.Z, out pitch);
                if (method == WanderMethod.Angle)
                {
                    a.yaw = yaw;
                    a.pitch = pitch;
                }
                else
                    a.yaw = Frame.ShiftOffsets(a.yaw, a.pitch, yaw - a.usedYaw, pitch - a.usedPitch, out a.pitch);
            }
        }
    }

    /// <summary>
    /// One agent's wander state: everything but its position and velocity, which are the
    /// game's. Made by Wander.Agent (an agent the game placed), Wander.Spawn (the port's own
    /// start) or Wander.Restore (wander3d's exact start, from start.txt). Dropping an agent is
    /// dropping this object.
    /// </summary>
    public sealed class WanderAgent
    {
        /// <summary>The agent's id: its random stream is (seed, Id), so agents come and go
        /// without changing the others' runs.</summary>
        public readonly long Id;

        internal AgentState State; // all that a tick changes (see AgentState)

        internal WanderAgent(long id, ulong key)
        {
            Id = id;
            State.Key = key;
            State.held = -1;
            State.noiseCache = new double[12];
            Forget();
        }

        /// <summary>Unit vector: where the agent faces (its last Follow).</summary>
        public Double3 Heading
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get { return new Double3(State.hx, State.hy, State.hz); }
            internal set
            {
                State.hx = value.X;
                State.hy = value.Y;
                State.hz = value.Z;
            }
        }

        /// <summary>The last tick's wander steering force (mass*units/s^2).</summary>
        public Double3 Force
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get { return new Double3(State.fx, State.fy, State.fz); }
        }

        /// <summary>The last tick's containment force; (-0, -0, -0) when the box did not push.</summary>
        public Double3 Containment
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get { return new Double3(State.cx, State.cy, State.cz); }
        }

        /// <summary>The point the last tick steered towards (units).</summary>
        public Double3 Target
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get { return new Double3(State.tx, State.ty, State.tz); }
        }

        internal Double3 Side
        {
            get { return new Double3(State.sx, State.sy, State.sz); }
            set
            {
                State.sx = value.X;
                State.sy = value.Y;
                State.sz = value.Z;
            }
        }

        internal Double3 Direction
        {
            get { return new Double3(State.wx, State.wy, State.wz); }
            set
            {
                State.wx = value.X;
                State.wy = value.Y;
                State.wz = value.Z;
            }
        }

        internal Double3 SeekPoint
        {
            get { return new Double3(State.seekX, State.seekY, State.seekZ); }
            set
            {
                State.seekX = value.X;
                State.seekY = value.Y;
                State.seekZ = value.Z;
            }
        }

        /// <summary>Ticks steered since the agent was made.</summary>
        public long Steps
        {
            get { return State.steps; }
        }

        /// <summary>Drop the cached noise gradients (the noise keys changed).</summary>
        internal void Forget()
        {
            for (int j = 0; j < State.noiseCache.Length; j++)
                State.noiseCache[j] = double.NaN;
        }
    }

    /// <summary>One agent's wander state, a WanderAgent's State. A struct, so that the tick's
    /// stages take it by ref: Mono's JIT reaches a field through a ref with one instruction,
    /// where an object's field costs a null check too and locals copied in and out cost two.</summary>
    internal struct AgentState
    {
        internal ulong Key; // agent_key(seed_key, Id)
        // Plain doubles, not Double3s: Mono's JIT reads a field of a struct field through an
        // address and a null check each time, which made each tick a third slower.
        internal double hx, hy, hz; // heading (unit)
        internal double sx, sy, sz; // side (unit)
        internal double wx, wy, wz; // direction: the target's on the sphere (unit)
        internal double yaw, pitch; // angle: the target's angles; noise: offsets of its curves
        internal ulong noiseKey0, noiseKey1;
        internal double noisePhase0, noisePhase1;
        internal double frequency, interval; // the values the noise phases and seek timer follow
        internal double[] noiseCache; // the noise curves' cells and gradients
        internal double seekX, seekY, seekZ; // the point sought
        internal double seekTimer;
        internal long held; // random method: the hold whose direction is in heldDirection
        internal double heldX, heldY, heldZ;
        internal long steps; // ticks steered: the agent's own step count
        internal WanderMethod tickMethod; // the method of the last tick (Follow, Reflect)
        internal double usedYaw, usedPitch; // the noise method's target angles of the last tick
        internal double fx, fy, fz, cx, cy, cz, tx, ty, tz; // force, containment, target
    }

    /// <summary>A group of identical agents: its name, how many, its parameters.</summary>
    public sealed class GroupSpec
    {
        public string Name;
        public int Count;
        public WanderParams Params;
    }

    /// <summary>What a flock is made from: seed, step, box and groups (WanderScene.Create()
    /// gives the tuned scene's).</summary>
    public sealed class SceneSpec
    {
        public string Name;
        public uint Seed; // seeds every random number of the run
        public double Dt; // seconds per fixed step
        public WanderBox Box;
        public GroupSpec[] Groups;
    }

    // ---------------------------------------------------------------- the scene (generated)
    // BEGIN SCENE: `wander3d port` writes the scene's parameters here.
    public static class WanderScene
    {
        public static SceneSpec Create()
        {
            return new SceneSpec
            {
                Name = "Default",
                Seed = 7, // any integer in [0, 2^32): seeds every random number of the run
                Dt = 0.0166667, // seconds per fixed step
                Box = new WanderBox(
                    new Double3(-100.0, -60.0, -100.0), // lowest corner (units)
                    new Double3(100.0, 60.0, 100.0), // highest corner (units)
                    15.0 // margin: agents start turning back this far inside a wall (units)
                ),
                Groups = new[]
                {
                    new GroupSpec
                    {
                        Name = "wanderers",
                        Count = 300, // agents
                        Params = new WanderParams
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
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
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
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static ulong HashAt(ulong key, long n)
        {
            return unchecked(Mix(key + (ulong)n * Golden));
        }

        /// <summary>The draw-th uniform double in [0, 1) of stream key.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
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

    /// <summary>What a tick reads of a Wander's parameters, dt and box, and the constants
    /// derived from them (docs/ports.md, "One step"): made again by Wander.Prepare when one of
    /// them changed, never per agent. A struct read through a ref, one instruction a field
    /// under Mono's JIT (an object's field costs a null check more).</summary>
    internal struct Derived
    {
        const double RandomHold = 1.0 / 30.0; // s: the random method's direction is held this long
        const double PitchSpread = 0.7; // rad: the angle method's pitch spread at vertical 1
        const double LevelSeconds = 0.14; // s: at most this often the side vector is pulled level

        // What it was made from: the parameters at their version, the box, dt.
        internal WanderParams Source;
        internal int Version;
        internal WanderBox Box;
        internal double Dt;

        internal WanderMethod Method;
        internal bool Desired;
        internal double Distance, Radius, Vertical, MaxSpeed, MaxForce, InverseMass, Frequency, Interval;
        internal double JitterStep, RateStep, OffsetFade, StopTime, PitchDecay, PitchKick;
        internal double RandomHolds, RandomGain;
        internal long LevelMask;
        // The box (zeros without one, as no containment reads them).
        internal double Margin, InverseRamp, LowX, LowY, LowZ, HighX, HighY, HighZ;

        internal void Refresh(WanderParams p, WanderBox box, double dt)
        {
            if (!(dt > 0.0) || double.IsInfinity(dt))
                throw new ArgumentOutOfRangeException("dt", dt, "dt must be > 0 seconds");
            Method = p.Method;
            Desired = p.Steering == Steering.Desired;
            Distance = p.Distance;
            Radius = p.Radius;
            Vertical = p.Vertical;
            MaxSpeed = p.MaxSpeed;
            MaxForce = p.MaxForce;
            InverseMass = p.InverseMass;
            Frequency = p.Frequency;
            Interval = p.Interval;
            double rootDt = Math.Sqrt(dt);
            JitterStep = p.Jitter * rootDt;
            RateStep = p.Rate * rootDt;
            OffsetFade = DetMath.Exp(-dt * p.Frequency);
            StopTime = 0.5 * p.Mass / p.MaxForce;
            // The angle method's pitch walk (engine: kernel.pitch_walk): an Ornstein-Uhlenbeck
            // walk with a spread of Vertical * PitchSpread rad.
            double spread = p.Vertical * PitchSpread, rate = p.Rate;
            if (rate <= 0.0)
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
                PitchDecay = DetMath.Exp(-dt * rate * rate / (6.0 * spread * spread));
                PitchKick = spread * Math.Sqrt(3.0 * (1.0 - PitchDecay * PitchDecay));
            }
            // Random method: which hold a step falls in (its centre, so rounding never splits
            // a hold), and the white-noise scaling where a step is longer than a hold.
            RandomHolds = DetMath.Min(1.0, dt / RandomHold);
            RandomGain = Math.Sqrt(DetMath.Min(1.0, RandomHold / dt));
            // Pull the side level every 2^k steps, the most within LevelSeconds.
            long levelSteps = 1;
            while (2 * levelSteps * dt <= LevelSeconds)
                levelSteps *= 2;
            LevelMask = levelSteps - 1;
            Margin = box == null ? 0.0 : box.Margin;
            InverseRamp = box == null ? 0.0 : box.InverseRamp;
            LowX = box == null ? 0.0 : box.LowX;
            LowY = box == null ? 0.0 : box.LowY;
            LowZ = box == null ? 0.0 : box.LowZ;
            HighX = box == null ? 0.0 : box.HighX;
            HighY = box == null ? 0.0 : box.HighY;
            HighZ = box == null ? 0.0 : box.HighZ;
            Source = p;
            Version = p.version;
            Box = box;
            Dt = dt;
        }
    }

    // ---------------------------------------------------------------- the composable call
    /// <summary>
    /// The wander behaviour of one kind of character: its parameters, a seed and the box (or
    /// none). Many agents share it. Per agent, once per fixed tick, in this order: Steer, add
    /// the forces (Force + Containment first), Integrate (or the game's own physics), Follow,
    /// and the box's Reflect. No allocation per tick.
    /// </summary>
    public sealed class Wander
    {
        /// <summary>Ids are integers in [0, MaxId), unique among the live agents of a seed.</summary>
        public const long MaxId = 1L << 53;

        const ulong SpawnSalt = 0x2545F4914F6CDD1DUL; // the port's own draws' stream
        const double Lookahead = 0.25; // s: agents look this far ahead (plus their stopping time)
        const double Tiny = 1e-12;

        WanderParams parameters;
        readonly ulong seedKey;
        internal Derived derived; // what ticks read of the parameters, dt and box (Prepare)

        /// <summary>Seeds every random number of the agents' runs.</summary>
        public readonly uint Seed;

        /// <summary>The box seek draws from and containment keeps agents in; null for none
        /// (then no containment and no target turned at walls; seek needs a box).</summary>
        public WanderBox Box;

        public Wander(WanderParams parameters, uint seed, WanderBox box = null)
        {
            Params = parameters;
            Seed = seed;
            Box = box;
            seedKey = RandomStream.SeedKey(seed);
        }

        /// <summary>The parameters; edit them at any time (or swap in another object).</summary>
        public WanderParams Params
        {
            get { return parameters; }
            set
            {
                if (value == null)
                    throw new ArgumentNullException("Params");
                parameters = value;
            }
        }

        // ------------------------------------------------------------ making agents
        /// <summary>
        /// The wander state of an agent the game placed: heading along its velocity (+x when
        /// the velocity is zero), the rest drawn from the agent's own stream (docs/ports.md,
        /// "Start", steps 3-6; its seek point as step 1 draws it, or its position without a box).
        /// </summary>
        public WanderAgent Agent(long id, Double3 position, Double3 velocity)
        {
            WanderAgent agent = NewAgent(id);
            ulong key = SpawnKey(agent);
            double h = Math.Sqrt(velocity.X * velocity.X + velocity.Y * velocity.Y + velocity.Z * velocity.Z);
            Double3 heading = new Double3(1.0, 0.0, 0.0);
            if (h > 0.0)
                heading = new Double3(velocity.X / h, velocity.Y / h, velocity.Z / h);
            Double3 seek = position;
            if (Box != null)
            {
                Double3 ignored;
                InBox(key, out ignored, out seek);
            }
            Setup(agent, key, heading, seek);
            return agent;
        }

        /// <summary>
        /// A new agent by the ports' own start rule (needs a box): position uniform inside the
        /// margin, heading uniform in direction with its up component scaled by Vertical, speed
        /// InitialSpeed. The same seed and id start the same agent in every port.
        /// </summary>
        public WanderAgent Spawn(long id, out Double3 position, out Double3 velocity)
        {
            RequireBox("Spawn");
            WanderAgent agent = NewAgent(id);
            ulong key = SpawnKey(agent);
            Double3 seek;
            InBox(key, out position, out seek);
            double hx, hy, hz;
            RandomStream.InUnitBall(key, out hx, out hy, out hz);
            hy *= parameters.Vertical;
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
            double speed = parameters.InitialSpeed;
            velocity = new Double3(hx * speed, hy * speed, hz * speed);
            Setup(agent, key, new Double3(hx, hy, hz), seek);
            return agent;
        }

        /// <summary>Agent row of a start.txt (wander3d's exact start), as agent id; row's
        /// group must be this wander's kind (the caller knows which).</summary>
        public WanderAgent Restore(WanderStart start, int row, long id, out Double3 position, out Double3 velocity)
        {
            WanderAgent agent = NewAgent(id);
            position = start.Vector(row, 0);
            velocity = start.Vector(row, 1);
            agent.Heading = start.Vector(row, 2);
            agent.Side = start.Vector(row, 3);
            agent.Direction = start.Vector(row, 4);
            agent.State.yaw = start.Number(row, 15);
            agent.State.pitch = start.Number(row, 16);
            agent.State.noisePhase0 = start.Number(row, 17);
            agent.State.noisePhase1 = start.Number(row, 18);
            agent.SeekPoint = new Double3(start.Number(row, 19), start.Number(row, 20), start.Number(row, 21));
            agent.State.seekTimer = start.Number(row, 22);
            agent.State.noiseKey0 = start.NoiseKey(row, 0);
            agent.State.noiseKey1 = start.NoiseKey(row, 1);
            agent.State.frequency = parameters.Frequency;
            agent.State.interval = parameters.Interval;
            agent.State.tickMethod = parameters.Method;
            return agent;
        }

        WanderAgent NewAgent(long id)
        {
            if (id < 0 || id >= MaxId)
                throw new ArgumentOutOfRangeException("id", id, "an agent's id is in [0, 2^53)");
            return new WanderAgent(id, RandomStream.AgentKey(seedKey, id));
        }

        /// <summary>The agent's spawn stream key (the port's own draws: spawn, method switches).</summary>
        static ulong SpawnKey(WanderAgent agent)
        {
            return RandomStream.Mix(agent.State.Key ^ SpawnSalt);
        }

        void RequireBox(string what)
        {
            if (Box == null)
                throw new InvalidOperationException(what + " needs a box (Wander.Box)");
        }

        /// <summary>Start step 1: a position and a seek point uniform inside the margin.</summary>
        void InBox(ulong key, out Double3 position, out Double3 seek)
        {
            WanderBox box = Box;
            double m = box.Margin;
            double x0 = box.Min.X + m, y0 = box.Min.Y + m, z0 = box.Min.Z + m;
            double x1 = (box.Max.X - m) - x0, y1 = (box.Max.Y - m) - y0, z1 = (box.Max.Z - m) - z0;
            position = new Double3(
                x0 + RandomStream.Uniform(key, 0) * x1,
                y0 + RandomStream.Uniform(key, 1) * y1,
                z0 + RandomStream.Uniform(key, 2) * z1
            );
            seek = new Double3(
                x0 + RandomStream.Uniform(key, 3) * x1,
                y0 + RandomStream.Uniform(key, 4) * y1,
                z0 + RandomStream.Uniform(key, 5) * z1
            );
        }

        /// <summary>Start steps 3-6 for an agent facing heading (unit).</summary>
        void Setup(WanderAgent agent, ulong key, Double3 heading, Double3 seekPoint)
        {
            WanderParams p = parameters;
            double hx = heading.X, hy = heading.Y, hz = heading.Z;
            double sx, sy, sz;
            Frame.LevelSide(hx, hy, hz, out sx, out sy, out sz);
            double yaw = (2.0 * RandomStream.Uniform(key, 6) - 1.0) * Frame.Pi;
            double pitch = (2.0 * RandomStream.Uniform(key, 7) - 1.0) * Frame.HalfPi * p.Vertical;
            bool angle = p.Method == WanderMethod.Angle;
            agent.Heading = heading;
            agent.Side = new Double3(sx, sy, sz);
            agent.State.yaw = angle ? yaw : 0.0;
            agent.State.pitch = angle ? pitch : 0.0;
            // Below 2^63, as the engine draws them: the top bit cleared.
            agent.State.noiseKey0 = RandomStream.HashAt(key, 9) & 0x7FFFFFFFFFFFFFFFUL;
            agent.State.noiseKey1 = RandomStream.HashAt(key, 10) & 0x7FFFFFFFFFFFFFFFUL;
            agent.State.noisePhase0 = RandomStream.Uniform(key, 11) * 1024.0;
            agent.State.noisePhase1 = RandomStream.Uniform(key, 12) * 1024.0;
            agent.SeekPoint = seekPoint;
            agent.State.seekTimer = RandomStream.Uniform(key, 13) * p.Interval;
            double wx = hx, wy = hy, wz = hz;
            if (angle)
                Frame.DirectionFromAngles(yaw, pitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
            else if (p.Method == WanderMethod.Noise)
            {
                double noisePitch;
                double noiseYaw = Frame.NoiseAngles(
                    agent.State.noiseKey0,
                    agent.State.noiseKey1,
                    agent.State.noisePhase0,
                    agent.State.noisePhase1,
                    0.0,
                    p.Vertical,
                    0.0,
                    0.0,
                    agent.State.noiseCache,
                    0,
                    out noisePitch
                );
                Frame.DirectionFromAngles(noiseYaw, noisePitch, hx, hy, hz, sx, sy, sz, out wx, out wy, out wz);
            }
            agent.Direction = new Double3(wx, wy, wz);
            agent.State.frequency = p.Frequency;
            agent.State.interval = p.Interval;
            agent.State.tickMethod = p.Method;
        }

        // ------------------------------------------------------------ one tick
        /// <summary>
        /// Stages 1-3 of a tick for an agent at position with velocity: the containment
        /// look-ahead (with a box), the method's target (advancing the agent's random state;
        /// turned inward on axes heading into a wall), steering. Writes agent.Force (the wander
        /// steering) and agent.Containment ((-0, -0, -0) when the box does not push): their
        /// sum is wander3d's blended force exactly. Counts the agent's step.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Steer(WanderAgent agent, Double3 position, Double3 velocity, double dt)
        {
            Prepare(dt);
            SteerCore(ref agent.State, ref position, ref velocity, dt);
        }

        /// <summary>Make `derived` current for the parameters, dt and the box (compared with
        /// what it was made from: a cheap test, so each Steer calls it), and require a box for
        /// seek: what SteerCore and FollowCore assume.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void Prepare(double dt)
        {
            WanderParams p = parameters;
            if (p.version != derived.Version || (object)p != derived.Source || Box != derived.Box || dt != derived.Dt)
                derived.Refresh(p, Box, dt);
            if (Box == null && p.Method == WanderMethod.Seek)
                RequireBox("The seek method");
        }

        /// <summary>Steer on an agent's state (Prepare(dt) done). Fields are used where they
        /// are, through refs, and not copied into locals: Mono's JIT keeps no double in a
        /// register, so a copy only adds a store and a load.</summary>
        internal void SteerCore(ref AgentState a, ref Double3 position, ref Double3 velocity, double dt)
        {
            ref Derived k = ref derived;
            WanderMethod method = k.Method;
            long step = a.steps;
            ulong key = RandomStream.StreamKey(a.Key, step);

            // 1. Containment, per axis: + pushes towards high, - towards low.
            double ix = 0.0, iy = 0.0, iz = 0.0;
            double margin = k.Margin;
            if (margin > 0.0)
            {
                double stopTime = k.StopTime, inverseRamp = k.InverseRamp;
                double vx = velocity.X, vy = velocity.Y, vz = velocity.Z;
                double aheadX = position.X + vx * (Lookahead + Math.Abs(vx) * stopTime);
                double aheadY = position.Y + vy * (Lookahead + Math.Abs(vy) * stopTime);
                double aheadZ = position.Z + vz * (Lookahead + Math.Abs(vz) * stopTime);
                // The kernel's min(1, max(0, t)), written out as its first-argument-on-ties
                // comparisons (t > 0 ? min(t, 1) : +0): DetMath's calls, inlined, take Mono's
                // JIT twice the instructions.
                double t;
                if (a.hx < 0.0)
                {
                    t = (k.LowX + margin - aheadX) * inverseRamp;
                    ix = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
                }
                else if (a.hx > 0.0)
                {
                    t = (aheadX - (k.HighX - margin)) * inverseRamp;
                    ix = -(t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0);
                }
                if (a.hy < 0.0)
                {
                    t = (k.LowY + margin - aheadY) * inverseRamp;
                    iy = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
                }
                else if (a.hy > 0.0)
                {
                    t = (aheadY - (k.HighY - margin)) * inverseRamp;
                    iy = -(t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0);
                }
                if (a.hz < 0.0)
                {
                    t = (k.LowZ + margin - aheadZ) * inverseRamp;
                    iz = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
                }
                else if (a.hz > 0.0)
                {
                    t = (aheadZ - (k.HighZ - margin)) * inverseRamp;
                    iz = -(t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0);
                }
            }
            // max(|ix|, max(|iy|, |iz|)), the same way.
            double ay = Math.Abs(iy), az = Math.Abs(iz);
            double weight = az > ay ? az : ay, ax = Math.Abs(ix);
            weight = weight > ax ? weight : ax;

            // 2. The wander target.
            double tx, ty, tz;
            if (method == WanderMethod.Seek)
            {
                if (k.Interval != a.interval)
                {
                    // A shorter interval applies now, not after the current (longer) countdown.
                    a.seekTimer = DetMath.Min(a.seekTimer, k.Interval);
                    a.interval = k.Interval;
                }
                a.seekTimer -= dt;
                if (a.seekTimer <= 0.0)
                {
                    a.seekX = k.LowX + margin + RandomStream.Uniform(key, 0) * (k.HighX - k.LowX - 2 * margin);
                    a.seekY = k.LowY + margin + RandomStream.Uniform(key, 1) * (k.HighY - k.LowY - 2 * margin);
                    a.seekZ = k.LowZ + margin + RandomStream.Uniform(key, 2) * (k.HighZ - k.LowZ - 2 * margin);
                    a.seekTimer += k.Interval;
                }
                tx = a.seekX;
                ty = a.seekY;
                tz = a.seekZ;
            }
            else
            {
                double ux, uy, uz; // a draw in the unit ball (sphere, random): one set of locals, zeroed once by the JIT
                if (method == WanderMethod.Sphere)
                {
                    RandomStream.InUnitBall(key, out ux, out uy, out uz);
                    double qx = a.wx * k.Radius + ux * k.JitterStep;
                    double qy = a.wy * k.Radius + uy * k.JitterStep * k.Vertical;
                    double qz = a.wz * k.Radius + uz * k.JitterStep;
                    double q = Math.Sqrt(qx * qx + qy * qy + qz * qz);
                    // The point can reach the centre only if jitter*sqrt(dt) >= radius.
                    if (q > 1e-9 * k.Radius)
                    {
                        double inverse = 1.0 / q;
                        a.wx = qx * inverse;
                        a.wy = qy * inverse;
                        a.wz = qz * inverse;
                    }
                }
                else if (method == WanderMethod.Angle)
                {
                    double yaw = a.yaw + (2.0 * RandomStream.Uniform(key, 0) - 1.0) * k.RateStep;
                    double pitch = a.pitch * k.PitchDecay + (2.0 * RandomStream.Uniform(key, 1) - 1.0) * k.PitchKick;
                    if (yaw >= Frame.Pi || yaw < -Frame.Pi)
                        yaw = DetMath.FloorMod(yaw + Frame.Pi, 2.0 * Frame.Pi) - Frame.Pi;
                    a.yaw = yaw;
                    a.pitch = Frame.ReflectPitch(pitch);
                    Frame.DirectionFromAngles(a.yaw, a.pitch, a.hx, a.hy, a.hz, a.sx, a.sy, a.sz, out a.wx, out a.wy, out a.wz);
                }
                else if (method == WanderMethod.Noise)
                {
                    if (k.Frequency != a.frequency)
                    {
                        // The noise coordinate is time * frequency: keep it where it is, or a
                        // new frequency would move the agent to an unrelated point of its curves.
                        double shift = (step * dt) * (a.frequency - k.Frequency);
                        a.noisePhase0 += shift;
                        a.noisePhase1 += shift;
                        a.frequency = k.Frequency;
                    }
                    // Offsets from wall turns fade, so the agent returns to its own curve.
                    a.yaw *= k.OffsetFade;
                    a.pitch *= k.OffsetFade;
                    a.usedYaw = Frame.NoiseAngles(
                        a.noiseKey0,
                        a.noiseKey1,
                        a.noisePhase0,
                        a.noisePhase1,
                        step * dt * k.Frequency,
                        k.Vertical,
                        a.yaw,
                        a.pitch,
                        a.noiseCache,
                        0,
                        out a.usedPitch
                    );
                    Frame.DirectionFromAngles(a.usedYaw, a.usedPitch, a.hx, a.hy, a.hz, a.sx, a.sy, a.sz, out a.wx, out a.wy, out a.wz);
                }
                else
                {
                    // Random: a fresh uniform direction every RandomHold s.
                    long hold = (long)((step + 0.5) * k.RandomHolds);
                    if (hold != a.held)
                    {
                        a.held = hold;
                        RandomStream.InUnitBall(RandomStream.StreamKey(a.Key, hold), out ux, out uy, out uz);
                        uy *= k.Vertical;
                        double u = Math.Sqrt(ux * ux + uy * uy + uz * uz);
                        if (u < 1e-9)
                        {
                            // vertical = 0 and a purely vertical draw
                            ux = 1.0;
                            uy = 0.0;
                            uz = 0.0;
                            u = 1.0;
                        }
                        double gain = k.RandomGain / u;
                        a.heldX = ux * gain;
                        a.heldY = uy * gain;
                        a.heldZ = uz * gain;
                    }
                    a.wx = a.heldX;
                    a.wy = a.heldY;
                    a.wz = a.heldZ;
                }
                // Turn the target inward on axes heading into a wall, so the agent does not
                // head straight back out; a mirror keeps it on the sphere.
                if (weight > 0.0 && TurnInward(ref a, ix, iy, iz))
                {
                    if (method == WanderMethod.Angle)
                        a.yaw = Frame.AnglesFromDirection(a.wx, a.wy, a.wz, a.hx, a.hy, a.hz, a.sx, a.sy, a.sz, out a.pitch);
                    else if (method == WanderMethod.Noise)
                    {
                        // Shift the noise curves so they continue from the turned target.
                        double turnedPitch;
                        double turnedYaw = Frame.AnglesFromDirection(a.wx, a.wy, a.wz, a.hx, a.hy, a.hz, a.sx, a.sy, a.sz, out turnedPitch);
                        a.yaw = Frame.ShiftOffsets(a.yaw, a.pitch, turnedYaw - a.usedYaw, turnedPitch - a.usedPitch, out a.pitch);
                        a.usedYaw = turnedYaw;
                        a.usedPitch = turnedPitch;
                    }
                }
                tx = position.X + a.hx * k.Distance + a.wx * k.Radius;
                ty = position.Y + a.hy * k.Distance + a.wy * k.Radius;
                tz = position.Z + a.hz * k.Distance + a.wz * k.Radius;
            }

            // 3. Steering; containment apart (its sum with the force is the engine's blend).
            double dx = tx - position.X, dy = ty - position.Y, dz = tz - position.Z;
            if (k.Desired)
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
                    dx = a.hx;
                    dy = a.hy;
                    dz = a.hz;
                }
                double maxSpeed = k.MaxSpeed;
                dx = dx * maxSpeed - velocity.X;
                dy = dy * maxSpeed - velocity.Y;
                dz = dz * maxSpeed - velocity.Z;
            }
            dy *= k.Vertical;
            double keep = 1.0 - weight;
            a.fx = dx * keep;
            a.fy = dy * keep;
            a.fz = dz * keep;
            if (weight > 0.0)
            {
                double c = k.MaxForce * weight / Math.Sqrt(ix * ix + iy * iy + iz * iz);
                a.cx = ix * c;
                a.cy = iy * c;
                a.cz = iz * c;
            }
            else
            {
                a.cx = -0.0;
                a.cy = -0.0;
                a.cz = -0.0;
            }
            a.tx = tx;
            a.ty = ty;
            a.tz = tz;
            a.tickMethod = method;
            a.steps = step + 1;
        }

        /// <summary>The target's direction turned inward on the axes where the containment
        /// pushes (ix, iy, iz) and it points out; whether any was.</summary>
        static bool TurnInward(ref AgentState a, double ix, double iy, double iz)
        {
            bool turned = false;
            if ((ix > 0.0 && a.wx < 0.0) || (ix < 0.0 && a.wx > 0.0))
            {
                a.wx = -a.wx;
                turned = true;
            }
            if ((iy > 0.0 && a.wy < 0.0) || (iy < 0.0 && a.wy > 0.0))
            {
                a.wy = -a.wy;
                turned = true;
            }
            if ((iz > 0.0 && a.wz < 0.0) || (iz < 0.0 && a.wz > 0.0))
            {
                a.wz = -a.wz;
                turned = true;
            }
            return turned;
        }

        /// <summary>
        /// Stage 4, the vehicle model, for games without their own: force truncated to
        /// MaxForce, velocity += force * (InverseMass * dt), speed clamped to MaxSpeed,
        /// position += velocity * dt. Returns whether the agent moves; heading is its new unit
        /// direction (taken before the speed clamp; zero when it does not move).
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static bool Integrate(
            ref Double3 position,
            ref Double3 velocity,
            Double3 force,
            WanderParams parameters,
            double dt,
            out Double3 heading
        )
        {
            return IntegrateCore(ref position, ref velocity, ref force, parameters.MaxForce, parameters.MaxSpeed, parameters.InverseMass, dt, out heading);
        }

        /// <summary>Integrate with the parameters' values given (the hosted flock's from its
        /// derived constants).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static bool IntegrateCore(
            ref Double3 position,
            ref Double3 velocity,
            ref Double3 force,
            double maxForce,
            double maxSpeed,
            double inverseMass,
            double dt,
            out Double3 heading
        )
        {
            // In place (force is the caller's scratch), each value computed as the kernel
            // does. Lengths compared squared: within the limits, no square root or division.
            double f2 = force.X * force.X + force.Y * force.Y + force.Z * force.Z;
            if (f2 > maxForce * maxForce)
            {
                double scale = maxForce / Math.Sqrt(f2);
                force.X = force.X * scale;
                force.Y = force.Y * scale;
                force.Z = force.Z * scale;
            }
            double accel = inverseMass * dt;
            velocity.X = velocity.X + force.X * accel;
            velocity.Y = velocity.Y + force.Y * accel;
            velocity.Z = velocity.Z + force.Z * accel;
            double speed2 = velocity.X * velocity.X + velocity.Y * velocity.Y + velocity.Z * velocity.Z;
            bool moving = speed2 > 1e-18;
            if (moving)
            {
                double inverse = 1.0 / Math.Sqrt(speed2);
                heading.X = velocity.X * inverse;
                heading.Y = velocity.Y * inverse;
                heading.Z = velocity.Z * inverse;
                if (speed2 > maxSpeed * maxSpeed)
                {
                    velocity.X = heading.X * maxSpeed;
                    velocity.Y = heading.Y * maxSpeed;
                    velocity.Z = heading.Z * maxSpeed;
                }
            }
            else
            {
                heading.X = 0.0;
                heading.Y = 0.0;
                heading.Z = 0.0;
            }
            position.X += velocity.X * dt;
            position.Y += velocity.Y * dt;
            position.Z += velocity.Z * dt;
            return moving;
        }

        /// <summary>
        /// Stage 5: the agent now faces heading (unit); its frame and wander target are carried
        /// with it (parallel transport; the side pulled level on level steps). Call it every
        /// tick the agent moved, after Steer.
        /// </summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Follow(WanderAgent agent, Double3 heading)
        {
            FollowCore(ref agent.State, heading.X, heading.Y, heading.Z);
        }

        /// <summary>Follow on an agent's state, to the unit heading (nx, ny, nz).</summary>
        internal void FollowCore(ref AgentState a, double nx, double ny, double nz)
        {
            WanderMethod method = a.tickMethod;
            if (method == WanderMethod.Angle || method == WanderMethod.Noise)
            {
                Frame.TransportPair(ref a.sx, ref a.sy, ref a.sz, ref a.wx, ref a.wy, ref a.wz, a.hx, a.hy, a.hz, nx, ny, nz);
                // Pull the side level (same sign, so it never flips): fully for a level
                // heading, less towards vertical, where the level side swings fast.
                double level2 = nx * nx + nz * nz;
                if (((a.steps - 1) & derived.LevelMask) == 0 && level2 > 1e-12)
                {
                    double inverse = 1.0 / Math.Sqrt(level2);
                    double lx = -nz * inverse, lz = nx * inverse;
                    if (lx * a.sx + lz * a.sz < 0.0)
                    {
                        lx = -lx;
                        lz = -lz;
                    }
                    a.sx += level2 * (lx - a.sx);
                    a.sy -= level2 * a.sy;
                    a.sz += level2 * (lz - a.sz);
                    inverse = 1.0 / Math.Sqrt(a.sx * a.sx + a.sy * a.sy + a.sz * a.sz);
                    a.sx = a.sx * inverse;
                    a.sy = a.sy * inverse;
                    a.sz = a.sz * inverse;
                }
            }
            else if (method != WanderMethod.Seek)
                Frame.Transport(ref a.wx, ref a.wy, ref a.wz, a.hx, a.hy, a.hz, nx, ny, nz);
            // (Seek's target is its point: nothing reads its wander direction until a switch
            // away from seek sets it afresh, as the engine's does, so it is not carried.)
            a.hx = nx;
            a.hy = ny;
            a.hz = nz;
        }

        // ------------------------------------------------------------ switching and drawing
        /// <summary>
        /// After Params.Method changed from previous: set the agent up for the new method so
        /// that it continues from where its target is (as wander3d's app does). The wander
        /// direction keeps pointing where it did (from seek: from the sphere's centre to the
        /// point sought); angle and noise measure its yaw and pitch in a fresh level frame
        /// (noise: new curves, offset to pass through it); seek seeks the shown target, kept
        /// inside the margin. New draws come from the agent's spawn stream at its step.
        /// </summary>
        public void ContinueFrom(WanderAgent agent, Double3 position, WanderMethod previous, double dt)
        {
            WanderParams p = parameters;
            WanderMethod method = p.Method;
            if (method == previous)
                return;
            if (method == WanderMethod.Seek)
                RequireBox("The seek method");
            double px = position.X, py = position.Y, pz = position.Z;
            double hx = agent.State.hx, hy = agent.State.hy, hz = agent.State.hz;
            double wx = agent.State.wx, wy = agent.State.wy, wz = agent.State.wz;
            if (previous == WanderMethod.Seek)
            {
                wx = agent.State.seekX - (px + hx * p.Distance);
                wy = agent.State.seekY - (py + hy * p.Distance);
                wz = agent.State.seekZ - (pz + hz * p.Distance);
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
            agent.Direction = new Double3(wx, wy, wz);
            ulong key = RandomStream.StreamKey(SpawnKey(agent), agent.State.steps);
            if (method == WanderMethod.Angle || method == WanderMethod.Noise)
            {
                double sx, sy, sz, pitch;
                Frame.LevelSide(hx, hy, hz, out sx, out sy, out sz);
                agent.Side = new Double3(sx, sy, sz);
                double yaw = Frame.AnglesFromDirection(wx, wy, wz, hx, hy, hz, sx, sy, sz, out pitch);
                if (method == WanderMethod.Angle)
                {
                    agent.State.yaw = yaw;
                    agent.State.pitch = pitch;
                }
                else
                {
                    agent.State.noiseKey0 = RandomStream.HashAt(key, 1) & 0x7FFFFFFFFFFFFFFFUL;
                    agent.State.noiseKey1 = RandomStream.HashAt(key, 2) & 0x7FFFFFFFFFFFFFFFUL;
                    agent.State.noisePhase0 = RandomStream.Uniform(key, 3) * 1024.0;
                    agent.State.noisePhase1 = RandomStream.Uniform(key, 4) * 1024.0;
                    agent.State.frequency = p.Frequency;
                    agent.Forget();
                    double curvePitch;
                    double curveYaw = Frame.NoiseAngles(
                        agent.State.noiseKey0,
                        agent.State.noiseKey1,
                        agent.State.noisePhase0,
                        agent.State.noisePhase1,
                        agent.State.steps * dt * p.Frequency,
                        p.Vertical,
                        0.0,
                        0.0,
                        agent.State.noiseCache,
                        0,
                        out curvePitch
                    );
                    agent.State.yaw = Frame.ShiftOffsets(0.0, 0.0, yaw - curveYaw, pitch - curvePitch, out agent.State.pitch);
                }
            }
            else if (method == WanderMethod.Seek)
            {
                WanderBox box = Box;
                Double3 shown = previous == WanderMethod.Seek
                    ? agent.SeekPoint
                    : new Double3(px + hx * p.Distance + wx * p.Radius, py + hy * p.Distance + wy * p.Radius, pz + hz * p.Distance + wz * p.Radius);
                double m = box.Margin;
                agent.SeekPoint = new Double3(
                    DetMath.Min(box.Max.X - m, DetMath.Max(box.Min.X + m, shown.X)),
                    DetMath.Min(box.Max.Y - m, DetMath.Max(box.Min.Y + m, shown.Y)),
                    DetMath.Min(box.Max.Z - m, DetMath.Max(box.Min.Z + m, shown.Z))
                );
                agent.State.seekTimer = RandomStream.Uniform(key, 5) * p.Interval;
                agent.State.interval = p.Interval;
            }
            agent.State.held = -1;
            agent.State.tickMethod = method;
        }

        /// <summary>The target as it stands now, for drawing: the seek point, or the agent's
        /// point on its wander sphere.</summary>
        public Double3 ShownTarget(WanderAgent agent, Double3 position)
        {
            WanderParams p = parameters;
            if (p.Method == WanderMethod.Seek)
                return agent.SeekPoint;
            Double3 h = agent.Heading, w = agent.Direction;
            return new Double3(
                position.X + h.X * p.Distance + w.X * p.Radius,
                position.Y + h.Y * p.Distance + w.Y * p.Radius,
                position.Z + h.Z * p.Distance + w.Z * p.Radius
            );
        }

        /// <summary>The agent's wander sphere, for debug drawing: its centre, and its radius
        /// as the return value (0 for seek, whose target is a point of the box).</summary>
        public double WanderSphere(WanderAgent agent, Double3 position, out Double3 centre)
        {
            WanderParams p = parameters;
            Double3 h = agent.Heading;
            centre = new Double3(position.X + h.X * p.Distance, position.Y + h.Y * p.Distance, position.Z + h.Z * p.Distance);
            return p.Method == WanderMethod.Seek ? 0.0 : p.Radius;
        }
    }

    // ---------------------------------------------------------------- start.txt
    /// <summary>A start.txt read: wander3d's exact starting state of a scene's agents
    /// (docs/ports.md, "Start"). Parse throws FormatException naming the line at fault.</summary>
    public sealed class WanderStart
    {
        const int Doubles = 23;
        readonly int[] groups;
        readonly double[] numbers;
        readonly ulong[] keys;

        WanderStart(int count)
        {
            groups = new int[count];
            numbers = new double[Doubles * count];
            keys = new ulong[2 * count];
        }

        /// <summary>Agents in the start.</summary>
        public int Count
        {
            get { return groups.Length; }
        }

        /// <summary>The group index of row's agent.</summary>
        public int GroupOf(int row)
        {
            return groups[row];
        }

        public static WanderStart Parse(string text)
        {
            if (text == null)
                throw new ArgumentNullException("text");
            string[] lines = text.Replace("\r", "").Split('\n'); // a checkout may add \r
            int first = 0; // the licence lines on top
            while (first < lines.Length && lines[first].StartsWith("#", StringComparison.Ordinal))
                first++;
            if (first >= lines.Length || lines[first] != "wander3d-start 1")
                throw new FormatException("line " + (first + 1) + ": not a wander3d start (\"wander3d-start 1\" expected)");
            int count;
            string agents = first + 1 < lines.Length ? lines[first + 1] : "";
            if (
                !agents.StartsWith("agents ", StringComparison.Ordinal)
                || !int.TryParse(agents.Substring(7), NumberStyles.None, CultureInfo.InvariantCulture, out count)
            )
                throw new FormatException("line " + (first + 2) + ": \"agents N\" expected");
            var start = new WanderStart(count);
            for (int i = 0; i < count; i++)
            {
                int line = first + 2 + i;
                string[] f = line < lines.Length ? lines[line].Split(' ') : new string[0];
                int group;
                if (f.Length != 26 || !int.TryParse(f[0], NumberStyles.None, CultureInfo.InvariantCulture, out group))
                    throw new FormatException("line " + (line + 1) + ": agent " + i + " needs 26 fields (a group, 23 doubles, 2 keys)");
                start.groups[i] = group;
                for (int k = 0; k < 25; k++)
                {
                    ulong bits;
                    if (!ulong.TryParse(f[1 + k], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out bits) || f[1 + k].Length != 16)
                        throw new FormatException("line " + (line + 1) + ": field " + (k + 2) + " is not 16 hex digits");
                    if (k < Doubles)
                        start.numbers[Doubles * i + k] = BitConverter.Int64BitsToDouble(unchecked((long)bits));
                    else
                        start.keys[2 * i + k - Doubles] = bits;
                }
            }
            return start;
        }

        internal double Number(int row, int field)
        {
            return numbers[Doubles * row + field];
        }

        /// <summary>Row's vector k: position, velocity, heading, side, wander direction.</summary>
        internal Double3 Vector(int row, int k)
        {
            int at = Doubles * row + 3 * k;
            return new Double3(numbers[at], numbers[at + 1], numbers[at + 2]);
        }

        internal ulong NoiseKey(int row, int k)
        {
            return keys[2 * row + k];
        }
    }

    // ---------------------------------------------------------------- the hosted flock
    /// <summary>A group of the flock: its name, agents First .. First + Count - 1, and its
    /// behaviour (Wander.Params: edit them at any time).</summary>
    public sealed class Group
    {
        public readonly string Name;
        public readonly int First;
        public readonly int Count;
        public readonly Wander Wander;

        public Group(string name, int first, int count, Wander wander)
        {
            Name = name;
            First = first;
            Count = count;
            Wander = wander;
        }

        public WanderParams Params
        {
            get { return Wander.Params; }
        }
    }

    /// <summary>
    /// A scene's agents wandering in its box, advanced in fixed steps of Dt seconds: the
    /// composable call's tick over every agent (agent i's id is i). Position, Previous (the
    /// positions before the last step, for drawing) and Velocity are the agents' own;
    /// Agents[i] their wander state (Heading, Force, Target...).
    /// </summary>
    public sealed class Flock
    {
        /// <summary>A frame longer than this (s) counts as this long: a stall (a breakpoint, a
        /// loading hitch) makes no burst of steps.</summary>
        public const double MaxFrameSeconds = 0.25;

        public readonly uint Seed;
        public readonly double Dt;
        public readonly WanderBox Box;
        public readonly Group[] Groups;
        public readonly int Count;
        public readonly int[] GroupOf;
        public long StepCount { get; private set; } // steps taken since the start

        public readonly Double3[] Position;
        public readonly Double3[] Previous;
        public readonly Double3[] Velocity;
        public readonly WanderAgent[] Agents;
        double accumulator; // s of frame time not yet stepped

        /// <summary>A flock of scene's groups (their parameters copied). start: the text of a
        /// start.txt (wander3d's exact start of the scene), or null to spawn agents by the
        /// ports' own rule (see Spawn).</summary>
        public Flock(SceneSpec scene, string start = null)
        {
            if (!(scene.Dt > 0.0))
                throw new ArgumentOutOfRangeException("scene", scene.Dt, "a scene's Dt must be > 0 seconds");
            Seed = scene.Seed;
            Dt = scene.Dt;
            Box = scene.Box;
            Groups = new Group[scene.Groups.Length];
            int n = 0;
            for (int g = 0; g < Groups.Length; g++)
            {
                GroupSpec spec = scene.Groups[g];
                Groups[g] = new Group(spec.Name, n, spec.Count, new Wander(spec.Params.Clone(), Seed, Box));
                n += spec.Count;
            }
            Count = n;
            GroupOf = new int[n];
            for (int g = 0; g < Groups.Length; g++)
                for (int i = Groups[g].First; i < Groups[g].First + Groups[g].Count; i++)
                    GroupOf[i] = g;
            Position = new Double3[n];
            Previous = new Double3[n];
            Velocity = new Double3[n];
            Agents = new WanderAgent[n];
            if (start == null)
                Spawn();
            else
                LoadStart(start);
        }

        /// <summary>Start from a start.txt (wander3d's exact start of this scene); a bad one
        /// throws FormatException and leaves the flock as it was.</summary>
        public void LoadStart(string text)
        {
            WanderStart start = WanderStart.Parse(text);
            if (start.Count != Count)
                throw new FormatException("the start has " + start.Count + " agents, the scene " + Count);
            for (int i = 0; i < Count; i++)
                if (start.GroupOf(i) != GroupOf[i])
                    throw new FormatException("start line " + (i + 3) + " is not agent " + i + "'s (group " + start.GroupOf(i) + ", not " + GroupOf[i] + ")");
            for (int i = 0; i < Count; i++)
                Agents[i] = Groups[GroupOf[i]].Wander.Restore(start, i, i, out Position[i], out Velocity[i]);
            Restart();
        }

        /// <summary>Start every agent afresh by the ports' own rule (Wander.Spawn), from the
        /// seed; not wander3d's start, which start.txt carries.</summary>
        public void Spawn()
        {
            for (int i = 0; i < Count; i++)
                Agents[i] = Groups[GroupOf[i]].Wander.Spawn(i, out Position[i], out Velocity[i]);
            Restart();
        }

        void Restart()
        {
            StepCount = 0;
            accumulator = 0.0;
            Array.Copy(Position, Previous, Count);
        }

        /// <summary>Switch group g to method, each agent continuing from where its target is
        /// (Wander.ContinueFrom). Setting Params.Method directly switches without this care.</summary>
        public void SetMethod(int g, WanderMethod method)
        {
            Group group = Groups[g];
            WanderMethod old = group.Params.Method;
            if (method == old)
                return;
            group.Params.Method = method;
            for (int i = group.First; i < group.First + group.Count; i++)
                group.Wander.ContinueFrom(Agents[i], Position[i], old, Dt);
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
                Array.Copy(Position, Previous, Count);
                Advance(1);
            }
            return accumulator / Dt;
        }

        /// <summary>Agent i's drawn position at alpha between its last two steps.</summary>
        public Double3 PositionAt(int i, double alpha)
        {
            Double3 a = Previous[i], b = Position[i];
            return new Double3(a.X + (b.X - a.X) * alpha, a.Y + (b.Y - a.Y) * alpha, a.Z + (b.Z - a.Z) * alpha);
        }

        /// <summary>Agent i's wander sphere for debug drawing: centre, and radius as the
        /// return value (0 for seek).</summary>
        public double WanderSphere(int i, out Double3 centre)
        {
            return Groups[GroupOf[i]].Wander.WanderSphere(Agents[i], Position[i], out centre);
        }

        /// <summary>Agent i's target as it stands now (Wander.ShownTarget).</summary>
        public Double3 TargetOf(int i)
        {
            return Groups[GroupOf[i]].Wander.ShownTarget(Agents[i], Position[i]);
        }

        /// <summary>Take steps fixed steps of Dt: per agent, the composable call's tick
        /// (agents are independent, so each takes all its steps in turn).</summary>
        public void Advance(int steps)
        {
            double dt = Dt;
            for (int g = 0; g < Groups.Length; g++)
                Groups[g].Wander.Prepare(dt);
            WanderBox box = Box;
            WanderAgent[] agents = Agents;
            Double3[] position = Position, velocity = Velocity;
            for (int i = 0; i < Count; i++)
                Tick(Groups[GroupOf[i]].Wander, box, ref agents[i].State, ref position[i], ref velocity[i], dt, steps);
            StepCount += steps;
        }

        /// <summary>An agent's steps: the composable call's tick, steps times, each stage on
        /// the agent's state by ref (Integrate and Reflect inlined). The constants come from
        /// the Wander's Derived, made current by Advance's Prepare: no edit comes between.</summary>
        static void Tick(Wander wander, WanderBox box, ref AgentState a, ref Double3 position, ref Double3 velocity, double dt, int steps)
        {
            ref Derived k = ref wander.derived;
            Double3 force, heading;
            for (int s = 0; s < steps; s++)
            {
                wander.SteerCore(ref a, ref position, ref velocity, dt);
                force.X = a.fx + a.cx;
                force.Y = a.fy + a.cy;
                force.Z = a.fz + a.cz;
                if (Wander.IntegrateCore(ref position, ref velocity, ref force, k.MaxForce, k.MaxSpeed, k.InverseMass, dt, out heading))
                    wander.FollowCore(ref a, heading.X, heading.Y, heading.Z);
                box.Reflect(ref a, ref position, ref velocity);
            }
        }
    }
}
