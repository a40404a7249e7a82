"""`wander3d render`: offscreen PNG, MP4 and GIF, in a child process (EGL, no window)."""

import os
import subprocess
import sys

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("imageio", reason=skip_reason("gl"))

import imageio.v3 as iio
from PIL import GifImagePlugin, Image

from wander3d.render.record import gif_delays_ms

pytestmark = pytest.mark.gl

SCENE = """
[scene]
seed = 3
[enclosure]
min = [-50, -30, -50]
max = [50, 30, 50]
margin = 8.0
[view]
background = "#000000"
[[groups]]
count = 60
color = "#ff8000"
trail_length = 40
"""


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SCENE)
    return path


def render(scene, out, *extra, env=None):
    command = [sys.executable, "-m", "wander3d", "render", str(scene), "--out", str(out)]
    return subprocess.run([*command, *extra], capture_output=True, text=True, timeout=300, env=env)


def test_png_is_the_last_frame_at_the_asked_size_and_not_blank(scene, tmp_path):
    out = tmp_path / "last.png"
    done = render(scene, out, "--seconds", "1", "--size", "200x120")
    assert done.returncode == 0, done.stderr
    image = iio.imread(out)
    assert image.shape[:2] == (120, 200)
    lit = image[..., :3].max(axis=2) > 40  # the background is black
    assert 0.005 < lit.mean() < 0.6
    assert "1 frame(s), 200x120" in done.stdout


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_video_has_one_frame_per_fps_and_the_orbit_moves_the_view(scene, tmp_path, suffix):
    out = tmp_path / f"clip{suffix}"
    args = ("--seconds", "2", "--fps", "8", "--size", "160x96", "--orbit", "40")
    done = render(scene, out, *args)
    assert done.returncode == 0, done.stderr
    frames = iio.imread(out)
    assert frames.shape[0] == 16
    assert frames.shape[1:3] == (96, 160)
    assert frames[-1].std() > 5
    first, last = frames[0].astype(float), frames[-1].astype(float)
    assert np.abs(first - last).mean() > 1.0
    if suffix == ".gif":
        # 8 fps is 12.5 hundredths a frame: delays alternate so the clip lasts its 2 s.
        with Image.open(out) as gif:
            assert isinstance(gif, GifImagePlugin.GifImageFile)
            delays = []
            for i in range(gif.n_frames):
                gif.seek(i)
                delays.append(gif.info["duration"])
        assert sum(delays) == 2000 and set(delays) == {120, 130}


@pytest.mark.parametrize(("fps", "average_ms"), [(15, 1000 / 15), (30, 1000 / 30), (8, 125)])
def test_gif_delays_keep_the_asked_rate_on_average(fps, average_ms):
    delays = gif_delays_ms(600, fps)
    assert len(delays) == 600 and all(d % 10 == 0 for d in delays)
    assert abs(np.cumsum(delays) - np.arange(1, 601) * average_ms).max() <= 5
    assert gif_delays_ms(3, 15) == [70, 60, 70]


@pytest.mark.parametrize(
    ("out", "extra", "message"),
    [
        ("picture.bmp", (), "unknown format"),
        ("clip.mp4", ("--size", "161x96"), "even width and height"),
        ("picture.png", ("--size", "12x12"), "16 to 8192"),
        ("clip.gif", ("--fps", "60"), "a GIF plays at most 50"),
        ("missing/picture.png", (), "does not exist"),
    ],
)
def test_bad_requests_exit_2_with_one_line(scene, tmp_path, out, extra, message):
    done = render(scene, tmp_path / out, *extra)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.app  # Qt's OpenGL on the virtual display
def test_falls_back_to_a_virtual_display_when_egl_fails(scene, tmp_path):
    out = tmp_path / "fallback.png"
    env = dict(os.environ, EGL_PLATFORM="no-such-platform")
    env.pop("DISPLAY", None)
    done = render(scene, out, "--seconds", "0.5", "--size", "160x96", env=env)
    assert done.returncode == 0, done.stderr
    assert "using a virtual display" in done.stderr
    assert iio.imread(out).shape[:2] == (96, 160)


def test_pictures_carry_a_legend_and_caption_unless_asked_not_to(scene, tmp_path):
    with_legend, without = tmp_path / "legend.png", tmp_path / "plain.png"
    args = ("--seconds", "1", "--size", "320x200")
    assert render(scene, with_legend, *args).returncode == 0
    assert render(scene, without, *args, "--no-legend").returncode == 0
    a, b = iio.imread(with_legend)[..., :3], iio.imread(without)[..., :3]
    differ = np.abs(a.astype(int) - b.astype(int)).sum(axis=-1) > 30
    h, w = differ.shape
    assert differ[: h // 5, : w // 2].mean() > 0.02  # the legend, top left
    assert differ[-h // 8 :, : w // 2].mean() > 0.02  # the caption, bottom left
    assert not differ[h // 3 : -h // 4, w // 2 :].any()  # the rest is the same picture


def test_the_legend_names_each_group_and_the_caption_the_scene_and_time():
    from wander3d.render.caption import annotate, caption_text, legend_lines
    from wander3d.scene import bundled_scene, load_scene

    compare = load_scene(bundled_scene("compare"))
    lines = legend_lines(compare)
    assert [text.split(" ·")[0] for _, text in lines] == [g.name for g in compare.groups]
    assert [color for color, _ in lines] == [g.color for g in compare.groups]
    assert caption_text(compare, 12.34) == f"{compare.name} · t 12.3 s"
    image = np.zeros((360, 640, 3), np.uint8)
    drawn = annotate(image, compare, 12.34)
    assert drawn.shape == image.shape and drawn.dtype == np.uint8
    # Each group's swatch is drawn in its colour, along the top.
    for color, _ in lines:
        rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
        assert (np.abs(drawn[:90].astype(int) - rgb).sum(axis=-1) < 6).sum() > 20, color


@pytest.mark.parametrize("size", [(320, 180), (480, 270), (1280, 720), (360, 640)])
def test_the_legend_keeps_to_the_top_margin_of_any_picture(size):
    """On a 320 x 180 picture the column of the five methods reached down a third of it."""
    from wander3d.render.caption import annotate, legend_lines, text_size
    from wander3d.scene import bundled_scene, load_scene

    compare = load_scene(bundled_scene("compare"))
    width, height = size
    drawn = annotate(np.zeros((height, width, 3), np.uint8), compare, 1.0)
    rows = np.flatnonzero(drawn[: height // 2].any(axis=(1, 2)))
    assert rows.max() <= max(0.2 * height, 3 * text_size(height)), rows.max()
    for color, _ in legend_lines(compare):  # every group is there
        rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
        assert (np.abs(drawn.astype(int) - rgb).sum(axis=-1) < 6).sum() > 10, color
