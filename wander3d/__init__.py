"""wander3d: see, tune and measure Craig Reynolds' wander steering behaviour in 3D.

import wander3d
scene = wander3d.load_scene("scenes/default.toml")
sim = wander3d.Simulation(scene.run_spec)
sim.step(60)
"""

from importlib.metadata import PackageNotFoundError, version

from wander3d.engine import Simulation
from wander3d.scene import Scene, SceneError, load_scene

try:
    __version__ = version("wander3d")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["Scene", "SceneError", "Simulation", "__version__", "load_scene"]
