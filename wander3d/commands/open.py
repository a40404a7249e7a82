"""`wander3d [open] [SCENE]`: the desktop app. Qt and vispy are imported only here, and need
the app extra (`pip install "wander3d[app]"`)."""

from __future__ import annotations

import argparse
import os
import sys

from wander3d.scene import SceneError

from .common import EXIT_APP_UNAVAILABLE, PROG, error_line, require_extra, resolve_scene

NAME = "open"
HELP = "open the desktop app (the default when the first argument is a scene)"

#: What the app extra brings that the app imports (top-level names).
APP_MODULES = ("PyQt6", "vispy")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = "Open the desktop app on SCENE, or on the bundled default scene."
    parser.add_argument("scene", nargs="?", metavar="SCENE", help="scene file or bundled name")


def _no_display() -> bool:
    """True on Linux with no X or Wayland display for Qt (it would abort without a word)."""
    if not sys.platform.startswith("linux"):
        return False
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith(("xcb", "wayland")):
        return False  # the user chose another Qt platform; let Qt judge it
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def main(args: argparse.Namespace) -> int:
    path = resolve_scene(args.scene) if args.scene is not None else None
    if path is not None and not path.exists():
        # Said first, as `check` and `run` say it: a typo is no reason to open the app, and
        # without a display the missing display was said instead.
        raise SceneError(str(path), None, "no such file")
    require_extra("app", APP_MODULES, "the desktop app")
    if _no_display():
        error_line(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            f"run it in a desktop session, under 'xvfb-run -a {PROG}', or use "
            f"'{PROG} render SCENE --out picture.png' to draw without a screen"
        )
        return EXIT_APP_UNAVAILABLE
    try:
        from wander3d.app import run_app
    except ImportError as e:
        # Installed but broken (e.g. a system library Qt or OpenGL needs is missing): say
        # what, not a traceback.
        error_line(f"cannot start the desktop app: {e}")
        return EXIT_APP_UNAVAILABLE
    return int(run_app(path))
