"""Sweep throughput on local Dask clusters of 1, 2, ... worker processes.

    python benchmarks/sweep_bench.py [--workers 1 2] [--grid 4] [--agents 300] [--seconds 20]

Runs the same sweep (the default scene, a GRID x GRID jitter x radius grid, one seed) once per
cluster size and reports cells/s and agent-steps/s of the cells themselves: cluster start-up
and the kernel load on each worker (a second or two, once per cluster) are reported apart.
The tables written at each size are compared byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

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
    print(f"{'workers':>7} {'start s':>8} {'run s':>7} {'cells/s':>8} {'M agent-steps/s':>16}")
    tables = []
    base = None
    with tempfile.TemporaryDirectory() as folder:
        for n in args.workers:
            out = Path(folder) / f"w{n}.parquet"
            start = time.perf_counter()
            with open_client(workers=n) as client:
                ready = time.perf_counter() - start
                result = run_sweep(sweep, out, client)
            rate = result.ran / result.seconds
            steps = result.agent_steps / result.seconds / 1e6
            base = base or rate
            print(
                f"{n:>7} {ready:>8.1f} {result.seconds:>7.1f} {rate:>8.2f} {steps:>16.2f}"
                f"   (x{rate / base:.2f})"
            )
            tables.append(out.read_bytes())
    same = all(t == tables[0] for t in tables)
    print(f"tables byte-identical across worker counts: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
