"""`wander3d render SCENE --out F`: draw offscreen to a PNG, MP4 or GIF (no display needed).

EGL first (Mesa's surfaceless platform: no display at all); if EGL cannot start, the same
command runs again in a child process on a private virtual X display (Xvfb), with Qt's OpenGL.
Needs the render extra (vispy, imageio), and the app extra (PyQt6) for the virtual display.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from wander3d.arguments import finite_float, positive_float
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.scene import check_fits

from .common import (
    EXIT_OK,
    PROG,
    CliError,
    help_paragraph,
    load_scene_arg,
    output_option,
    require_extra,
)
from .progress import Progress

NAME = "render"
HELP = "draw a scene offscreen to a PNG, MP4 or GIF"

#: Set in the child process that renders on a virtual display, naming its vispy backend.
GL_BACKEND_VARIABLE = "WANDER3D_GL_BACKEND"
#: What the render extra brings that drawing imports (top-level names).
RENDER_MODULES = ("vispy", "imageio")
#: The option that gives each argument of `wander3d.render.record.record`, for its errors.
OPTIONS = {"out": "--out", "size": "--size", "fps": "--fps"}


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT, e.g. 1280x720, got {text!r}"
        ) from None
    return width, height


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = help_paragraph(
        "Simulate SCENE for --seconds and draw it with the app's visuals, without a window: the "
        "last frame to a .png, or every frame to an .mp4 or .gif, with a legend of the groups' "
        "colours and a caption (scene, time) unless --no-legend. Uses EGL (no display needed) "
        "and falls back to a virtual X display (Xvfb)."
    )
    parser.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    parser.add_argument("--out", required=True, metavar="FILE", help=".png, .mp4 or .gif")
    parser.add_argument(
        "--seconds", type=positive_float, default=10.0, metavar="S",
        help="simulated seconds (default: 10)",
    )  # fmt: skip
    parser.add_argument(
        "--size", type=_size, default=(1280, 720), metavar="WxH",
        help="picture size in pixels (default: 1280x720)",
    )  # fmt: skip
    parser.add_argument(
        "--fps", type=positive_float, default=30.0, metavar="F",
        help="video frames per simulated second (default: 30)",
    )  # fmt: skip
    parser.add_argument(
        "--orbit", type=finite_float, default=0.0, metavar="DEG_PER_S",
        help="turn the camera around the box this many degrees per simulated second",
    )  # fmt: skip
    parser.add_argument(
        "--no-legend", dest="legend", action="store_false",
        help="leave out the legend (the groups' colours) and the caption (scene, time)",
    )  # fmt: skip


def main(args: argparse.Namespace) -> int:
    """Render offscreen: EGL first (no display needed), else a virtual X display."""
    require_extra("render", RENDER_MODULES, "rendering")
    from wander3d.render.record import (
        GLUnavailable,
        RecordError,
        check_request,
        egl_problem,
        record,
    )

    scene = load_scene_arg(args.scene)
    check_fits(scene)
    out = Path(args.out)
    try:
        check_request(out, args.size, args.fps)
    except RecordError as e:
        raise CliError(f"{OPTIONS[e.argument]} {e}") from None
    backend = os.environ.get(GL_BACKEND_VARIABLE, "egl")
    problem = egl_problem() if backend == "egl" else None
    if problem is None:
        compile_kernel(on_slow=compiling_notice)
        total = max(1, round(args.seconds / scene.dt))
        progress = Progress(sys.stderr, total, scene.agent_count, scene.dt, only_steps=False)
        try:
            with output_option("--out", out) as temporary:
                recording = record(
                    scene, temporary, args.seconds, args.size, args.fps, args.orbit, backend,
                    on_step=progress.update, legend=args.legend,
                )  # fmt: skip
        except RecordError as e:
            raise CliError(f"{OPTIONS[e.argument]} {e}") from None
        except GLUnavailable as e:
            problem = " ".join(str(e).split())  # vispy's messages span lines
        else:
            progress.finish(total, recording.step_seconds)
            width, height = recording.size
            print(f"{out}: {recording.frames} frame(s), {width}x{height}")
            return EXIT_OK
    if os.environ.get(GL_BACKEND_VARIABLE):
        raise CliError(f"cannot render offscreen: {problem}")
    return _render_on_virtual_display(args.argv, problem)


def _render_on_virtual_display(argv: list[str], egl_problem: str) -> int:
    """Run this same render command again under a private Xvfb, with Qt's OpenGL."""
    import shutil
    import subprocess

    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise CliError(
            f"cannot render offscreen: EGL failed ({egl_problem}) and there is no virtual "
            "display to fall back on (Debian/Ubuntu: apt-get install xvfb)"
        )
    require_extra(
        "app", ("PyQt6",), f"cannot render offscreen: EGL failed ({egl_problem}), and drawing on "
        "a virtual display instead"
    )  # fmt: skip
    print(f"{PROG}: EGL unavailable ({egl_problem}); using a virtual display", file=sys.stderr)
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as display:
            number = display.readline().strip()
        if not number:
            raise CliError("cannot render offscreen: Xvfb did not start")
        env = dict(os.environ, DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
        env[GL_BACKEND_VARIABLE] = "pyqt6"
        return subprocess.call([sys.executable, "-m", "wander3d", *argv], env=env)
    finally:
        server.terminate()
        server.wait()
