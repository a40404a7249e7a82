"""`wander3d run --out` in every format, `--replay`, and the files read back by other libraries.

Each file is checked against what the simulation itself holds (the .npz of the same run, or a
Simulation stepped in-process), and read with the library a user would use: pyarrow for
Parquet and CSV, pygltflib for the .glb.
"""

from __future__ import annotations

import json
import os
import tracemalloc

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from pygltflib import GLTF2
from scene_support import write

import wander3d
from wander3d import cli, load_scene
from wander3d.export import COLUMNS, FORMAT_VERSION, METADATA_KEY
from wander3d.export.gltf import rotations

SCENE = """\
[scene]
name = "Export"
seed = 5
dt = 0.02

[enclosure]
min = [-40, -20, -30]
max = [40, 20, 30]
margin = 6.0

[[groups]]
name = "amber"
count = 7
color = "#ffb000"

[[groups]]
name = "teal"
count = 5
color = "#20c0b0"
[groups.wander]
method = "noise"
"""
N = 12


@pytest.fixture
def scene_path(tmp_path):
    return write(tmp_path, SCENE, "export.toml")


def run(*args: str) -> int:
    try:
        return cli.main(["run", *args])
    except SystemExit as e:  # argparse's own errors
        return int(e.code or 0)


def npz_of(scene_path, tmp_path, seconds="1", every="5"):
    out = tmp_path / "same.npz"
    assert (
        run(str(scene_path), "--seconds", seconds, "--sample-every", every, "--out", str(out)) == 0
    )
    with np.load(out, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def test_parquet_is_the_runs_long_table_with_its_record(scene_path, tmp_path, capsys):
    out = tmp_path / "run.parquet"
    assert run(str(scene_path), "--seconds", "1", "--sample-every", "5", "--out", str(out)) == 0
    assert "11 samples of 12 agents" in capsys.readouterr().out
    table = pq.read_table(out)
    assert tuple(table.column_names) == COLUMNS
    assert table.num_rows == 11 * N
    types = {f.name: str(f.type) for f in table.schema}
    assert types["particle"] == types["frame"] == "int64"
    assert types["t"] == "double" and types["x"] == types["vz"] == "float"
    col = {name: table.column(name).to_numpy() for name in ("particle", "frame", "t")}
    np.testing.assert_array_equal(col["particle"], np.tile(np.arange(N), 11))
    np.testing.assert_array_equal(col["frame"], np.repeat(np.arange(11), N))
    np.testing.assert_allclose(col["t"], np.repeat(np.arange(11) * 0.1, N))
    groups = table.column("group").to_pylist()
    assert groups == (["amber"] * 7 + ["teal"] * 5) * 11

    reference = npz_of(scene_path, tmp_path)
    xyz = np.stack([table.column(a).to_numpy() for a in "xyz"], axis=-1).reshape(11, N, 3)
    v = np.stack([table.column(a).to_numpy() for a in ("vx", "vy", "vz")], -1).reshape(11, N, 3)
    np.testing.assert_array_equal(xyz, reference["positions"])
    np.testing.assert_array_equal(v, reference["velocities"])

    record = json.loads(table.schema.metadata[METADATA_KEY.encode()])
    assert record["scene_toml"] == SCENE
    assert record["seed"] == 5 and record["dt_s"] == 0.02
    assert record["steps_per_sample"] == 5 and record["sample_interval_s"] == pytest.approx(0.1)
    assert record["samples"] == 11 and record["steps"] == 50
    assert record["wander3d_version"] == wander3d.__version__
    assert record["format_version"] == FORMAT_VERSION


def test_csv_has_the_same_rows_and_a_json_sidecar(scene_path, tmp_path):
    parquet, csv = tmp_path / "run.parquet", tmp_path / "run.csv"
    previous = os.umask(0o027)
    try:
        for out in (parquet, csv):
            args = [str(scene_path), "--seconds", "1", "--sample-rate", "10", "--out", str(out)]
            assert run(*args) == 0
    finally:
        os.umask(previous)
    expected = pq.read_table(parquet)
    table = pacsv.read_csv(csv)
    assert table.column_names == expected.column_names
    for name in COLUMNS:
        got = table.column(name).to_numpy(zero_copy_only=False)
        want = expected.column(name).to_numpy(zero_copy_only=False)
        if name in ("x", "y", "z", "vx", "vy", "vz"):
            got = got.astype(np.float32)  # the text is float32's shortest round trip
        np.testing.assert_array_equal(got, want, err_msg=name)
    sidecar = tmp_path / "run.csv.json"
    record = json.loads(sidecar.read_text())
    assert record == json.loads(expected.schema.metadata[METADATA_KEY.encode()])
    for path in (csv, sidecar):
        assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".npz", ".glb"])
def test_replay_repeats_the_recorded_run_exactly(scene_path, tmp_path, suffix, capsys):
    first, again = tmp_path / f"first{suffix}", tmp_path / f"again{suffix}"
    args = [str(scene_path), "--seconds", "1.3", "--sample-every", "4", "--out", str(first)]
    assert run(*args) == 0
    scene_path.unlink()  # the record alone must be enough
    capsys.readouterr()
    assert run("--replay", str(first), "--out", str(again)) == 0
    assert "ran 65 steps" in capsys.readouterr().err  # the whole run, past the last sample
    if suffix == ".npz":
        with np.load(first) as a, np.load(again) as b:
            assert a.files == b.files
            for key in a.files:
                np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    elif suffix in (".csv", ".glb"):
        assert first.read_bytes() == again.read_bytes()
        if suffix == ".csv":
            sidecars = [tmp_path / f"{name}.csv.json" for name in ("first", "again")]
            assert sidecars[0].read_text() == sidecars[1].read_text()
    else:
        a, b = pq.read_table(first), pq.read_table(again)
        assert a.equals(b)
        assert a.schema.metadata == b.schema.metadata


@pytest.mark.parametrize(
    "args, message",
    [
        (["SCENE", "--seconds", "1", "--out", "TMP/t.parquett"], ".parquet, .csv, .glb or .npz"),
        (["SCENE", "--seconds", "1", "--out", "TMP/t"], "unknown format (none)"),
        (["--replay", "TMP/none.parquet"], "no such file"),
        (["SCENE", "--replay", "TMP/t.parquet"], "leave out SCENE"),
        (["--replay", "TMP/t.parquet", "--seconds", "3"], "leave out --seconds"),
        (["--replay", "TMP/plain.csv"], "plain.csv.json, which does not exist"),
        (["SCENE"], "--seconds is required"),
        ([], "give a SCENE"),
    ],
)
def test_bad_requests_are_one_line_before_the_run(args, message, scene_path, tmp_path, capsys):
    (tmp_path / "plain.csv").write_text("particle,t,x,y\n0,0,1,2\n")
    (tmp_path / "t.parquet").write_bytes(b"")
    args = [a.replace("SCENE", str(scene_path)).replace("TMP", str(tmp_path)) for a in args]
    assert run(*args) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("wander3d: error:") == 1 and "Traceback" not in err
    assert "ran " not in err  # refused before simulating
    assert not (tmp_path / "t.parquett").exists() and not (tmp_path / "t").exists()


def test_streamed_formats_hold_one_chunk_however_long_the_run(scene_path, tmp_path, monkeypatch):
    """Parquet is written in row groups of about CHUNK_ROWS rows as the run goes: ten times
    the run, ten times the row groups, and the same peak of Python-allocated memory."""
    monkeypatch.setattr("wander3d.commands.run.CHUNK_ROWS", 120)  # 10 samples of 12 agents
    run(str(scene_path), "--seconds", "0.1", "--out", str(tmp_path / "warm.parquet"))
    peaks, groups = [], []
    for seconds in ("4", "40"):
        out = tmp_path / f"run{seconds}.parquet"
        tracemalloc.start()
        assert run(str(scene_path), "--seconds", seconds, "--out", str(out)) == 0
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        meta = pq.ParquetFile(out).metadata
        sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
        assert max(sizes) <= 120
        groups.append(meta.num_row_groups)
    assert groups[1] >= 9 * groups[0]
    # The long run's samples alone (2001 x 12 agents x 3 float32 arrays) would be 290 kB.
    assert peaks[1] < peaks[0] + 100_000, peaks


def test_glb_has_one_animated_cone_per_agent_at_the_exported_positions(scene_path, tmp_path):
    out = tmp_path / "run.glb"
    assert run(str(scene_path), "--seconds", "1", "--sample-every", "5", "--out", str(out)) == 0
    reference = npz_of(scene_path, tmp_path)
    gltf = GLTF2().load(str(out))
    blob = gltf.binary_blob()

    def read(index: int) -> np.ndarray:
        accessor = gltf.accessors[index]
        view = gltf.bufferViews[accessor.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor.type]
        start = view.byteOffset + (accessor.byteOffset or 0)
        data = np.frombuffer(blob, np.float32, accessor.count * width, start)
        return data.reshape(accessor.count, width)

    (animation,) = gltf.animations
    agents = [i for i, node in enumerate(gltf.nodes) if node.name != "box"]
    assert len(agents) == N
    channels = {(c.target.node, c.target.path): c.sampler for c in animation.channels}
    assert set(channels) == {(i, p) for i in agents for p in ("translation", "rotation")}
    for i in agents:
        moves = animation.samplers[channels[i, "translation"]]
        turns = animation.samplers[channels[i, "rotation"]]
        np.testing.assert_allclose(read(moves.input)[:, 0], np.arange(11) * 0.1, rtol=1e-6)
        np.testing.assert_array_equal(read(moves.output), reference["positions"][:, i])
        q = read(turns.output)
        np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, rtol=1e-6)
        # Each rotation turns the cone's +Z onto the direction of motion.
        v = reference["velocities"][:, i]
        np.testing.assert_allclose(
            _rotate(q, [0.0, 0.0, 1.0]), v / np.linalg.norm(v, axis=1, keepdims=True), atol=1e-5
        )
    group_of = [0] * 7 + [1] * 5
    assert [gltf.nodes[i].mesh for i in agents] == group_of
    colors = [m.pbrMetallicRoughness.baseColorFactor for m in gltf.materials[:2]]
    assert colors[0][0] == pytest.approx(1.0) and colors[0][2] == pytest.approx(0.0)
    assert colors[1][1] > colors[1][0]  # teal: more green than red
    (box,) = [n for n in gltf.nodes if n.name == "box"]
    primitive = gltf.meshes[box.mesh].primitives[0]
    assert primitive.mode == 1  # LINES
    corners = read(primitive.attributes.POSITION)
    np.testing.assert_array_equal(corners.min(axis=0), [-40, -20, -30])
    np.testing.assert_array_equal(corners.max(axis=0), [40, 20, 30])
    record = gltf.asset.extras[METADATA_KEY]
    assert record["scene_toml"] == SCENE and record["samples"] == 11


def _rotate(q: np.ndarray, v) -> np.ndarray:
    """Rotate vector v by unit quaternions q (x, y, z, w): (k, 4) -> (k, 3)."""
    xyz, w = q[:, :3].astype(np.float64), q[:, 3:].astype(np.float64)
    v = np.broadcast_to(np.asarray(v, dtype=np.float64), xyz.shape)
    t = 2.0 * np.cross(xyz, v)
    return v + w * t + np.cross(xyz, t)


def test_rotation_of_straight_down_the_minus_z_axis_is_a_half_turn():
    q = rotations(np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]))
    np.testing.assert_allclose(_rotate(q, [0, 0, 1]), [[0, 0, -1], [0, 1, 0]], atol=1e-6)


def test_glb_too_big_for_memory_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("wander3d.commands.run.memory_budget", lambda: (200_000_000, "a limit"))
    out = tmp_path / "big.glb"
    assert run("swarm", "--seconds", "10", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "a limit" in err and ".parquet or .csv, which stream" in err
    assert "ran " not in err and not out.exists()
    # The same run streams to Parquet within that budget.
    assert run("swarm", "--seconds", "0.2", "--out", str(tmp_path / "ok.parquet")) == 0


def test_npz_keeps_its_layout(scene_path, tmp_path):
    data = npz_of(scene_path, tmp_path)
    assert data["positions"].shape == (11, N, 3)
    assert str(data["scene_text"]) == SCENE
    assert str(data["wander3d_version"]) == wander3d.__version__
    sim = wander3d.Simulation(load_scene(scene_path).run_spec)
    sim.step(5)
    np.testing.assert_array_equal(data["positions"][1], sim.positions.astype(np.float32))
