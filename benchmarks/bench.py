"""Run wander3d's benchmark from a checkout: `python benchmarks/bench.py [--quick] [--json F]`.

The same as `wander3d bench` (see wander3d/bench/); kept here so the benchmark is easy to find.
"""

import sys

from wander3d.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
