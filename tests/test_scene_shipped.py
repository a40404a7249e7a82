"""The shipped scenes, how they are found, and the generated docs of the scene format."""

from __future__ import annotations

import dataclasses
import re
import tomllib

import numpy as np
import pytest
from scene_support import REPO, SCENES

import wander3d
from wander3d import Scene, Simulation, load_scene
from wander3d.engine.methods import METHODS
from wander3d.engine.params import Enclosure, GroupParams, WanderParams
from wander3d.scene import bundled_scene, bundled_scenes, estimate_bytes, schema

SHIPPED = sorted(SCENES.glob("*.toml"))
REQUIRED = {"default", "compare", "swarm", "lazy", "nervous", "tunnel", "fish"}


def test_the_promised_scenes_are_shipped():
    assert {p.stem for p in SHIPPED} >= REQUIRED


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_scene_loads_round_trips_and_runs(path, tmp_path):
    scene = load_scene(path)
    text = path.read_text(encoding="utf-8")
    assert scene.text == text
    # Saving and reopening gives the same scene (what the app's "Save as" relies on).
    saved = tmp_path / path.name
    saved.write_text(scene.to_toml(), encoding="utf-8")
    assert load_scene(saved) == scene
    # Every file teaches: each has comments for people learning the parameters.
    comments = [re.sub(r'"[^"]*"', "", line) for line in text.splitlines()]
    assert sum("#" in line for line in comments) >= 5
    sim = Simulation(scene.run_spec)
    sim.step(3)
    assert sim.positions.shape == (scene.agent_count, 3)
    assert np.isfinite(sim.positions).all()


def test_default_scene_is_the_issue_example():
    scene = load_scene(SCENES / "default.toml")
    assert 100 <= scene.agent_count <= 1000
    assert {g.wander.method for g in scene.groups} == {"sphere"}
    assert scene.enclosure == Enclosure(min=(-100, -60, -100), max=(100, 60, 100), margin=15.0)


def test_compare_has_the_five_methods_with_identical_agents_and_distinct_colours():
    scene = load_scene(SCENES / "compare.toml")
    assert sorted(g.wander.method for g in scene.groups) == sorted(METHODS)
    assert len({g.color for g in scene.groups}) == len(METHODS)

    def body(g: GroupParams) -> GroupParams:
        return dataclasses.replace(g, name="", color="", wander=WanderParams())

    assert len({body(g) for g in scene.groups}) == 1


def test_swarm_has_tens_of_thousands_of_agents_with_short_trails():
    scene = load_scene(SCENES / "swarm.toml")
    assert scene.agent_count >= 20_000
    assert all(g.trail_length <= 20 for g in scene.groups)


def test_fish_are_flattened_and_the_tunnel_is_long_and_thin():
    fish = load_scene(SCENES / "fish.toml")
    assert all(g.wander.vertical == 0.2 for g in fish.groups)
    extent = sorted(load_scene(SCENES / "tunnel.toml").extent)
    assert extent[2] >= 8 * extent[1]


def test_lazy_is_slower_and_nervous_twitchier_than_default():
    default, lazy, nervous = (
        load_scene(SCENES / f"{n}.toml") for n in ("default", "lazy", "nervous")
    )
    assert max(g.max_speed for g in lazy.groups) < min(g.max_speed for g in default.groups)
    assert min(g.max_speed for g in nervous.groups) > max(g.max_speed for g in default.groups)


# ----------------------------------------------------------------------------- bundled
def test_bundled_scenes_are_found_from_a_checkout(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # from any folder
    found = bundled_scenes()
    assert set(found) >= REQUIRED
    assert bundled_scene() == found["default"]
    assert bundled_scene("swarm.toml") == found["swarm"]
    assert load_scene(bundled_scene()).name == "Default"


def test_unknown_bundled_scene_lists_the_known_ones():
    with pytest.raises(LookupError, match=r"no bundled scene 'nope' \(bundled scenes: .*default"):
        bundled_scene("nope")


def test_bundled_scenes_prefer_the_installed_package_folder(monkeypatch, tmp_path):
    """After a non-editable install the scenes live in wander3d/scenes inside the package."""
    import importlib.resources

    package = tmp_path / "site-packages" / "wander3d"
    (package / "scenes").mkdir(parents=True)
    (package / "scenes" / "default.toml").write_text("[[groups]]\ncount = 1\n")
    monkeypatch.setattr(importlib.resources, "files", lambda name: package)
    assert bundled_scene() == package / "scenes" / "default.toml"
    assert list(bundled_scenes()) == ["default"]


def test_pyproject_ships_the_scenes_inside_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    force = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert force["scenes"] == "wander3d/scenes"
    assert config["project"]["scripts"]["wander3d"] == "wander3d.cli:main"


# ----------------------------------------------------------------------------- schema & docs
def test_readme_has_the_current_scene_reference():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "## Scene file reference" in readme
    assert schema.readme_block() in readme, (
        "README's scene reference is out of date: run `python -m wander3d.scene README.md`"
    )


def test_reference_table_has_one_row_per_key_with_type_default_and_doc():
    rows = schema.markdown_table().splitlines()[2:]
    assert len(rows) == len(schema.KEYS)
    for row, k in zip(rows, schema.KEYS, strict=True):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[0] == f"`{k.path}`" and cells[1] == k.type
        assert cells[2], f"{k.path} has no documented default"
        assert len(cells[5]) > 10, f"{k.path} has no meaning documented"


def test_update_readme_rewrites_only_the_generated_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{schema.README_START}\nold table\n{schema.README_END}\noutro\n")
    assert schema.update_readme(readme) is True
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith("\noutro\n")
    assert schema.markdown_table() in text and "old table" not in text
    assert schema.update_readme(readme) is False


def test_schema_defaults_match_the_engine_dataclasses():
    for k in schema.keys_of("groups.wander").values():
        assert getattr(WanderParams(), k.name) == k.default
    for name in ("max_speed", "max_force", "mass", "trail_length", "trail_seconds"):
        assert getattr(GroupParams(count=1), name) == schema.default("groups", name)
    assert Enclosure() == Enclosure(
        *(schema.default("enclosure", n) for n in ("min", "max", "margin"))
    )


def test_wander_key_methods_follow_the_engine():
    for k in schema.keys_of("groups.wander").values():
        if k.methods:
            assert k.methods == tuple(
                m for m in METHODS if k.name in wander3d.engine.METHOD_KEYS[m]
            )


def test_memory_estimate_covers_what_the_engine_allocates():
    scene = Scene.from_dict(
        {"groups": [{"count": 500, "trail_length": 40}, {"count": 300, "trail_length": 0,
                    "wander": {"method": "noise"}}]}
    )  # fmt: skip
    sim = Simulation(scene.run_spec)
    assert estimate_bytes(scene.groups) >= sim.nbytes
    assert estimate_bytes(scene.groups) < 3 * sim.nbytes  # an estimate, not a wild guess
