"""The Scene: everything a scene file says, validated, as frozen dataclasses."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wander3d.engine.methods import METHOD_KEYS
from wander3d.engine.params import SHARED_WANDER_KEYS, Enclosure, GroupParams, RunSpec
from wander3d.scene import schema
from wander3d.scene.errors import NO_FILE
from wander3d.scene.toml_writer import dumps
from wander3d.scene.validate import parse_scene


@dataclass(frozen=True)
class CameraParams:
    """The initial view.

    mode:       "turntable" | "arcball" | "fly".
    azimuth:    degrees around the vertical (+y) axis.
    elevation:  degrees above the horizontal plane, -90..90.
    distance:   units from the box's centre; None fits the box in view.
    fov:        vertical field of view in degrees, 0 < fov < 180.
    """

    mode: str = schema.default("camera", "mode")
    azimuth: float = schema.default("camera", "azimuth")
    elevation: float = schema.default("camera", "elevation")
    distance: float | None = schema.default("camera", "distance")
    fov: float = schema.default("camera", "fov")


@dataclass(frozen=True)
class ViewParams:
    """What is drawn besides the agents.

    background:      canvas colour, "#rrggbb".
    show_enclosure:  draw the box as a wireframe.
    show_trails:     draw each agent's recent path.
    """

    background: str = schema.default("view", "background")
    show_enclosure: bool = schema.default("view", "show_enclosure")
    show_trails: bool = schema.default("view", "show_trails")


def _source_path(source: str | os.PathLike[str] | None) -> Path | None:
    return None if source is None else Path(source)


@dataclass(frozen=True)
class Scene:
    """A validated scene; `run_spec` is what the engine runs of it.

    name:       shown in the window title.
    seed:       integer >= 0 seeding the simulation's one random generator.
    dt:         seconds per fixed step, 0 < dt <= 0.1.
    enclosure:  the box agents stay in (engine Enclosure).
    groups:     one or more engine GroupParams.
    camera:     the initial view.
    view:       background and what is drawn.
    source:     the file it was loaded from, or None (not compared).
    text:       that file's TOML text, or None (not compared).
    notices:    one line per thing the file should write differently, e.g. a removed key that
                was converted (not compared); empty for a current file.

    Build one with `load_scene(path)` or `Scene.from_dict(d)`, which validate; constructing the
    dataclass directly does not, so use `scene.replace(...)` to change a valid scene.
    """

    name: str
    seed: int
    dt: float
    enclosure: Enclosure
    groups: tuple[GroupParams, ...]
    camera: CameraParams = field(default_factory=CameraParams)
    view: ViewParams = field(default_factory=ViewParams)
    source: Path | None = field(default=None, compare=False)
    text: str | None = field(default=None, compare=False, repr=False)
    notices: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_dict(
        cls,
        d: Any,
        source: str | os.PathLike[str] | None = None,
        text: str | None = None,
    ) -> Scene:
        """Validate a parsed scene document (as tomllib returns it) and build the Scene.

        `source` is the file errors name and the default scene name comes from (its stem).
        Raises SceneError, and only SceneError, for any invalid input.
        """
        path = _source_path(source)
        return build_scene(d, path, NO_FILE if path is None else str(path), text)

    def to_dict(self) -> dict[str, Any]:
        """The scene as a TOML-shaped document: every key explicit, wander keys per method.

        `Scene.from_dict(scene.to_dict()) == scene`. Optional keys that are unset (camera
        distance, initial_speed) are left out, which is how a file says "unset".
        """
        camera = dataclasses.asdict(self.camera)
        if camera["distance"] is None:
            del camera["distance"]
        return {
            "scene": {"name": self.name, "seed": self.seed, "dt": self.dt},
            "enclosure": {
                "min": list(self.enclosure.min),
                "max": list(self.enclosure.max),
                "margin": self.enclosure.margin,
            },
            "camera": camera,
            "view": dataclasses.asdict(self.view),
            "groups": [_group_dict(g) for g in self.groups],
        }

    def to_toml(self) -> str:
        """The scene as TOML text that `load_scene` reads back to an equal Scene."""
        header = (
            f"wander3d scene {self.name!r}.\n"
            "Every key is optional except groups.count; units are in the comments and the\n"
            "README's 'Scene file reference' explains each key."
        )
        return dumps(self.to_dict(), header=header, note=_unit_comment)

    def replace(self, **changes: Any) -> Scene:
        """A validated copy with some fields changed, e.g. `scene.replace(groups=sim.groups)`.

        Raises SceneError if the result is invalid. The copy keeps `source` but not `text`,
        which no longer describes it.
        """
        changed = dataclasses.replace(self, **changes)
        return Scene.from_dict(changed.to_dict(), source=changes.get("source", self.source))

    @property
    def run_spec(self) -> RunSpec:
        """What a Simulation of this scene runs from: its seed, dt, enclosure and groups."""
        return RunSpec(seed=self.seed, dt=self.dt, enclosure=self.enclosure, groups=self.groups)

    @property
    def agent_count(self) -> int:
        """Total number of agents over all groups."""
        return sum(g.count for g in self.groups)

    @property
    def extent(self) -> tuple[float, float, float]:
        """The box's size along x, y, z in units."""
        lo, hi = self.enclosure.min, self.enclosure.max
        return (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])


def build_scene(d: Any, source: Path | None, label: str, text: str | None) -> Scene:
    """Validate `d` and build a Scene; errors name `label` (the path as the user typed it)."""
    fields = parse_scene(
        d,
        file=label,
        default_name="untitled" if source is None else source.stem or "untitled",
    )
    return Scene(
        name=fields["name"],
        seed=fields["seed"],
        dt=fields["dt"],
        enclosure=fields["enclosure"],
        groups=fields["groups"],
        camera=CameraParams(**fields["camera"]),
        view=ViewParams(**fields["view"]),
        source=source,
        text=text,
        notices=fields["notices"],
    )


def _group_dict(g: GroupParams) -> dict[str, Any]:
    d: dict[str, Any] = {
        name: getattr(g, name)
        for name in schema.keys_of("groups")
        if getattr(g, name) is not None  # initial_speed None: absent means max_speed / 2
    }
    w = g.wander
    # method first, then the keys it reads, then the shared ones: the order people read them.
    names = ["method", *METHOD_KEYS[w.method], *(k for k in SHARED_WANDER_KEYS if k != "method")]
    d["wander"] = {name: getattr(w, name) for name in names}
    return d


def _unit_comment(table: str, key: str) -> str:
    try:
        return schema.key(table, key).unit
    except KeyError:
        return ""
