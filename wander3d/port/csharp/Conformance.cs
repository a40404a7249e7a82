// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// Conformance.cs: print this port's hosted flock's run as CSV, exactly as `wander3d run --out
// ref.csv` does (Compose.cs: the same run through the composable call).
//
//   bash conformance.sh SECONDS SAMPLE_RATE > out.csv      # builds into build/, runs this
//   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
//   cmp out.csv ref.csv
//
// It starts from start.txt (wander3d's exact start of scene.toml: the third argument, else the
// one beside the program) and steps the core in Wander.cs; the rows are every agent at every
// sample (docs/ports.md of wander3d, "The conformance driver's CSV"). Not needed in a game.

using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;

namespace Wander3d
{
    static class Conformance
    {
        static int Main(string[] args)
        {
            CsvRun run = CsvRun.FromArguments(args);
            if (run == null)
                return 2;
            var flock = new Flock(WanderScene.Create(), run.StartText);
            run.Begin(flock.Dt);
            for (long k = 0; k < run.Samples; k++)
            {
                if (k > 0)
                    flock.Advance((int)run.Every);
                run.Sample(k);
                for (int i = 0; i < flock.Count; i++)
                    run.Row(i, flock.GroupOf[i], flock.Position[i], flock.Velocity[i]);
            }
            run.End();
            return 0;
        }
    }

    /// <summary>
    /// What both conformance drivers share: the arguments, the plan of a run as `wander3d run`
    /// makes it (whole steps, Python's round: halves to even; a whole number of steps between
    /// samples) and its CSV, written as Arrow writes it.
    /// </summary>
    sealed class CsvRun
    {
        public const string Usage = "usage: bash conformance.sh [--compose] SECONDS SAMPLE_RATE (both > 0)";

        public readonly double Seconds, Rate;
        public readonly string StartText;
        public long Steps, Every, Samples;
        double interval;
        string[] names;
        string frame, time;
        readonly Shortest shortest = new Shortest();
        readonly StringBuilder row = new StringBuilder();
        StreamWriter output;

        CsvRun(double seconds, double rate, string startText)
        {
            Seconds = seconds;
            Rate = rate;
            StartText = startText;
        }

        /// <summary>SECONDS SAMPLE_RATE [START]: the run, or null after the usage line on
        /// stderr.</summary>
        public static CsvRun FromArguments(string[] args)
        {
            double seconds = 0.0, rate = 0.0;
            if (
                args.Length < 2
                || args.Length > 3
                || !double.TryParse(args[0], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)
                || !double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out rate)
                || !(seconds > 0.0)
                || !(rate > 0.0)
            )
            {
                Console.Error.WriteLine(Usage);
                return null;
            }
            string start = args.Length == 3 ? args[2] : Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "start.txt");
            return new CsvRun(seconds, rate, File.ReadAllText(start));
        }

        /// <summary>Plan the run at dt and write the header.</summary>
        public void Begin(double dt)
        {
            Steps = Math.Max(1L, (long)Math.Round(Seconds / dt, MidpointRounding.ToEven));
            Every = Math.Max(1L, (long)Math.Round(1.0 / (Rate * dt), MidpointRounding.ToEven));
            Samples = Steps / Every + 1;
            interval = (double)Every * dt;
            SceneSpec scene = WanderScene.Create();
            names = new string[scene.Groups.Length];
            for (int g = 0; g < names.Length; g++)
                names[g] = "\"" + scene.Groups[g].Name.Replace("\"", "\"\"") + "\"";
            output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
            output.Write("\"particle\",\"group\",\"frame\",\"t\",\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\"\n");
        }

        /// <summary>The rows that follow are sample k's (taken after k * Every steps).</summary>
        public void Sample(long k)
        {
            frame = k.ToString(CultureInfo.InvariantCulture);
            time = shortest.Double((double)k * interval);
        }

        public void Row(int particle, int group, Double3 position, Double3 velocity)
        {
            row.Clear();
            row.Append(particle.ToString(CultureInfo.InvariantCulture)).Append(',');
            row.Append(names[group]).Append(',').Append(frame).Append(',').Append(time);
            row.Append(',').Append(shortest.Float((float)position.X));
            row.Append(',').Append(shortest.Float((float)position.Y));
            row.Append(',').Append(shortest.Float((float)position.Z));
            row.Append(',').Append(shortest.Float((float)velocity.X));
            row.Append(',').Append(shortest.Float((float)velocity.Y));
            row.Append(',').Append(shortest.Float((float)velocity.Z));
            row.Append('\n');
            output.Write(row.ToString());
        }

        public void End()
        {
            output.Flush();
        }
    }

    /// <summary>
    /// Numbers as wander3d's CSV writer (Apache Arrow, double-conversion) writes them: the
    /// shortest digits that read back to the same float32 or double, the nearest of those
    /// (halfway: even), laid out plain for decimal exponents -6..9, else as d.ddde+X / d.ddde-X.
    /// Exact: Burger and Dybvig's free-format digit generation on big integers (Mono's "R"
    /// format is not always shortest, and the runtime's formatting may vary).
    /// </summary>
    sealed class Shortest
    {
        readonly Big r = new Big();
        readonly Big s = new Big();
        readonly Big plus = new Big();
        readonly Big minus = new Big();
        readonly Big sum = new Big();
        readonly StringBuilder digits = new StringBuilder();

        public string Float(float x)
        {
            if (x == 0.0f)
                return BitConverter.DoubleToInt64Bits(x) < 0 ? "-0" : "0";
            int bits = new FloatBits { Value = x }.Bits;
            int biased = (bits >> 23) & 0xFF;
            ulong mantissa = (ulong)(bits & 0x7FFFFF);
            // value = f * 2^e, f with its hidden bit; the smallest exponent is -149.
            ulong f = biased == 0 ? mantissa : mantissa | (1UL << 23);
            int e = biased == 0 ? -149 : biased - 150;
            return Format(bits < 0, f, e, 24, -149);
        }

        public string Double(double x)
        {
            if (x == 0.0)
                return BitConverter.DoubleToInt64Bits(x) < 0 ? "-0" : "0";
            long bits = BitConverter.DoubleToInt64Bits(x);
            int biased = (int)((bits >> 52) & 0x7FF);
            ulong mantissa = (ulong)bits & 0xFFFFFFFFFFFFFUL;
            ulong f = biased == 0 ? mantissa : mantissa | (1UL << 52);
            int e = biased == 0 ? -1074 : biased - 1075;
            return Format(bits < 0, f, e, 53, -1074);
        }

        string Format(bool negative, ulong f, int e, int precision, int minExponent)
        {
            bool even = (f & 1) == 0;
            // The gap below is half the gap above at a power of two (not at the smallest exponent).
            bool unequal = f == 1UL << (precision - 1) && e > minExponent;
            // v = r / s, its rounding interval (r - minus) / s .. (r + plus) / s.
            if (e >= 0)
            {
                r.Set(f);
                r.ShiftLeft(unequal ? e + 2 : e + 1);
                s.Set(unequal ? 4UL : 2UL);
                plus.Set(1);
                plus.ShiftLeft(unequal ? e + 1 : e);
                minus.Set(1);
                minus.ShiftLeft(e);
            }
            else
            {
                r.Set(unequal ? f << 2 : f << 1);
                s.Set(1);
                s.ShiftLeft(unequal ? 2 - e : 1 - e);
                plus.Set(unequal ? 2UL : 1UL);
                minus.Set(1);
            }
            // Scale so that the interval's top is in (0.1, 1]: value = 0.d1d2... * 10^k.
            // An estimate of k (log10 of v, rounded up); the loops below make it exact.
            int k = (int)Math.Ceiling(Math.Log10(f) + e * 0.30102999566398120);
            if (k >= 0)
                s.MulPow10(k);
            else
            {
                r.MulPow10(-k);
                plus.MulPow10(-k);
                minus.MulPow10(-k);
            }
            while (TopReaches(even))
            {
                s.MulSmall(10);
                k++;
            }
            while (true)
            {
                sum.Add(r, plus);
                sum.MulSmall(10);
                int c = Big.Compare(sum, s);
                if (even ? c >= 0 : c > 0)
                    break;
                r.MulSmall(10);
                plus.MulSmall(10);
                minus.MulSmall(10);
                k--;
            }
            digits.Clear();
            while (true)
            {
                r.MulSmall(10);
                plus.MulSmall(10);
                minus.MulSmall(10);
                int d = r.TakeDigit(s);
                int low = Big.Compare(r, minus);
                bool roundDown = even ? low <= 0 : low < 0;
                bool roundUp = TopReaches(even);
                if (!roundDown && !roundUp)
                {
                    digits.Append((char)('0' + d));
                    continue;
                }
                if (roundDown && roundUp)
                {
                    // Both ends are in reach: the nearer digit, halfway to even.
                    sum.Add(r, r);
                    int half = Big.Compare(sum, s);
                    if (half > 0 || (half == 0 && d % 2 == 1))
                        d++;
                }
                else if (roundUp)
                    d++;
                digits.Append((char)('0' + d));
                break;
            }
            return Layout(negative, digits.ToString(), k - 1);
        }

        /// <summary>r + plus reaches s: the interval's top is at or past the next unit.</summary>
        bool TopReaches(bool even)
        {
            sum.Add(r, plus);
            int c = Big.Compare(sum, s);
            return even ? c >= 0 : c > 0;
        }

        /// <summary>Digits d1..dn (no trailing zeros) at decimal exponent e of d1, as
        /// double-conversion lays them out for Arrow (shortest, low -6, high 10, "e+").</summary>
        static string Layout(bool negative, string d, int e)
        {
            d = d.TrimEnd('0');
            int n = d.Length;
            var text = new StringBuilder(24);
            if (negative)
                text.Append('-');
            if (e >= -6 && e < 10)
            {
                if (e >= n - 1)
                    text.Append(d).Append('0', e - n + 1);
                else if (e >= 0)
                    text.Append(d, 0, e + 1).Append('.').Append(d, e + 1, n - e - 1);
                else
                    text.Append("0.").Append('0', -e - 1).Append(d);
                return text.ToString();
            }
            text.Append(d[0]);
            if (n > 1)
                text.Append('.').Append(d, 1, n - 1);
            text.Append('e').Append(e < 0 ? '-' : '+').Append(Math.Abs(e).ToString(CultureInfo.InvariantCulture));
            return text.ToString();
        }
    }

    /// <summary>A float's bits (BitConverter.SingleToInt32Bits is not in every runtime).</summary>
    [StructLayout(LayoutKind.Explicit)]
    struct FloatBits
    {
        [FieldOffset(0)]
        public float Value;

        [FieldOffset(0)]
        public int Bits;
    }

    /// <summary>A non-negative integer of up to 1,280 bits (enough for any double's digits),
    /// with the few operations digit generation needs, in place.</summary>
    sealed class Big
    {
        const int Capacity = 40;
        readonly uint[] words = new uint[Capacity]; // little-endian
        int length; // words in use; the top one is not zero

        public void Set(ulong value)
        {
            length = 0;
            while (value != 0)
            {
                words[length++] = (uint)value;
                value >>= 32;
            }
        }

        public void ShiftLeft(int bits)
        {
            if (length == 0)
                return;
            int whole = bits / 32, part = bits % 32;
            if (part != 0)
            {
                uint carry = 0;
                for (int i = 0; i < length; i++)
                {
                    uint word = words[i];
                    words[i] = (word << part) | carry;
                    carry = word >> (32 - part);
                }
                if (carry != 0)
                    words[length++] = carry;
            }
            if (whole != 0)
            {
                for (int i = length - 1; i >= 0; i--)
                    words[i + whole] = words[i];
                for (int i = 0; i < whole; i++)
                    words[i] = 0;
                length += whole;
            }
        }

        public void MulSmall(uint factor)
        {
            ulong carry = 0;
            for (int i = 0; i < length; i++)
            {
                ulong t = (ulong)words[i] * factor + carry;
                words[i] = (uint)t;
                carry = t >> 32;
            }
            if (carry != 0)
                words[length++] = (uint)carry;
        }

        public void MulPow10(int power)
        {
            for (; power >= 9; power -= 9)
                MulSmall(1000000000);
            for (; power > 0; power--)
                MulSmall(10);
        }

        /// <summary>this = a + b.</summary>
        public void Add(Big a, Big b)
        {
            int n = Math.Max(a.length, b.length);
            ulong carry = 0;
            for (int i = 0; i < n; i++)
            {
                ulong t = (ulong)(i < a.length ? a.words[i] : 0u) + (i < b.length ? b.words[i] : 0u) + carry;
                words[i] = (uint)t;
                carry = t >> 32;
            }
            length = n;
            if (carry != 0)
                words[length++] = (uint)carry;
        }

        /// <summary>The whole number of times s goes into this (below 10 here), subtracted.</summary>
        public int TakeDigit(Big s)
        {
            int d = 0;
            while (Compare(this, s) >= 0)
            {
                long borrow = 0;
                for (int i = 0; i < length; i++)
                {
                    long t = (long)words[i] - (i < s.length ? s.words[i] : 0u) - borrow;
                    borrow = t < 0 ? 1 : 0;
                    words[i] = (uint)(t + (borrow << 32));
                }
                while (length > 0 && words[length - 1] == 0)
                    length--;
                d++;
            }
            return d;
        }

        public static int Compare(Big a, Big b)
        {
            if (a.length != b.length)
                return a.length < b.length ? -1 : 1;
            for (int i = a.length - 1; i >= 0; i--)
                if (a.words[i] != b.words[i])
                    return a.words[i] < b.words[i] ? -1 : 1;
            return 0;
        }
    }
}
