"""Scenes: TOML files describing what to simulate and how to show it.

The scene layer reads and validates files (`load_scene`), holds them as frozen dataclasses
(`Scene`, with the engine's `GroupParams` and `Enclosure` inside) and writes them back
(`Scene.to_toml`). It imports only the standard library and `wander3d.engine.params`, so it runs
where there is no display. The format's keys, defaults and units are in `wander3d.scene.schema`.
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
