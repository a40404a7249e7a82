"""How fast the app's window answers input on a big scene: `python benchmarks/latency.py`.

    xvfb-run -a -s "-screen 0 1366x768x24" python benchmarks/latency.py [--agents 1000000]

Opens the main window on the swarm scene with its agent count raised (written to a temporary
TOML), lets it run, and presses Shift through the X server's XTEST extension from another
thread about every 0.1 s: the real input path (X server, Qt's event reader, the GUI thread),
so a GUI thread busy drawing delays the key event as it would a user's. Prints the latency
from each press to the window's key event (median, p95, max), the frames drawn and the status
bar. A press waits for the previous one to arrive, so every latency is one press's own.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

XK_SHIFT_L = 0xFFE1


class XKeys:
    """Presses and releases a key through XTEST on a connection of its own."""

    def __init__(self) -> None:
        self.x11 = ctypes.CDLL("libX11.so.6")
        self.xtst = ctypes.CDLL("libXtst.so.6")
        self.x11.XOpenDisplay.restype = ctypes.c_void_p
        self.x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x11.XKeysymToKeycode.restype = ctypes.c_ubyte
        self.x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.x11.XFlush.argtypes = [ctypes.c_void_p]
        self.xtst.XTestFakeKeyEvent.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong,
        ]  # fmt: skip
        self.display = self.x11.XOpenDisplay(None)
        if not self.display:
            raise SystemExit("latency: error: no X display (run it under xvfb-run)")
        self.code = self.x11.XKeysymToKeycode(self.display, XK_SHIFT_L)

    def tap(self) -> None:
        """Press and release the key."""
        self.xtst.XTestFakeKeyEvent(self.display, self.code, 1, 0)
        self.x11.XFlush(self.display)
        self.xtst.XTestFakeKeyEvent(self.display, self.code, 0, 0)
        self.x11.XFlush(self.display)


def swarm_toml(agents: int, trails: bool) -> str:
    """The bundled swarm scene with `agents` agents (two equal groups), trails shown or not."""
    from wander3d.scene import bundled_scene

    text = bundled_scene("swarm").read_text(encoding="utf-8")
    half = agents // 2
    counts = iter([half, agents - half])
    text = re.sub(r"(?m)^count = \d+", lambda m: f"count = {next(counts)}", text)
    return text.replace("[view]\n", f"[view]\nshow_trails = {str(trails).lower()}\n")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring time (30)")
    parser.add_argument("--settle", type=float, default=10.0, help="running before (10)")
    parser.add_argument("--trails", choices=("on", "off"), default="on")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    from PyQt6.QtCore import QEvent, QObject, QSettings, Qt, QTimer

    from wander3d.app.main import qt_application
    from wander3d.app.window import MainWindow
    from wander3d.engine.warmup import compile_kernel
    from wander3d.scene import load_scene

    compile_kernel()
    folder = Path(tempfile.mkdtemp(prefix="wander3d-latency-"))
    scene_path = folder / "huge.toml"
    scene_path.write_text(swarm_toml(args.agents, args.trails == "on"), encoding="utf-8")
    app = qt_application()
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_scene(scene_path), settings)
    window.show()
    window.activateWindow()

    sent: list[float] = []
    received: list[float] = []
    arrived = threading.Event()

    class Probe(QObject):
        def eventFilter(self, watched, event) -> bool:
            if (
                event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Shift
                and len(received) < len(sent)
            ):
                received.append(time.perf_counter())
                arrived.set()
            return False

    probe = Probe()
    app.installEventFilter(probe)
    frames: list[int] = []  # the stride of each frame drawn
    window.view.canvas.events.draw.connect(lambda e: frames.append(window.view.agent_stride))

    stop = threading.Event()

    def press_keys() -> None:
        keys = XKeys()
        rng = random.Random(1)
        while not stop.is_set():
            arrived.clear()
            sent.append(time.perf_counter())  # before the press: it may arrive at once
            keys.tap()
            if not arrived.wait(10.0):
                received.append(float("nan"))  # lost: counted apart
            time.sleep(0.1 + rng.uniform(0.0, 0.05))

    thread = threading.Thread(target=press_keys, daemon=True)
    marks: dict[str, float] = {}

    def mark(time_key: str, step_key: str, frames_key: str) -> None:
        marks[time_key], marks[step_key] = time.perf_counter(), window.session.step
        marks[frames_key] = len(frames)

    def begin() -> None:
        mark("start", "step", "frames")
        thread.start()

    QTimer.singleShot(int(args.settle * 1e3), begin)

    def end() -> None:
        mark("end", "end_step", "end_frames")
        stop.set()
        app.quit()

    QTimer.singleShot(int((args.settle + args.seconds) * 1e3), end)
    app.exec()
    thread.join(12.0)
    elapsed = marks["end"] - marks["start"]
    # Presses sent while the window ran (the last may arrive after the end, or never).
    pairs = [(s, r) for s, r in zip(sent, received, strict=False) if s < marks["end"]]
    lost = sum(1 for _, r in pairs if r != r)
    ms = [(r - s) * 1e3 for s, r in pairs if r == r]
    result = {
        "agents": args.agents,
        "trails": args.trails,
        "presses": len(ms),
        "lost": lost,
        "median_ms": statistics.median(ms) if ms else None,
        "p95_ms": percentile(ms, 0.95) if ms else None,
        "max_ms": max(ms) if ms else None,
        "fps": (marks["end_frames"] - marks["frames"]) / elapsed,
        "steps_per_s": (marks["end_step"] - marks["step"]) / elapsed,
        "stride_changes": sum(
            a != b for a, b in itertools.pairwise(frames[marks["frames"] : marks["end_frames"]])
        ),
        "status": window.status_label.text(),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    window.frames.close()
    window.view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
