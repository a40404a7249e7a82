"""The frame bench of several commits in one sitting: `python benchmarks/frames_against.py
[--agents N] [--frames F] COMMIT...`, each commit's own frame bench in a process of its own,
taking turns frame by frame (wander3d.bench.against), each against the first commit named.

`wander3d bench --against COMMIT` compares this code with one commit; this compares any
commits with each other (e.g. before and after a change and an old reference), so their
ratios come from frames drawn within the same seconds.
"""

import argparse
import os
import sys

from wander3d.bench.against import commit_tree, paired_ratio, take_turns


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="+", metavar="COMMIT")
    parser.add_argument("--agents", type=int, default=10_000, help="agents (10000)")
    parser.add_argument("--frames", type=int, default=12, help="timed frames a side (12)")
    args = parser.parse_args(argv)
    sides = [(commit, commit_tree(commit)[1]) for commit in args.commits]
    before = os.getloadavg()
    rows = take_turns(sides, args.agents, args.frames)
    after = os.getloadavg()
    print(f"{args.agents:,} agents, {args.frames} frames a side, {rows[0].renderer}")
    for row in rows:
        print(
            f"{row.label:>12}  median draw {row.draw_ms:8.1f} ms  "
            f"x{paired_ratio(row, rows[0]):.2f} of {rows[0].label} (median of the turns)  "
            f"segments {row.segments:>10,}"
        )
    print(f"load average {before[0]:.1f} -> {after[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
