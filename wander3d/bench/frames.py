"""Frame cost of the drawing code: CPU time, GPU time and upload per frame, offscreen.

Draws the benchmark scene (sphere wanderers, 128-point trails) with the same visuals as the app
through vispy's headless EGL backend (Mesa's software rasteriser where there is no GPU), into
one framebuffer kept for the whole run with the app's multisampling (4x on a GPU, none in
software), so a frame's draw is timed apart from reading it back.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass

import numpy as np

from wander3d.engine import Enclosure, GroupParams, WanderParams
from wander3d.scene import CameraParams, Scene
from wander3d.session import Session

from .engine import TRAIL_LENGTH

#: Drawings compared, frame by frame alternately: the original (`reference_drawing`) and
#: today's, with level of detail.
DETAILS = ("reference", "lod")


@dataclass(frozen=True)
class FrameResult:
    """Per-frame costs of one way of drawing trails (`detail`), medians over the frames.

    update_ms: CPU time to push a published state's arrays into the visuals;
    draw_ms: wall time to draw the frame until the GL finishes it (no read-back);
    gpu_ms: the same frame's GPU time from GL timer queries (None where the driver has none);
    read_ms: time to resolve and read the frame back;
    segments: trail segments drawn; upload_bytes: bytes sent to the GPU per frame;
    trail_upload_bytes: the trails' share; samples: multisampling of the framebuffer.
    """

    agents: int
    trail_length: int
    width: int
    height: int
    detail: str
    samples: int
    update_ms: float
    draw_ms: float
    gpu_ms: float | None
    read_ms: float
    segments: int
    upload_bytes: int
    trail_upload_bytes: int
    renderer: str


def frame_scene(agents: int, trail_length: int = TRAIL_LENGTH, aspect: float = 16 / 9) -> Scene:
    """The benchmark scene as a Scene: one group of sphere wanderers with trails in the
    default box, seen from a fixed distance (for a canvas of width / height `aspect`).

    The distance is the one the bench's history was measured at: where the whole box fits
    the view looking at its centre (render.camera.fit_distance). It is written into the
    scene so that how the app frames its home view (ace53c6 brought the box 1.33x closer,
    which drew 1.8x the trail segments) never changes what the benchmark draws.
    """
    from wander3d.render.camera import fit_distance

    group = GroupParams(
        count=agents,
        trail_length=trail_length,
        trail_seconds=trail_length / 60,  # a point every step
        wander=WanderParams(method="sphere"),
    )
    box, camera = Enclosure(), CameraParams()
    distance = fit_distance(
        np.asarray(box.min), np.asarray(box.max), camera.fov, aspect, camera.azimuth,
        camera.elevation,
    )  # fmt: skip
    camera = dataclasses.replace(camera, distance=float(distance))
    return Scene(name="bench", seed=1, dt=1 / 60, enclosure=box, camera=camera, groups=(group,))


def measure_frames(
    agents: int,
    trail_length: int = TRAIL_LENGTH,
    size: tuple[int, int] = (1280, 720),
    frames: int = 20,
    details: tuple[str, ...] = DETAILS,
    samples: int | None = None,
) -> list[FrameResult]:
    """Step one simulation step per frame and draw it; one result per entry of `details`.

    Frames alternate between the details, so a busy machine slows them alike. Trails record
    every step, so every frame has a new trail sample to upload: the worst case. The trails
    are filled first, so the ring has wrapped. samples: None takes the app's choice.
    """
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    scene = frame_scene(agents, trail_length, size[0] / size[1])
    # The app's data path: a session steps the run and publishes each state, the view
    # draws it (update_ms: applying a state to the visuals, the GUI thread's share).
    with Session(scene, timeline=False) as session:
        return _measure(session, scene, size, frames, details, samples)


def _measure(
    session: Session,
    scene: Scene,
    size: tuple[int, int],
    frames: int,
    details: tuple[str, ...],
    samples: int | None,
) -> list[FrameResult]:
    """measure_frames on `session`'s run of `scene`."""
    from vispy.gloo import gl

    from wander3d.render.glcompat import GpuTimer, RenderTarget, is_software_renderer
    from wander3d.render.offscreen import offscreen_view
    from wander3d.render.vispy_private import bind_canvas_framebuffer

    from .reference_drawing import ReferenceDrawing

    view = offscreen_view(scene, session.layout, size=size, backend="egl")
    view.show_state(session.state)
    session.events.state_changed.connect(lambda: view.show_state(session.state))
    session.advance(scene.groups[0].trail_length + 1)  # the ring wraps
    # No timeout: 129 steps of 100,000 agents took over 10 s on a machine at load 14.
    session.settle(timeout=None)
    original = ReferenceDrawing(view)
    canvas = view.canvas
    try:
        canvas.set_current()
        renderer = str(gl.glGetParameter(gl.GL_RENDERER))
        if samples is None:
            samples = 0 if is_software_renderer(renderer) else 4
        view.set_single_sample_trails(samples > 0)
        target = RenderTarget(*size, samples=samples)
        # Where vispy binds "the canvas's framebuffer" each time it makes the canvas current.
        bind_canvas_framebuffer(canvas, target.framebuffer)
        canvas.set_current()
        # As SimulationView.render sets them up: until then the canvas's transforms map to
        # pixels rather than to the viewport, and the frame would show nothing.
        canvas.transforms.configure(viewport=(0, 0, *size), fbo_size=size, fbo_rect=(0, 0, *size))
        canvas.context.set_viewport(0, 0, *size)
        timer = GpuTimer() if GpuTimer.available() else None
        rows: dict[str, dict[str, list[float]]] = {d: {} for d in details}

        def draw(detail: str) -> dict[str, float]:
            original.use(detail == "reference")
            context = canvas.context
            context.flush_commands()
            start = time.perf_counter()
            if timer:
                timer.start()
            canvas.draw_frame()  # as the window draws a frame
            context.flush_commands()
            gpu = timer.stop() if timer else float("nan")
            gl.glFinish()
            drawn = time.perf_counter() - start
            target.read()
            read = time.perf_counter() - start - drawn
            return {
                "draw_ms": drawn * 1e3,
                "gpu_ms": gpu,
                "read_ms": read * 1e3,
                "segments": (
                    original.last_segments if original.original else view.trails.last_segments
                ),
            }

        for detail in details:  # compile shaders, build index buffers
            draw(detail)
        for frame in range(frames * len(details)):
            detail = details[frame % len(details)]
            session.advance(1)
            session.settle(timeout=None)
            costs = draw(detail)
            costs.update(
                update_ms=view.last_update_ms,
                upload_bytes=view.last_upload_bytes,
                trail_upload_bytes=view.last_trail_upload_bytes,
            )
            for key, value in costs.items():
                rows[detail].setdefault(key, []).append(value)
        if timer:
            timer.delete()
        target.delete()
    finally:
        view.close()
    return [
        FrameResult(
            agents=session.agent_count,
            trail_length=scene.groups[0].trail_length,
            width=size[0],
            height=size[1],
            detail=detail,
            samples=samples,
            update_ms=_median(r["update_ms"]),
            draw_ms=_median(r["draw_ms"]),
            gpu_ms=None if timer is None else _median(r["gpu_ms"]),
            read_ms=_median(r["read_ms"]),
            segments=int(_median(r["segments"])),
            upload_bytes=int(_median(r["upload_bytes"])),
            trail_upload_bytes=int(_median(r["trail_upload_bytes"])),
            renderer=renderer,
        )
        for detail, r in rows.items()
    ]


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
