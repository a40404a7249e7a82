// Probe.cs: what tests/test_port_csharp.py asks of the C# core beyond the conformance CSV.
// Built with a core (Wander.cs) and Conformance.cs (-main:Wander3d.Probe):
//
//   mono probe.exe format F32.BIN F64.BIN   every float32, then every double, one per line
//   mono probe.exe framerate                steps compared at 144, 24 fps and jittery frames
//   mono probe.exe spawn                    spawn: inside the margin, unit headings, seeded
//   mono probe.exe edit                     the fastest speed after maxSpeed = 5, one step on
//   mono probe.exe spawned                  per agent of FiveMethods(), spawned: position,
//                                           velocity, heading, target as hex doubles
//   mono probe.exe switch                   SetMethod through every method: how far targets
//                                           moved per method, alignment from seek, inside, method
//   mono probe.exe crlf START               "same" if START read with \r\n line ends runs alike
//   mono probe.exe churn                    agents dropped and added at run time (see Churn)
//   mono probe.exe edits EDITS START STEPS  the scene's run from START with the edits of file
//                                           EDITS, hosted and composed: their end states

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;

namespace Wander3d
{
    static class Probe
    {
        static int Main(string[] args)
        {
            var output = new StringBuilder();
            if (args[0] == "format")
            {
                var shortest = new Shortest();
                byte[] f32 = File.ReadAllBytes(args[1]);
                for (int i = 0; i < f32.Length; i += 4)
                    output.Append(shortest.Float(BitConverter.ToSingle(f32, i))).Append('\n');
                byte[] f64 = File.ReadAllBytes(args[2]);
                for (int i = 0; i < f64.Length; i += 8)
                    output.Append(shortest.Double(BitConverter.ToDouble(f64, i))).Append('\n');
            }
            else if (args[0] == "framerate")
                output.Append(FrameRate());
            else if (args[0] == "spawn")
                output.Append(Spawn());
            else if (args[0] == "spawned")
                output.Append(Spawned());
            else if (args[0] == "switch")
                output.Append(Switch());
            else if (args[0] == "edit")
                output.Append(Edit().ToString("R", CultureInfo.InvariantCulture));
            else if (args[0] == "crlf")
                output.Append(Crlf(File.ReadAllText(args[1])));
            else if (args[0] == "churn")
                output.Append(Churn());
            else if (args[0] == "edits")
                output.Append(Edits(File.ReadAllLines(args[1]), File.ReadAllText(args[2]), int.Parse(args[3], CultureInfo.InvariantCulture)));
            Console.Out.Write(output.ToString());
            return 0;
        }

        static SceneSpec Small(int count)
        {
            SceneSpec scene = WanderScene.Create();
            scene.Groups[0].Count = count;
            return scene;
        }

        static bool Same(Double3 a, Double3 b)
        {
            return BitConverter.DoubleToInt64Bits(a.X) == BitConverter.DoubleToInt64Bits(b.X)
                && BitConverter.DoubleToInt64Bits(a.Y) == BitConverter.DoubleToInt64Bits(b.Y)
                && BitConverter.DoubleToInt64Bits(a.Z) == BitConverter.DoubleToInt64Bits(b.Z);
        }

        static string Hex(Double3 v)
        {
            return BitConverter.DoubleToInt64Bits(v.X).ToString("x16") + " "
                + BitConverter.DoubleToInt64Bits(v.Y).ToString("x16") + " "
                + BitConverter.DoubleToInt64Bits(v.Z).ToString("x16");
        }

        static bool Inside(Double3 p, WanderBox box, double margin)
        {
            return p.X >= box.Min.X + margin && p.X <= box.Max.X - margin
                && p.Y >= box.Min.Y + margin && p.Y <= box.Max.Y - margin
                && p.Z >= box.Min.Z + margin && p.Z <= box.Max.Z - margin;
        }

        /// "compared N alpha OK|BAD mid D": steps at which three frame rates' runs met and were
        /// equal (else it throws), whether every alpha was in [0, 1), and how far
        /// PositionAt(0, 0.5) is from the midpoint of the last two steps.
        static string FrameRate()
        {
            Flock a = new Flock(Small(20)), b = new Flock(Small(20)), c = new Flock(Small(20));
            int compared = 0;
            bool alphaOk = true;
            long seed = 1;
            while (a.StepCount < 1200)
            {
                a.Update(1.0 / 144.0);
                if (b.StepCount < a.StepCount)
                    b.Update(1.0 / 24.0);
                if (c.StepCount < a.StepCount)
                {
                    seed = seed * 16807 % 2147483647;
                    double alpha = c.Update(seed / 2147483647.0 * 0.4); // stalls beyond 0.25 s too
                    alphaOk &= alpha >= 0.0 && alpha < 1.0;
                }
                foreach (Flock other in new[] { b, c })
                {
                    if (other.StepCount != a.StepCount)
                        continue;
                    compared++;
                    for (int j = 0; j < a.Count; j++)
                        if (!Same(other.Position[j], a.Position[j]))
                            throw new Exception("differs at step " + a.StepCount);
                }
            }
            double mid = Math.Abs(c.PositionAt(0, 0.5).X - (c.Previous[0].X + c.Position[0].X) / 2);
            return "compared " + compared + " alpha " + (alphaOk ? "OK" : "BAD") + " mid "
                + mid.ToString("R", CultureInfo.InvariantCulture);
        }

        /// The default scene with 30 agents of each method, vertical 0.4, default parameters.
        static SceneSpec FiveMethods()
        {
            SceneSpec scene = WanderScene.Create();
            var methods = (WanderMethod[])Enum.GetValues(typeof(WanderMethod));
            scene.Groups = new GroupSpec[methods.Length];
            for (int m = 0; m < methods.Length; m++)
            {
                var p = new WanderParams { Method = methods[m], Vertical = 0.4 };
                scene.Groups[m] = new GroupSpec { Name = methods[m].ToString(), Count = 30, Params = p };
            }
            return scene;
        }

        static string Spawned()
        {
            var flock = new Flock(FiveMethods());
            var text = new StringBuilder();
            for (int i = 0; i < flock.Count; i++)
            {
                foreach (Double3 v in new[] { flock.Position[i], flock.Velocity[i], flock.Agents[i].Heading, flock.TargetOf(i) })
                    text.Append(Hex(v)).Append(' ');
                text.Append('\n');
            }
            return text.ToString();
        }

        /// The words that hold: inside (spawned inside the margin), unit (unit headings), same
        /// (a second flock of the seed is equal), differs (another seed's is not), stays (in
        /// the box after 60 s).
        static string Spawn()
        {
            SceneSpec scene = FiveMethods();
            Flock a = new Flock(scene), b = new Flock(scene);
            scene.Seed = 8;
            var other = new Flock(scene);
            bool inside = true, unit = true, stays = true;
            for (int i = 0; i < a.Count; i++)
            {
                inside &= Inside(a.Position[i], a.Box, a.Box.Margin);
                unit &= Math.Abs(a.Agents[i].Heading.Length - 1.0) < 1e-12;
            }
            bool same = true, differs = false;
            for (int j = 0; j < a.Count; j++)
            {
                same &= Same(a.Position[j], b.Position[j]);
                differs |= !Same(a.Position[j], other.Position[j]);
            }
            a.Advance(3600);
            for (int i = 0; i < a.Count; i++)
                stays &= Inside(a.Position[i], a.Box, 0.0);
            var words = new StringBuilder();
            if (inside) words.Append("inside ");
            if (unit) words.Append("unit ");
            if (same) words.Append("same ");
            if (differs) words.Append("differs ");
            if (stays) words.Append("stays");
            return words.ToString().Trim();
        }

        static string Switch()
        {
            var flock = new Flock(Small(40));
            flock.Advance(120);
            var moved = new SortedDictionary<string, double>();
            double aligned = 1.0;
            WanderMethod[] order =
            {
                WanderMethod.Angle, WanderMethod.Noise, WanderMethod.Random, WanderMethod.Seek,
                WanderMethod.Sphere, WanderMethod.Noise, WanderMethod.Angle,
            };
            foreach (WanderMethod method in order)
            {
                var before = new Double3[flock.Count];
                for (int i = 0; i < flock.Count; i++)
                    before[i] = flock.TargetOf(i);
                bool fromSeek = flock.Groups[0].Params.Method == WanderMethod.Seek;
                flock.SetMethod(0, method);
                double worst = 0.0;
                for (int i = 0; i < flock.Count; i++)
                {
                    Double3 centre;
                    flock.WanderSphere(i, out centre);
                    Double3 now = flock.TargetOf(i);
                    Double3 d = now - before[i], t = now - centre, b = before[i] - centre;
                    worst = Math.Max(worst, d.Length);
                    if (fromSeek) // the sphere's point nearest the point sought
                        aligned = Math.Min(aligned, (t.X * b.X + t.Y * b.Y + t.Z * b.Z) / (t.Length * b.Length));
                }
                string name = method.ToString().ToLowerInvariant();
                moved[name] = moved.ContainsKey(name) ? Math.Max(moved[name], worst) : worst;
                flock.Advance(60);
            }
            bool inside = true;
            for (int i = 0; i < flock.Count; i++)
                inside &= Inside(flock.Position[i], flock.Box, 0.0);
            var text = new StringBuilder();
            foreach (var entry in moved)
                text.Append(entry.Key).Append(' ').Append(entry.Value.ToString("R", CultureInfo.InvariantCulture)).Append(' ');
            text.Append("aligned ").Append(aligned.ToString("R", CultureInfo.InvariantCulture));
            text.Append(" inside ").Append(inside ? "yes" : "no");
            text.Append(" method ").Append(flock.Groups[0].Params.Method.ToString().ToLowerInvariant());
            return text.ToString();
        }

        static string Crlf(string start)
        {
            var unix = new Flock(WanderScene.Create(), start);
            var windows = new Flock(WanderScene.Create(), start.Replace("\n", "\r\n"));
            unix.Advance(60);
            windows.Advance(60);
            for (int j = 0; j < unix.Count; j++)
                if (!Same(unix.Position[j], windows.Position[j]) || !Same(unix.Velocity[j], windows.Velocity[j]))
                    return "differs";
            return "same";
        }

        static double Edit()
        {
            var flock = new Flock(WanderScene.Create());
            flock.Advance(30);
            flock.Groups[0].Params.MaxSpeed = 5.0;
            flock.Advance(1);
            double fastest = 0.0;
            for (int i = 0; i < flock.Count; i++)
                fastest = Math.Max(fastest, flock.Velocity[i].Length);
            return fastest;
        }

        // ------------------------------------------------------------ the composable call
        /// A game's character as README.md shows it: its own position and velocity.
        sealed class Mover
        {
            public Double3 Position, Velocity;
            public Wander Kind;
            public WanderAgent Agent;

            public void Tick(double dt)
            {
                Kind.Steer(Agent, Position, Velocity, dt);
                Double3 heading;
                if (Wander.Integrate(ref Position, ref Velocity, Agent.Force + Agent.Containment, Kind.Params, dt, out heading))
                    Kind.Follow(Agent, heading);
                Kind.Box.Reflect(Agent, ref Position, ref Velocity);
            }
        }

        /// FiveMethods' agents spawned by id, in a game's list.
        static List<Mover> Movers(Wander[] kinds, int perKind)
        {
            var movers = new List<Mover>();
            for (int g = 0; g < kinds.Length; g++)
                for (int k = 0; k < perKind; k++)
                {
                    var m = new Mover { Kind = kinds[g] };
                    m.Agent = kinds[g].Spawn(g * perKind + k, out m.Position, out m.Velocity);
                    movers.Add(m);
                }
            return movers;
        }

        static Wander[] Kinds(SceneSpec scene)
        {
            var kinds = new Wander[scene.Groups.Length];
            for (int g = 0; g < kinds.Length; g++)
                kinds[g] = new Wander(scene.Groups[g].Params.Clone(), scene.Seed, scene.Box);
            return kinds;
        }

        static void Tick(List<Mover> movers, double dt, int ticks)
        {
            for (int t = 0; t < ticks; t++)
                foreach (Mover m in movers)
                    m.Tick(dt);
        }

        static Mover Find(List<Mover> movers, long id)
        {
            foreach (Mover m in movers)
                if (m.Agent.Id == id)
                    return m;
            return null;
        }

        /// Agents dropped and added while the others run (30 of each method, composable):
        /// "hosted" the composable loop of spawned agents equals the hosted flock's;
        /// "dropped" dropping two agents at tick 200 leaves the others' runs as they were;
        /// "added" adding agents with new ids (Spawn, Agent) at tick 300 does too;
        /// "repeats" an id re-added at the same place repeats its path wherever it is re-added;
        /// "placed" an agent the game placed faces along its velocity, +x when at rest;
        /// "ids" ids outside [0, 2^53) are refused.
        static string Churn()
        {
            SceneSpec scene = FiveMethods();
            double dt = scene.Dt;
            List<Mover> all = Movers(Kinds(scene), 30);
            Tick(all, dt, 600);
            var words = new StringBuilder();

            var flock = new Flock(scene);
            flock.Advance(600);
            bool hosted = true;
            for (int i = 0; i < flock.Count; i++)
                hosted &= Same(flock.Position[i], all[i].Position) && Same(flock.Velocity[i], all[i].Velocity);
            if (hosted) words.Append("hosted ");

            Wander[] kinds = Kinds(scene);
            List<Mover> churned = Movers(kinds, 30);
            Tick(churned, dt, 200);
            churned.Remove(Find(churned, 7));
            churned.Remove(Find(churned, 100));
            Tick(churned, dt, 100);
            var spawned = new Mover { Kind = kinds[2] };
            spawned.Agent = kinds[2].Spawn(1000, out spawned.Position, out spawned.Velocity);
            var placed = new Mover { Kind = kinds[0], Position = new Double3(1.0, 2.0, 3.0), Velocity = new Double3(0.0, 0.0, -5.0) };
            placed.Agent = kinds[0].Agent(Wander.MaxId - 1, placed.Position, placed.Velocity);
            churned.Add(spawned);
            churned.Add(placed);
            Tick(churned, dt, 300);
            bool dropped = true;
            foreach (Mover m in all)
            {
                Mover other = Find(churned, m.Agent.Id);
                if (m.Agent.Id == 7 || m.Agent.Id == 100)
                    dropped &= other == null;
                else
                    dropped &= other != null && Same(other.Position, m.Position) && Same(other.Velocity, m.Velocity);
            }
            if (dropped) words.Append("dropped added ");

            // Id 7 re-added at the same place at tick 0 and at tick 250 of two runs.
            var paths = new List<string>();
            foreach (int at in new[] { 0, 250 })
            {
                Wander[] again = Kinds(scene);
                List<Mover> movers = Movers(again, 30);
                movers.Remove(Find(movers, 7));
                Tick(movers, dt, at);
                var back = new Mover { Kind = again[0], Position = new Double3(-20.0, 5.0, 40.0), Velocity = new Double3(3.0, -1.0, 2.0) };
                back.Agent = again[0].Agent(7, back.Position, back.Velocity);
                movers.Add(back);
                var path = new StringBuilder();
                for (int t = 0; t < 200; t++)
                {
                    Tick(movers, dt, 1);
                    path.Append(Hex(back.Position)).Append(';');
                }
                paths.Add(path.ToString());
            }
            if (paths[0] == paths[1]) words.Append("repeats ");

            WanderAgent still = kinds[1].Agent(5000, new Double3(0.0, 0.0, 0.0), new Double3(0.0, 0.0, 0.0));
            Double3 facing = kinds[1].Agent(5001, new Double3(0.0, 0.0, 0.0), new Double3(0.0, 3.0, 4.0)).Heading;
            if (Same(still.Heading, new Double3(1.0, 0.0, 0.0)) && Same(facing, new Double3(0.0, 0.6, 0.8)))
                words.Append("placed ");

            int refused = 0;
            foreach (long id in new[] { -1L, Wander.MaxId })
            {
                try
                {
                    kinds[0].Agent(id, new Double3(0.0, 0.0, 0.0), new Double3(1.0, 0.0, 0.0));
                }
                catch (ArgumentOutOfRangeException)
                {
                    refused++;
                }
            }
            if (refused == 2) words.Append("ids");
            return words.ToString().Trim();
        }

        /// Sets scene key `key` (wander3d's spelling) of params to value (a number, or a
        /// steering word: force, desired).
        static void Set(WanderParams p, string key, string value)
        {
            if (key == "steering")
            {
                if (value != "force" && value != "desired")
                    throw new ArgumentException("no steering " + value);
                p.Steering = value == "desired" ? Steering.Desired : Steering.Force;
                return;
            }
            double x = double.Parse(value, NumberStyles.Float, CultureInfo.InvariantCulture);
            switch (key)
            {
                case "max_speed": p.MaxSpeed = x; break;
                case "max_force": p.MaxForce = x; break;
                case "mass": p.Mass = x; break;
                case "distance": p.Distance = x; break;
                case "radius": p.Radius = x; break;
                case "jitter": p.Jitter = x; break;
                case "rate": p.Rate = x; break;
                case "frequency": p.Frequency = x; break;
                case "interval": p.Interval = x; break;
                case "vertical": p.Vertical = x; break;
                default: throw new ArgumentException("no parameter " + key);
            }
        }

        /// The scene's run from start for steps steps, with the edits ("STEP GROUP KEY VALUE"
        /// lines, in step order: before step STEP, group GROUP's KEY becomes VALUE), hosted and
        /// composed: "hosted"/"composed" then a line per agent: position, velocity in hex.
        static string Edits(string[] edits, string start, int steps)
        {
            SceneSpec scene = WanderScene.Create();
            var flock = new Flock(scene, start);
            WanderStart rows = WanderStart.Parse(start);
            Wander[] kinds = Kinds(scene);
            var movers = new List<Mover>();
            for (int row = 0; row < rows.Count; row++)
            {
                var m = new Mover { Kind = kinds[rows.GroupOf(row)] };
                m.Agent = m.Kind.Restore(rows, row, row, out m.Position, out m.Velocity);
                movers.Add(m);
            }
            int next = 0;
            for (int step = 0; step <= steps; step++)
            {
                for (; next < edits.Length && edits[next].Length > 0; next++)
                {
                    string[] f = edits[next].Split(' ');
                    if (int.Parse(f[0], CultureInfo.InvariantCulture) != step)
                        break;
                    int g = int.Parse(f[1], CultureInfo.InvariantCulture);
                    Set(flock.Groups[g].Params, f[2], f[3]);
                    Set(kinds[g].Params, f[2], f[3]);
                }
                if (step == steps)
                    break;
                flock.Advance(1);
                Tick(movers, scene.Dt, 1);
            }
            var text = new StringBuilder("hosted\n");
            for (int i = 0; i < flock.Count; i++)
                text.Append(Hex(flock.Position[i])).Append(' ').Append(Hex(flock.Velocity[i])).Append('\n');
            text.Append("composed\n");
            foreach (Mover m in movers)
                text.Append(Hex(m.Position)).Append(' ').Append(Hex(m.Velocity)).Append('\n');
            return text.ToString();
        }
    }
}
