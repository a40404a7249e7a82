"""The step kernel against an older copy of itself, in one process, alternating.

    git show REV:wander3d/engine/kernel.py > /tmp/kernel_before.py
    python benchmarks/kernel_ab.py /tmp/kernel_before.py [--agents 2000] [--rounds 20]

For each wander method, two simulations of the same scene (one group, vertical 0.6, dt 1/60,
no trails) step on one thread, one with the older kernel's `advance`, one with the current,
in alternating batches of 120 steps (the order swapped every round). Each batch is timed in
CPU time of the process, so other work on a shared machine (which stretches wall-clock time
by a varying factor) does not enter; the best batch of each counts. The older file is loaded
as a module of wander3d.engine, so its relative imports resolve to today's modules.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from wander3d.engine import METHODS, GroupParams, RunSpec, Simulation, WanderParams
from wander3d.engine import kernel as current
from wander3d.engine.threads import use_threads

STEPS = 120


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("wander3d.engine.kernel_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_args(sim: Simulation, kernel: ModuleType) -> list:
    """Simulation.step's arguments to `kernel.advance` after n_steps: the simulation's own
    arrays, in the kernel's order (and no samples to record, for kernels that can)."""
    names = ("_low", "_high", "_margin", "group_index", "_table", "_positions", "_velocities",
             "_headings", "_sides", "_wander_dirs", "_targets", "_forces", "_angles",
             "_noise_keys", "_noise_phase", "_seek_targets", "_seek_timers", "_pending_breaks",
             "_reflections", "_trail_points", "_trail_breaks")  # fmt: skip
    args = [sim.step_count, sim.dt, sim._seed_key, *(getattr(sim, n) for n in names)]
    if kernel.advance.py_func.__code__.co_argcount > len(args) + 1:
        args += [0, *(np.empty((0, 0, 3)) for _ in range(3))]  # sample_every, its 3 arrays
    return args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="an older wander3d/engine/kernel.py")
    parser.add_argument("--agents", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    kernels = {"before": load(args.before), "after": current}
    use_threads(1)
    print(f"{args.agents} agents, 1 thread, best of {args.rounds} batches of {STEPS} steps "
          "(CPU time); M agent-steps/s")  # fmt: skip
    for method in METHODS:
        group = GroupParams(count=args.agents, trail_length=0,
                            wander=WanderParams(method=method, vertical=0.6))  # fmt: skip
        spec = RunSpec(seed=3, dt=1 / 60, groups=(group,))
        sims = {k: Simulation(spec, threads=1, steady_start=False) for k in kernels}
        best = dict.fromkeys(kernels, 0.0)
        for r in range(args.rounds + 1):
            for k in ("before", "after") if r % 2 == 0 else ("after", "before"):
                sim = sims[k]
                start = time.process_time()
                kernels[k].advance(STEPS, *kernel_args(sim, kernels[k]))
                seconds = time.process_time() - start
                sim.step_count += STEPS
                if r:  # the first round compiles or loads the kernels
                    best[k] = max(best[k], sim.count * STEPS / max(seconds, 1e-9))
        print(f"{method:7} before {best['before'] / 1e6:6.2f}  after {best['after'] / 1e6:6.2f}"
              f"  after/before {best['after'] / best['before']:.3f}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
