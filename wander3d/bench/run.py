"""Running the benchmark and reporting it as a table and as JSON."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import platform
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from wander3d.engine import max_threads
from wander3d.engine.warmup import compile_kernel

from . import baseline
from .engine import TRAIL_LENGTH, measure

FULL_SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 10_000)
#: Steps per Simulation.step call: one (as the app calls it at 60 fps) and one second's worth.
STEPS_PER_CALL = (1, 60)
FULL_FRAME_SIZES = (10_000, 100_000)
QUICK_FRAME_SIZES = (1_000,)

Say = Callable[[str], None]


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "engine_threads": max_threads(),  # what the benchmark's simulations step on
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": importlib.metadata.version("numba"),
        "platform": platform.platform(),
    }


def run_benchmark(
    quick: bool = False,
    sizes: Sequence[int] | None = None,
    frames: bool = True,
    samples: int | None = None,
    say: Say = lambda line: print(line, file=sys.stderr, flush=True),
) -> dict[str, Any]:
    """Measure everything; `say` receives progress lines. Returns the JSON-ready results.

    samples: multisampling of the frames' framebuffer; None takes the app's choice.
    """
    sizes = tuple(sizes or (QUICK_SIZES if quick else FULL_SIZES))
    say("compiling or loading the engine kernel...")
    compile_kernel()

    base_agents, base_steps = (200, 5) if quick else (1_000, 30)
    say(f"tutorial-style Python loop, {base_agents:,} agents...")
    base_rate = baseline.agent_steps_per_second(base_agents, base_steps)

    engine = []
    for agents in sizes:
        for steps in STEPS_PER_CALL:
            say(f"engine, {agents:,} agents, {steps} step(s) per call...")
            result = measure(agents, steps, min_seconds=0.2 if quick else 1.0)
            engine.append(dataclasses.asdict(result))

    frame_results: list[dict[str, Any]] = []
    frame_error = None
    if frames:
        from .frames import measure_frames

        for agents in QUICK_FRAME_SIZES if quick else FULL_FRAME_SIZES:
            say(f"frames, {agents:,} agents with {TRAIL_LENGTH}-point trails...")
            try:
                results = measure_frames(agents, frames=3 if quick else 12, samples=samples)
            except Exception as error:  # no EGL/GL on this machine: report, don't fail
                frame_error = f"{type(error).__name__}: {error}"
                say(f"frames skipped: {frame_error}")
                break
            frame_results += [dataclasses.asdict(r) for r in results]

    return {
        "machine": machine(),
        "baseline": {
            "what": "tutorial-style loop: one Python object per agent (wander3d/bench/baseline.py)",
            "agents": base_agents,
            "agent_steps_per_s": base_rate,
        },
        "engine": engine,
        "frames": frame_results,
        "frames_error": frame_error,
    }


def format_report(results: dict[str, Any]) -> str:
    """The results as the table `wander3d bench` prints."""
    m = results["machine"]
    base = results["baseline"]["agent_steps_per_s"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores, engine threads {m['engine_threads']}, "
        f"Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}",
        f"baseline (tutorial-style Python loop): {base / 1e6:.3f} M agent-steps/s",
        "",
        "engine: sphere wander, containment on, 128-point trails",
        f"{'agents':>10}  {'steps/call':>10}  {'M agent-steps/s':>15}  {'x baseline':>10}  "
        f"{'bytes/agent':>11}",
    ]
    for row in results["engine"]:
        rate = row["agent_steps_per_s"]
        lines.append(
            f"{row['agents']:>10,}  {row['steps_per_call']:>10}  {rate / 1e6:>15.2f}  "
            f"{rate / base:>10.0f}  {row['bytes_per_agent']:>11.0f}"
        )
    if results["frames"]:
        lines += ["", *format_frames(results["frames"])]
    elif results.get("frames_error"):
        lines += ["", f"frames: skipped ({results['frames_error']})"]
    return "\n".join(lines)


def multisampling(samples: int) -> str:
    """ "4x multisampling", or "no multisampling" for 0 (not "0x")."""
    return f"{samples}x multisampling" if samples else "no multisampling"


def format_frames(frames: list[dict[str, Any]]) -> list[str]:
    """measure_frames' results (as dicts) as table lines, with lod's speed-up over reference."""
    first = frames[0]
    lines = [
        f"frames (offscreen, {first['renderer']}, {multisampling(first['samples'])}), "
        "one new trail sample a frame; trails drawn the original way (reference) and "
        "today's (lod)",
        f"{'agents':>10}  {'trail':>5}  {'size':>9}  {'trails':>9}  {'update ms':>9}  "
        f"{'draw ms':>8}  {'GPU ms':>7}  {'read ms':>7}  {'segments':>10}  {'upload KiB':>10}",
    ]
    by_run: dict[tuple, dict[str, dict[str, Any]]] = {}
    for row in frames:
        key = (row["agents"], row["trail_length"], row["width"], row["height"])
        by_run.setdefault(key, {})[row["detail"]] = row
        size = f"{row['width']}x{row['height']}"
        gpu = "n/a" if row["gpu_ms"] is None else f"{row['gpu_ms']:.1f}"
        lines.append(
            f"{row['agents']:>10,}  {row['trail_length']:>5}  {size:>9}  "
            f"{row['detail']:>9}  {row['update_ms']:>9.2f}  {row['draw_ms']:>8.1f}  "
            f"{gpu:>7}  {row['read_ms']:>7.1f}  {row['segments']:>10,}  "
            f"{row['upload_bytes'] / 1024:>10.0f}"
        )
    for (agents, trail, w, h), rows in by_run.items():
        if {"reference", "lod"} <= rows.keys():
            ratio = rows["reference"]["draw_ms"] / rows["lod"]["draw_ms"]
            lines.append(
                f"{agents:>10,} x {trail} at {w}x{h}: lod draws {ratio:.1f}x as fast as reference"
            )
    return lines
