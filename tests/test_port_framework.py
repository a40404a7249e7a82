"""The port framework (wander3d.port): which groups a port holds, its exact start, the scene
block of a core, and writing a port's files. Each language's own tests run its conformance
driver against the engine (tests/test_port_js.py, ...)."""

import struct
import tomllib
from pathlib import Path

import numpy as np
import pytest
from scene_support import MINIMAL, write

from wander3d.engine import Simulation
from wander3d.engine.methods import METHOD_TABLE
from wander3d.files import OutputError
from wander3d.port import LANGUAGES, Language, PortError, language, plan_port, write_port
from wander3d.port.language import declared_ids, with_scene_block
from wander3d.port.licence import LICENCE_LINES, LICENSE_ID, commented
from wander3d.port.plan import START_HEADER
from wander3d.scene import load_scene

TWO_GROUPS = """
[scene]
seed = 5
[[groups]]
name = "a"
count = 3
[groups.wander]
method = "noise"
vertical = 0.5
[[groups]]
name = "b"
count = 2
[groups.wander]
method = "seek"
"""


def parse_start(text):
    """start.txt -> (groups (N,), doubles (N, 23), keys (N, 2) uint64)."""
    lines = text.splitlines()
    assert lines[0] == START_HEADER
    n = int(lines[1].split()[1])
    rows = [line.split() for line in lines[2:]]
    assert len(rows) == n and all(len(r) == 26 for r in rows)
    groups = np.array([int(r[0]) for r in rows])
    doubles = np.array([[struct.unpack(">d", bytes.fromhex(f))[0] for f in r[1:24]] for r in rows])
    keys = np.array([[int(f, 16) for f in r[24:]] for r in rows], dtype=np.uint64)
    return groups, doubles, keys


def test_the_start_is_the_engines_exactly(tmp_path):
    scene = load_scene(write(tmp_path, TWO_GROUPS))
    groups, doubles, keys = parse_start(plan_port(scene).start)
    sim = Simulation(scene.run_spec)
    np.testing.assert_array_equal(groups, [0, 0, 0, 1, 1])
    np.testing.assert_array_equal(doubles[:, 0:3], sim.positions)
    np.testing.assert_array_equal(doubles[:, 3:6], sim.velocities)
    np.testing.assert_array_equal(doubles[:, 6:9], sim.headings)
    snap = sim.snapshot().arrays
    np.testing.assert_array_equal(doubles[:, 15:17], snap["_angles"])
    np.testing.assert_array_equal(doubles[:, 19:22], snap["_seek_targets"])
    np.testing.assert_array_equal(doubles[:, 22], snap["_seek_timers"])
    np.testing.assert_array_equal(keys, snap["_noise_keys"])
    assert keys[:3].all()  # the noise group's keys are there


def test_a_group_subset_is_the_smaller_scene(tmp_path):
    scene = load_scene(write(tmp_path, TWO_GROUPS))
    plan = plan_port(scene, ["b"])
    assert [g.name for g in plan.groups] == ["b"] and plan.groups[0].first == 0
    smaller = scene.replace(groups=scene.groups[1:])
    assert plan.scene == smaller
    _, doubles, _ = parse_start(plan.start)
    np.testing.assert_array_equal(doubles[:, 0:3], Simulation(smaller.run_spec).positions)


def test_an_unknown_group_names_the_scenes_groups(tmp_path):
    scene = load_scene(write(tmp_path, TWO_GROUPS))
    with pytest.raises(PortError, match=r"no group 'c' \(groups: 'a', 'b'\)"):
        plan_port(scene, ["a", "c"])


def test_the_scene_block_is_replaced_and_the_markers_kept():
    source = "head\n// BEGIN SCENE\nold 1\nold 2\n// END SCENE\ntail\n"
    assert with_scene_block(source, "new") == "head\n// BEGIN SCENE\nnew\n// END SCENE\ntail\n"
    with pytest.raises(ValueError, match="BEGIN SCENE"):
        with_scene_block("no markers\n", "new")


def fake_language():
    """A Language over this test folder's files: a core with a scene block, one copied file."""
    return Language(
        name="fake",
        title="Fake",
        package="wander3d.port",
        core="__init__.py",  # any package file: its scene block is checked for
        sources=("write.py",),
        scene_block=lambda plan: f"seed {plan.scene.seed}",
        readme=lambda plan: f"# {plan.scene.name}\n",
        conformance="true",
    )


def test_a_core_without_scene_block_is_refused(tmp_path):
    plan = plan_port(load_scene(write(tmp_path, MINIMAL)))
    with pytest.raises(ValueError, match="BEGIN SCENE"):
        write_port(plan, fake_language(), tmp_path / "out")


def test_write_port_writes_every_file_and_the_scene_it_ported(tmp_path, monkeypatch):
    scene = load_scene(write(tmp_path, TWO_GROUPS))
    plan = plan_port(scene, ["a"])
    lang = fake_language()
    monkeypatch.setattr(Language, "source", lambda self, path: f"x\nBEGIN SCENE\nEND SCENE\n{path}")
    written = write_port(plan, lang, tmp_path / "out")
    names = sorted(p.relative_to(tmp_path / "out").as_posix() for p in written)
    assert names == ["README.md", "__init__.py", "scene.toml", "start.txt", "write.py"]
    out = tmp_path / "out"
    assert (out / "__init__.py").read_text() == "x\nBEGIN SCENE\nseed 5\nEND SCENE\n__init__.py"
    assert load_scene(out / "scene.toml") == plan.scene
    assert (out / "start.txt").read_text() == commented("# ") + plan.start


def test_write_port_needs_the_parent_folder(tmp_path):
    plan = plan_port(load_scene(write(tmp_path, MINIMAL)))
    with pytest.raises(OutputError, match="does not exist"):
        write_port(plan, fake_language(), tmp_path / "missing" / "out")
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="not a folder"):
        write_port(plan, fake_language(), tmp_path / "file")


def test_the_command_reports_bad_input_in_one_line(tmp_path, capsys):
    from wander3d.cli import main

    assert main(["port", "default", "--lang", "js", "--group", "x", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == "wander3d: error: --group: scene 'Default' has no group 'x' (groups: 'wanderers')\n"
    )
    missing = tmp_path / "no" / "port"
    assert main(["port", "default", "--lang", "js", "--out", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"wander3d: error: --out {missing}: folder {missing.parent} does not exist\n"
    )
    with pytest.raises(SystemExit) as exit_:
        main(["port", "default", "--lang", "cobol", "--out", str(tmp_path)])
    assert exit_.value.code == 2 and "invalid choice: 'cobol'" in capsys.readouterr().err


def test_the_command_says_where_the_port_went_and_how_to_check_it(tmp_path, capsys):
    from wander3d.cli import main

    out = tmp_path / "game"
    assert main(["port", "compare", "--lang", "js", "--group", "seek", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"{out}: JavaScript port of 'Five methods compared' (1 group, 60 ")
    assert f"bash {out}/conformance.sh SECONDS SAMPLE_RATE" in said
    assert load_scene(out / "scene.toml").groups[0].name == "seek"


ROOT = Path(__file__).resolve().parents[1]


def test_the_licence_is_the_one_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": LICENSE_ID}
    assert (ROOT / "LICENSE").read_text().startswith(f"{LICENSE_ID} License\n")


@pytest.mark.parametrize("name", list(LANGUAGES))
def test_every_file_a_port_writes_carries_the_licence_lines_on_top(tmp_path, name):
    scene = load_scene(write(tmp_path, TWO_GROUPS))
    written = write_port(plan_port(scene), language(name), tmp_path / "out")
    for path in written:
        head = path.read_text().splitlines()[:4]
        if head[0].startswith("#!"):
            head = head[1:]
        for line, wanted in zip(head, LICENCE_LINES, strict=False):
            assert wanted in line, f"{path.name}: {head}"
    assert {p.name for p in written} >= {"README.md", "scene.toml", "start.txt"}


@pytest.mark.parametrize("name", list(LANGUAGES))
def test_every_core_declares_the_engines_methods_by_their_ids(name):
    """A core's method ids pick its branches: one off and a scene's method runs as another."""
    port = language(name)
    assert port.method_ids is not None, f"{name}: its Language sets no method_ids"
    declared = port.method_ids(port.source(port.core))
    assert declared == {m.name: m.id for m in METHOD_TABLE}


def test_declared_ids_reads_one_block_and_skips_comments():
    core = "x = 9\nenum M {\n  Sphere = 0, // was = 7\n  Angle = 1, # noise = 5\n}\ny = 3\n"
    assert declared_ids("enum M")(core) == {"sphere": 0, "angle": 1}
    assert declared_ids("IDS")("const IDS = { seek: 3, random: 4 };") == {"seek": 3, "random": 4}
