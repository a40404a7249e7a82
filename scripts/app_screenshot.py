"""A screenshot of the desktop app as a user sees it: the whole screen, window and all.

Run it on a virtual screen the size to show, e.g. the README's pictures:

    xvfb-run -s "-screen 0 1366x768x24" python scripts/app_screenshot.py compare \
        --seconds 8 --out docs/app-compare.png
    xvfb-run -s "-screen 0 1366x768x24" python scripts/app_screenshot.py default \
        --seconds 12 --select 17 --follow --out docs/screenshot.png

On a bare virtual screen it starts openbox (when installed), so the window has the title bar
and frame a desktop gives it. It opens the window as a first launch (settings in a temporary
folder), runs the scene for --seconds of real time, does what the options ask, lets the
window settle and grabs the screen (X's root window: the OpenGL canvas included). Not part of
the package: a tool for looking.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from PyQt6.QtCore import QSettings
from PyQt6.QtWidgets import QApplication


def settle(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scene", help="scene file or bundled name")
    parser.add_argument("--out", required=True, help="PNG to write")
    parser.add_argument("--seconds", type=float, default=5.0, help="real seconds to run first")
    parser.add_argument("--select", type=int, help="select this agent")
    parser.add_argument("--follow", action="store_true", help="chase the selected agent (T)")
    parser.add_argument("--path", action="store_true", help="show the selected agent's path")
    parser.add_argument("--pause", action="store_true", help="pause before the screenshot")
    parser.add_argument("--help-dialog", action="store_true", help="open the F1 help")
    parser.add_argument("--note", help="show this status-bar note")
    parser.add_argument("--problem", help="show this problem as an automatic reload would")
    parser.add_argument(
        "--no-window-manager", action="store_true", help="do not start openbox (one runs)"
    )
    args = parser.parse_args()

    openbox = shutil.which("openbox")
    manager = (
        subprocess.Popen([openbox], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if openbox and not args.no_window_manager
        else None
    )
    try:
        shoot(args)
    finally:
        if manager is not None:
            manager.terminate()
            manager.wait()


def shoot(args: argparse.Namespace) -> None:
    from wander3d.app.main import prepare_engine, qt_application
    from wander3d.app.window import MainWindow
    from wander3d.commands.common import resolve_scene
    from wander3d.scene import load_scene

    app = qt_application()
    prepare_engine(app)
    folder = Path(tempfile.mkdtemp())
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_scene(resolve_scene(args.scene)), settings)
    window.show()
    settle(app, 1.0)
    if args.select is not None:
        window.select_agent(args.select)
    if args.path:
        window.timeline_bar.path_button.setChecked(True)
    settle(app, args.seconds)
    if args.follow:
        window.toggle_follow()
        settle(app, 2.0)
    if args.pause:
        window.session.set_running(False)
    if args.note:
        window.messages.note(args.note, 60_000)
    if args.problem:
        window.messages.problem("Cannot reload scene", args.problem, dialog=False)
    if args.help_dialog:
        window.show_help()
    settle(app, 1.0)
    screen = app.primaryScreen()
    assert screen is not None
    if not screen.grabWindow(0).save(args.out, "PNG"):
        raise SystemExit(f"cannot write {args.out}")
    window.close()


if __name__ == "__main__":
    main()
