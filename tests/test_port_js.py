"""The JavaScript port: its conformance driver's CSV equals `wander3d run`'s byte for byte.

Every bundled scene and scenes written here (every method and steering mode, vertical < 1,
heavy agents at the walls, no margin, dt 1/30, 1/120 and 1/20) run 60 simulated seconds in
node and in the engine. Node is required: without it these tests fail, they never skip
(scripts/bootstrap.sh installs nodejs). Also checked: the CSV number formatting against
pyarrow's, frame-rate independence of `update`, the port's own spawn, and that the checked-in
core's scene block is the default scene's port.
"""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from port_support import assert_same_csv
from scene_support import REPO, SCENES

from wander3d.cli import main as wander3d
from wander3d.port import language, plan_port
from wander3d.scene import Scene, bundled_scenes, load_scene

CORE = REPO / "wander3d" / "port" / "js" / "wander.mjs"
SECONDS = 60
#: Agents per group in the bundled scenes' conformance runs: enough to meet every wall and
#: method branch in 60 s, few enough for node to run every scene in seconds.
AGENTS_PER_GROUP = 12


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail("node is not installed; the JS port's tests need it (scripts/bootstrap.sh)")
    return path


def run_node(node: str, script: str, cwd: Path | None = None) -> str:
    """Run an ES module given as text (it may import the checked-in core by CORE's URL)."""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def conformance(node: str, scene_file: Path, folder: Path, rate: float = 2.0, *groups: str):
    """Port `scene_file` to JS in `folder`, run both, and compare the CSVs byte for byte."""
    args = ["port", str(scene_file), "--lang", "js", "--out", str(folder / "port")]
    for g in groups:
        args += ["--group", g]
    assert wander3d(args) == 0
    ours = folder / "out.csv"
    with ours.open("w") as out:
        done = subprocess.run(
            [node, str(folder / "port" / "conformance.mjs"), str(SECONDS), str(rate)],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=240,
        )
    assert done.returncode == 0, done.stderr
    reference = folder / "ref.csv"
    scene = folder / "port" / "scene.toml"
    assert wander3d(["run", str(scene), "--seconds", str(SECONDS), "--sample-rate", str(rate),
                     "--out", str(reference)]) == 0  # fmt: skip
    assert_same_csv(ours.read_bytes(), reference.read_bytes())
    return ours


def fewer_agents(scene: Scene, count: int) -> Scene:
    return scene.replace(groups=tuple(dataclasses.replace(g, count=count) for g in scene.groups))


@pytest.mark.parametrize("name", sorted(bundled_scenes()))
def test_every_bundled_scene_is_identical_for_60_s(node, tmp_path, name):
    scene = fewer_agents(load_scene(SCENES / f"{name}.toml"), AGENTS_PER_GROUP)
    path = tmp_path / f"{name}.toml"
    path.write_text(scene.to_toml())
    conformance(node, path, tmp_path)


def group_table(name: str, method: str, steering: str, **keys: float) -> str:
    wander = "".join(f"{k} = {v}\n" for k, v in keys.items() if k not in ("mass", "max_force"))
    body = "".join(f"{k} = {v}\n" for k, v in keys.items() if k in ("mass", "max_force"))
    return (
        f'[[groups]]\nname = "{name}"\ncount = 4\n{body}'
        f'[groups.wander]\nmethod = "{method}"\nsteering = "{steering}"\n{wander}'
    )


METHODS = ("sphere", "angle", "noise", "seek", "random")


def every_method_scene(dt: float, margin: float = 15.0, **keys: float) -> str:
    """One group per method and steering mode, 4 agents each."""
    groups = [group_table(f"{m} {s}", m, s, **keys) for m in METHODS for s in ("force", "desired")]
    return (
        f"[scene]\nseed = 11\ndt = {dt}\n"
        f"[enclosure]\nmin = [-60, -30, -60]\nmax = [60, 30, 60]\nmargin = {margin}\n"
        + "".join(groups)
    )


@pytest.mark.parametrize(
    ("label", "text"),
    [
        ("dt 1/30, isotropic", every_method_scene(1 / 30)),
        ("dt 1/120, vertical 0.3", every_method_scene(1 / 120, vertical=0.3)),
        ("dt 1/20 (beyond the random hold), vertical 0", every_method_scene(0.05, vertical=0.0)),
        ("heavy agents near the walls", every_method_scene(1 / 60, margin=2.0, mass=6.0,
                                                           max_force=20.0, vertical=0.7)),
        ("no margin: only reflection", every_method_scene(1 / 60, margin=0.0)),
    ],
)  # fmt: skip
def test_written_scenes_are_identical_for_60_s(node, tmp_path, label, text):
    path = tmp_path / "scene.toml"
    path.write_text(text)
    conformance(node, path, tmp_path, 5.0)


def test_heavy_agents_near_walls_are_reflected_and_still_identical(node, tmp_path):
    """The scene above meets the hard wall (reflection, mirrored frames), not just the band."""
    path = tmp_path / "scene.toml"
    path.write_text(every_method_scene(1 / 60, margin=2.0, mass=6.0, max_force=20.0))
    from wander3d.engine import Simulation

    sim = Simulation(load_scene(path).run_spec)
    sim.step(SECONDS * 60)
    reflected = [int(sim.wall_reflections[sl].sum()) for sl in sim.group_slices]
    assert all(r > 0 for r in reflected[:4]), reflected  # sphere and angle groups hit walls
    conformance(node, path, tmp_path, 1.0)


def test_a_group_subset_ports_the_smaller_scene(node, tmp_path):
    conformance(node, SCENES / "compare.toml", tmp_path, 2.0, "noise", "angle")
    rows = (tmp_path / "out.csv").read_text().splitlines()
    assert {r.split(",")[1] for r in rows[1:]} == {'"angle"', '"noise"'}


def test_a_start_file_with_windows_line_ends_starts_the_same_run(node, tmp_path):
    """git's autocrlf may check start.txt out with CRLF line ends: the same run, not an error."""
    path = tmp_path / "scene.toml"
    path.write_text(every_method_scene(1 / 60))
    conformance(node, path, tmp_path, 2.0)
    start = tmp_path / "port" / "start.txt"
    start.write_bytes(start.read_bytes().replace(b"\n", b"\r\n"))
    crlf = tmp_path / "crlf.csv"
    with crlf.open("w") as out:
        done = subprocess.run(
            [node, str(tmp_path / "port" / "conformance.mjs"), str(SECONDS), "2.0"],
            stdout=out, stderr=subprocess.PIPE, text=True, timeout=240,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_same_csv(crlf.read_bytes(), (tmp_path / "ref.csv").read_bytes())


def test_the_checked_in_core_is_the_default_scenes_port():
    lang = language("js")
    plan = plan_port(load_scene(SCENES / "default.toml"))
    assert lang.files(plan)["wander.mjs"] == CORE.read_text()


def test_numbers_are_formatted_as_arrow_writes_them(node, tmp_path):
    rng = np.random.default_rng(3)
    f32 = np.concatenate([
        rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        rng.uniform(-300, 300, 100_000).astype(np.float32),
        np.float32([0.0, -0.0, 1e-7, 1e-6, 1e9, 1e10, 1048576.25, 1048576.75, 3.4028235e38]),
    ])  # fmt: skip
    f32 = f32[np.isfinite(f32)]
    f64 = np.concatenate([rng.uniform(-1e3, 1e3, 50_000), np.arange(3000) * (7 / 60)])
    f32.tofile(tmp_path / "f32.bin")
    f64.tofile(tmp_path / "f64.bin")
    script = f"""
        import {{ readFileSync }} from "node:fs";
        import {{ formatFloat32, formatDouble }} from "{CORE.as_uri()}";
        const read = (name) => readFileSync(name);
        const a = read("f32.bin"), b = read("f64.bin");
        const f = new Float32Array(a.buffer, a.byteOffset, a.length / 4);
        const d = new Float64Array(b.buffer, b.byteOffset, b.length / 8);
        console.log(JSON.stringify([Array.from(f, formatFloat32), Array.from(d, formatDouble)]));
    """
    ours32, ours64 = json.loads(run_node(node, script, cwd=tmp_path))
    for values, ours in ((f32, ours32), (f64, ours64)):
        buffer = io.BytesIO()
        pacsv.write_csv(pa.table({"v": pa.array(values)}), buffer)
        theirs = buffer.getvalue().decode().splitlines()[1:]
        bad = [(v, o, t) for v, o, t in zip(values, ours, theirs, strict=True) if o != t]
        assert not bad, bad[:5]


def test_the_run_does_not_depend_on_the_frame_rate(node):
    script = f"""
        import {{ Flock, SCENE }} from "{CORE.as_uri()}";
        const scene = {{ ...SCENE, groups: SCENE.groups.map((g) => ({{ ...g, count: 20 }})) }};
        const a = new Flock(scene), b = new Flock(scene), c = new Flock(scene);
        let compared = 0, alphaOk = true;
        // 144 fps, 24 fps, and jittery frames with stalls (capped at 0.25 s)
        const frames = [1 / 144, 1 / 24];
        let seed = 1;
        const jitter = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 0.4;
        while (a.step < 1200) {{
          a.update(frames[0]);
          if (b.step < a.step) b.update(frames[1]);
          if (c.step < a.step) {{
            const alpha = c.update(jitter());
            alphaOk &&= alpha >= 0 && alpha < 1;
          }}
          for (const other of [b, c]) {{
            if (other.step === a.step) {{
              compared++;
              if (other.position.some((x, i) => x !== a.position[i])) throw new Error("differs");
            }}
          }}
        }}
        const out = [0, 0, 0];
        c.positionAt(0, 0.5, out);
        const mid = [0, 1, 2].map((k) => (c.previous[k] + c.position[k]) / 2);
        console.log(JSON.stringify({{ compared, alphaOk, mid: out.map((x, k) => x - mid[k]) }}));
    """
    result = json.loads(run_node(node, script))
    assert result["compared"] > 200 and result["alphaOk"]
    assert max(abs(x) for x in result["mid"]) < 1e-9


def test_spawned_agents_start_inside_the_margin_and_stay_in_the_box(node):
    script = f"""
        import {{ Flock, SCENE }} from "{CORE.as_uri()}";
        const methods = ["sphere", "angle", "noise", "seek", "random"];
        const scene = {{ ...SCENE, groups: methods.map((method) => ({{
          name: method, count: 30, params: {{ ...SCENE.groups[0].params, method, vertical: 0.4 }}
        }})) }};
        const a = new Flock(scene), b = new Flock(scene);
        const other = new Flock({{ ...scene, seed: 8 }});
        const {{ min, max, margin }} = scene.box;
        let inside = true, unit = true, outside = false;
        for (let i = 0; i < a.count; i++) {{
          for (let k = 0; k < 3; k++) {{
            const x = a.position[3 * i + k];
            inside &&= x >= min[k] + margin && x <= max[k] - margin;
          }}
          const h = Math.hypot(a.heading[3 * i], a.heading[3 * i + 1], a.heading[3 * i + 2]);
          unit &&= Math.abs(h - 1) < 1e-12;
        }}
        const same = a.position.every((x, i) => x === b.position[i]);
        const differs = a.position.some((x, i) => x !== other.position[i]);
        a.advance(3600);
        for (let i = 0; i < a.count; i++) for (let k = 0; k < 3; k++) {{
          const x = a.position[3 * i + k];
          outside ||= !(x >= min[k] && x <= max[k]);
        }}
        console.log(JSON.stringify({{ inside, unit, same, differs, outside }}));
    """
    assert json.loads(run_node(node, script)) == {
        "inside": True, "unit": True, "same": True, "differs": True, "outside": False
    }  # fmt: skip


def test_edited_parameters_act_from_the_next_step(node):
    script = f"""
        import {{ Flock, SCENE }} from "{CORE.as_uri()}";
        const flock = new Flock(SCENE);
        flock.advance(30);
        flock.groups[0].params.maxSpeed = 5;
        flock.advance(1);
        let fastest = 0;
        for (let i = 0; i < flock.count; i++) {{
          const v = flock.velocity;
          fastest = Math.max(fastest, Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
        }}
        console.log(fastest);
    """
    assert float(run_node(node, script)) <= 5.0 + 1e-9


def test_switching_method_keeps_each_target_where_it_is(node):
    script = f"""
        import {{ Flock, SCENE }} from "{CORE.as_uri()}";
        const flock = new Flock({{ ...SCENE, groups: [{{ ...SCENE.groups[0], count: 40 }}] }});
        flock.advance(120);
        const moved = {{}};
        let aligned = 1;
        for (const method of ["angle", "noise", "random", "seek", "sphere", "noise", "angle"]) {{
          const before = flock.target.slice();
          const fromSeek = flock.groups[0].params.method === "seek";
          flock.setMethod(0, method);
          let worst = 0;
          for (let i = 0; i < flock.count; i++) {{
            const j = 3 * i;
            const [x, y, z] = [0, 1, 2].map((a) => flock.target[j + a] - before[j + a]);
            worst = Math.max(worst, Math.hypot(x, y, z));
            if (fromSeek) {{  // the sphere's point nearest the point sought
              const [cx, cy, cz, r] = flock.wanderSphere(i);
              const t = [flock.target[j] - cx, flock.target[j + 1] - cy, flock.target[j + 2] - cz];
              const s = [before[j] - cx, before[j + 1] - cy, before[j + 2] - cz];
              const dot = t[0] * s[0] + t[1] * s[1] + t[2] * s[2];
              aligned = Math.min(aligned, dot / (Math.hypot(...t) * Math.hypot(...s)));
            }}
          }}
          moved[method] = Math.max(moved[method] ?? 0, worst);
          flock.advance(60);
        }}
        const {{ min, max }} = SCENE.box;
        const inside = flock.position.every((x, j) => x >= min[j % 3] && x <= max[j % 3]);
        const method = flock.groups[0].params.method;
        console.log(JSON.stringify({{ moved, aligned, inside, method }}));
    """
    result = json.loads(run_node(node, script))
    assert result["inside"] and result["method"] == "angle"
    # Between the sphere methods the target does not move; to seek, the point sought is the
    # target clipped into the margin; from seek, the sphere's point nearest the point sought.
    for method in ("angle", "noise", "random"):
        assert result["moved"][method] < 1e-9, result
    assert result["moved"]["seek"] < 30.0, result
    assert result["aligned"] > 1 - 1e-9, result


ADAPTER = REPO / "wander3d" / "port" / "js" / "adapter" / "three-wander.mjs"

#: The part of three.js's API the adapter uses, recording what it is given (three itself is
#: the user's import and is not installed here; docs/port-threejs.png shows the real thing).
FAKE_THREE = """
class Vector3 {
  constructor(x = 0, y = 0, z = 0) { this.x = x; this.y = y; this.z = z; }
  set(x, y, z) { this.x = x; this.y = y; this.z = z; return this; }
  copy(v) { return this.set(v.x, v.y, v.z); }
}
class Quaternion {
  setFromUnitVectors(from, to) {
    this.from = [from.x, from.y, from.z];
    this.to = [to.x, to.y, to.z];
    return this;
  }
  copy(q) { this.from = q.from; this.to = q.to; return this; }
}
class Matrix4 {
  compose(p, q, s) { this.p = [p.x, p.y, p.z]; this.q = q.to; return this; }
  makeScale(x) { this.s = x; return this; }
  setPosition(x, y, z) { this.p = [x, y, z]; return this; }
  makeTranslation(x, y, z) { this.p = [x, y, z]; return this; }
}
class InstancedMesh {
  constructor(geometry, material, count) {
    this.matrices = new Array(count);
    this.instanceMatrix = { setUsage() {} };
  }
  setMatrixAt(i, m) { this.matrices[i] = { p: m.p, q: m.q, s: m.s }; }
}
class Group {
  constructor() { this.children = []; this.userData = {}; }
  add(...c) { this.children.push(...c); }
}
class Object3D {
  constructor() { this.position = new Vector3(); this.quaternion = new Quaternion(); }
}
const THREE = { Vector3, Quaternion, Matrix4, InstancedMesh, Group, Object3D,
  SphereGeometry: class {}, MeshBasicMaterial: class {}, DynamicDrawUsage: 35048 };
"""


def test_the_three_adapter_places_and_turns_every_agent(node):
    script = f"""
        import {{ Flock, SCENE }} from "{CORE.as_uri()}";
        import {{ WanderInstances, WanderObjects }} from "{ADAPTER.as_uri()}";
        {FAKE_THREE}
        const flock = new Flock({{ ...SCENE, groups: [{{ ...SCENE.groups[0], count: 30 }}] }});
        const agents = new WanderInstances(THREE, flock, null, null);
        const overlay = agents.debug(THREE);
        for (let f = 0; f < 50; f++) agents.update(1 / 75);
        const alpha = agents.poser.alpha;
        let worst = 0, turned = true, spheres = true;
        const out = [0, 0, 0];
        for (let i = 0; i < flock.count; i++) {{
          const m = agents.mesh.matrices[i];
          flock.positionAt(i, alpha, out);
          worst = Math.max(worst, ...m.p.map((x, a) => Math.abs(x - out[a])));
          turned &&= m.q.every((x, a) => x === flock.heading[3 * i + a]);
          const [x, y, z, r] = flock.wanderSphere(i);
          const s = overlay.children[0].matrices[i];
          spheres &&= s.s === r && s.p[0] === x && s.p[1] === y && s.p[2] === z;
        }}
        const objects = Array.from({{ length: flock.count }}, () => new THREE.Object3D());
        new WanderObjects(THREE, flock, objects);
        const placed = objects.every((o, i) => o.position.x === flock.position[3 * i]);
        console.log(JSON.stringify({{ alpha, worst, turned, spheres, placed }}));
    """
    result = json.loads(run_node(node, script))
    assert 0 <= result["alpha"] < 1 and result["worst"] == 0
    assert result["turned"] and result["spheres"] and result["placed"]
