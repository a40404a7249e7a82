"""Headless recording: a scene rendered offscreen to a PNG (its last frame), an MP4 or a GIF.

Uses the same session and SimulationView as the app, on vispy's EGL backend (Mesa's
surfaceless platform: no display needed) unless told otherwise: the session steps the run on
its engine thread and publishes each state, which the view draws. Video goes through imageio
(MP4 with the ffmpeg that imageio-ffmpeg ships, GIF with Pillow).
"""

from __future__ import annotations

import ctypes.util
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wander3d.files import unknown_format
from wander3d.scene import Scene
from wander3d.session import Session

FORMATS = (".png", ".mp4", ".gif")
#: GIF frame delays are whole hundredths of a second, and browsers and most viewers show a
#: delay under 2/100 s as 10/100 s: 50 frames per second is the fastest a GIF plays as asked.
GIF_MAX_FPS = 50.0
#: Agent-steps per engine job between two progress reports (and a state drawn).
PROGRESS_AGENT_STEPS = 200_000


class RecordError(ValueError):
    """A recording asked for that cannot be made; str() is one line, "VALUE: problem".

    `argument` names the parameter of `record` (and `check_request`) at fault: "out", "size"
    or "fps".
    """

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.argument, str(self)))


class GLUnavailable(RuntimeError):
    """No OpenGL context could be made with the chosen backend."""


@dataclass(frozen=True)
class Recording:
    """What was written: path, frame count and size (width, height) in pixels, and the
    seconds spent stepping the simulation (the rest went to drawing and encoding)."""

    path: Path
    frames: int
    size: tuple[int, int]
    step_seconds: float


def check_request(out: Path, size: tuple[int, int], fps: float) -> str:
    """Validate before any work; returns the format suffix. RecordError if `out`'s format,
    the `size` (width, height) in pixels or the `fps` cannot be recorded."""
    suffix = out.suffix.lower()
    if out.is_dir():
        raise RecordError("out", f"{out}: is a directory")
    if suffix not in FORMATS:
        raise RecordError("out", unknown_format(out, FORMATS))
    width, height = size
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise RecordError("size", f"{width}x{height} pixels: each side must be 16 to 8192")
    if suffix == ".mp4" and (width % 2 or height % 2):
        raise RecordError(
            "size", f"{width}x{height} pixels: MP4 (H.264) needs even width and height"
        )
    if not (0 < fps <= 240):
        raise RecordError("fps", f"{fps:g} frames per second: must be above 0 and at most 240")
    if suffix == ".gif" and fps > GIF_MAX_FPS:
        raise RecordError(
            "fps",
            f"{fps:g} frames per second: a GIF plays at most {GIF_MAX_FPS:g} (its frame delays "
            "are whole 1/100 s, and players slow shorter ones down to 1/10 s); use .mp4",
        )
    return suffix


def gif_delays_ms(frames: int, fps: float) -> list[int]:
    """Per-frame GIF delays (ms, whole hundredths of a second) for `frames` frames at `fps`.

    Each frame ends at the hundredth nearest its exact time k / fps, so delays alternate where
    1/fps is no whole hundredth (15 fps: 70, 60, 70 ms, ...) and the clip keeps the asked rate
    on average, never drifting by more than 5 ms; one delay for all would play 15 fps as 16.7.
    """
    ends = np.round(np.arange(frames + 1) * (100.0 / fps)).astype(np.int64)
    return [int(d) * 10 for d in np.diff(ends)]


def egl_problem() -> str | None:
    """Why EGL cannot work here, naming the missing package, or None if it may."""
    if ctypes.util.find_library("EGL") is None:
        return "libEGL is missing (Debian/Ubuntu: apt-get install libegl1 libgl1-mesa-dri)"
    return None


def record(
    scene: Scene,
    out: Path,
    seconds: float,
    size: tuple[int, int] = (1280, 720),
    fps: float = 30.0,
    orbit: float = 0.0,
    backend: str = "egl",
    on_step: Callable[[int], None] | None = None,
    legend: bool = True,
) -> Recording:
    """Simulate `scene` for `seconds` and write `out` (.png: the last frame; .mp4/.gif: video).

    size: (width, height) pixels; fps: video frames per simulated second; orbit: degrees per
    simulated second the camera turns around the vertical axis, so the paths' 3D shape shows.
    legend: draw the groups' colours and a caption (scene, time) on every frame (caption.py).
    on_step(steps_done) reports progress. Raises RecordError or GLUnavailable.
    """
    from vispy.io import write_png

    from .caption import annotate
    from .offscreen import offscreen_view

    def finish(image: np.ndarray) -> np.ndarray:
        return annotate(image, scene, session.step * scene.dt) if legend else image

    suffix = check_request(out, size, fps)
    total_steps = max(1, round(seconds / scene.dt))
    # Forward only: no checkpoints to seek back with.
    stepping = [0.0]  # seconds the session took to step
    with Session(scene, timeline=False) as session:
        try:
            view = offscreen_view(scene, session.layout, size=size, backend=backend)
        except Exception as error:  # vispy raises plain RuntimeErrors for a failed context
            raise GLUnavailable(f"{backend}: {error}") from error
        # Every state the session publishes, in order, as the app's view gets them.
        view.show_state(session.state)
        session.events.state_changed.connect(lambda: view.show_state(session.state))
        try:
            if orbit:
                view.set_orbiting(True)
            if suffix == ".png":
                _advance(session, total_steps, on_step, stepping)
                view.orbit(orbit * seconds)
                write_png(str(out), finish(view.render(size, supersample=2)))
                return Recording(out, 1, size, stepping[0])
            frames = max(1, math.ceil(seconds * fps - 1e-9))
            with _video_writer(out, suffix, fps, frames) as append:
                for frame in range(1, frames + 1):
                    target = min(total_steps, round(frame / fps / scene.dt))
                    _advance(session, target, on_step, stepping)
                    view.orbit(orbit / fps)
                    append(finish(view.render(size)[..., :3]))
            return Recording(out, frames, size, stepping[0])
        finally:
            view.close()


def _advance(
    session: Session, target: int, on_step: Callable[[int], None] | None, stepping: list[float]
) -> None:
    """Step `session`'s run to step `target`, in jobs of about PROGRESS_AGENT_STEPS
    agent-steps (the progress bar moves on big scenes without a job per step), adding the
    seconds it took to stepping[0]."""
    chunk = max(1, PROGRESS_AGENT_STEPS // max(session.agent_count, 1))
    while session.step < target:
        start = time.perf_counter()
        session.advance(min(chunk, target - session.step))
        session.settle(timeout=None)
        stepping[0] += time.perf_counter() - start
        if on_step is not None:
            on_step(session.step)


def _check_video(out: Path) -> None:
    """OSError unless `out` is a whole video file: ffmpeg can fail to finish one (a full
    disk) and say so only on its stderr."""
    import imageio_ffmpeg

    try:
        frames, _ = imageio_ffmpeg.count_frames_and_secs(str(out))
    except (RuntimeError, OSError, ValueError):
        frames = 0
    if frames == 0:
        raise OSError("ffmpeg could not finish the video (is the disk full?)")


class _video_writer:
    """Context manager yielding append(frame (h, w, 3) uint8) for an MP4 or GIF file of
    `frames` frames."""

    def __init__(self, out: Path, suffix: str, fps: float, frames: int) -> None:
        self._append: Callable[[np.ndarray], object]  # what it returns is not used
        self._close: Callable[[], None]
        if suffix == ".mp4":
            import imageio.v2 as imageio

            # ffmpeg quiet: its complaints (a full disk) would fill the terminal; whether it
            # finished the file is checked after closing instead, as its exit status is not
            # reported.
            video = imageio.get_writer(
                out, format="FFMPEG", fps=fps, codec="libx264", quality=8,
                pixelformat="yuv420p", macro_block_size=1, ffmpeg_log_level="quiet",
            )  # fmt: skip

            def close_video() -> None:
                video.close()
                _check_video(out)

            self._append, self._close = video.append_data, close_video
        else:
            from PIL import Image

            # GIF frames are kept until closing, then written at once by Pillow (imageio's
            # Pillow plugin would try a failed write again, with a traceback, when it is
            # collected). Delays (ms, one per frame) alternate to keep the asked rate
            # (gif_delays_ms).
            images: list[Image.Image] = []
            delays = gif_delays_ms(frames, fps)

            def close_gif() -> None:
                if images:
                    first, *rest = images
                    images.clear()
                    first.save(
                        out, format="GIF", save_all=True, append_images=rest,
                        duration=delays[: 1 + len(rest)], loop=0,
                    )  # fmt: skip

            self._append = lambda frame: images.append(Image.fromarray(frame))
            self._close = close_gif

    def __enter__(self) -> Callable[[np.ndarray], object]:
        return self._append

    def __exit__(self, *exc: object) -> None:
        self._close()
