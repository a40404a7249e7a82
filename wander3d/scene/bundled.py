"""The scenes shipped with wander3d, found in a source checkout and after `pip install`.

The repository keeps them at the top level (`scenes/`, where people look) and the wheel carries
them inside the package as `wander3d/scenes` (pyproject's force-include), so look there first and
fall back to the checkout's top level.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

DEFAULT_SCENE = "default"


def scenes_dir() -> Path | None:
    """The folder of shipped scenes, or None if this installation has none."""
    try:
        packaged = importlib.resources.files("wander3d") / "scenes"
    except (ModuleNotFoundError, TypeError):
        packaged = None
    # A zipped install would give a non-filesystem Traversable; wheels install as folders.
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "scenes"
    return checkout if checkout.is_dir() else None


def bundled_scenes() -> dict[str, Path]:
    """Shipped scenes by name (the file stem), sorted by name."""
    folder = scenes_dir()
    if folder is None:
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.toml")) if p.is_file()}


def bundled_scene(name: str = DEFAULT_SCENE) -> Path:
    """The path of a shipped scene, e.g. bundled_scene("swarm").

    Raises LookupError (naming the scenes there are) if there is no such scene.
    """
    scenes = bundled_scenes()
    stem = name.removesuffix(".toml")
    if stem in scenes:
        return scenes[stem]
    have = ", ".join(scenes) if scenes else "none found in this installation"
    raise LookupError(f"no bundled scene {name!r} (bundled scenes: {have})")
