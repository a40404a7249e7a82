"""Speed of the ports' cores beside the engine's, measured in the same run.

    python benchmarks/port_bench.py [--agents 1000] [--langs js csharp cpp gdscript]
                                    [--baseline REV] [--rounds 1]

For each wander method, one group of --agents agents (vertical 0.6, dt 1/60, the default box)
is stepped by the engine on one thread and by each port's core, after a warm-up; each figure
is the best of 5 timed batches of 120 steps (agent-steps per second; GDScript's, in
godot3-server, are 20 steps, each over 0.2 s, read from /proc/self/stat in clock ticks). A port
is timed each way its core runs: `hosted` (its Flock) and, where it has it, `composed` (the
composable call in a game's own loop, as DIR/compose.* drives it). Also printed: the
milliseconds one step of 1,000 agents takes, a game's cost per frame at 60 steps a second.
Timing happens inside each process, so start-up and compiling are not counted, and in the
process's CPU time, so other work on a shared machine does not stretch it.

--baseline REV times each language's port as git revision REV wrote it beside (e.g. the core
before a change), the same scenes in the same run and the same timing code: REV's wander3d
writes the port, the runner here times it (each runner also times the cores from before the
composable call, e1637a2: their hosted flock only); its columns are named `LANG@REV`, with the
ratios to them after the table. --rounds N times everything N times, new and baseline in turn,
and keeps each figure's best: on a shared machine a figure is only as good as its least
disturbed round.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from wander3d.engine import METHODS, Simulation
from wander3d.port import language, plan_port, write_port
from wander3d.scene import Scene

WARMUP_STEPS = 60
BATCH_STEPS = 120
BATCHES = 5

JS_BENCH = """
import { readFileSync } from "node:fs";
import * as core from "./wander.mjs";

/** The best agent-steps per second of `advance(steps)` over the batches, after a warm-up. */
function best(count, advance) {
  advance(%(warmup)d);
  let rate = 0;
  for (let b = 0; b < %(batches)d; b++) {
    const start = process.cpuUsage();
    advance(%(steps)d);
    const used = process.cpuUsage(start);
    rate = Math.max(rate, (count * %(steps)d) / ((used.user + used.system) / 1e6));
  }
  return rate;
}

const start = readFileSync("start.txt", "utf8");
const flock = new core.Flock(core.SCENE, start);
const rates = { hosted: best(flock.count, (n) => flock.advance(n)) };
if (core.Wander) {
  // The composable call in a game's loop over its own characters, as compose.mjs drives it
  // (cores before it had the hosted flock only).
  const { SCENE, Wander, WanderBox, WanderParams, integrate, readStart } = core;
  const box = new WanderBox(SCENE.box);
  const wanders = SCENE.groups.map(
    (g) => new Wander({ params: new WanderParams(g.params), seed: SCENE.seed, box }));
  // The game's own characters, as compose.mjs keeps them (a wider object, e.g. the start's
  // entry spread into it, makes V8's property access here three times slower).
  const characters = readStart(start).map((s, id) => ({
    group: s.group,
    position: s.position,
    velocity: s.velocity,
    agent: wanders[s.group].fromStart(id, s),
  }));
  const force = new Float64Array(3);
  const heading = new Float64Array(3);
  const tick = ({ group, agent, position, velocity }, dt) => {
    const wander = wanders[group];
    wander.steer(agent, position, velocity, dt);
    for (let a = 0; a < 3; a++) force[a] = agent.force[a] + agent.containment[a];
    const moved = integrate(position, velocity, force, wander.params, dt, heading);
    if (moved) wander.follow(agent, heading);
    box.reflect(agent, position, velocity);
  };
  rates.composed = best(characters.length, (n) => {
    for (let s = 0; s < n; s++) for (const c of characters) tick(c, SCENE.dt);
  });
}
console.log(JSON.stringify(rates));
"""

CS_BENCH = """
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using Wander3d;

static class Bench
{
    [StructLayout(LayoutKind.Sequential)]
    struct Timespec
    {
        public long Seconds, Nanoseconds;
    }

    [DllImport("libc")]
    static extern int clock_gettime(int clock, out Timespec time);

    // The process's CPU time to the nanosecond (CLOCK_PROCESS_CPUTIME_ID): Mono's
    // TotalProcessorTime counts 10 ms ticks, a twentieth of a batch.
    static double CpuSeconds()
    {
        Timespec t;
        clock_gettime(2, out t);
        return t.Seconds + t.Nanoseconds * 1e-9;
    }

    // Agent-steps per second of CPU time, the best of the batches, after a warm-up.
    static double Best(Action<int> advance, int count)
    {
        advance(%(warmup)d);
        double best = 0.0;
        for (int b = 0; b < %(batches)d; b++)
        {
            double start = CpuSeconds();
            advance(%(steps)d);
            best = Math.Max(best, count * %(steps)d / (CpuSeconds() - start));
        }
        return best;
    }
#if COMPOSABLE

    sealed class Character // a game's, as Compose.cs and the README have it
    {
        public Double3 Position, Velocity;
        public Wander Kind;
        public WanderAgent Agent;
    }

    // The composable call in a game's loop over its own characters.
    static double Composed(string text)
    {
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
        return Best(tick, characters.Count);
    }
#endif

    static void Main()
    {
        string text = File.ReadAllText("start.txt");
        var flock = new Flock(%(scene)s.Create(), text);
        Console.Write(Best(flock.Advance, flock.Count).ToString("R", CultureInfo.InvariantCulture));
#if COMPOSABLE
        Console.Write(" " + Composed(text).ToString("R", CultureInfo.InvariantCulture));
#endif
        Console.WriteLine();
    }
}
"""

CPP_BENCH = """
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>
#include "wander.hpp"

// The best rate of batches of `step` (agent-steps per second of the process's CPU time).
template <typename Step>
double best(Step step, double agents) {
    double top = 0.0;
    for (int b = 0; b < %(batches)d; b++) {
        std::clock_t start = std::clock();
        step(%(steps)d);
        double used = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
        top = std::max(top, agents * %(steps)d.0 / used);
    }
    return top;
}

int main() {
    std::ifstream file("start.txt");
    std::stringstream text;
    text << file.rdbuf();
    const wander3d::SceneSpec scene = wander3d::scene();
    wander3d::Flock flock(scene);
    if (!flock.loadStart(text.str())) return 1;
    flock.advance(%(warmup)d);
    std::printf("%%.17g", best([&](int n) { flock.advance(n); }, %(count)s));
#ifdef COMPOSABLE
    // The composable call in a game's loop (compose.cpp): every agent, each tick.
    wander3d::Wander wander(scene.groups[0].params, scene.seed, scene.box);
    std::vector<wander3d::StartAgent> agents;
    if (!wander3d::readStart(text.str(), scene, agents)) return 1;
    auto ticks = [&](int n) {
        for (int s = 0; s < n; s++)
            for (wander3d::StartAgent& a : agents) {
                wander.steer(a.agent, a.position, a.velocity, scene.dt);
                wander3d::Vec3 heading;
                if (wander3d::integrate(a.position, a.velocity, a.agent.force + a.agent.containment,
                                        wander.params, scene.dt, heading))
                    wander.follow(a.agent, heading);
                wander.box.reflect(a.agent, a.position, a.velocity);
            }
    };
    ticks(%(warmup)d);
    std::printf(" %%.17g", best(ticks, static_cast<double>(agents.size())));
#endif
    std::printf("\\n");
}
"""


GD_BENCH = """
extends SceneTree

const WanderCore = preload("wander.gd")
const WanderCsv = preload("wander_csv.gd")

var _characters := []
var _kinds := []
var _box: WanderCore.WanderBox


func _init() -> void:
	quit(1)
	var start: String = WanderCsv.start_text(get_script())
	var flock := WanderCore.Flock.new(WanderCore.SCENE, start)
	var rates := {"hosted": _best(flock.count, funcref(flock, "advance"))}
	_compose(start)
	rates["composed"] = _best(_characters.size(), funcref(self, "_ticks"))
	var out := File.new()
	out.open(OS.get_cmdline_args()[OS.get_cmdline_args().size() - 1], File.WRITE)
	out.store_string(to_json(rates))
	out.close()
	quit(0)


# The best agent-steps per second of `advance(steps)` over the batches, after a warm-up; each
# batch repeats for 0.2 s of CPU time at least (counted in clock ticks).
func _best(count: int, advance: FuncRef) -> float:
	advance.call_func(%(warmup)d)
	var best := 0.0
	for b in %(batches)d:
		var start := _cpu_seconds()
		var steps := 0
		var used := 0.0
		while used < 0.2:
			advance.call_func(%(steps)d)
			steps += %(steps)d
			used = _cpu_seconds() - start
		best = max(best, count * steps / used)
	return best


# This process's CPU time: user + system clock ticks of /proc/self/stat.
func _cpu_seconds() -> float:
	var file := File.new()
	file.open("/proc/self/stat", File.READ)
	var line := file.get_line()
	file.close()
	var fields := line.substr(line.find_last(")") + 2).split(" ")
	return (fields[11].to_int() + fields[12].to_int()) / %(ticks)d.0


# A game's characters driven through the composable call, as compose.gd does.
func _compose(start: String) -> void:
	var scene: Dictionary = WanderCore.SCENE
	var b: Dictionary = scene["box"]
	_box = WanderCore.WanderBox.new(b["low"], b["high"], b["margin"])
	var count := 0
	for group in scene["groups"]:
		var params := WanderCore.WanderParams.new(group["params"])
		_kinds.append(WanderCore.Wander.new(params, scene["seed"], _box))
		count += group["count"]
	var records: Array = WanderCore.WanderStart.read(start, count)
	for i in count:
		var record: WanderCore.WanderStart = records[i]
		_characters.append({
			"kind": record.group, "position": record.position, "velocity": record.velocity,
			"wander": _kinds[record.group].restore(i, record),
		})


func _ticks(n: int) -> void:
	var dt: float = WanderCore.SCENE["dt"]
	var force := [0.0, 0.0, 0.0]
	var heading := [0.0, 0.0, 0.0]
	for s in n:
		for character in _characters:
			var wander: WanderCore.Wander = _kinds[character["kind"]]
			var agent: WanderCore.WanderAgent = character["wander"]
			var position: Array = character["position"]
			var velocity: Array = character["velocity"]
			wander.steer(agent, position, velocity, dt)
			for a in 3:
				force[a] = agent.force[a] + agent.containment[a]
			if WanderCore.Wander.integrate(position, velocity, force, wander.params, dt, heading):
				wander.follow(agent, heading)
			_box.reflect(agent, position, velocity)
"""
#: GDScript's batches: 20 steps of 1,000 agents already take over 0.2 s of CPU time.
GD_BATCH_STEPS = 20


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


def js_rates(folder: Path) -> dict[str, float]:
    script = JS_BENCH % {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rates: dict[str, float] = json.loads(done.stdout)
    return rates


def _compiled_rate(
    folder: Path, name: str, source: str, names: dict[str, str], build: list[str], run: list[str]
) -> dict[str, float]:
    """Write timing program `name` beside the core (`names` filling in what differs between
    cores), build it, run it; the rates it prints: hosted, and composed where it has it."""
    keys = {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS, **names}
    (folder / name).write_text(source % keys)
    subprocess.run(build, cwd=folder, capture_output=True, text=True, check=True)
    done = subprocess.run(run, cwd=folder, capture_output=True, text=True, check=True)
    return dict(zip(("hosted", "composed"), map(float, done.stdout.split()), strict=False))


def csharp_rate(folder: Path) -> dict[str, float]:
    # Wander.cs alone (Conformance.cs has a Main of its own); -optimize+ as a release build.
    # Cores before the composable call (e1637a2) have the hosted flock only, and Scene.
    core = (folder / "Wander.cs").read_text()
    composable = ["-define:COMPOSABLE"] if "class WanderAgent" in core else []
    scene = "WanderScene" if "class WanderScene" in core else "Scene"
    build = ["mcs", "-optimize+", *composable, "-out:bench.exe", "Wander.cs", "Bench.cs"]
    run = ["mono", "bench.exe"]
    return _compiled_rate(folder, "Bench.cs", CS_BENCH, {"scene": scene}, build, run)


def cpp_rate(folder: Path) -> dict[str, float]:
    # As conformance.sh builds it: no floating-point flag, the header keeps itself exact.
    # Headers before the composable call have the hosted flock only, its count a field.
    core = (folder / "wander.hpp").read_text()
    composable = ["-DCOMPOSABLE"] if "class Wander {" in core else []
    count = "flock.count()" if "int count() const" in core else "flock.count"
    build = ["g++", "-std=c++17", "-O2", *composable, "-o", "bench", "bench.cpp"]
    return _compiled_rate(folder, "bench.cpp", CPP_BENCH, {"count": count}, build, ["./bench"])


def gdscript_rates(folder: Path) -> dict[str, float]:
    """The GDScript core in godot3-server, hosted and composed (its output file: Godot prints a
    banner on stdout)."""
    values = {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": GD_BATCH_STEPS}
    (folder / "bench.gd").write_text(GD_BENCH % {**values, "ticks": os.sysconf("SC_CLK_TCK")})
    out = folder / "rates.json"
    command = ["godot3-server", "--no-window", "--path", str(folder), "-s", "bench.gd", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not out.exists() or "SCRIPT ERROR" in done.stderr:
        raise RuntimeError(f"the GDScript bench failed:\n{done.stderr}")
    rates = json.loads(out.read_text())
    return {way: float(rates[way]) for way in ("hosted", "composed")}


#: --lang value -> (the tool it needs, a function timing the port written in a folder: its
#: agent-steps per second each way it runs, "hosted" and, where the core has it, "composed").
RUNNERS: dict[str, tuple[str, Callable[[Path], dict[str, float]]]] = {
    "js": ("node", js_rates),
    "csharp": ("mono", csharp_rate),
    "cpp": ("g++", cpp_rate),
    "gdscript": ("godot3-server", gdscript_rates),
}


#: Run by REV's Python in REV's tree (argv: language, scene.toml, folder): the port as REV
#: wrote it.
BASELINE = """
import sys
from wander3d.port import language, plan_port, write_port
from wander3d.scene import load_scene
lang, scene, folder = sys.argv[1:]
write_port(plan_port(load_scene(scene)), language(lang), folder)
"""


def checkout(rev: str, into: Path) -> Path:
    """wander3d as it was at git revision `rev`, in `into`."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", rev, "wander3d"],
        capture_output=True, check=False,
    )  # fmt: skip
    if archive.returncode != 0:
        raise SystemExit(f"--baseline {rev}: {archive.stderr.decode().strip()}")
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def baseline_rates(tree: Path, lang: str) -> Callable[[Path], dict[str, float]]:
    """Times `lang`'s port of the scene in a folder as the wander3d in `tree` writes it, with
    the current runner (each runner times the cores before the composable call too)."""

    def rates(folder: Path) -> dict[str, float]:
        scene = folder.parent / f"{folder.name}.toml"
        shutil.copy(folder / "scene.toml", scene)
        shutil.rmtree(folder)
        done = subprocess.run(
            [sys.executable, "-c", BASELINE, lang, str(scene), str(folder)],
            cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"the baseline's {lang} port failed:\n{done.stderr}")
        return RUNNERS[lang][1](folder)

    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--langs", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    parser.add_argument("--baseline", metavar="REV", help="also time the ports as of git REV")
    parser.add_argument("--rounds", type=int, default=1, help="time everything N times, best kept")
    args = parser.parse_args(argv)
    for lang in args.langs:
        if shutil.which(RUNNERS[lang][0]) is None:
            parser.error(f"{lang} needs {RUNNERS[lang][0]}, which is not installed")
    best = f"best of {BATCHES} batches" + (f", of {args.rounds} rounds" if args.rounds > 1 else "")
    print(f"{args.agents} agents, dt 1/60; agent-steps/s in CPU time, {best}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # Each language's runner, then its baseline's: the two alternate, method by method.
        runners: dict[str, tuple[str, Callable[[Path], dict[str, float]]]] = {}
        tree = checkout(args.baseline, Path(tmp) / "baseline") if args.baseline else None
        for lang in args.langs:
            runners[lang] = (lang, RUNNERS[lang][1])
            if tree is not None:
                runners[f"{lang}@{args.baseline}"] = (lang, baseline_rates(tree, lang))
        for method in METHODS:
            scene = scene_of(method, args.agents)
            plan = plan_port(scene)
            engine = 0.0
            rates: dict[str, float] = {}
            for turn in range(args.rounds):
                engine = max(engine, engine_rate(scene))
                for name, (lang, runner) in runners.items():
                    folder = Path(tmp) / re.sub(r"\W", "-", f"{name}-{method}-{turn}")
                    write_port(plan, language(lang), folder)
                    for mode, rate in runner(folder).items():
                        rates[f"{name} {mode}"] = max(rates.get(f"{name} {mode}", 0.0), rate)
            rows.append((method, engine, rates))
    header = f"{'method':8} {'engine 1 thread':>16}"
    for column in rows[0][2]:
        header += f" {column + ' agent-steps/s':>30} {'/ engine':>9} {'ms/1000-agent step':>19}"
    print(header)
    for method, engine, rates in rows:
        line = f"{method:8} {engine / 1e6:>14.2f} M"
        for rate in rates.values():
            line += f" {rate / 1e6:>28.2f} M {rate / engine:>9.2f} {1000 / rate * 1e3:>19.3f}"
        print(line)
    if args.baseline:
        print_against_baseline(rows, args.langs, args.baseline)
    return 0


def print_against_baseline(
    rows: list[tuple[str, float, dict[str, float]]], langs: list[str], rev: str
) -> None:
    """Each language's rates over its baseline's (the same mode, or hosted where the baseline's
    core had only its hosted flock)."""
    pairs = []
    for column in rows[0][2]:
        lang, mode = column.split(" ")
        if lang in langs:
            old = f"{lang}@{rev} {mode}"
            pairs.append((column, old if old in rows[0][2] else f"{lang}@{rev} hosted"))
    print(f"{'method':8}" + "".join(f" {new + ' / ' + old:>42}" for new, old in pairs))
    for method, _, rates in rows:
        print(f"{method:8}" + "".join(f" {rates[new] / rates[old]:>42.2f}" for new, old in pairs))


if __name__ == "__main__":
    raise SystemExit(main())
