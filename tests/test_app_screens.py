"""The real window on real (virtual) screens: a 1366x768 laptop and a 4K screen at 150%, on a
first launch and after geometry remembered from a bigger screen; and through both of Qt's GL
routes on Linux (GLX, the default, and EGL). Each case runs tests/app_probe.py in a fresh
process on its own Xvfb screen, as a user would start the app."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))
pytest.importorskip("pyvirtualdisplay", reason=skip_reason("app"))

from pyvirtualdisplay import Display
from scene_support import REPO

from wander3d.app.placement import GUESSED_FRAME, PREFERRED_SIZE, first_rect, fit_rect

pytestmark = pytest.mark.gl  # its probe draws, in a process of its own

PROBE = REPO / "tests" / "app_probe.py"


def probe(size: tuple[int, int], env: dict[str, str], *args: str) -> dict:
    with Display(backend="xvfb", size=size, color_depth=24, manage_global_env=False) as screen:
        run_env = {**os.environ, **screen.env(), "QT_QPA_PLATFORM": "xcb", **env}
        for name in ("QT_SCALE_FACTOR", "QT_SCREEN_SCALE_FACTORS", "QT_XCB_GL_INTEGRATION"):
            if name not in env:
                run_env.pop(name, None)
        done = subprocess.run(
            [sys.executable, str(PROBE), *args],
            env=run_env, capture_output=True, text=True, timeout=300, cwd=REPO,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def inside(frame: list[int], available: list[int]) -> bool:
    x, y, w, h = frame
    ax, ay, aw, ah = available
    return ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah


def test_fit_rect_keeps_the_frame_on_a_laptop_screen():
    laptop = (0, 0, 1366, 740)  # 1366x768 less a 28 px panel
    frame = (2, 30, 2, 4)
    x, y, w, h = fit_rect((100, 100, 1440, 900), frame, laptop)
    assert (w, h) == (1362, 706) and (x, y) == (2, 30)
    assert inside([x - 2, y - 30, w + 4, h + 34], list(laptop))
    # A window that fits stays where it is, as it is.
    assert fit_rect((200, 150, 800, 500), frame, laptop) == (200, 150, 800, 500)


def test_fit_rect_brings_back_a_window_from_another_screen():
    scaled_4k = (0, 0, 2560, 1440)  # 3840x2160 at 150%
    laptop = (0, 0, 1366, 768)
    remembered = (2900, 1600, 2400, 1300)  # saved on the right of a big screen
    assert fit_rect(remembered, GUESSED_FRAME, scaled_4k) == (156, 136, 2400, 1300)
    x, y, w, h = fit_rect(remembered, GUESSED_FRAME, laptop)
    left, top, right, bottom = GUESSED_FRAME
    assert inside([x - left, y - top, w + left + right, h + top + bottom], list(laptop))
    # A second monitor to the left (negative coordinates) works the same.
    assert fit_rect((-3000, 10, 500, 400), (0, 0, 0, 0), (-1920, 0, 1920, 1080))[0] == -1920


def test_first_launch_size_is_centred_where_it_fits():
    assert first_rect((0, 0, 0, 0), (0, 0, 2560, 1440))[2:] == PREFERRED_SIZE
    x, y, w, h = first_rect((0, 0, 0, 0), (0, 0, 2560, 1440))
    assert (x, y) == ((2560 - w) // 2, (1440 - h) // 2)


def test_a_1366x768_screen_shows_the_whole_window_and_panel():
    seen = probe((1366, 768), {})
    assert inside(seen["frame"], seen["available"])
    assert seen["clipped"] == [] and seen["slider_width"] >= 160
    assert seen["contexts"] == {"egl": False, "glx": True}  # Qt's default GL route on X
    assert seen["lit"] > 0.005


def test_remembered_geometry_from_a_bigger_screen_fits_and_egl_draws_too():
    seen = probe(
        (1366, 768), {"QT_XCB_GL_INTEGRATION": "xcb_egl"}, "--remembered", "2600,1500,2400,1300"
    )
    assert inside(seen["frame"], seen["available"])
    assert seen["contexts"] == {"egl": True, "glx": False}  # the second route: EGL on X
    assert seen["lit"] > 0.005


def test_a_4k_screen_at_150_percent_shows_the_whole_window():
    seen = probe((3840, 2160), {"QT_SCALE_FACTOR": "1.5"})
    assert seen["ratio"] == pytest.approx(1.5)
    assert seen["available"][2:] == [2560, 1440]
    assert inside(seen["frame"], seen["available"])
    assert seen["frame"][2:] == list(PREFERRED_SIZE)
    # The canvas draws at the screen's resolution (not its logical one scaled up), to the
    # window's every pixel.
    assert seen["physical"] == seen["framebuffer"]
    assert seen["physical"] == pytest.approx([1.5 * side for side in seen["canvas"]], abs=1)
