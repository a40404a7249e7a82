"""`wander3d bench`: engine throughput against a tutorial-style Python loop, and frame costs.

Performance claims live here, never in timed unit tests: every number is measured in the same
run on the same machine, and the ratios are printed next to them.

Importing it imports the engine, scene and session layers (numpy, numba, psygnal) only; the
frame benchmark (`frames`), which draws a session's published states as the app does, imports
the render layer, vispy and `reference_drawing` (the original drawing it compares against)
when it draws.
"""

from .run import run_benchmark

__all__ = ["run_benchmark"]
