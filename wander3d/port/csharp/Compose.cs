// SPDX-FileCopyrightText: 2026 The wander3d authors
// SPDX-License-Identifier: MIT
// Compose.cs: the second conformance driver. It prints the same CSV as Conformance.cs (and
// `wander3d run`), but drives every agent through the composable call from a loop of its own,
// the way a game's characters use it (README.md, "Compose it with your own steering"): each
// character keeps its own position and velocity, asks its Wander for the steering force,
// adds it to its other forces, integrates and hands the new heading back.
//
//   bash conformance.sh --compose SECONDS SAMPLE_RATE > out.csv
//
// Not needed in a game.

using System.Collections.Generic;

namespace Wander3d
{
    /// <summary>A game's character: its own position and velocity, and its wander.</summary>
    sealed class Character
    {
        public Double3 Position, Velocity;
        public Wander Kind; // shared by every character of its kind
        public WanderAgent Agent; // this character's wander state
        public int Group;

        /// <summary>One fixed tick of dt seconds.</summary>
        public void FixedTick(double dt)
        {
            Kind.Steer(Agent, Position, Velocity, dt);
            // The wander and its containment first (that sum is wander3d's), then any of the
            // game's own forces: seek, avoidance, separation...
            Double3 force = Agent.Force + Agent.Containment;
            Double3 heading;
            if (Wander.Integrate(ref Position, ref Velocity, force, Kind.Params, dt, out heading))
                Kind.Follow(Agent, heading);
            Kind.Box.Reflect(Agent, ref Position, ref Velocity);
        }
    }

    static class Compose
    {
        static int Main(string[] args)
        {
            CsvRun run = CsvRun.FromArguments(args);
            if (run == null)
                return 2;
            SceneSpec scene = WanderScene.Create();
            var kinds = new Wander[scene.Groups.Length];
            for (int g = 0; g < kinds.Length; g++)
                kinds[g] = new Wander(scene.Groups[g].Params, scene.Seed, scene.Box);
            WanderStart start = WanderStart.Parse(run.StartText);
            var characters = new List<Character>();
            for (int row = 0; row < start.Count; row++)
            {
                var c = new Character { Group = start.GroupOf(row), Kind = kinds[start.GroupOf(row)] };
                c.Agent = c.Kind.Restore(start, row, row, out c.Position, out c.Velocity);
                characters.Add(c);
            }
            run.Begin(scene.Dt);
            for (long k = 0; k < run.Samples; k++)
            {
                for (long step = 0; k > 0 && step < run.Every; step++)
                    foreach (Character c in characters)
                        c.FixedTick(scene.Dt);
                run.Sample(k);
                foreach (Character c in characters)
                    run.Row((int)c.Agent.Id, c.Group, c.Position, c.Velocity);
            }
            run.End();
            return 0;
        }
    }
}
