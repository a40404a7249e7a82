"""`wander3d share SCENE --out scene.html`: the scene, live, as one self-contained web page."""

from __future__ import annotations

import argparse
from pathlib import Path

from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.files import OutputError
from wander3d.share import THREE_VERSION, check_page_name, write_page

from .common import EXIT_OK, CliError, help_paragraph, load_scene_arg

NAME = "share"
HELP = "write the scene as one web page that runs it live in any browser, offline"

DESCRIPTION = help_paragraph(
    "Write SCENE as one HTML file (--out) that runs it live in a browser: the same run as "
    "`wander3d run` (the JavaScript port's core from the engine's exact start), drawn as the "
    f"app draws it with three.js {THREE_VERSION} (inlined, with its licence), with play, "
    "pause, step, reset, speed, the groups' wander sliders and the selected agent's overlay. "
    "It needs nothing else: open it from disk or put it on any static host; it makes no "
    "network request. PAGE?steps=N shows no scene but every agent's position after N steps "
    '(`particle,x,y,z`) in <pre id="positions">.',
)
EPILOG = (
    "examples:\n"
    "  wander3d share compare --out compare.html\n"
    '  chromium --headless --dump-dom "file://$PWD/compare.html?steps=600"'
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument("--out", required=True, metavar="FILE", help="the page to write (.html)")


def main(args: argparse.Namespace) -> int:
    out = Path(args.out)
    try:
        check_page_name(out)
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    scene = load_scene_arg(args.scene)
    compile_kernel(on_slow=compiling_notice)  # the page starts from the engine's own start
    try:
        size = write_page(scene, out)
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    print(
        f"{out}: web page of {scene.name!r} ({scene.agent_count:,} agents, {size / 1e6:.1f} MB); "
        "open it in a browser, offline or from any static host"
    )
    return EXIT_OK
