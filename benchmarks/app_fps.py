"""Frames per second of the desktop app on a scene: `python benchmarks/app_fps.py SCENE`.

    xvfb-run -a -s "-screen 0 1366x768x24" python benchmarks/app_fps.py default

Opens the main window (1366x768) on SCENE (a file or a bundled name), lets it run for
--warmup seconds, then counts the canvas's buffer swaps for --seconds and prints the frames
per second and how much simulated time passed per real second. The before/after figures in
docs/performance.md ran this script against both commits, one after the other, on the idle
machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", help="scene file or bundled name")
    parser.add_argument("--seconds", type=float, default=15.0, help="counted seconds (15)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before counting (5)")
    args = parser.parse_args(argv)

    from PyQt6.QtCore import QSettings, QTimer

    from wander3d.app.main import qt_application
    from wander3d.app.window import MainWindow
    from wander3d.commands.common import load_scene_arg
    from wander3d.engine.warmup import compile_kernel

    app = qt_application()
    compile_kernel()
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "app.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_scene_arg(args.scene), settings)
    window.resize(1366, 768)
    window.show()
    swaps = [0]
    window.view.canvas.native.frameSwapped.connect(lambda: swaps.__setitem__(0, swaps[0] + 1))

    # The app's own event loop, as a user runs it: polling processEvents in a loop instead
    # would keep a core busy that the renderer's and the engine's threads need.
    mark: dict[str, float] = {}

    def start_counting() -> None:
        swaps[0] = 0
        mark["start"], mark["step"] = time.perf_counter(), window.session.step

    QTimer.singleShot(int(args.warmup * 1e3), start_counting)
    QTimer.singleShot(int((args.warmup + args.seconds) * 1e3), app.quit)
    app.exec()
    start, first_step = mark["start"], mark["step"]
    elapsed = time.perf_counter() - start
    speed = (window.session.step - first_step) * window.session.dt / elapsed
    width, height = window.view.canvas.size
    print(
        f"{args.scene}: {swaps[0] / elapsed:.1f} fps, x{speed:.2f} of real time, "
        f"canvas {width}x{height}"
    )
    print(window.frames.status_text())
    window.frames.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
