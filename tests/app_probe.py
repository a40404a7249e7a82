"""Run by tests/test_app_screens.py in a fresh process on its own virtual screen: open the main
window as a first launch (or after `--remembered X,Y,W,H` from another screen), let it settle,
and print what a user would see as JSON. Not a test module itself."""

from __future__ import annotations

import argparse
import ctypes
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QRect, QSettings
from PyQt6.QtWidgets import QApplication


def settle(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--remembered", help="X,Y,W,H saved on another screen")
    args = parser.parse_args()

    from wander3d.app.main import qt_application
    from wander3d.app.window import MainWindow
    from wander3d.scene import bundled_scene, load_scene

    app = qt_application()
    folder = Path(tempfile.mkdtemp())
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    scene = load_scene(bundled_scene("compare"))
    if args.remembered:
        # A window that lived on a bigger screen, now gone: its geometry is remembered.
        x, y, w, h = (int(v) for v in args.remembered.split(","))
        other = MainWindow(scene, settings)
        other.setGeometry(QRect(x, y, w, h))
        settings.setValue("geometry", other.saveGeometry())
        other.frames.close()
        other.view.close()
        other.deleteLater()
    window = MainWindow(scene, settings)
    window.session.set_running(False)
    window.show()
    settle(app, 1.5)

    contexts = {}

    def look(event) -> None:
        contexts["egl"] = bool(ctypes.CDLL("libEGL.so.1").eglGetCurrentContext())
        contexts["glx"] = bool(ctypes.CDLL("libGL.so.1").glXGetCurrentContext())

    window.view.canvas.events.draw.connect(look)
    window.view.canvas.update()
    settle(app, 0.5)
    image = window.view.render()
    grabbed = window.view.canvas.native.grabFramebuffer()
    viewport = window.panel_scroll.viewport()
    assert viewport is not None
    clipped = []
    for group in window.panel.groups:
        for key, control in group.controls.items():
            for widget in (control.slider, control.spin, control.label):
                r = widget.rect().translated(widget.mapTo(viewport, widget.rect().topLeft()))
                if r.right() >= viewport.width() or r.left() < 0:
                    clipped.append(f"{group.visible_box.text()}.{key}")
    screen = window.screen()
    assert screen is not None
    print(
        json.dumps(
            {
                "available": rect(screen.availableGeometry()),
                "frame": rect(window.frameGeometry()),
                "client": rect(window.geometry()),
                "ratio": screen.devicePixelRatio(),
                "clipped": clipped,
                "slider_width": window.panel.groups[0].controls["distance"].slider.width(),
                "lit": float(np.mean(image[..., :3].max(axis=-1) > 90)),
                "contexts": contexts,
                "canvas": list(window.view.canvas.size),
                "physical": list(window.view.canvas.physical_size),
                "framebuffer": [grabbed.width(), grabbed.height()],
            }
        )
    )


if __name__ == "__main__":
    main()
