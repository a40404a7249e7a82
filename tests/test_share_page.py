"""`wander3d share`: one self-contained page that runs a scene live, identical to the engine.

The page is run in a real headless Chromium (Debian's `chromium`): it loads with no console
error and no network request, animates, selects the agent clicked, and `?steps=600` shows the
positions `wander3d run` writes, for every bundled scene. Chromium is required: without it
these tests fail, they never skip (scripts/bootstrap.sh installs it).
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import io
import json
import re
import subprocess
from pathlib import Path

import chromium_support
import pytest
from chromium_support import Browser, chromium_path
from scene_support import SCENES

import wander3d.share as wander3d_share
from wander3d.appearance import TRAIL_FADE_POWER
from wander3d.cli import main as wander3d
from wander3d.drawing.trail_plan import MAX_SAGITTA_PX, TIER_STARTS
from wander3d.scene import load_scene
from wander3d.share import THREE_VERSION, page_html
from wander3d.share.look import look

STEPS = 600
BUNDLED = sorted(p.stem for p in SCENES.glob("*.toml"))


def config_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="config">(.*?)</script>', page, re.S)
    assert found, "the page has no config"
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def default_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("share") / "default.html"
    assert wander3d(["share", str(SCENES / "default.toml"), "--out", str(out)]) == 0
    return out


@pytest.fixture
def browser():
    b = Browser(1366, 768)
    yield b
    b.close()


# ---------------------------------------------------------------- the file


def test_the_page_is_one_file_that_names_no_outside_resource(default_page):
    page = default_page.read_text(encoding="utf-8")
    # No src/href to anything, no URL a browser could fetch (the licence's text names none).
    assert not re.search(r"""(src|href)\s*=""", page)
    assert not re.search(r"https?://", page), re.search(r".{40}https?://.{40}", page)
    importmap = re.search(r'<script type="importmap">(.*?)</script>', page)
    assert importmap is not None, "the page has no import map"
    imports = json.loads(importmap.group(1))
    assert set(imports["imports"]) == {"three", "wander", "wander-three"}
    assert all(u.startswith("data:text/javascript;base64,") for u in imports["imports"].values())
    assert "Copyright © 2010-2026 three.js authors" in page  # the vendored licence, inlined
    assert f"three.js {THREE_VERSION} licence" in page


def test_the_vendored_bundle_is_the_version_the_page_names():
    bundle = (Path(__file__).parents[1] / "wander3d/share/vendor/three.min.mjs").read_text()
    revision = re.match(r'var \w+="(\d+)"', bundle)
    assert revision and f"0.{revision.group(1)}.0" == THREE_VERSION
    assert "OrbitControls" in bundle


def test_the_page_carries_the_scene_as_it_is_with_edits_and_colours():
    scene = load_scene(SCENES / "compare.toml")
    first = scene.groups[0]
    edited = dataclasses.replace(first, wander=dataclasses.replace(first.wander, radius=7.25))
    scene = scene.replace(groups=(edited, *scene.groups[1:]))
    page = page_html(scene)
    config = config_of(page)
    assert config["background"] == scene.view.background
    assert [g["name"] for g in config["groups"]] == [g.name for g in scene.groups]
    colours = ["#" + "".join(f"{round(c * 255):02x}" for c in g["color"]) for g in config["groups"]]
    assert colours == [g.color for g in scene.groups]
    radius = next(p for p in config["groups"][0]["params"] if p["name"] == "radius")
    assert radius == {**radius, "value": 7.25, "unit": "units", "log": True}
    speed = next(p for p in config["groups"][0]["params"] if p["name"] == "maxSpeed")
    assert speed["label"] == "Max speed" and speed["log"]
    assert config["start"].startswith(f"wander3d-start 1\nagents {scene.agent_count}\n")


@pytest.mark.render
def test_the_page_draws_with_the_apps_colours_and_proportions():
    pytest.importorskip("vispy")
    pytest.importorskip("PyQt6")
    from wander3d.app import panel
    from wander3d.appearance import cone_length
    from wander3d.render import agents, camera, debug, enclosure, trails

    scene = load_scene(SCENES / "tunnel.toml")
    figures = look(scene)
    assert figures["box"] == enclosure.BOX_COLOR and figures["grid"] == enclosure.GRID_COLOR
    assert figures["axes"] == enclosure.AXIS_COLORS
    assert figures["axisFraction"] == enclosure.AXIS_FRACTION
    size = cone_length(scene.enclosure.min, scene.enclosure.max)  # as render/view.py sizes cones
    assert figures["coneLength"] == pytest.approx(size)
    assert figures["coneAspect"] == agents.CONE_ASPECT
    assert figures["light"] == pytest.approx(list(agents.LIGHT))
    assert (figures["trailAlpha"], figures["trailFade"]) == (
        trails.TRAIL_ALPHA,
        trails.TRAIL_FADE_POWER,
    )
    assert figures["fitMargin"] == camera.FIT_MARGIN
    # The legend the app's panel and help show.
    assert figures["wanderSphere"] == debug.SPHERE_COLOR and figures["legend"] == panel.LEGEND
    assert (figures["circleSegments"], figures["forceScale"], figures["headFraction"]) == (
        debug.CIRCLE_SEGMENTS,
        debug.FORCE_SCALE,
        debug.HEAD_FRACTION,
    )


def test_the_pages_trail_detail_is_the_apps_one_definition():
    """The viewer has no figures of its own for the trails' levels of detail: it reads those
    of wander3d.drawing.trail_plan from the config the page is written with."""
    from wander3d.drawing import trail_plan

    figures = look(load_scene(SCENES / "default.toml"))
    assert figures["tierStarts"] == list(trail_plan.TIER_STARTS)
    assert figures["maxSagittaPx"] == trail_plan.MAX_SAGITTA_PX
    assert figures["mostJoined"] == 2 ** (trail_plan.LEVELS - 1)
    assert figures["minAlpha"] == trail_plan.MIN_ALPHA
    viewer = (Path(wander3d_share.__file__).parent / "viewer.mjs").read_text(encoding="utf-8")
    for key in ("tierStarts", "maxSagittaPx", "mostJoined", "minAlpha"):
        assert re.search(rf"\b{key}\b", viewer), key
    for name in ("TIER_STARTS", "MAX_SAGITTA_PX", "MOST_JOINED", "MIN_ALPHA"):
        assert not re.search(rf"const {name}\b", viewer), f"viewer.mjs defines {name} again"


def test_a_folder_that_does_not_exist_is_one_line_naming_the_option(tmp_path, capsys):
    assert wander3d(["share", "default", "--out", str(tmp_path / "no" / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: --out ") and "does not exist" in err
    assert len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- in the browser


def test_it_loads_with_no_console_error_and_no_network_request(browser, default_page):
    browser.open(default_page)
    browser.wait_for("window.wander3d && window.wander3d.frames > 5")
    assert browser.problems() == []
    assert browser.requests() == [default_page.resolve().as_uri()]


def test_it_animates(browser, default_page):
    browser.open(default_page)
    browser.wait_for("window.wander3d && window.wander3d.frames > 2")
    before = browser.screenshot()
    steps = browser.evaluate("window.wander3d.steps")
    browser.wait_for(f"window.wander3d.steps > {steps + 10}")
    browser.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert browser.screenshot() != before


def test_a_click_on_an_agent_selects_it_and_shows_its_overlay(browser, default_page):
    browser.open(default_page)
    browser.wait_for("window.wander3d && window.wander3d.frames > 2")
    browser.evaluate("document.getElementById('play').click()")  # pause: agents hold still
    before = browser.screenshot()
    x, y = browser.evaluate("window.wander3d.onScreen(7)")
    browser.click(x, y)
    assert browser.wait_for("window.wander3d.selected() >= 0", timeout=10)
    chosen = browser.evaluate("window.wander3d.selected()")
    assert browser.evaluate("document.getElementById('selection').textContent") == (
        f"agent {chosen} · wanderers"
    )
    browser.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert browser.screenshot() != before  # the ring, sphere and arrows are drawn
    browser.click(5, 760)  # nothing there
    assert browser.wait_for("window.wander3d.selected() === -1", timeout=10)


def positions_from_run(scene_file: Path, folder: Path, steps: int) -> str:
    """`particle,x,y,z` lines of `wander3d run`'s CSV after `steps` steps."""
    dt = load_scene(scene_file).dt
    seconds = steps * dt
    reference = folder / "ref.csv"
    args = ["run", str(scene_file), "--seconds", repr(seconds), "--sample-rate", repr(1 / seconds)]
    assert wander3d([*args, "--out", str(reference)]) == 0
    rows = list(csv.reader(io.StringIO(reference.read_text())))
    header = rows[0]
    at = {name: header.index(name) for name in ("particle", "frame", "x", "y", "z")}
    last = [r for r in rows[1:] if r[at["frame"]] == "1"]
    return "".join(f"{r[at['particle']]},{r[at['x']]},{r[at['y']]},{r[at['z']]}\n" for r in last)


@pytest.mark.parametrize("name", BUNDLED)
def test_steps_shows_the_positions_wander3d_run_writes(name, tmp_path):
    scene_file = SCENES / f"{name}.toml"
    page = tmp_path / f"{name}.html"
    assert wander3d(["share", str(scene_file), "--out", str(page)]) == 0
    done = subprocess.run(
        [chromium_path(), "--headless", "--no-sandbox", "--dump-dom",
         f"{page.as_uri()}?steps={STEPS}"],
        capture_output=True, text=True, timeout=110,
    )  # fmt: skip
    found = re.search(r'<pre id="positions" data-steps="(\d+)">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    assert found.group(1) == str(STEPS)
    ours = found.group(2)
    engine = positions_from_run(scene_file, tmp_path, STEPS)
    assert ours.count("\n") == load_scene(scene_file).agent_count
    for number, (a, b) in enumerate(zip(ours.splitlines(), engine.splitlines(), strict=True)):
        assert a == b, f"agent {number}: page {a!r}, engine {b!r}"


@pytest.mark.parametrize("size", [(1366, 768), (844, 390)], ids=["laptop", "phone-sideways"])
def test_the_scene_and_the_panel_share_the_screen_without_overlap(default_page, size):
    browser = Browser(*size)
    try:
        browser.open(default_page)
        browser.wait_for("window.wander3d && window.wander3d.frames > 1")
        view, panel, font = browser.evaluate(
            """[document.getElementById('view').getBoundingClientRect().toJSON(),
                document.getElementById('panel').getBoundingClientRect().toJSON(),
                parseFloat(getComputedStyle(document.querySelector('.param')).fontSize)]"""
        )
        assert view["right"] <= panel["left"] + 0.5 and panel["right"] == size[0]
        assert view["width"] >= 0.6 * size[0] and view["height"] == size[1]
        assert panel["width"] >= 220 and font >= 12
        browser.evaluate("document.getElementById('fold').click()")  # the panel folds away
        width = browser.evaluate("document.getElementById('view').getBoundingClientRect().width")
        assert width == size[0]
    finally:
        browser.close()


def test_pause_step_and_reset(browser, default_page):
    browser.open(default_page)
    browser.wait_for("window.wander3d && window.wander3d.steps > 5")
    click = "document.getElementById('{}').click()"
    frame = "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    browser.evaluate(click.format("play"))
    browser.evaluate(frame)
    paused = browser.evaluate("window.wander3d.steps")
    browser.evaluate(frame)
    assert browser.evaluate("window.wander3d.steps") == paused
    browser.evaluate(click.format("step"))
    browser.evaluate(frame)
    assert browser.evaluate("window.wander3d.steps") == paused + 1
    browser.evaluate(click.format("reset"))
    browser.evaluate(frame)
    assert browser.evaluate("window.wander3d.steps") == 0
    assert browser.evaluate("document.getElementById('play').textContent") == "▶"


def test_a_tap_selects_an_agent_on_a_phone_held_sideways(default_page):
    browser = Browser(844, 390)
    try:
        browser.open(default_page)
        browser.wait_for("window.wander3d && window.wander3d.frames > 2")
        browser.evaluate("document.getElementById('play').click()")
        x, y = browser.evaluate("window.wander3d.onScreen(11)")
        browser.tap(x, y)
        assert browser.wait_for("window.wander3d.selected() >= 0", timeout=10)
        assert browser.problems() == []
    finally:
        browser.close()


# ---------------------------------------------------------------- trails' levels of detail


def full_trails(browser: Browser, page: Path) -> dict:
    """The default page paused after STEPS steps (a full ring) with the frame-rate guard off:
    its one group's trail plan as the last frame drew it (window.wander3d.trailSegments)."""
    browser.open(page)
    browser.wait_for("window.wander3d && window.wander3d.frames > 2")
    browser.evaluate("window.wander3d.trails.enabled = false; window.wander3d.trails.adjust(60)")
    browser.evaluate("document.getElementById('play').click()")
    browser.evaluate("document.getElementById('reset').click()")
    browser.evaluate(f"for (let i = 0; i < {STEPS}; i++) document.getElementById('step').click()")
    return trail_plan(browser)


def trail_plan(browser: Browser) -> dict:
    (trail,) = browser.evaluate(
        "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r("
        "window.wander3d.trailSegments().map((t) => ({...t, pixels: String(t.pixels)}))))))"
    )
    return trail


def chain_strides(trail: dict) -> list[int]:
    """The strides of the drawn segments from the newest sample back, asserting they form
    one unbroken chain that reaches the oldest sample drawn."""
    cap = trail["capacity"]
    preceding = {int(b): int(a) for a, b in trail["segments"]}  # newer slot -> older slot
    assert len(preceding) == len(trail["segments"]), "a slot ends two segments"
    at, strides = (trail["head"] - 1) % cap, []
    while at in preceding:
        strides.append((at - preceding[at]) % cap)
        at = preceding[at]
    assert len(strides) == len(trail["segments"]), "the segments are not one chain from the newest"
    assert sum(strides) == trail["drawn"] - 1, "the chain does not reach the oldest sample drawn"
    return strides


def test_trails_join_samples_only_where_the_path_strays_under_a_pixel(browser, default_page):
    """The app's levels of detail: from the newest sample back, segments join every k-th
    sample where that strays at most 0.5 px from the path (more in older, fainter tiers,
    stray times opacity within 0.5 px), so the whole trail is one chain of far fewer
    segments than samples, down to the oldest sample brighter than the app's MIN_ALPHA."""
    trail = full_trails(browser, default_page)
    strides = chain_strides(trail)
    pixels, bend, span = float(trail["pixels"]), trail["bend"], trail["span"]
    assert span == trail["capacity"] == 150
    assert 130 < trail["drawn"] < 150  # the faintest samples are not drawn
    age = 0
    for k in strides:
        tier = max(t for t, start in enumerate(TIER_STARTS) if start * span <= age)
        tolerance = MAX_SAGITTA_PX / (1 - TIER_STARTS[tier]) ** TRAIL_FADE_POWER
        assert pixels * bend * k * k <= tolerance, f"stride {k} at age {age} strays too far"
        age += k
    assert strides[0] > 1 and len(strides) < 0.4 * trail["drawn"]


def test_trails_join_no_samples_seen_from_inside_the_box(browser, default_page):
    """Zoomed in until the camera is inside the box (a unit's size on screen is unbounded
    there), every segment joins two consecutive samples, as before levels of detail."""
    full_trails(browser, default_page)
    for _ in range(60):  # the wheel dollies in 5% a notch
        browser.send(
            "Input.dispatchMouseEvent", type="mouseWheel", x=500, y=380, deltaX=0, deltaY=-100
        )
    browser.wait_for("window.wander3d.trailSegments()[0].pixels === Infinity")
    trail = trail_plan(browser)
    assert set(chain_strides(trail)) == {1}
    assert browser.problems() == []


# ---------------------------------------------------------------- cones on SwiftShader

#: How many pixels of two screenshots differ by more than 8 levels in a channel, decoded by
#: the browser itself (no image library in a core install).
DIFFERING_PIXELS = """
(async () => {
  const pixels = async (png) => {
    const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
    const image = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, image.width, image.height).data;
  };
  const [a, b] = [await pixels(%r), await pixels(%r)];
  let differing = 0;
  for (let i = 0; i < a.length; i += 4)
    if ([0, 1, 2].some((c) => Math.abs(a[i + c] - b[i + c]) > 8)) differing++;
  return [differing, a.length / 4];
})()
"""


def test_swiftshader_draws_the_cones_baked_as_they_look_instanced(browser, default_page):
    """On SwiftShader (which draws every instance of an instanced draw on its own) the cones
    are one mesh placed on the CPU: the same picture as the instanced cones, to the odd
    pixel of an edge, and a click still selects the agent under it."""
    full_trails(browser, default_page)
    frame = "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    browser.evaluate("document.getElementById('hud').style.visibility = 'hidden'")  # its fps
    assert browser.evaluate("window.wander3d.cones()") == "baked"
    browser.evaluate(frame)
    baked = base64.b64encode(browser.screenshot()).decode()
    browser.evaluate("window.wander3d.bakeCones(false)")
    assert browser.evaluate("window.wander3d.cones()") == "instanced"
    browser.evaluate(frame)
    instanced = base64.b64encode(browser.screenshot()).decode()
    differing, total = browser.evaluate(DIFFERING_PIXELS % (baked, instanced))
    assert differing < 1e-4 * total
    browser.evaluate("window.wander3d.bakeCones(true)")
    x, y = browser.evaluate("window.wander3d.onScreen(11)")
    browser.click(x, y)
    assert browser.evaluate("window.wander3d.selected()") >= 0
    assert browser.problems() == []


def test_other_renderers_draw_the_cones_instanced(default_page, monkeypatch):
    """Where an instanced draw is one draw (llvmpipe here, any GPU), the cones stay one."""
    flags = [f for f in chromium_support.FLAGS if not f.startswith("--use-angle")]
    monkeypatch.setattr(chromium_support, "FLAGS", (*flags, "--use-angle=gl-egl"))
    browser = Browser(1366, 768)
    try:
        browser.open(default_page)
        browser.wait_for("window.wander3d && window.wander3d.frames > 2")
        assert browser.evaluate("window.wander3d.cones()") == "instanced"
        assert browser.problems() == []
    finally:
        browser.close()


def test_the_guard_passes_over_levels_that_would_draw_the_same(browser, default_page):
    """The frame-rate guard steps to the next level that changes the drawing: where no trail
    can join samples (3,000 agents sample every 1/3 s, over the guard's 0.1 s), a slow frame
    shortens the trails at once instead of spending a second on each joining level."""
    browser.open(default_page)
    browser.wait_for("window.wander3d && window.wander3d.frames > 2")
    browser.evaluate("document.getElementById('show-trails').click()")  # the page's own off
    level = "((g) => [g.fraction, g.stride])(window.wander3d.trails)"
    browser.evaluate("window.wander3d.trails.level = 0")
    assert browser.evaluate(f"window.wander3d.trails.adjust(10, 1), {level}") == [0.75, 3]
    assert browser.evaluate(f"window.wander3d.trails.adjust(60, 1), {level}") == [1, 1]
    assert browser.evaluate(f"window.wander3d.trails.adjust(10, 3), {level}") == [1, 2]
    assert browser.evaluate(f"window.wander3d.trails.adjust(10, 2), {level}") == [0.75, 3]
    assert browser.evaluate(f"window.wander3d.trails.adjust(60, 2), {level}") == [1, 2]
