"""Frames per second of the shared page (`wander3d share`) in headless Chromium.

    python benchmarks/share_bench.py [--seconds 10] [--warmup 3] [--size 1366x768]

Two pages, each opened in a fresh headless Chromium at --size on each software renderer
(SwiftShader, and Mesa's llvmpipe): the default scene as shipped, and the default scene with
3,000 agents and trails on. After --warmup seconds the page's own frame counter
(`window.wander3d.frames`) is read over --seconds of the page's clock, so the figures are the
frames the page drew, not frames Chromium was asked for. Printed per page: frames per second
as a user gets them, how much of the trails the page's frame-rate guard kept to hold 30 fps
(their length, and "xK": every K-th sample joined at least), the segments drawn per agent
of the samples it keeps (the levels of detail join samples where a segment strays less than
half a pixel from the path), simulated seconds per real second (1.00
when the page keeps up), frames per second with the guard off (full trails), paused (drawing
alone), and playing without trails. The numbers depend on the machine's load: compare
figures from one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import chromium_support
from chromium_support import Browser

from wander3d.scene import bundled_scene, load_scene
from wander3d.share import write_page

#: Software renderers Chromium can draw WebGL with: SwiftShader (its own, always there) and
#: Mesa's llvmpipe through EGL (ANGLE on OpenGL ES).
RENDERERS = {"swiftshader": "--use-angle=swiftshader", "llvmpipe": "--use-angle=gl-egl"}
BASE_FLAGS = chromium_support.FLAGS

MEASURE = """
new Promise((done) => {
  const w = window.wander3d;
  const frames = w.frames, steps = w.steps, start = performance.now();
  setTimeout(() => {
    const seconds = (performance.now() - start) / 1000;
    done([(w.frames - frames) / seconds, (w.steps - steps) / seconds, seconds]);
  }, %d);
})
"""

RENDERER = """
(() => {
  const gl = document.createElement("canvas").getContext("webgl2");
  const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
  return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "unknown";
})()
"""


def measure(page: Path, size: tuple[int, int], angle: str, warmup: float, seconds: float) -> dict:
    """The page's frame rate on one renderer: as shipped (the frame-rate guard may shorten the
    trails), with full trails (guard off), paused (drawing alone), and without trails."""
    chromium_support.FLAGS = (*(f for f in BASE_FLAGS if not f.startswith("--use-angle")), angle)
    browser = Browser(*size)
    try:
        browser.open(page)
        browser.wait_for("window.wander3d && window.wander3d.frames > 0")
        browser.evaluate(f"new Promise((r) => setTimeout(r, {warmup * 1000:.0f}))")
        fps, steps, _ = browser.evaluate(MEASURE % (seconds * 1000))
        kept = browser.evaluate("[window.wander3d.trails.fraction, window.wander3d.trailStride()]")
        (trail, *_) = browser.evaluate(
            "window.wander3d.trailSegments().map((t) => [t.segments.length, t.capacity - 1])"
        )
        browser.evaluate("window.wander3d.trails.enabled = false")
        browser.evaluate("new Promise((r) => setTimeout(r, 1500))")  # the guard lets go
        full_fps, _, _ = browser.evaluate(MEASURE % (seconds * 1000))
        browser.evaluate("document.getElementById('play').click()")
        paused_fps, _, _ = browser.evaluate(MEASURE % (seconds * 500))
        browser.evaluate("document.getElementById('play').click()")
        browser.evaluate("document.getElementById('show-trails').click()")
        bare_fps, _, _ = browser.evaluate(MEASURE % (seconds * 500))
        return {
            "fps": fps,
            "speed": steps * browser.evaluate("window.wander3d.dt"),
            "kept": kept,
            "segments": trail,
            "full_fps": full_fps,
            "paused_fps": paused_fps,
            "bare_fps": bare_fps,
            "renderer": browser.evaluate(RENDERER),
            "problems": browser.problems(),
        }
    finally:
        browser.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="counted seconds (10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before counting (3)")
    parser.add_argument("--size", default="1366x768", help="window size in CSS pixels")
    parser.add_argument("--agents", type=int, default=3000, help="agents of the big page")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    default = load_scene(bundled_scene("default"))
    (group,) = default.groups
    big = default.replace(
        name=f"default, {args.agents:,} agents",
        groups=(dataclasses.replace(group, count=args.agents),),
        view=dataclasses.replace(default.view, show_trails=True),
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"shared page in headless Chromium at {size[0]}x{size[1]} CSS pixels; "
        f"{os.cpu_count()} cores, load average {load}"
    )
    print(
        f"{'renderer':<12} {'page':<24} {'agents':>6} {'fps':>6} {'trails kept':>11} "
        f"{'segments':>8} "
        f"{'sim s/s':>8} {'fps, full trails':>16} {'fps paused':>10} {'fps, no trails':>14}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name, flag in RENDERERS.items():
            for scene in (default, big):
                page = Path(folder) / "page.html"
                write_page(scene, page)
                r = measure(page, (size[0], size[1]), flag, args.warmup, args.seconds)
                print(
                    f"{name:<12} {scene.name:<24} {scene.agent_count:>6,} {r['fps']:>6.1f} "
                    f"{r['kept'][0]:>6.0%} x{r['kept'][1]} "
                    f"{r['segments'][0]:>4}/{r['segments'][1]:<3} {r['speed']:>8.2f} "
                    f"{r['full_fps']:>16.1f} {r['paused_fps']:>10.1f} {r['bare_fps']:>14.1f}"
                )
                if r["problems"]:
                    print(f"  console: {r['problems']}")
            print(f"  ({name}: {r['renderer']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
