"""Speed of the ports' cores beside the engine's, measured in the same run.

    python benchmarks/port_bench.py [--agents 1000] [--langs js csharp cpp gdscript]

For each wander method, one group of --agents agents (vertical 0.6, dt 1/60, the default box)
is stepped by the engine on one thread and by each port's core, after a warm-up; each figure
is the best of 5 timed batches of 120 steps (agent-steps per second; C#'s batches repeat for
0.2 s at least, as Mono counts CPU time in 10 ms ticks; GDScript's, in godot3-server, are 20
steps, each over 0.2 s, read from /proc/self/stat in the same ticks). GDScript is timed each way
its core runs: `hosted` (its Flock) and `composed` (the composable call in a game's own loop, as
compose.gd drives it). Also printed: the
milliseconds one step of 1,000 agents takes in the port, a game's cost per frame at 60 steps
a second. Timing happens inside each process, so start-up and compiling are not counted, and
in the process's CPU time, so other work on a shared machine does not stretch it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
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
using System.Diagnostics;
using System.IO;
using Wander3d;

static class Bench
{
    static void Main()
    {
        var flock = new Flock(Scene.Create(), File.ReadAllText("start.txt"));
        flock.Advance(%(warmup)d);
        double best = 0.0;
        for (int b = 0; b < %(batches)d; b++)
        {
            // Mono counts process CPU time in 10 ms ticks: repeat the batch for 0.2 s at least.
            TimeSpan start = Process.GetCurrentProcess().TotalProcessorTime;
            double used, steps = 0.0;
            do
            {
                flock.Advance(%(steps)d);
                steps += %(steps)d;
                used = (Process.GetCurrentProcess().TotalProcessorTime - start).TotalSeconds;
            } while (used < 0.2);
            best = Math.Max(best, flock.Count * steps / used);
        }
        Console.WriteLine(best.ToString(System.Globalization.CultureInfo.InvariantCulture));
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


def js_rate(folder: Path) -> float:
    script = JS_BENCH % {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(done.stdout)


def _compiled_rate(folder: Path, name: str, source: str, build: list[str], run: list[str]) -> float:
    """Write timing program `name` beside the core, build it, run it; the rate it prints."""
    text = source % {"warmup": WARMUP_STEPS, "batches": BATCHES, "steps": BATCH_STEPS}
    (folder / name).write_text(text)
    subprocess.run(build, cwd=folder, capture_output=True, text=True, check=True)
    done = subprocess.run(run, cwd=folder, capture_output=True, text=True, check=True)
    return float(done.stdout)


def csharp_rate(folder: Path) -> float:
    # Wander.cs alone (Conformance.cs has a Main of its own); -optimize+ as a release build.
    build = ["mcs", "-optimize+", "-out:bench.exe", "Wander.cs", "Bench.cs"]
    return _compiled_rate(folder, "Bench.cs", CS_BENCH, build, ["mono", "bench.exe"])


def cpp_rate(folder: Path) -> float:
    build = ["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-o", "bench", "bench.cpp"]
    return _compiled_rate(folder, "bench.cpp", CPP_BENCH, build, ["./bench"])


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
#: agent-steps per second, or per way its core runs ({"hosted": ..., "composed": ...})).
RUNNERS: dict[str, tuple[str, Callable[[Path], float | dict[str, float]]]] = {
    "js": ("node", js_rate),
    "csharp": ("mono", csharp_rate),
    "cpp": ("g++", cpp_rate),
    "gdscript": ("godot3-server", gdscript_rates),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--langs", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    args = parser.parse_args(argv)
    for lang in args.langs:
        if shutil.which(RUNNERS[lang][0]) is None:
            parser.error(f"{lang} needs {RUNNERS[lang][0]}, which is not installed")
    print(f"{args.agents} agents, dt 1/60; agent-steps/s in CPU time, best of {BATCHES} batches")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for method in METHODS:
            scene = scene_of(method, args.agents)
            plan = plan_port(scene)
            rates = {}
            for lang in args.langs:
                folder = Path(tmp) / f"{lang}-{method}"
                write_port(plan, language(lang), folder)
                found = RUNNERS[lang][1](folder)
                ways = found if isinstance(found, dict) else {"": found}
                rates.update({f"{lang} {way}".strip(): rate for way, rate in ways.items()})
            rows.append((method, engine_rate(scene), rates))
    header = f"{'method':8} {'engine 1 thread':>16}"
    for column in rows[0][2]:
        header += f" {column + ' agent-steps/s':>30} {'/ engine':>9} {'ms/1000-agent step':>19}"
    print(header)
    for method, engine, rates in rows:
        line = f"{method:8} {engine / 1e6:>14.2f} M"
        for rate in rates.values():
            line += f" {rate / 1e6:>28.3f} M {rate / engine:>9.4f} {1000 / rate * 1e3:>19.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
