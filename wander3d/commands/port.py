"""`wander3d port SCENE --lang LANG --out DIR`: the scene's wander as drop-in code for a game."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.files import OutputError
from wander3d.port import LANGUAGES, PortError, language, plan_port, write_port

from .common import EXIT_OK, CliError, load_scene_arg

NAME = "port"
HELP = f"write the scene's wander as code for a game engine ({', '.join(LANGUAGES)})"

DESCRIPTION = textwrap.fill(
    "Write a port of wander3d's model for SCENE's groups into folder --out: a core in the "
    "language with the scene's parameters as named defaults (standard library only), an "
    "engine adapter in DIR/adapter/, a conformance driver that prints the run as CSV, the "
    "scene's exact start (start.txt), the scene it was made from (scene.toml) and a README. "
    "The port repeats `wander3d run` of that scene bit for bit; the README says how to check.",
    width=88,
)
EPILOG = (
    "examples:\n"
    "  wander3d port compare --lang js --out compare-js\n"
    "  node compare-js/conformance.mjs 60 10 > out.csv\n"
    "  wander3d run compare-js/scene.toml --seconds 60 --sample-rate 10 --out ref.csv\n"
    "  cmp out.csv ref.csv"
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument(
        "--lang", required=True, choices=tuple(LANGUAGES), help="the port's language"
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="folder to write (created if missing)"
    )
    parser.add_argument(
        "--group",
        action="append",
        metavar="NAME",
        help="port only this group (repeat for more); the port is then that smaller scene's",
    )


def main(args: argparse.Namespace) -> int:
    scene = load_scene_arg(args.scene)
    compile_kernel(on_slow=compiling_notice)
    lang = language(args.lang)
    try:
        plan = plan_port(scene, args.group)
    except PortError as e:
        raise CliError(f"--group: {e}") from None
    out = Path(args.out)
    try:
        write_port(plan, lang, out)
    except OutputError as e:
        raise CliError(f"--out {e}") from None
    print(
        f"{out}: {lang.title} port of {plan.scene.name!r} ({len(plan.groups)} group"
        f"{'s' if len(plan.groups) != 1 else ''}, {plan.agent_count:,} agents); "
        f"check it: {lang.conformance.replace('DIR', str(out))}"
    )
    return EXIT_OK
