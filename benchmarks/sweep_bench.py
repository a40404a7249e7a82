"""Sweep throughput on local Dask clusters of 1, 2, ... worker processes.

    python benchmarks/sweep_bench.py [--workers 1 2] [--grid 4] [--agents 300] [--seconds 20]

Runs the same sweep (the default scene, a GRID x GRID jitter x radius grid, one seed) once per
cluster size and reports cells/s and agent-steps/s of the cells themselves: cluster start-up,
the kernel load on each worker and a first sweep of one cell per worker (a second or two, once
per cluster) are reported apart, as "start s". The tables written at each size are compared
byte for byte.

Beside them, the engine alone: the same cells stepped in this process on one thread, without
sampling or metrics, once each, just before each cluster's run (so that the machine's load
weighs on both alike). "of engine" is a worker's agent-steps/s (the run's divided by the
workers) over that single-thread rate: how much of a core's engine speed a sweep cell keeps
once it is sampled, measured and sent through Dask. With more workers than idle cores the
workers share them, and the ratio falls accordingly; so the same ratio is also given in CPU
time ("CPU of engine": the workers' processor seconds against the engine's), which other work
on the machine does not change.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from wander3d.analysis import plan_samples
from wander3d.engine import Simulation
from wander3d.engine.warmup import compile_kernel
from wander3d.scene import bundled_scene
from wander3d.sweep import open_client, parse_sweep, run_sweep


def make_sweep(grid: int, agents: int, seconds: float):
    doc = {
        "sweep": {
            "scene": str(bundled_scene("default")),
            "seeds": 1,
            "seconds": seconds,
            "set": {"groups": {"count": agents}},
            "vary": [
                {"key": "groups.wander.jitter", "range": [2, 40], "count": grid, "scale": "log"},
                {"key": "groups.wander.radius", "range": [2, 30], "count": grid, "scale": "log"},
            ],
        }
    }
    return parse_sweep(doc, "<bench>", json.dumps(doc), Path("."))


def engine_rate(sweep) -> tuple[float, float]:
    """Agent-steps per second and per CPU second of the sweep's cells stepped by the engine
    alone on one thread, each once (as the sweep runs each once)."""
    compile_kernel()
    steps_done, seconds, cpu = 0, 0.0, 0.0
    for cell in sweep.cells:
        steps = plan_samples(cell.scene.dt, sweep.seconds, sweep.sample_rate).steps
        sim = Simulation(cell.scene.run_spec, threads=1)
        start, start_cpu = time.perf_counter(), time.process_time()
        sim.step(steps)
        seconds += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        steps_done += steps * cell.scene.agent_count
    return steps_done / seconds, steps_done / cpu


def workers_cpu(client) -> float:
    """Processor seconds the cluster's worker processes have used so far, together."""
    return sum(client.run(time.process_time).values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--grid", type=int, default=4, help="values per key (cells: GRID^2)")
    parser.add_argument("--agents", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args(argv)
    sweep = make_sweep(args.grid, args.agents, args.seconds)
    print(
        f"sweep: {len(sweep.cells)} cells of {args.agents} agents x {args.seconds:g} s "
        f"({sweep.agent_steps(sweep.cells) / 1e6:.1f}M agent-steps)"
    )
    cores = len(os.sched_getaffinity(0))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {cores} cores, load average {load} (other work shares the cores)")
    print(
        f"{'workers':>7} {'start s':>8} {'run s':>7} {'cells/s':>8} {'M agent-steps/s':>16} "
        f"{'per worker':>11} {'engine':>7} {'of engine':>10} {'CPU of engine':>14}"
    )
    tables = []
    base = None
    warmup = dataclasses.replace(sweep, cells=sweep.cells[: max(args.workers)])
    with tempfile.TemporaryDirectory() as folder:
        for n in args.workers:
            out = Path(folder) / f"w{n}.parquet"
            engine, engine_cpu = engine_rate(sweep)
            start = time.perf_counter()
            with open_client(workers=n) as client:
                # One cell per worker first, so that the run measures cells alone: a
                # process's first Parquet write imports pandas (pyarrow does, about 0.25 s),
                # and a worker's first task loads what the measures import.
                run_sweep(warmup, Path(folder) / f"warmup{n}.parquet", client)
                ready = time.perf_counter() - start
                cpu_before = workers_cpu(client)
                result = run_sweep(sweep, out, client)
                cpu = workers_cpu(client) - cpu_before
            rate = result.ran / result.seconds
            steps = result.agent_steps / result.seconds / 1e6
            base = base or rate
            per_worker = steps / n
            print(
                f"{n:>7} {ready:>8.1f} {result.seconds:>7.1f} {rate:>8.2f} {steps:>16.2f} "
                f"{per_worker:>11.2f} {engine / 1e6:>7.2f} {per_worker * 1e6 / engine:>10.0%} "
                f"{result.agent_steps / cpu / engine_cpu:>14.0%}   (x{rate / base:.2f})"
            )
            tables.append(out.read_bytes())
    same = all(t == tables[0] for t in tables)
    print(f"tables byte-identical across worker counts: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
