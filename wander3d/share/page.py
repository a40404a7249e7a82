"""One self-contained HTML page that runs a scene live (`wander3d share`).

The page holds everything it runs, so it works from disk (file://) and from any static host
with no network request: three.js (vendored, with its licence), the JavaScript port's core with
the scene's block and wander3d's exact start, the port's three.js adapter, and the viewer
(viewer.mjs). The modules reach each other through an import map of data: URLs.
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from wander3d import __version__
from wander3d.engine.methods import traits
from wander3d.engine.trails import trail_layout
from wander3d.files import OutputError, format_problem, output_file
from wander3d.port import language, plan_port
from wander3d.port.js import SPELLING
from wander3d.scene import Scene, rgb, schema
from wander3d.scene.tunables import PARAMS, param_value, tunable_keys

from .look import look

#: The vendored three.js (vendor/README.md says how to update it; a test checks the bundle's
#: own REVISION against it).
THREE_VERSION = "0.187.0"
#: Trail segments the page draws at most, all agents together: a software renderer draws
#: about this many a frame at 30 fps beside 3,000 cones (benchmarks/share_bench.py).
TRAIL_SEGMENTS = 45_000


def _text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _module_url(source: str) -> str:
    """An ES module as a data: URL (an import map entry)."""
    return "data:text/javascript;base64," + base64.b64encode(source.encode()).decode("ascii")


def _script_safe(text: str) -> str:
    """`text` for the inside of a <script> element: no "</" can end it early (JSON and JS
    read "<\\/" as "</" in strings)."""
    return text.replace("</", "<\\/")


def trail_points(scene: Scene, length: int) -> int:
    """Trail points per agent the page keeps for a group whose trail_length is `length`: at
    most TRAIL_SEGMENTS over the whole scene, so a big scene's trails are coarser but as long
    in time (at least 2 points, none for a group without a trail)."""
    if length <= 0:
        return 0
    return max(2, min(length, TRAIL_SEGMENTS // max(1, scene.agent_count)))


def config(scene: Scene, start: str) -> dict[str, Any]:
    """What the viewer needs beside the core: the scene's look, sliders and start (JSON-ready)."""
    groups = []
    for g in scene.groups:
        points = trail_points(scene, g.trail_length)
        capacity, every = trail_layout(points, g.trail_seconds, scene.dt)
        params = []
        for key in tunable_keys(g):
            spec = PARAMS[key]
            doc = schema.key(spec.table, key)
            params.append(
                {
                    "name": SPELLING.get(key, key),
                    "label": spec.label,
                    "unit": doc.unit,
                    "doc": doc.doc,
                    "lo": spec.lo,
                    "hi": spec.hi,
                    "log": spec.log,
                    "value": param_value(g, key),
                }
            )
        groups.append(
            {
                "name": g.name,
                "color": rgb(g.color),
                "method": g.wander.method,
                "onSphere": traits(g.wander.method).state.on_sphere,
                "count": g.count,
                "trail": {"capacity": capacity, "every": every},
                "params": params,
            }
        )
    cam = scene.camera
    return {
        "name": scene.name,
        "background": scene.view.background,
        "showTrails": scene.view.show_trails,
        "showEnclosure": scene.view.show_enclosure,
        "camera": {
            "azimuth": cam.azimuth,
            "elevation": cam.elevation,
            "distance": cam.distance,
            "fov": cam.fov,
        },
        "groups": groups,
        "look": look(scene),
        "start": start,
    }


def page_html(scene: Scene) -> str:
    """The page of `scene` (its groups and parameters as they are, e.g. with slider edits)."""
    plan = plan_port(scene)
    js = language("js")
    files = js.files(plan)
    imports = {
        "three": _module_url(_text("vendor/three.min.mjs")),
        "wander": _module_url(files[js.core]),
        "wander-three": _module_url(files["adapter/three-wander.mjs"]),
    }
    fields = {
        "{{VERSION}}": html.escape(__version__),
        "{{TITLE}}": html.escape(scene.name),
        "{{BACKGROUND}}": scene.view.background,
        "{{THREE_VERSION}}": THREE_VERSION,
        "{{THREE_LICENSE}}": html.escape(_text("vendor/LICENSE")),
        "{{IMPORTMAP}}": json.dumps({"imports": imports}),
        "{{CONFIG}}": _script_safe(json.dumps(config(plan.scene, plan.start))),
        "{{VIEWER}}": _script_safe(_text("viewer.mjs")),
    }
    page = _text("page.html")
    for mark, value in fields.items():
        page = page.replace(mark, value)
    return page


#: What a page's file may be called: a browser opens it as a page by its name.
PAGE_SUFFIXES = (".html", ".htm")


def check_page_name(out: Path) -> None:
    """OutputError (naming the path) unless `out` is named as a web page."""
    if Path(out).suffix.lower() not in PAGE_SUFFIXES:
        raise OutputError(Path(out), format_problem(out, PAGE_SUFFIXES))


def write_page(scene: Scene, out: Path) -> int:
    """Write `scene`'s page to `out` (named .html or .htm), whole or not at all; return its
    size in bytes. OutputError (naming the path) when it cannot be written."""
    check_page_name(out)
    text = page_html(scene).encode("utf-8")
    with output_file(Path(out)) as temporary:
        temporary.write_bytes(text)
    return len(text)
