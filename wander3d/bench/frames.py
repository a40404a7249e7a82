"""Frame cost of the drawing code: CPU time and GPU upload per frame, offscreen.

Draws the benchmark scene (sphere wanderers, 128-point trails) with the same visuals as the app
through vispy's headless EGL backend (Mesa's software rasteriser where there is no GPU).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from wander3d.engine import Enclosure, GroupParams, Simulation, WanderParams
from wander3d.scene import Scene

from .engine import TRAIL_LENGTH


@dataclass(frozen=True)
class FrameResult:
    """Per-frame costs, medians over the measured frames.

    update_ms: CPU time to push the simulation's arrays into the visuals;
    draw_ms: time to draw the frame and read it back (the GPU's or the software rasteriser's);
    upload_bytes: bytes sent to the GPU per frame; trail_upload_bytes: the trails' share.
    """

    agents: int
    trail_length: int
    width: int
    height: int
    update_ms: float
    draw_ms: float
    upload_bytes: int
    trail_upload_bytes: int
    renderer: str


def frame_scene(agents: int, trail_length: int = TRAIL_LENGTH) -> Scene:
    """The benchmark scene as a Scene: one group of sphere wanderers with trails."""
    group = GroupParams(
        count=agents,
        trail_length=trail_length,
        trail_seconds=trail_length / 60,  # a point every step
        wander=WanderParams(method="sphere"),
    )
    return Scene(name="bench", seed=1, dt=1 / 60, enclosure=Enclosure(), groups=(group,))


def measure_frames(
    agents: int,
    trail_length: int = TRAIL_LENGTH,
    size: tuple[int, int] = (1280, 720),
    frames: int = 20,
) -> FrameResult:
    """Step one simulation step per frame and draw it; medians of `frames` frames.

    Trails record every step, so every frame has a new trail sample to upload: the worst case.
    The trails are filled first, so the ring has wrapped and every segment is drawn.
    """
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    from vispy import gloo

    from wander3d.render.offscreen import offscreen_view

    scene = frame_scene(agents, trail_length)
    sim = Simulation(scene)
    sim.step(trail_length + 1)
    view = offscreen_view(scene, sim, size=size, backend="egl")
    try:
        renderer = gloo.gl.glGetParameter(gloo.gl.GL_RENDERER)
        view.canvas.render()  # compile shaders, allocate buffers
        updates, draws, uploads, trail_uploads = [], [], [], []
        for _ in range(frames):
            sim.step(1)
            view.update()
            updates.append(view.last_update_ms)
            uploads.append(view.last_upload_bytes)
            trail_uploads.append(view.last_trail_upload_bytes)
            start = time.perf_counter()
            view.canvas.render()
            draws.append((time.perf_counter() - start) * 1e3)
    finally:
        view.close()
    return FrameResult(
        agents=agents,
        trail_length=trail_length,
        width=size[0],
        height=size[1],
        update_ms=_median(updates),
        draw_ms=_median(draws),
        upload_bytes=int(_median(uploads)),
        trail_upload_bytes=int(_median(trail_uploads)),
        renderer=str(renderer),
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
