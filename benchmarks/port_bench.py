"""Speed of the ports' cores beside the engine's, measured in the same run.

    python benchmarks/port_bench.py [--agents 1000] [--langs js]

For each wander method, one group of --agents agents (vertical 0.6, dt 1/60, the default box)
is stepped by the engine on one thread and by each port's core, after a warm-up; each figure
is the best of 5 timed batches of 120 steps (agent-steps per second). Also printed: the
milliseconds one step of 1,000 agents takes in the port, a game's cost per frame at 60 steps
a second. Timing happens inside each process, so start-up and compiling are not counted, and
in the process's CPU time, so other work on a shared machine does not stretch it.
"""

from __future__ import annotations

import argparse
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


#: --lang value -> (the tool it needs, a function timing the port written in a folder).
RUNNERS: dict[str, tuple[str, Callable[[Path], float]]] = {"js": ("node", js_rate)}


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
                rate = RUNNERS[lang][1](folder)
                line += f" {rate / 1e6:>20.2f} M {rate / engine:>9.2f} {1000 / rate * 1e3:>19.3f}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
