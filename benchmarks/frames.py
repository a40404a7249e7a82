"""Frame costs at chosen sizes: `python benchmarks/frames.py [--size WxH] [--samples N] AxT...`.

Each AxT is agents x trail points, e.g. `100000x128 1000000x32`; every run draws the trails
the original way and today's, frame by frame alternately, as `wander3d bench` does (whose
frame sizes are fixed). For a GPU machine, see docs/performance.md.
"""

import argparse
import dataclasses
import sys

from wander3d.bench.frames import measure_frames
from wander3d.bench.run import format_frames


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="AxT", help="agents x trail points")
    parser.add_argument("--size", default="1920x1080", help="framebuffer WxH (1920x1080)")
    parser.add_argument("--samples", type=int, default=None, help="multisampling (the app's)")
    parser.add_argument("--frames", type=int, default=12, help="frames per way of drawing")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    rows = []
    for run in args.runs:
        agents, trail = (int(v) for v in run.lower().split("x"))
        print(f"{agents:,} agents x {trail}...", file=sys.stderr, flush=True)
        results = measure_frames(agents, trail, (width, height), args.frames, samples=args.samples)
        rows += [dataclasses.asdict(r) for r in results]
    print("\n".join(format_frames(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
