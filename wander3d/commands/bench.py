"""`wander3d bench`: engine speed against a tutorial-style loop, and frame costs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from wander3d.arguments import positive_int

from .common import EXIT_OK, help_paragraph, output_option, require_extra

NAME = "bench"
HELP = "measure engine speed and frame costs"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = help_paragraph(
        "Measure the engine's agent-steps per second (sphere wander, containment and 128-point "
        "trails) for 1k to 1M agents, against a tutorial-style Python loop run in the same "
        "process, bytes per agent, and per-frame drawing costs offscreen (EGL; needs the render "
        "extra)."
    )
    parser.add_argument("--quick", action="store_true", help="a few seconds' smoke run")
    parser.add_argument(
        "--agents", type=positive_int, nargs="+", metavar="N", help="agent counts to measure"
    )
    parser.add_argument("--no-frames", action="store_true", help="skip the drawing benchmark")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")


def main(args: argparse.Namespace) -> int:
    """Engine throughput against a tutorial-style loop, and frame costs; see wander3d.bench."""
    from wander3d.bench.run import format_report, run_benchmark

    if not args.no_frames:
        require_extra("render", ("vispy",), "the frame benchmark (skip it: --no-frames)")
    if args.json is None:
        results = run_benchmark(quick=args.quick, sizes=args.agents, frames=not args.no_frames)
        print(format_report(results), flush=True)
        return EXIT_OK
    with output_option("--json", Path(args.json)) as temporary:
        results = run_benchmark(quick=args.quick, sizes=args.agents, frames=not args.no_frames)
        print(format_report(results), flush=True)
        temporary.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"{args.json}: results as JSON")
    return EXIT_OK
