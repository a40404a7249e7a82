"""Speed of the ports' cores beside the engine's, measured in the same run.

    python benchmarks/port_bench.py [--agents 1000] [--langs js csharp cpp]

For each wander method, one group of --agents agents (vertical 0.6, dt 1/60, the default box)
is stepped by the engine on one thread and by each port's core, after a warm-up; each figure
is the best of 5 timed batches of 120 steps (agent-steps per second; C#'s batches repeat for
0.2 s at least, as Mono counts CPU time in 10 ms ticks). A port is timed twice where it can
be: its hosted flock, and its composable call driven by a game's own loop (every agent each
tick, as DIR/compose.<ext> does). Also printed: the milliseconds one step of 1,000 agents
takes in the hosted flock, a game's cost per frame at 60 steps a second. Timing happens
inside each process, so start-up and compiling are not counted, and in the process's CPU
time, so other work on a shared machine does not stretch it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from wander3d.engine import METHODS, Simulation
from wander3d.port import language, plan_port, write_port
from wander3d.scene import Scene

WARMUP_STEPS = 60
BATCH_STEPS = 120
BATCHES = 5

JS_BENCH = """
import { readFileSync } from "node:fs";
import { Flock, SCENE } from "./wander.mjs";
const flock = new Flock(SCENE, readFileSync("start.txt", "utf8"));
flock.advance(%(warmup)d);
let best = 0;
for (let b = 0; b < %(batches)d; b++) {
  const start = process.cpuUsage();
  flock.advance(%(steps)d);
  const used = process.cpuUsage(start);
  best = Math.max(best, (flock.count * %(steps)d) / ((used.user + used.system) / 1e6));
}
console.log(best);
"""

CS_BENCH = """
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using Wander3d;

static class Bench
{
    sealed class Character // a game's, as Compose.cs and the README have it
    {
        public Double3 Position, Velocity;
        public Wander Kind;
        public WanderAgent Agent;
    }

    // Agent-steps per second of CPU time, the best of the batches; Mono counts process CPU
    // time in 10 ms ticks, so each batch repeats for 0.2 s at least.
    static double Best(Action<int> advance, int count)
    {
        advance(%(warmup)d);
        double best = 0.0;
        for (int b = 0; b < %(batches)d; b++)
        {
            TimeSpan start = Process.GetCurrentProcess().TotalProcessorTime;
            double used, steps = 0.0;
            do
            {
                advance(%(steps)d);
                steps += %(steps)d;
                used = (Process.GetCurrentProcess().TotalProcessorTime - start).TotalSeconds;
            } while (used < 0.2);
            best = Math.Max(best, count * steps / used);
        }
        return best;
    }

    static void Main()
    {
        string text = File.ReadAllText("start.txt");
        var flock = new Flock(WanderScene.Create(), text);
        double hosted = Best(flock.Advance, flock.Count);

        SceneSpec scene = WanderScene.Create();
        WanderStart start = WanderStart.Parse(text);
        var kinds = new Wander[scene.Groups.Length];
        for (int g = 0; g < kinds.Length; g++)
            kinds[g] = new Wander(scene.Groups[g].Params, scene.Seed, scene.Box);
        var characters = new List<Character>();
        for (int row = 0; row < start.Count; row++)
        {
            var c = new Character { Kind = kinds[start.GroupOf(row)] };
            c.Agent = c.Kind.Restore(start, row, row, out c.Position, out c.Velocity);
            characters.Add(c);
        }
        double dt = scene.Dt;
        Action<int> tick = steps =>
        {
            for (int s = 0; s < steps; s++)
                foreach (Character c in characters)
                {
                    c.Kind.Steer(c.Agent, c.Position, c.Velocity, dt);
                    Double3 heading;
                    Double3 force = c.Agent.Force + c.Agent.Containment;
                    if (Wander.Integrate(ref c.Position, ref c.Velocity, force, c.Kind.Params,
                                         dt, out heading))
                        c.Kind.Follow(c.Agent, heading);
                    c.Kind.Box.Reflect(c.Agent, ref c.Position, ref c.Velocity);
                }
        };
        double composable = Best(tick, characters.Count);
        CultureInfo inv = CultureInfo.InvariantCulture;
        Console.WriteLine(hosted.ToString("R", inv) + " " + composable.ToString("R", inv));
    }
}
"""

CPP_BENCH = """
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include "wander.hpp"

int main() {
    std::ifstream file("start.txt");
    std::stringstream text;
    text << file.rdbuf();
    wander3d::Flock flock(wander3d::scene());
    if (!flock.loadStart(text.str())) return 1;
    flock.advance(%(warmup)d);
    double best = 0.0;
    for (int b = 0; b < %(batches)d; b++) {
        std::clock_t start = std::clock();  // the process's CPU time
        flock.advance(%(steps)d);
        double used = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
        best = std::max(best, flock.count * %(steps)d.0 / used);
    }
    std::printf("%%.17g\\n", best);
}
"""


class Rates(NamedTuple):
    """Agent-steps per second of a port's hosted flock, and of its composable call driven by
    a game's loop (None where the port has no such timing)."""

    hosted: float
    composable: float | None = None


def scene_of(method: str, agents: int) -> Scene:
    """One group of `agents` agents of `method` in the default box."""
    group = {"name": method, "count": agents, "trail_length": 0,
             "wander": {"method": method, "vertical": 0.6}}  # fmt: skip
    return Scene.from_dict({"scene": {"name": method, "seed": 1, "dt": 1 / 60}, "groups": [group]})


def engine_rate(scene: Scene) -> float:
    sim = Simulation(scene.run_spec, threads=1, steady_start=False)
    sim.step(WARMUP_STEPS)
    best = 0.0
    for _ in range(BATCHES):
        start = time.process_time()
        sim.step(BATCH_STEPS)
        best = max(best, sim.count * BATCH_STEPS / (time.process_time() - start))
    return best


def js_rate(folder: Path) -> Rates:
    script = JS_BENCH % {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Rates(float(done.stdout))


def _compiled_rate(folder: Path, name: str, source: str, build: list[str], run: list[str]) -> Rates:
    """Write timing program `name` beside the core, build it, run it; the rates it prints."""
    text = source % {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS}
    (folder / name).write_text(text)
    subprocess.run(build, cwd=folder, capture_output=True, text=True, check=True)
    done = subprocess.run(run, cwd=folder, capture_output=True, text=True, check=True)
    return Rates(*(float(x) for x in done.stdout.split()))


def csharp_rate(folder: Path) -> Rates:
    # Wander.cs alone (Conformance.cs has a Main of its own); -optimize+ as a release build.
    build = ["mcs", "-optimize+", "-out:bench.exe", "Wander.cs", "Bench.cs"]
    return _compiled_rate(folder, "Bench.cs", CS_BENCH, build, ["mono", "bench.exe"])


def cpp_rate(folder: Path) -> Rates:
    # As conformance.sh builds it: no floating-point flag, the header keeps itself exact.
    build = ["g++", "-std=c++17", "-O2", "-o", "bench", "bench.cpp"]
    return _compiled_rate(folder, "bench.cpp", CPP_BENCH, build, ["./bench"])


#: --lang value -> (the tool it needs, a function timing the port written in a folder).
RUNNERS: dict[str, tuple[str, Callable[[Path], Rates]]] = {
    "js": ("node", js_rate),
    "csharp": ("mono", csharp_rate),
    "cpp": ("g++", cpp_rate),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--langs", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    args = parser.parse_args(argv)
    for lang in args.langs:
        if shutil.which(RUNNERS[lang][0]) is None:
            parser.error(f"{lang} needs {RUNNERS[lang][0]}, which is not installed")
    header = f"{'method':8} {'engine 1 thread':>16}"
    for lang in args.langs:
        header += f" {lang + ' agent-steps/s':>22} {'/ engine':>9} {'ms/1000-agent step':>19}"
        header += f" {lang + ' composable':>19} {'/ engine':>9}"
    print(f"{args.agents} agents, dt 1/60; agent-steps/s in CPU time, best of {BATCHES} batches")
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        for method in METHODS:
            scene = scene_of(method, args.agents)
            engine = engine_rate(scene)
            line = f"{method:8} {engine / 1e6:>14.2f} M"
            plan = plan_port(scene)
            for lang in args.langs:
                folder = Path(tmp) / f"{lang}-{method}"
                write_port(plan, language(lang), folder)
                rates = RUNNERS[lang][1](folder)
                rate = rates.hosted
                line += f" {rate / 1e6:>20.2f} M {rate / engine:>9.2f} {1000 / rate * 1e3:>19.3f}"
                if rates.composable is None:
                    line += f" {'-':>19} {'-':>9}"
                else:
                    composed = rates.composable
                    line += f" {composed / 1e6:>17.2f} M {composed / engine:>9.2f}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
