"""The JavaScript port (wander3d/port/js): `bash DIR/conformance.sh SECONDS SAMPLE_RATE` (the
hosted flock) and `bash DIR/conformance.sh --compose ...` (the composable call, DIR/compose.mjs)
print what `wander3d run --out .csv` writes, byte for byte, over 60 simulated seconds of every
bundled scene (12 agents a group; at full size for 2 simulated seconds, swarm's 30,000 under the
`slow` mark), of the scenes port_support writes and of one written here with unusual values.

Also: the probes every port answers (tests/port_probes/probe.mjs), agents coming and going and
parameters edited through the composable call, no garbage per step, names that clash with
neither three's nor p5's nor the browser's, the three.js adapter's upright models (with the
vendored three), and the p5.js sketch in headless Chromium. Set WANDER3D_PICTURES=DIR to keep
the screenshots the Chromium tests take (docs/port-threejs-fins.png, docs/port-p5.png).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from chromium_support import FLAGS, chromium_path
from port_support import (
    BUNDLED,
    FULL_SIZE_RUN,
    SAMPLE_RATE,
    SAMPLE_RATES,
    SECONDS,
    WRITTEN,
    assert_same_csv,
    build_probe,
    check_agents_come_and_go,
    check_checked_in_core,
    check_composable_edits,
    check_crlf_start,
    check_edit,
    check_edits_repeat_the_engines,
    check_formatting,
    check_frame_rate,
    check_group_subset,
    check_set_method,
    check_spawn,
    check_spawned_as_documented,
    composed,
    conformance,
    need,
    reference,
    scene_file,
    write_port_of,
)
from scene_support import REPO

from wander3d.engine.params import GroupParams
from wander3d.engine.params import WanderParams as EngineWanderParams
from wander3d.scene import load_scene

TOOLS = ("node",)
PORT = REPO / "wander3d" / "port" / "js"
CORE = PORT / "wander.mjs"
ADAPTER = PORT / "adapter" / "three-wander.mjs"
THREE = REPO / "wander3d" / "share" / "vendor" / "three.min.mjs"
P5 = REPO / "node_modules" / "p5" / "lib" / "p5.min.js"

#: Agents per group of the bundled scenes in the ordinary runs: every wall and method branch is
#: met in 60 s, and node runs a scene in a second or two.
AGENTS_PER_GROUP = 12

#: A scene no other test writes: the largest seed, dt 1/80, a flat box off the origin, a sphere
#: smaller than its jitter's step (the target can reach its centre), agents starting at rest,
#: noise with its sphere on the agent, seek every 0.35 s with a light agent, random held level.
UNUSUAL = """
[scene]
name = "Odd corners"
seed = 4294967295
dt = 0.0125
[enclosure]
min = [-7.5, 3.0, -250.0]
max = [41.0, 9.5, 12.0]
margin = 1.75
[[groups]]
name = "tiny jittery spheres ü"
count = 5
max_speed = 90.0
max_force = 400.0
mass = 0.35
[groups.wander]
method = "sphere"
distance = 0.5
radius = 0.25
jitter = 40.0
vertical = 0.97
steering = "desired"
[[groups]]
name = "slow angle from rest"
count = 5
max_speed = 3.5
max_force = 1.2
mass = 9.0
initial_speed = 0.0
[groups.wander]
method = "angle"
rate = 3.7
vertical = 0.05
[[groups]]
name = "fast noise, no distance"
count = 5
[groups.wander]
method = "noise"
frequency = 2.9
distance = 0.0
radius = 20.0
vertical = 0.5
[[groups]]
name = 'seek "quick"'
count = 5
mass = 0.2
[groups.wander]
method = "seek"
interval = 0.35
steering = "desired"
[[groups]]
name = "random, flat"
count = 5
[groups.wander]
method = "random"
vertical = 0.0
"""


def js_scene(tmp: Path, name: str) -> Path:
    """The scene `name` to port: bundled ones with AGENTS_PER_GROUP agents a group."""
    if name == "unusual":
        path = tmp / "unusual.toml"
        path.write_text(UNUSUAL)
        return path
    path = scene_file(tmp, name)
    if name in WRITTEN:
        return path
    scene = load_scene(path)
    fewer = tuple(dataclasses.replace(g, count=AGENTS_PER_GROUP) for g in scene.groups)
    small = tmp / f"{name}.toml"
    small.write_text(scene.replace(groups=fewer).to_toml())
    return small


def run_node(script: str, *flags: str, cwd: Path | None = None) -> str:
    """Run an ES module given as text (it imports the checked-in files by their URLs)."""
    done = subprocess.run(
        ["node", *flags, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---------------------------------------------------------------- identity, both ways


@pytest.mark.parametrize("name", [*BUNDLED, *WRITTEN, "unusual"])
def test_the_js_port_repeats_wander3d_run_hosted_and_composed(tmp_path, name):
    need(*TOOLS)
    port = write_port_of(js_scene(tmp_path, name), "js", tmp_path / "port")
    rate = SAMPLE_RATES.get(name, SAMPLE_RATE)
    engine = reference(port, SECONDS, rate)
    assert_same_csv(conformance("js", port, SECONDS, rate, tmp_path), engine)
    assert_same_csv(composed("js", port, SECONDS, rate, tmp_path), engine)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n == "swarm" else n for n in BUNDLED]
)
def test_the_js_port_repeats_full_size_bundled_scenes(tmp_path, name):
    """Each start read whole and every agent stepped, both ways (the minute of identity is
    the run above, with fewer agents)."""
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, name), "js", tmp_path / "port")
    engine = reference(port, *FULL_SIZE_RUN)
    assert_same_csv(conformance("js", port, *FULL_SIZE_RUN, tmp_path), engine)
    assert_same_csv(composed("js", port, *FULL_SIZE_RUN, tmp_path), engine)


@pytest.mark.parametrize("mode", [[], ["--compose"]], ids=["hosted", "composed"])
@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (["60"], "usage: bash conformance.sh [--compose] SECONDS SAMPLE_RATE"),
        (["-1", "x"], "SECONDS SAMPLE_RATE (both > 0)"),
    ],
)
def test_the_js_drivers_refuse_bad_arguments(tmp_path, mode, args, usage):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "js", tmp_path / "port")
    done = subprocess.run(
        ["bash", str(port / "conformance.sh"), *mode, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: ") and usage in done.stderr


def test_the_checked_in_core_is_the_default_scenes_port():
    check_checked_in_core("js")


def test_a_group_subset_ports_the_smaller_scene(tmp_path):
    need(*TOOLS)
    check_group_subset("js", tmp_path)


# ---------------------------------------------------------------- the probes


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    need(*TOOLS)
    folder = tmp_path_factory.mktemp("probe")
    return build_probe(
        "js", folder, "probe.mjs", ["node", "--check", "probe.mjs"], ["node", "probe.mjs"]
    )


def test_numbers_are_formatted_as_arrow_writes_them(probe, tmp_path):
    check_formatting(probe, tmp_path)


def test_the_run_does_not_depend_on_the_frame_rate(probe):
    check_frame_rate(probe)


def test_spawned_agents_start_inside_the_margin_and_stay_in_the_box(probe):
    check_spawn(probe)


def test_the_spawn_is_the_one_every_port_shares(probe):
    check_spawned_as_documented(probe)


def test_switching_method_keeps_each_target_where_it_is(probe):
    check_set_method(probe)


def test_edited_parameters_act_from_the_next_step(probe):
    check_edit(probe)


def test_a_start_with_windows_line_ends_is_read_alike(probe, tmp_path):
    check_crlf_start(probe, tmp_path)


def test_agents_come_and_go_through_the_composable_call(probe):
    check_agents_come_and_go(probe)


def test_parameters_edited_between_ticks_are_rederived(probe):
    check_composable_edits(probe)


def test_run_time_edits_repeat_the_engines(tmp_path):
    need(*TOOLS)
    check_edits_repeat_the_engines("js", tmp_path, "probe.mjs", [], ["node", "probe.mjs"])


def test_wander_params_defaults_are_wander3ds():
    need(*TOOLS)
    script = f'import {{ WanderParams }} from "{CORE.as_uri()}";\n'
    script += "console.log(JSON.stringify(new WanderParams()));"
    ours = json.loads(run_node(script))
    group, wander = GroupParams(count=1), EngineWanderParams()
    engine = {
        "maxSpeed": group.max_speed, "maxForce": group.max_force, "mass": group.mass,
        "initialSpeed": group.initial_speed,
        **{k: getattr(wander, k) for k in ("method", "steering", "distance", "radius", "jitter",
                                           "rate", "frequency", "interval", "vertical")},
    }  # fmt: skip
    assert ours == engine


def test_the_readmes_composable_example_runs_as_written(tmp_path):
    """The generated README's lines for a game's own characters (wander plus seek): fish made
    from them and ticked a minute stay in the box and come to the food, garbage-free."""
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "js", tmp_path / "port")
    readme = (port / "README.md").read_text()
    section = readme[readme.index("## Your own characters") :]
    example = re.search(r"```js\n(.*?)```", section, re.S)
    assert example, section[:400]
    (port / "fish.mjs").write_text(
        example.group(1)
        + """
const food = [60, -30, 40];
const fish = Array.from({ length: 20 }, (_, id) => new Fish(id, [0, 0, 0], [id - 10, 1, 3]));
const distance = () => fish.reduce((sum, f) => sum + Math.hypot(
  f.position[0] - food[0], f.position[1] - food[1], f.position[2] - food[2]), 0) / fish.length;
const before = distance();
for (let t = 0; t < 3600; t++) for (const f of fish) f.tick(SCENE.dt, food);
const inside = fish.every((f) => f.position.every((x, a) => x >= box.min[a] && x <= box.max[a]));
console.log(JSON.stringify({ before, after: distance(), inside }));
"""
    )
    done = subprocess.run(
        ["node", str(port / "fish.mjs")], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["inside"] and found["after"] < 0.5 * found["before"], found


# ---------------------------------------------------------------- no garbage per step

#: 1,000 agents of the default scene's group, or 200 of each method (argument "mixed"), stepped
#: by frames of 1/60 s as a game's loop does: 1,200 frames, then 1,200 more.
GARBAGE = """
import { Flock, SCENE } from "CORE";
const methods = process.argv[2] === "mixed" ? ["sphere", "angle", "noise", "seek", "random"]
  : [SCENE.groups[0].params.method];
const scene = { ...SCENE, groups: methods.map((method) => ({ ...SCENE.groups[0], name: method,
  count: 1000 / methods.length, params: { ...SCENE.groups[0].params, method } })) };
const flock = new Flock(scene);
for (const frames of ["first", "next"]) {
  console.log(frames);
  for (let f = 0; f < 1200; f++) flock.update(1 / 60);
}
console.log("end");
"""


def scavenges(tmp: Path, scene: str) -> dict[str, int]:
    """`node --trace-gc`'s scavenges over GARBAGE's first and next 1,200 frames. Run with
    `--single-threaded`: V8 compiles on the main thread, so how many frames run before the core
    is optimised does not depend on how busy the machine is (the count measures the core)."""
    script = tmp / "garbage.mjs"
    script.write_text(GARBAGE.replace("CORE", CORE.as_uri()))
    done = subprocess.run(
        ["node", "--single-threaded", "--trace-gc", str(script), scene],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    counts: dict[str, int] = {}
    phase = ""
    for line in done.stdout.splitlines():
        if line in ("first", "next", "end"):
            phase = line
            counts[phase] = 0
        elif "Scavenge" in line and phase:
            counts[phase] += 1
    return counts


def test_stepping_makes_no_garbage(tmp_path):
    """Over 1,200 frames of 1,000 agents, a handful of scavenges while V8 still interprets and
    optimises the core (the core before: 250 to 750), and none once it has: for the default
    scene's agents, and for all five methods together after their first 1,200 frames."""
    need(*TOOLS)
    default = scavenges(tmp_path, "default")
    assert default["first"] <= 5 and default["next"] <= 1, default
    mixed = scavenges(tmp_path, "mixed")
    assert mixed["next"] <= 1, mixed


# ---------------------------------------------------------------- names


def test_no_name_clashes_with_three_p5_or_the_browser(tmp_path):
    """A game imports the core's and the adapter's names beside three's (`import { Scene,
    Vector3 } from "three"`) and p5's globals: none may be the same name."""
    need(*TOOLS)
    p5 = p5_min_js()
    port = write_port_of(scene_file(tmp_path, "default"), "js", tmp_path / "port")
    shutil.copy(THREE, port / "three.min.mjs")
    shutil.copy(p5, port / "p5.min.js")
    (port / "names.html").write_text(
        '<!doctype html><meta charset="utf-8"><script src="p5.min.js"></script>'
        '<pre id="names"></pre>'
        '<script type="module">\n'
        'import * as core from "./wander.mjs";\n'
        'import * as adapter from "./adapter/three-wander.mjs";\n'
        'import * as three from "./three.min.mjs";\n'
        "const ours = [...Object.keys(core), ...Object.keys(adapter)];\n"
        "const theirs = new Set([...Object.keys(three), ...Object.keys(p5),\n"
        "  ...Object.getOwnPropertyNames(p5.prototype), ...Object.getOwnPropertyNames(window)]);\n"
        "const clashes = ours.filter((n) => theirs.has(n));\n"
        'document.getElementById("names").textContent = JSON.stringify({ ours, clashes });\n'
        "</script>"
    )
    with served(port) as url:
        found = dump_pre(f"{url}/names.html", "names")
    names = json.loads(found)
    assert {"Flock", "Wander", "WanderAgent", "WanderInstances"} <= set(names["ours"])
    assert names["clashes"] == []


# ---------------------------------------------------------------- the three.js adapter

ADAPTER_SCRIPT = """
import * as THREE from "THREE_URL";
import { Flock, SCENE } from "CORE_URL";
import { WanderInstances, WanderObjects } from "ADAPTER_URL";
const colors = ["#4cc9f0", "#f72585"];
const flock = new Flock({ ...SCENE, groups: colors.map((color, g) => ({
  ...SCENE.groups[0], name: `g${g}`, count: 150, color })) });
// The issue's heading: climbing away from +z, which the minimal arc turns upside down.
flock.heading.set([0, 0.6, -0.8], 0);
flock.previousHeading.set([0, 0.6, -0.8], 0);
const agents = new WanderInstances(THREE, flock, new THREE.ConeGeometry(1, 4, 8),
  new THREE.MeshStandardMaterial());
const overlay = agents.debug(THREE);
const m = new THREE.Matrix4();
const x = new THREE.Vector3(), y = new THREE.Vector3(), z = new THREE.Vector3();
const p = new THREE.Vector3(), q = new THREE.Quaternion(), s = new THREE.Vector3();
agents.mesh.getMatrixAt(0, m);
m.extractBasis(x, y, z);
const first = { up: y.toArray(), forward: z.toArray() };
let lowestUp = 1, forwardError = 0, positionError = 0, frameError = 0, climbing = 0, diving = 0;
let between = 0, spheres = true;
const h = [0, 0, 0], at = [0, 0, 0], sphere = [0, 0, 0, 0];
for (let f = 0; f < 240; f++) {
  agents.update(1 / 75);
  const alpha = agents.poser.alpha;
  if (alpha > 0.1 && alpha < 0.9) between++;
  for (let i = 0; i < flock.count; i++) {
    agents.mesh.getMatrixAt(i, m);
    m.extractBasis(x, y, z);
    m.decompose(p, q, s);
    flock.headingAt(i, alpha, h);
    flock.positionAt(i, alpha, at);
    lowestUp = Math.min(lowestUp, y.y);
    forwardError = Math.max(forwardError, ...z.toArray().map((c, a) => Math.abs(c - h[a])));
    positionError = Math.max(positionError, ...p.toArray().map((c, a) => Math.abs(c - at[a])));
    frameError = Math.max(frameError, Math.abs(m.determinant() - 1), Math.abs(x.dot(y)),
      Math.abs(y.dot(z)), Math.abs(z.dot(x)));
    if (h[1] > 0.5) climbing++;
    if (h[1] < -0.5) diving++;
    const [cx, cy, cz, r] = flock.wanderSphere(i, sphere);
    overlay.children[0].getMatrixAt(i, m);
    m.decompose(p, q, s);
    spheres &&= Math.abs(p.x - cx) < 1e-4 && Math.abs(s.x - r) < 1e-4;
  }
}
const color = new THREE.Color(), wanted = new THREE.Color(colors[1]);
agents.mesh.getColorAt(flock.count - 1, color);
const objects = Array.from({ length: flock.count }, () => new THREE.Object3D());
new WanderObjects(THREE, flock, objects).update(1 / 75);
let objectsUp = 1, objectsForward = 0;
objects.forEach((o, i) => {
  flock.headingAt(i, flock.accumulator / flock.dt, h);
  objectsUp = Math.min(objectsUp, new THREE.Vector3(0, 1, 0).applyQuaternion(o.quaternion).y);
  const f = new THREE.Vector3(0, 0, 1).applyQuaternion(o.quaternion).toArray();
  objectsForward = Math.max(objectsForward, ...f.map((c, a) => Math.abs(c - h[a])));
});
const colored = color.getHexString() === wanted.getHexString();
console.log(JSON.stringify({ first, lowestUp, forwardError, positionError, frameError,
  climbing, diving, between, spheres, colored, objectsUp, objectsForward }));
"""


def test_three_models_keep_their_up_and_follow_their_interpolated_heading():
    """Every instance's +z is the agent's heading between its last two steps (interpolated as
    the position is), its +y the side of world up (a fin on top stays on top, climbing or
    diving), its frame a rotation, its colour its group's; the real three (the vendored build)."""
    need(*TOOLS)
    script = ADAPTER_SCRIPT.replace("THREE_URL", THREE.as_uri())
    script = script.replace("CORE_URL", CORE.as_uri()).replace("ADAPTER_URL", ADAPTER.as_uri())
    found = json.loads(run_node(script))
    assert np.allclose(found["first"]["forward"], [0, 0.6, -0.8], atol=1e-6)
    assert np.allclose(found["first"]["up"], [0, 0.8, 0.6], atol=1e-6)  # not (0, -0.8, -0.6)
    assert found["climbing"] > 100 and found["diving"] > 100 and found["between"] > 50, found
    assert found["lowestUp"] >= 0 and found["objectsUp"] >= 0, found
    assert found["forwardError"] < 1e-6 and found["objectsForward"] < 1e-6, found
    assert found["positionError"] < 1e-4 and found["frameError"] < 1e-5, found
    assert found["spheres"] and found["colored"], found


# ---------------------------------------------------------------- in a browser


def p5_min_js() -> Path:
    """p5.js as npm installs it (package.json; scripts/bootstrap.sh runs `npm ci`)."""
    if not P5.is_file():
        what = f"{P5} is missing: run `npm ci` (scripts/bootstrap.sh setup does)"
        if os.environ.get("CI"):
            pytest.fail(what)
        pytest.skip(what)
    return P5


class _Quiet(SimpleHTTPRequestHandler):
    # A class attribute in CPython; typeshed declares it per instance.
    extensions_map: ClassVar = {  # type: ignore[misc]
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
    }

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """`folder` served over http on the loopback (module scripts and fetch need http), as the
    port's README tells a user to serve it; the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium with the share page tests' flags, given time to fetch and step."""
    return subprocess.run(
        [chromium_path(), *FLAGS, "--virtual-time-budget=60000", *args],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )


def dump_pre(url: str, element: str) -> str:
    """The text of <pre id=ELEMENT> of the page at `url`, as --dump-dom gives it."""
    done = chromium("--dump-dom", url)
    found = re.search(rf'<pre id="{element}"[^>]*>(.*?)</pre>', done.stdout, re.S)
    assert found and found.group(1), done.stdout[-2000:] + done.stderr[-2000:]
    return found.group(1)


def screenshot(url: str, out: Path, size: str = "1200,800") -> np.ndarray:
    """A screenshot of the page at `url` into `out` (and WANDER3D_PICTURES, if set): its RGB
    pixels, (height, width, 3)."""
    image = pytest.importorskip("PIL.Image", reason="reading screenshots needs pillow (render)")
    done = chromium("--hide-scrollbars", f"--window-size={size}", f"--screenshot={out}", url)
    assert out.is_file(), done.stderr[-2000:]
    if os.environ.get("WANDER3D_PICTURES"):
        shutil.copy(out, Path(os.environ["WANDER3D_PICTURES"]) / out.name)
    return np.asarray(image.open(out).convert("RGB"), dtype=int)


def share_of(pixels: np.ndarray, color: str, tolerance: int = 40) -> float:
    """The fraction of `pixels` within `tolerance` of `color` on every channel."""
    wanted = np.array([int(color[k : k + 2], 16) for k in (1, 3, 5)])
    return float((np.abs(pixels - wanted) <= tolerance).all(axis=2).mean())


#: An arrow with a fin on top (+z forward, the fin a white triangle on +y) per agent, climbing
#: and diving in a tall box, seen from the side. <pre id="fins">: per agent, its heading's and
#: its fin's world y as three computes them.
FIN_PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<style>body { margin: 0; background: #101418; } #fins { display: none; }</style>
<script type="importmap">{"imports": {"three": "./three.min.mjs"}}</script></head>
<body><pre id="fins"></pre><script type="module">
import * as THREE from "three";
import { Flock, SCENE } from "./wander.mjs";
import { WanderInstances } from "./adapter/three-wander.mjs";
const flock = new Flock(SCENE, await (await fetch("start.txt")).text());
flock.advance(600);
const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setClearColor(0x101418);
renderer.setSize(innerWidth, innerHeight);
document.body.prepend(renderer.domElement);
const scene = new THREE.Scene();
scene.add(new THREE.HemisphereLight(0xffffff, 0x303040, 2.2));
const [low, high] = [SCENE.box.min, SCENE.box.max];
const size = [0, 1, 2].map((a) => high[a] - low[a]);
const box = new THREE.LineSegments(new THREE.EdgesGeometry(new THREE.BoxGeometry(...size)),
  new THREE.LineBasicMaterial({ color: 0x8899aa }));
box.position.set(...[0, 1, 2].map((a) => (low[a] + high[a]) / 2));
scene.add(box);
const camera = new THREE.PerspectiveCamera(40, innerWidth / innerHeight, 1, 2000);
camera.position.set(50, 30, 250);
camera.lookAt(0, 0, 0);
const body = new THREE.ConeGeometry(2.6, 14, 16).rotateX(Math.PI / 2);
const agents = new WanderInstances(THREE, flock, body, new THREE.MeshStandardMaterial());
const fin = new THREE.BufferGeometry();
fin.setAttribute("position", new THREE.Float32BufferAttribute([0, 0, -6, 0, 7, -7, 0, 0, 2], 3));
const fins = new THREE.InstancedMesh(fin, new THREE.MeshBasicMaterial({ color: 0xffffff,
  side: THREE.DoubleSide }), flock.count);
fins.instanceMatrix.array.set(agents.mesh.instanceMatrix.array);
scene.add(agents.mesh, fins);
renderer.render(scene, camera);
const m = new THREE.Matrix4(), top = new THREE.Vector3(), root = new THREE.Vector3();
const rows = [];
for (let i = 0; i < flock.count; i++) {
  fins.getMatrixAt(i, m);
  top.set(0, 7, -7).applyMatrix4(m);
  root.set(0, 0, -7).applyMatrix4(m);
  rows.push([flock.heading[3 * i + 1], top.y - root.y]);
}
document.getElementById("fins").textContent = JSON.stringify(rows);
</script></body></html>
"""

FIN_SCENE = """
[scene]
name = "Fins"
seed = 21
[enclosure]
min = [-80.0, -60.0, -60.0]
max = [80.0, 60.0, 60.0]
margin = 15.0
[[groups]]
name = "climbers and divers"
count = 30
color = "#f72585"
[groups.wander]
method = "noise"
frequency = 0.6
vertical = 1.0
"""


def test_a_fin_on_top_stays_on_top_in_a_browser(tmp_path):
    """The adapter in a real page (three's WebGL renderer in headless Chromium): every
    arrow's fin points to the upper side of its heading, climbing or diving. The screenshot is
    docs/port-threejs-fins.png."""
    need(*TOOLS)
    scene = tmp_path / "fins.toml"
    scene.write_text(FIN_SCENE)
    port = write_port_of(scene, "js", tmp_path / "port")
    shutil.copy(THREE, port / "three.min.mjs")
    (port / "fins.html").write_text(FIN_PAGE)
    with served(port) as url:
        rows = json.loads(dump_pre(f"{url}/fins.html", "fins"))
        picture = screenshot(f"{url}/fins.html", tmp_path / "port-threejs-fins.png", "1000,560")
    headings = [h for h, _ in rows]
    assert min(headings) < -0.3 and max(headings) > 0.3, headings  # climbing and diving
    assert all(fin >= 0 for _, fin in rows), rows
    assert share_of(picture, "#ffffff", 30) > 0.0005  # the fins are drawn...
    assert share_of(picture, "#f72585", 90) > 0.001  # ...on the bodies


def p5_port(tmp: Path, scene: Path) -> Path:
    """The JS port of `scene` with p5.min.js beside its sketch, as the port's README says."""
    port = write_port_of(scene, "js", tmp / "port")
    shutil.copy(p5_min_js(), port / "adapter" / "p5" / "p5.min.js")
    return port


def test_the_p5_sketch_steps_to_the_positions_wander3d_run_writes(tmp_path):
    """sketch.html?steps=N in headless Chromium (--dump-dom): `particle,x,y,z` per agent, the
    same digits as `wander3d run`'s CSV after N steps; every method, several groups."""
    need(*TOOLS)
    scene = js_scene(tmp_path, "compare")
    port = p5_port(tmp_path, scene)
    steps = 600
    with served(port) as url:
        ours = dump_pre(f"{url}/adapter/p5/sketch.html?steps={steps}", "positions")
    dt = load_scene(scene).dt
    engine = reference(port, steps * dt, 1 / (steps * dt)).decode().splitlines()
    after = [row.split(",") for row in engine[1:] if row.split(",")[2] == "1"]
    wanted = "".join(f"{r[0]},{r[4]},{r[5]},{r[6]}\n" for r in after)
    assert len(after) == load_scene(scene).agent_count
    assert ours == wanted


def test_the_p5_sketch_draws_the_box_the_groups_and_their_trails(tmp_path):
    """A screenshot of the sketch after 10 s (docs/port-p5.png): every group's colour is on the
    screen, in cones and trails."""
    need(*TOOLS)
    port = p5_port(tmp_path, scene_file(tmp_path, "compare"))
    with served(port) as url:
        picture = screenshot(f"{url}/adapter/p5/sketch.html?steps=600", tmp_path / "port-p5.png")
    for group in load_scene(port / "scene.toml").groups:
        assert share_of(picture, group.color, 60) > 0.0004, group.name


def test_the_readmes_p5_lines_draw_every_group(tmp_path):
    """README.md's few lines of a p5.js sketch, run as written beside a port: each group's
    colour is on the screen."""
    need(*TOOLS)
    port = p5_port(tmp_path, scene_file(tmp_path, "compare"))
    readme = (REPO / "README.md").read_text()
    example = re.search(r"```js\n(.*?)```", readme[readme.index("### p5.js") :], re.S)
    assert example
    shutil.copy(port / "adapter" / "p5" / "p5.min.js", port / "p5.min.js")
    (port / "mine.js").write_text(example.group(1))
    (port / "mine.html").write_text(
        '<!doctype html><meta charset="utf-8"><script src="p5.min.js"></script>'
        '<body style="margin: 0"><script type="module" src="mine.js"></script>'
    )
    with served(port) as url:
        picture = screenshot(f"{url}/mine.html", tmp_path / "mine.png", "800,600")
    for group in load_scene(port / "scene.toml").groups:
        assert share_of(picture, group.color, 40) > 0.0002, group.name
