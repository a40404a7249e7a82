"""`wander3d bench`: engine throughput against a tutorial-style Python loop, and frame costs.

Performance claims live here, never in timed unit tests: every number is measured in the same
run on the same machine, and the ratios are printed next to them.

Importing it imports the engine and scene layers (numpy, numba) only; the frame benchmark
(`frames`) imports the render layer, vispy and `reference_drawing` (the original drawing it
compares against) when it draws.
"""

from .run import run_benchmark

__all__ = ["run_benchmark"]
