"""Scenes: TOML files describing what to simulate and how to show it.

The scene layer reads and validates files (`load_scene`), holds them as frozen dataclasses
(`Scene`, with the engine's `GroupParams` and `Enclosure` inside) and writes them back
(`Scene.to_toml`) and gives the engine its `RunSpec` (`Scene.run_spec`). It builds on the engine
(its parameter types, its method table, and in `feel` the kernel's constants) and numpy, and
imports nothing that draws, so it runs where there is no display; importing it imports the
engine, and with it numba. The format's keys, defaults and units are in `wander3d.scene.schema`.
Whether a valid scene fits in this machine's memory is a separate question, asked where a
simulation is built: `check_fits` (see `wander3d.scene.memory`).
"""

from wander3d.scene.bundled import DEFAULT_SCENE, bundled_scene, bundled_scenes, scenes_dir
from wander3d.scene.colors import parse_color, rgb
from wander3d.scene.errors import SceneError
from wander3d.scene.loader import load_scene
from wander3d.scene.memory import MemoryFitError, check_fits, estimate_bytes, memory_budget
from wander3d.scene.model import CameraParams, Scene, ViewParams

__all__ = [
    "DEFAULT_SCENE",
    "CameraParams",
    "MemoryFitError",
    "Scene",
    "SceneError",
    "ViewParams",
    "bundled_scene",
    "bundled_scenes",
    "check_fits",
    "estimate_bytes",
    "load_scene",
    "memory_budget",
    "parse_color",
    "rgb",
    "scenes_dir",
]
