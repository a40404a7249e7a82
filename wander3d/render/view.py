"""SimulationView: a vispy SceneCanvas that shows a running simulation. No Qt here.

The view draws only what a session published (wander3d.session: an `EngineState` per engine
job, immutable copies) on a handful of visuals (per group: agents and trails; once: the
enclosure and the debug overlay), and offers plain setters for everything a user can toggle,
so a Qt window, a test or a headless renderer drive it the same way. It is built for a run's
`Layout` and never sees the simulation: `show_state(state)` uploads what a state brought
and schedules a redraw.
"""

from __future__ import annotations

import os
import time

import numpy as np
import vispy.app
from vispy import gloo
from vispy.app.canvas import DrawEvent, ResizeEvent
from vispy.io import write_png

from wander3d.appearance import cone_length
from wander3d.engine import GroupParams, Layout
from wander3d.scene import Scene, rgb
from wander3d.session import Display, EngineState, overlay_agents

from .agents import POINTS_THRESHOLD, AgentsLayer, strided_rows
from .camera import CameraHome, CameraRig, home_from_scene
from .debug import DebugLayer
from .enclosure import EnclosureLayer
from .glcompat import ensure_instancing
from .path import PathLayer
from .trails import TrailsLayer
from .vispy_private import FrameStartCanvas

#: The chase view of a followed agent sits this many agent lengths behind it.
CHASE_LENGTHS = 16.0
#: A click selects the nearest agent within this many logical pixels of the pointer.
PICK_RADIUS = 12.0


def _trail_bends(groups: tuple[GroupParams, ...], layout: Layout) -> list[float]:
    """Per group, world units a path can stray from the chord of one trail interval: the
    sagitta a * (dt * every)**2 / 8 at the steering's largest acceleration a."""
    return [
        g.max_force / g.mass * (layout.dt * every) ** 2 / 8
        for g, (_, every) in zip(groups, layout.trails, strict=True)
    ]


def _composes_itself(app: vispy.app.Application) -> bool:
    """Whether canvases of vispy Application `app` are presented by the toolkit after each
    draw (Qt: a QOpenGLWidget is composed into its window, a QOpenGLWindow swaps by itself),
    so a buffer swap of vispy's own would be wasted work.

    For a QOpenGLWidget that swap targets the context's hidden surface and, on a software
    renderer, blocks the GUI thread until the frame is rasterised (about half the frame's time).
    """
    return app.backend_name.lower().startswith(("pyqt", "pyside"))


class _Canvas(FrameStartCanvas):
    """A SceneCanvas whose frames always start with depth and colour writes on, and keep the
    opacity the clear gives every pixel.

    Translucent visuals turn depth writes off and vispy leaves GL state as the last visual set
    it; glClear honours that mask, so the next frame's depth clear would silently do nothing
    and hide everything. Blending also lowers the framebuffer's alpha where trails and cones
    are drawn (to about 0.4), which made screenshots translucent there and would let a
    compositing window manager show the desktop through the window: after the clear, alpha
    is not written. This covers on-screen frames, SceneCanvas.render and `render` alike.
    """

    def frame_start(self) -> None:
        self.context.set_depth_mask(True)
        self.context.set_color_mask(True, True, True, True)

    def frame_cleared(self) -> None:
        self.context.set_color_mask(True, True, True, False)


class SimulationView:
    """Draws a run of `scene`, shaped as `layout`, from the states its session publishes.

    size: canvas size in logical pixels (width, height). app: a vispy Application or backend
    name ("pyqt6" in the desktop app, "egl" headless); None uses vispy's default. parent: a
    native parent widget for GUI backends. samples: multisample count (0: none).

    Attributes for callers: `canvas` (the SceneCanvas), `scene`, `layout`, `state` (the last
    state shown, None before the first); statistics of the last `show_state`:
    `last_upload_bytes`, `last_trail_upload_bytes`, `last_update_ms`; and of the last
    on-screen draw: `last_draw_ms` (until `frame_shown`, where the toolkit reports it).
    """

    def __init__(
        self,
        scene: Scene,
        layout: Layout,
        *,
        size: tuple[int, int] = (1280, 800),
        app: vispy.app.Application | str | None = None,
        show: bool = False,
        parent: object | None = None,
        samples: int = 0,
    ) -> None:
        ensure_instancing()
        config = {"samples": samples} if samples else None
        # The Application as the canvas would choose it, to know before it exists whether it
        # needs vispy's buffer swap after each draw.
        if app is None:
            app = vispy.app.use_app(call_reuse=False)
        elif isinstance(app, str):
            app = vispy.app.Application(app)
        self.canvas = _Canvas(
            keys=None,
            size=size,
            show=show,
            app=app,
            parent=parent,
            config=config,
            autoswap=not _composes_itself(app),
        )
        # Errors in draw callbacks must reach the caller (and the app's excepthook), not be
        # printed and swallowed by vispy.
        self.canvas.events.ignore_callback_errors = False
        self.viewbox = self.canvas.central_widget.add_view()
        self.last_upload_bytes = 0
        self.last_trail_upload_bytes = 0
        self.last_update_ms = 0.0
        self.last_draw_ms = 0.0
        self._single_sample_trails = samples > 0
        self._draw_started = 0.0
        self.canvas.events.draw.connect(self._draw_start, position="first")
        self.canvas.events.draw.connect(self._draw_end, position="last")
        self.canvas.events.resize.connect(self._refit_on_resize)
        self._layers: tuple[
            EnclosureLayer | AgentsLayer | TrailsLayer | DebugLayer | PathLayer, ...
        ] = ()
        self._debug_visible = True
        self._debug_all = False
        self._stride = 1
        #: The home view will orbit the box (`render --orbit`): it looks at the box's centre.
        self.orbiting = False
        self.scene, self.layout = scene, layout  # the rig's home view is the scene's [camera]
        self.state: EngineState | None = None
        self.rig = CameraRig(self.viewbox, self._home(), scale=layout.extent)
        self.set_simulation(scene, layout, keep_camera=True)

    # ------------------------------------------------------------------ content
    def set_simulation(self, scene: Scene, layout: Layout, keep_camera: bool = False) -> None:
        """Show a new run of `scene` (its groups' colours: the scene as it runs), shaped as
        `layout`; the scene's [view] table sets background and toggles. Nothing is drawn of
        it until `show_state`.

        keep_camera: keep the current camera (e.g. when the same file is reloaded) instead
        of going to the scene's [camera] view.
        """
        for layer in self._layers:
            layer.remove()
        self.scene = scene
        self.layout = layout
        self.state = None
        root = self.viewbox.scene
        low, high = layout.low, layout.high
        colors = [rgb(g.color) for g in scene.groups]
        self.enclosure = EnclosureLayer(root, low, high)
        self._box_corners = np.array(
            [[(low, high)[(i >> axis) & 1][axis] for axis in range(3)] for i in range(8)]
        )
        self.agents = AgentsLayer(
            root, layout.group_slices, colors, cone_length(low, high),
            dots=layout.count > POINTS_THRESHOLD, corners=self._box_corners,
        )  # fmt: skip
        counts = [sl.stop - sl.start for sl in layout.group_slices]
        self.trails = TrailsLayer(root, layout.trails, counts, colors)
        self.debug = DebugLayer(root)
        self.path = PathLayer(root)
        self._layers = (self.enclosure, self.agents, self.trails, self.debug, self.path)
        self._shown_agents: tuple[np.ndarray, np.ndarray] | None = None
        self.canvas.bgcolor = scene.view.background
        self._group_visible = [True] * layout.groups
        self._trails_visible = scene.view.show_trails
        self._enclosure_visible = scene.view.show_enclosure
        self.trails.set_visible(self._trails_visible)
        self.trails.set_single_sample(self._single_sample_trails)
        self.enclosure.set_visible(self._enclosure_visible)
        self.rig.end_chase()
        self.selected: int | None = None
        self.following: int | None = None
        self._apply_stride()
        self._agent_length = cone_length(low, high)
        self.rig.scale = layout.extent
        if not keep_camera:
            self.reset_camera()
        self.canvas.update()

    def _home(self) -> CameraHome:
        """The scene's [camera] view, fitted to the canvas's current shape."""
        w, h = self.canvas.size
        low, high = self.layout.low, self.layout.high
        return home_from_scene(
            self.scene.camera, low, high, w / max(h, 1), centred=not self.orbiting
        )

    def show_state(self, state: EngineState) -> None:
        """Draw `state`, the session's latest (every state of the run in turn, or the trails
        fall behind: see `trails_behind`): upload what it brought and schedule a redraw.

        Agents are drawn where `move_agents` last put them, if it was called since
        `set_simulation`; else at the state's positions.
        """
        t0 = time.perf_counter()
        self.state = state
        agent_bytes = self._upload_agents()
        self.trails.set_level_of_detail(_trail_bends(state.groups, self.layout), self._box_corners)
        self.last_trail_upload_bytes = self.trails.show(state.trails)
        self.last_upload_bytes = agent_bytes + self.last_trail_upload_bytes
        self._show_overlay()
        self.canvas.update()
        self.last_update_ms = (time.perf_counter() - t0) * 1e3

    @property
    def trails_behind(self) -> bool:
        """Whether a shown group's trail missed samples (a state not shown): the session
        must send the trails whole (Session.resend_trails); until then they are not drawn."""
        return self.trails.behind

    def move_agents(self, positions: np.ndarray, velocities: np.ndarray) -> None:
        """Draw the agents at (N, 3) `positions` (units) heading along `velocities` (units/s),
        e.g. interpolated between two published steps; trails and overlay stay as they are."""
        t0 = time.perf_counter()
        self._shown_agents = (positions, velocities)
        self.last_upload_bytes = self._upload_agents()
        self.last_trail_upload_bytes = 0
        self.canvas.update()
        self.last_update_ms = (time.perf_counter() - t0) * 1e3

    def _agents_shown(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(positions, velocities) of the agents as drawn, or None before any state."""
        if self._shown_agents is not None:
            return self._shown_agents
        return None if self.state is None else self.state.current

    def _upload_agents(self) -> int:
        shown = self._agents_shown()
        if shown is None:
            return 0
        positions, velocities = shown
        if self.following is not None:
            self.rig.chase(positions[self.following], velocities[self.following])
        return self.agents.update(positions, velocities)

    def _show_overlay(self) -> None:
        """Draw the overlay of the agents it covers now, from the state's arrays (those it
        holds: a state made before a toggle or a selection may lack some until the next)."""
        state = self.state
        if state is None:
            return
        selected = self._shown(self.selected)
        ring = None if selected is None else state.current[0][selected]
        overlay = state.overlay.subset(self._overlay_agents())
        self.debug.update(overlay, state.groups, self.layout, ring)

    def show_path(
        self, points: np.ndarray | None, breaks: np.ndarray | None = None,
        values: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Show a path (see PathLayer.set_path); None hides it."""
        self.path.set_path(points, breaks, values)
        self.canvas.update()

    @property
    def agent_stride(self) -> int:
        """Draw 1 agent in this many (see set_agent_stride)."""
        return self._stride

    def set_agent_stride(self, stride: int) -> None:
        """Draw only every `stride`-th agent of each group (its first, then every stride-th),
        and their trails, plus the selected agent always; 1 draws all. For a huge scene on a
        renderer too slow to draw every agent in a frame; the simulation is not affected."""
        stride = max(1, int(stride))
        if stride == self._stride:
            return
        self._stride = stride
        self._apply_stride()
        self._upload_agents()
        self.canvas.update()

    def _apply_stride(self) -> None:
        """Choose each group's drawn rows for the stride and the selected agent."""
        rows = []
        for sl in self.layout.group_slices:
            keep = None
            if self.selected is not None and sl.start <= self.selected < sl.stop:
                keep = self.selected - sl.start
            rows.append(strided_rows(sl.stop - sl.start, self._stride, keep))
        self.agents.set_rows(rows)
        self.trails.set_rows(rows)

    def _drawn_mask(self) -> np.ndarray:
        """(N,) bool: the agents drawn at the current stride (group visibility aside), as
        `_apply_stride` chose them."""
        drawn = np.zeros(self.layout.count, dtype=bool)
        for sl, rows in zip(self.layout.group_slices, self.agents.rows, strict=True):
            drawn[sl if rows is None else sl.start + rows] = True
        return drawn

    def set_single_sample_trails(self, single: bool) -> None:
        """Rasterise trails once per pixel in a multisampled framebuffer (the default when
        the canvas has samples; for benchmarks drawing into their own framebuffer)."""
        self._single_sample_trails = bool(single)
        self.trails.set_single_sample(self._single_sample_trails)

    # ------------------------------------------------------------------ toggles
    def group_visible(self, group: int) -> bool:
        return self._group_visible[group]

    def set_group_visible(self, group: int, visible: bool) -> None:
        self._group_visible[group] = bool(visible)
        self.agents.set_group_visible(group, visible)
        self.trails.set_group_visible(group, visible)
        self._upload_agents()
        self._show_overlay()
        self.canvas.update()

    @property
    def trails_visible(self) -> bool:
        return self._trails_visible

    def set_trails_visible(self, visible: bool) -> None:
        self._trails_visible = bool(visible)
        self.trails.set_visible(visible)
        self.canvas.update()

    @property
    def enclosure_visible(self) -> bool:
        return self._enclosure_visible

    def set_enclosure_visible(self, visible: bool) -> None:
        self._enclosure_visible = bool(visible)
        self.enclosure.set_visible(visible)
        self.canvas.update()

    @property
    def debug_visible(self) -> bool:
        """Whether the selected agent shows the debug overlay (wander sphere, target, velocity,
        force); on by default."""
        return self._debug_visible

    def set_debug_visible(self, visible: bool) -> None:
        self._debug_visible = bool(visible)
        self._show_overlay()
        self.canvas.update()

    @property
    def debug_all(self) -> bool:
        """Whether the overlay covers every agent of small groups, not just the selected one."""
        return self._debug_all

    def set_debug_all(self, enabled: bool) -> None:
        self._debug_all = bool(enabled)
        self._show_overlay()
        self.canvas.update()

    def _shown(self, agent: int | None) -> int | None:
        """`agent` if its group is visible, else None."""
        if agent is None or not self._group_visible[int(self.layout.group_index[agent])]:
            return None
        return agent

    def _overlay_agents(self) -> np.ndarray:
        """Indices of the agents the debug overlay covers now (the session's rule)."""
        hidden = frozenset(g for g, shown in enumerate(self._group_visible) if not shown)
        display = Display(
            overlay=self._debug_visible, overlay_all=self._debug_all, hidden_groups=hidden
        )
        return overlay_agents(self.layout, display, self.selected)

    # ------------------------------------------------------------------ selection
    def select(self, agent: int | None) -> None:
        """Select `agent` (an index into the simulation's arrays) or clear with None (which
        also stops following). While following, the chase switches to the new agent."""
        if agent is not None and not 0 <= agent < self.layout.count:
            raise IndexError(f"agent {agent} out of range 0..{self.layout.count - 1}")
        self.selected = None if agent is None else int(agent)
        if self.selected is None:
            self.follow(None)
        elif self.following is not None:
            self.following = self.selected  # the chase goes on with the new agent
        if self._stride > 1:
            self._apply_stride()  # the selected agent is always drawn
        self._upload_agents()
        self._show_overlay()
        self.canvas.update()

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Canvas positions of world `points` (n, 3).

        Returns (xy, in_front): (n, 2) logical pixels from the canvas's top left, and an (n,)
        bool mask of points in front of the camera.
        """
        tr = self.viewbox.scene.node_transform(self.canvas.scene)
        mapped = np.atleast_2d(tr.map(np.asarray(points, dtype=np.float64)))
        w = mapped[:, 3]
        in_front = w > 1e-9
        xy = mapped[:, :2] / np.where(in_front, w, 1.0)[:, None]
        return xy, in_front

    def pick(self, x: float, y: float, radius: float = PICK_RADIUS) -> int | None:
        """The visible agent drawn nearest to canvas position (x, y), within `radius` px."""
        shown = self._agents_shown()
        visible = np.asarray(self._group_visible)[self.layout.group_index] & self._drawn_mask()
        candidates = np.nonzero(visible)[0]
        if len(candidates) == 0 or shown is None:
            return None
        xy, in_front = self.project(shown[0][candidates])
        d2 = np.sum((xy - (x, y)) ** 2, axis=1)
        d2[~in_front] = np.inf
        best = int(np.argmin(d2))
        return int(candidates[best]) if d2[best] <= radius * radius else None

    # ------------------------------------------------------------------ camera
    @property
    def camera_mode(self) -> str:
        return self.rig.mode

    def set_camera_mode(self, mode: str) -> None:
        """Switch to one of CAMERA_MODES (turntable, arcball, fly); the view stays put (a
        chase view ends where it is)."""
        self.following = None
        self.rig.set_mode(mode)

    def reset_camera(self) -> None:
        """Back to the scene's [camera] view; stops following."""
        self.following = None
        self.rig.home = self._home()
        self.rig.reset()

    def _refit_on_resize(self, event: ResizeEvent) -> None:
        # A window lays out its canvas after building it: while the user has not moved the
        # camera yet, fit the scene's view to the canvas's real shape, not its first one.
        if self.following is None and self.rig.at_home():
            self.reset_camera()

    def follow(self, agent: int | None) -> None:
        """Chase `agent`: a view from behind and above it, centred on it as it moves, in any
        camera mode. None stops and gives back the camera there was before."""
        if agent is None:
            if self.following is not None:
                self.following = None
                self.rig.end_chase()
                self.canvas.update()
            return
        agent = int(agent)
        shown = self._agents_shown()
        if shown is None:
            return
        if self.following is None:
            self.rig.start_chase(
                shown[0][agent], shown[1][agent], CHASE_LENGTHS * self._agent_length
            )
        self.following = agent
        self._upload_agents()
        self.canvas.update()

    def set_camera_angles(self, azimuth: float, elevation: float) -> None:
        """Orbit (turntable) to `azimuth`, `elevation` degrees around the current centre."""
        self.rig.set_angles(azimuth, elevation)

    def set_orbiting(self, on: bool) -> None:
        """Frame the home view for a camera that turns around the box (looking at its centre,
        from where every angle fits) or, by default, with the box's picture centred."""
        self.orbiting = bool(on)
        self.reset_camera()

    def orbit(self, degrees: float) -> None:
        """Turn the view `degrees` around the vertical axis (turntable)."""
        self.rig.orbit(degrees)

    # ------------------------------------------------------------------ output
    def render(self, size: tuple[int, int] | None = None, supersample: int = 1) -> np.ndarray:
        """Draw offscreen and read back: (height, width, 4) uint8 RGBA, row 0 at the top.

        size: (width, height) in pixels; None uses the canvas's physical size. The camera
        keeps the canvas's aspect ratio, so give a size of the same shape.
        supersample: draw at this many times the size and average down, which smooths
        edges (line widths and dot sizes scale with it, so the picture looks the same).
        """
        if size is None:
            scale = self.canvas.pixel_scale
            size = (round(self.canvas.size[0] * scale), round(self.canvas.size[1] * scale))
        k = max(1, int(supersample))
        image = self._render_fbo((size[0] * k, size[1] * k))
        if k == 1:
            return image
        h, w = size[1], size[0]
        blocks = image[: h * k, : w * k].reshape(h, k, w, k, 4).astype(np.float32)
        return np.round(blocks.mean(axis=(1, 3))).astype(np.uint8)

    def _render_fbo(self, size: tuple[int, int]) -> np.ndarray:
        """Draw the scene into an offscreen framebuffer of `size` (w, h) and read it back.

        Like SceneCanvas.render, whose framebuffer transform ignores the buffer's own size
        (vispy 0.17), so any size but the canvas's own draws into a corner.
        """
        canvas = self.canvas
        canvas.set_current()
        w, h = size
        fbo = gloo.FrameBuffer(
            color=gloo.RenderBuffer((h, w)), depth=gloo.RenderBuffer((h, w), "depth")
        )
        canvas.push_fbo(fbo, (0, 0), canvas.size)
        try:
            canvas.transforms.configure(
                viewport=(0, 0, w, h), fbo_size=(w, h), fbo_rect=(0, 0, *canvas.physical_size)
            )
            canvas.draw_frame()
            return fbo.read()
        finally:
            canvas.pop_fbo()

    def screenshot(
        self,
        path: str | os.PathLike[str],
        size: tuple[int, int] | None = None,
        supersample: int = 2,
    ) -> np.ndarray:
        """Render (supersampled) and write a PNG to `path`; returns the image written."""
        image = self.render(size, supersample)
        write_png(str(path), image)
        return image

    def close(self) -> None:
        self.canvas.close()

    def _draw_start(self, event: DrawEvent) -> None:
        self._draw_started = time.perf_counter()

    def _draw_end(self, event: DrawEvent) -> None:
        self.last_draw_ms = (time.perf_counter() - self._draw_started) * 1e3

    def frame_shown(self) -> None:
        """The last frame reached the screen: count its drawing until now.

        A toolkit that presents the canvas itself (Qt) says when; a software renderer
        rasterises the frame only then, after the draw calls have returned.
        """
        self.last_draw_ms = max(self.last_draw_ms, (time.perf_counter() - self._draw_started) * 1e3)
