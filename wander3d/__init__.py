"""wander3d: see, tune and measure Craig Reynolds' wander steering behaviour in 3D.

import wander3d
scene = wander3d.load_scene("scenes/default.toml")
sim = wander3d.Simulation(scene.run_spec)
sim.step(60)

The engine and the scene layer load on first use of their names (PEP 562), not on `import
wander3d`: the `wander3d` command imports this package before its Ctrl+C handling is in place,
and loading the engine (numba) takes seconds.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

#: Set by `wander3d.sweep.execute` for the worker processes of the local cluster it starts.
LOCAL_WORKER_VARIABLE = "WANDER3D_LOCAL_WORKER"

if "--multiprocessing-fork" in sys.orig_argv and os.environ.get(LOCAL_WORKER_VARIABLE) == "1":
    # A local Dask worker spawned by `wander3d sweep` or `tune` (multiprocessing's spawn marks
    # its children so on their command line; sys.argv is the parent's by now), as early as it
    # can be: Ctrl+C in a terminal reaches every process of the foreground group, and the
    # command handles it, not each worker with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

if TYPE_CHECKING:
    from wander3d.engine import Simulation
    from wander3d.scene import Scene, SceneError, load_scene

try:
    __version__ = version("wander3d")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

#: The public names loaded on first use, and the module each comes from.
_LAZY = {
    "Simulation": "wander3d.engine",
    "Scene": "wander3d.scene",
    "SceneError": "wander3d.scene",
    "load_scene": "wander3d.scene",
}

__all__ = [
    "LOCAL_WORKER_VARIABLE",
    "Scene",
    "SceneError",
    "Simulation",
    "__version__",
    "load_scene",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # once loaded, a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
