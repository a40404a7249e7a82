"""wander3d: see, tune and measure Craig Reynolds' wander steering behaviour in 3D.

import wander3d
scene = wander3d.load_scene("scenes/default.toml")
sim = wander3d.Simulation(scene.run_spec)
sim.step(60)
"""

import os
import signal
import sys
from importlib.metadata import PackageNotFoundError, version

#: Set by `wander3d.sweep.execute` for the worker processes of the local cluster it starts.
LOCAL_WORKER_VARIABLE = "WANDER3D_LOCAL_WORKER"

if "--multiprocessing-fork" in sys.orig_argv and os.environ.get(LOCAL_WORKER_VARIABLE) == "1":
    # A local Dask worker spawned by `wander3d sweep` or `tune` (multiprocessing's spawn marks
    # its children so on their command line; sys.argv is the parent's by now), as early as it
    # can be: Ctrl+C in a terminal reaches every process of the foreground group, and the
    # command handles it, not each worker with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

from wander3d.engine import Simulation  # noqa: E402 (after the worker signal set-up)
from wander3d.scene import Scene, SceneError, load_scene  # noqa: E402

try:
    __version__ = version("wander3d")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["Scene", "SceneError", "Simulation", "__version__", "load_scene"]
