"""`wander3d check SCENE...`: validate scene files, one summary line each."""

from __future__ import annotations

import argparse
import sys

from wander3d.scene import MemoryFitError, Scene, SceneError, check_fits
from wander3d.scene.feel import scene_feel, scene_warnings

from .common import EXIT_BAD_INPUT, EXIT_OK, PROG, error_line, help_paragraph, load_scene_arg

NAME = "check"
HELP = "validate scene files"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = help_paragraph(
        "Validate scene files: for each valid scene a summary line and one line per group "
        "saying what its parameters mean in seconds and degrees, on stdout; one error line per "
        "invalid scene, a warning per group that cannot turn back within the margin and one "
        "for a valid scene too big for this machine's memory, on stderr. Exit status 2 if any "
        "is invalid."
    )
    parser.add_argument("scenes", nargs="+", metavar="SCENE", help="scene file or bundled name")


def summary(scene: Scene) -> str:
    """One line describing a valid scene."""
    methods = list(dict.fromkeys(g.wander.method for g in scene.groups))
    n_groups = len(scene.groups)
    box = " x ".join(f"{e:g}" for e in scene.extent)
    return (
        f"{scene.name!r}: {n_groups} group{'s' if n_groups != 1 else ''}, "
        f"{scene.agent_count:,} agents ({', '.join(methods)}), box {box}, "
        f"dt {scene.dt:.4g} s, seed {scene.seed}"
    )


#: How the numbers above relate to `stats`'s, which measure agents in their box: the compare
#: scene's sphere group turns 13 deg/s with a persistence of 7.1 s without walls (as stated
#: above: at most 17 deg/s, 7.2 s), and 20 deg/s, 4.5 s in its box, 17% of the time in the
#: wall band.
WALLS_NOTE = (
    "(the wander's own numbers, away from walls: walls turn agents harder and sooner, so "
    "`wander3d stats` measures a higher turn rate and a shorter persistence where agents "
    "spend time near them: see its wall contact)"
)


def main(args: argparse.Namespace) -> int:
    """Validate each scene; keep going after a bad one; exit 2 if any was bad."""
    status = EXIT_OK
    for arg in args.scenes:
        try:
            scene = load_scene_arg(arg)
        except SceneError as e:
            error_line(str(e))
            status = EXIT_BAD_INPUT
            continue
        print(f"{arg}: {summary(scene)}", flush=True)
        for feel in scene_feel(scene.run_spec):
            print(f"  {feel.line()}", flush=True)
        print(f"  {WALLS_NOTE}", flush=True)
        for warning in scene_warnings(scene):
            print(f"{PROG}: warning: {warning}", file=sys.stderr, flush=True)
        try:
            check_fits(scene)
        except MemoryFitError as e:  # valid, but this machine cannot run it
            print(f"{PROG}: warning: {e}", file=sys.stderr, flush=True)
    return status
