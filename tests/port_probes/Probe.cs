// Probe.cs: what tests/test_port_csharp.py asks of the C# core beyond the conformance CSV.
// Built with the checked-in Wander.cs and Conformance.cs (-main:Wander3d.Probe):
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

using System;
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
            Console.Out.Write(output.ToString());
            return 0;
        }

        static SceneSpec Small(int count)
        {
            SceneSpec scene = Scene.Create();
            scene.Groups[0].Count = count;
            return scene;
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
                    for (int j = 0; j < a.Position.Length; j++)
                        if (other.Position[j] != a.Position[j])
                            throw new Exception("differs at step " + a.StepCount);
                }
            }
            double x, y, z;
            c.PositionAt(0, 0.5, out x, out y, out z);
            double mid = Math.Abs(x - (c.Previous[0] + c.Position[0]) / 2);
            return "compared " + compared + " alpha " + (alphaOk ? "OK" : "BAD") + " mid "
                + mid.ToString("R", CultureInfo.InvariantCulture);
        }

        /// The words that hold: inside (spawned inside the margin), unit (unit headings), same
        /// (a second flock of the seed is equal), differs (another seed's is not), stays (in
        /// the box after 60 s).
        /// The default scene with 30 agents of each method, vertical 0.4, default parameters.
        static SceneSpec FiveMethods()
        {
            SceneSpec scene = Scene.Create();
            var methods = (WanderMethod[])Enum.GetValues(typeof(WanderMethod));
            scene.Groups = new GroupSpec[methods.Length];
            for (int m = 0; m < methods.Length; m++)
            {
                var p = new GroupParams { Method = methods[m], Vertical = 0.4 };
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
                foreach (double[] v in new[] { flock.Position, flock.Velocity, flock.Heading, flock.Target })
                    for (int c = 0; c < 3; c++)
                        text.Append(BitConverter.DoubleToInt64Bits(v[3 * i + c]).ToString("x16")).Append(' ');
                text.Append('\n');
            }
            return text.ToString();
        }

        static string Spawn()
        {
            SceneSpec scene = FiveMethods();
            Flock a = new Flock(scene), b = new Flock(scene);
            scene.Seed = 8;
            var other = new Flock(scene);
            bool inside = true, unit = true, stays = true;
            for (int i = 0; i < a.Count; i++)
            {
                for (int k = 0; k < 3; k++)
                {
                    double x = a.Position[3 * i + k];
                    inside &= x >= a.Low[k] + a.Margin && x <= a.High[k] - a.Margin;
                }
                double[] h = a.Heading;
                unit &= Math.Abs(Math.Sqrt(h[3 * i] * h[3 * i] + h[3 * i + 1] * h[3 * i + 1] + h[3 * i + 2] * h[3 * i + 2]) - 1.0) < 1e-12;
            }
            bool same = true, differs = false;
            for (int j = 0; j < a.Position.Length; j++)
            {
                same &= a.Position[j] == b.Position[j];
                differs |= a.Position[j] != other.Position[j];
            }
            a.Advance(3600);
            for (int i = 0; i < a.Count; i++)
                for (int k = 0; k < 3; k++)
                    stays &= a.Position[3 * i + k] >= a.Low[k] && a.Position[3 * i + k] <= a.High[k];
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
            var moved = new System.Collections.Generic.SortedDictionary<string, double>();
            double aligned = 1.0;
            WanderMethod[] order =
            {
                WanderMethod.Angle, WanderMethod.Noise, WanderMethod.Random, WanderMethod.Seek,
                WanderMethod.Sphere, WanderMethod.Noise, WanderMethod.Angle,
            };
            foreach (WanderMethod method in order)
            {
                var before = (double[])flock.Target.Clone();
                bool fromSeek = flock.Groups[0].Params.Method == WanderMethod.Seek;
                flock.SetMethod(0, method);
                double worst = 0.0;
                for (int i = 0; i < flock.Count; i++)
                {
                    int j = 3 * i;
                    double[] d = new double[3], t = new double[3], b = new double[3];
                    double cx, cy, cz;
                    flock.WanderSphere(i, out cx, out cy, out cz);
                    double[] c = { cx, cy, cz };
                    for (int a = 0; a < 3; a++)
                    {
                        d[a] = flock.Target[j + a] - before[j + a];
                        t[a] = flock.Target[j + a] - c[a];
                        b[a] = before[j + a] - c[a];
                    }
                    worst = Math.Max(worst, Norm(d));
                    if (fromSeek) // the sphere's point nearest the point sought
                        aligned = Math.Min(aligned, (t[0] * b[0] + t[1] * b[1] + t[2] * b[2]) / (Norm(t) * Norm(b)));
                }
                string name = method.ToString().ToLowerInvariant();
                moved[name] = moved.ContainsKey(name) ? Math.Max(moved[name], worst) : worst;
                flock.Advance(60);
            }
            bool inside = true;
            for (int j = 0; j < flock.Position.Length; j++)
                inside &= flock.Position[j] >= flock.Low[j % 3] && flock.Position[j] <= flock.High[j % 3];
            var text = new StringBuilder();
            foreach (var entry in moved)
                text.Append(entry.Key).Append(' ').Append(entry.Value.ToString("R", CultureInfo.InvariantCulture)).Append(' ');
            text.Append("aligned ").Append(aligned.ToString("R", CultureInfo.InvariantCulture));
            text.Append(" inside ").Append(inside ? "yes" : "no");
            text.Append(" method ").Append(flock.Groups[0].Params.Method.ToString().ToLowerInvariant());
            return text.ToString();
        }

        static double Norm(double[] v)
        {
            return Math.Sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }

        static string Crlf(string start)
        {
            var unix = new Flock(Scene.Create(), start);
            var windows = new Flock(Scene.Create(), start.Replace("\n", "\r\n"));
            unix.Advance(60);
            windows.Advance(60);
            for (int j = 0; j < unix.Position.Length; j++)
                if (unix.Position[j] != windows.Position[j] || unix.Velocity[j] != windows.Velocity[j])
                    return "differs";
            return "same";
        }

        static double Edit()
        {
            var flock = new Flock(Scene.Create());
            flock.Advance(30);
            flock.Groups[0].Params.MaxSpeed = 5.0;
            flock.Advance(1);
            double fastest = 0.0;
            double[] v = flock.Velocity;
            for (int i = 0; i < flock.Count; i++)
                fastest = Math.Max(fastest, Math.Sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
            return fastest;
        }
    }
}
