"""SimulationView with real OpenGL (PyQt6 on the test's virtual display, Mesa llvmpipe)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("vispy", reason=skip_reason("app"))

from gl_support import advance, close_view, draw_states

from wander3d.render import SimulationView
from wander3d.session import Session

pytestmark = [pytest.mark.gl, pytest.mark.app]


def _content(image: np.ndarray, background: str) -> float:
    """Fraction of pixels that differ clearly from the background colour."""
    bg = np.array([int(background[i : i + 2], 16) for i in (1, 3, 5)])
    return float(np.mean(np.abs(image[..., :3].astype(int) - bg).sum(axis=-1) > 30))


def test_renders_agents_trails_and_box(gl_view, gl_session):
    for _ in range(20):
        advance(gl_session, 2)
    image = gl_view.render()
    assert image.shape == (360, 480, 4) and image.dtype == np.uint8
    assert _content(image, gl_view.scene.view.background) > 0.01
    # Hiding everything leaves the background only.
    gl_view.set_enclosure_visible(False)
    gl_view.set_group_visible(0, False)
    gl_view.set_group_visible(1, False)
    assert _content(gl_view.render(), gl_view.scene.view.background) == 0.0


def test_stepping_moves_agents_and_changes_the_image(gl_view, gl_session):
    before_pos = gl_session.state.current[0]
    before = gl_view.render()
    advance(gl_session, 30)
    assert not np.allclose(before_pos, gl_session.state.current[0])
    assert np.abs(gl_view.render().astype(int) - before).mean() > 0.1


def test_rotating_the_camera_changes_the_image(gl_view):
    before = gl_view.render()
    gl_view.set_camera_angles(azimuth=120.0, elevation=10.0)
    after = gl_view.render()
    assert np.abs(after.astype(int) - before).mean() > 0.5
    gl_view.reset_camera()
    np.testing.assert_array_equal(gl_view.render(), before)


@pytest.mark.parametrize("mode", ["arcball", "fly", "turntable"])
def test_camera_modes_switch_without_moving_the_view(gl_view, mode):
    start = np.array(gl_view.rig.camera.transform.matrix)
    gl_view.set_camera_angles(70.0, 40.0)
    rotated = np.array(gl_view.rig.camera.transform.matrix)
    assert not np.allclose(start, rotated)
    gl_view.set_camera_mode(mode)
    assert gl_view.camera_mode == mode
    np.testing.assert_allclose(gl_view.rig.camera.transform.matrix, rotated, atol=1e-6)
    gl_view.set_camera_mode("turntable")
    np.testing.assert_allclose(gl_view.rig.camera.transform.matrix, rotated, atol=1e-6)


def test_an_unset_distance_frames_the_box(gl_view):
    """The small scene leaves camera.distance out: the box fills the view with a margin."""
    low, high = gl_view.layout.low, gl_view.layout.high
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    xy, in_front = gl_view.project(low + corners * (high - low))
    assert in_front.all()
    margin = np.minimum(xy / (480, 360), 1 - xy / (480, 360))  # fraction of the canvas
    assert margin.min() > 0.02 and margin.min() < 0.1


def test_the_home_view_refits_when_the_canvas_changes_shape_until_the_user_moves(gl_view, qtbot):
    """A window lays out its canvas after building it: the box must fit the final shape."""
    low, high = gl_view.layout.low, gl_view.layout.high
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    points = low + corners * (high - low)

    def fits(width, height):
        xy, in_front = gl_view.project(points)
        return in_front.all() and (xy >= 0).all() and (xy <= (width, height)).all()

    gl_view.canvas.native.resize(200, 360)  # much narrower than built
    qtbot.waitUntil(lambda: tuple(gl_view.canvas.size) == (200, 360))
    assert fits(200, 360)
    gl_view.orbit(30.0)  # the user moved the camera: a resize must not undo that
    azimuth = gl_view.rig.camera.azimuth
    gl_view.canvas.native.resize(400, 360)
    qtbot.waitUntil(lambda: tuple(gl_view.canvas.size) == (400, 360))
    assert gl_view.rig.camera.azimuth == azimuth


def test_pick_finds_the_agent_at_its_projected_position(gl_view, gl_session):
    advance(gl_session, 10)
    xy, in_front = gl_view.project(gl_session.state.current[0])
    inside = in_front & (xy[:, 0] > 0) & (xy[:, 0] < 480) & (xy[:, 1] > 0) & (xy[:, 1] < 360)
    # An agent with no other agent drawn close by, so the pick is unambiguous.
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(len(xy)) * 1e9
    agent = int(np.flatnonzero(inside & (d.min(axis=1) > 8))[0])
    assert gl_view.pick(*xy[agent]) == agent
    assert gl_view.pick(-500.0, -500.0) is None
    gl_view.set_group_visible(int(gl_view.layout.group_index[agent]), False)
    assert gl_view.pick(*xy[agent]) != agent


def test_a_stride_draws_every_kth_agent_of_each_group_and_the_selected_one(gl_view, gl_session):
    view = gl_view
    view.set_trails_visible(False)
    advance(gl_session, 10)
    pos, vel = (a.copy() for a in gl_session.state.current)
    view.select(4)
    view.move_agents(pos, vel)
    whole = view.render()
    view.set_agent_stride(3)
    assert view.agent_stride == 3
    strided = view.render()
    # Groups of 40 and 20: rows 0, 3, ... 39 and 0, 3, ... 18 of each, and agent 4.
    drawn = np.r_[np.arange(0, 40, 3), 4, 40 + np.arange(0, 20, 3)]
    assert view.agents.drawn == len(drawn) == 22
    # The same picture as every agent drawn with each one left out stacked exactly on its
    # group's first agent (drawn anyway; the depth test keeps the first of equal fragments).
    stacked_pos, stacked_vel = pos.copy(), vel.copy()
    for sl in view.layout.group_slices:
        left_out = np.setdiff1d(np.arange(sl.start, sl.stop), drawn)
        stacked_pos[left_out], stacked_vel[left_out] = pos[sl.start], vel[sl.start]
    view.set_agent_stride(1)
    view.move_agents(stacked_pos, stacked_vel)
    np.testing.assert_array_equal(view.render(), strided)
    assert np.abs(whole.astype(int) - strided).sum() > 0  # leaving agents out shows
    # Only drawn agents can be picked.
    view.move_agents(pos, vel)
    xy, _ = view.project(pos)
    assert view.pick(*xy[1], radius=0.5) == 1
    view.set_agent_stride(3)
    assert view.pick(*xy[1], radius=0.5) is None and view.pick(*xy[3], radius=0.5) == 3


def test_debug_overlay_for_the_selected_agent(gl_view, gl_session):
    advance(gl_session, 5)
    plain = gl_view.render()
    gl_view.set_debug_visible(False)
    gl_view.select(3)
    assert gl_view.debug.highlight.visible and not gl_view.debug.lines.visible
    gl_view.set_debug_visible(True)  # the default: a selected agent shows its overlay
    assert not gl_view.debug.lines.visible  # not until a state holds its arrays
    gl_session.select(3)  # what the app's binding does: the session publishes them
    gl_session.settle()
    assert gl_view.debug.lines.visible
    overlay = gl_view.render()
    assert np.abs(overlay.astype(int) - plain).sum(axis=-1).astype(bool).sum() > 50
    gl_view.select(None)
    assert not gl_view.debug.lines.visible and not gl_view.debug.highlight.visible
    # "Every agent of small groups": both groups here are small.
    gl_view.set_debug_all(True)
    np.testing.assert_array_equal(gl_view._overlay_agents(), np.arange(gl_view.layout.count))


def _eye(view) -> np.ndarray:
    return (np.array([0.0, 0.0, 0.0, 1.0]) @ np.asarray(view.rig.camera.transform.matrix))[:3]


@pytest.mark.parametrize("mode", ["turntable", "arcball", "fly"])
def test_follow_is_a_chase_view_and_stopping_gives_the_camera_back(gl_view, gl_session, mode):
    gl_view.set_camera_mode(mode)
    before = np.array(gl_view.rig.camera.transform.matrix)
    advance(gl_session, 5)
    gl_view.select(7)
    gl_view.follow(7)
    advance(gl_session, 10)
    positions, velocities = gl_session.state.current
    agent, heading = positions[7], velocities[7]
    offset = _eye(gl_view) - agent
    # Behind and above, several agent lengths away: never inside the agent.
    assert np.linalg.norm(offset) > 8 * gl_view._agent_length
    assert offset[1] > 0
    assert offset[[0, 2]] @ heading[[0, 2]] < 0
    image = gl_view.render()
    amber = np.all(np.abs(image[..., :3].astype(int) - (255, 176, 0)) < 60, axis=-1)
    assert amber.mean() < 0.1  # the view is not filled with the agent's colour
    gl_view.select(9)  # another click while chasing: the chase goes on with it
    assert gl_view.following == 9
    gl_view.follow(None)
    assert gl_view.camera_mode == mode
    np.testing.assert_allclose(gl_view.rig.camera.transform.matrix, before, atol=1e-9)


def test_follow_keeps_the_agent_at_the_centre(gl_view, gl_session):
    gl_view.select(7)
    gl_view.follow(7)
    advance(gl_session, 20)
    positions = gl_session.state.current[0]
    np.testing.assert_allclose(gl_view.rig.center, positions[7])
    xy, _ = gl_view.project(positions[7:8])
    np.testing.assert_allclose(xy[0], (240, 180), atol=1.0)


def test_trail_upload_per_frame_does_not_grow_with_trail_length(qtbot, small_scene):
    """Per frame the GPU receives the new samples only: 16 bytes per agent per sample."""
    uploads = {}
    for length in (8, 256):
        groups = tuple(
            dataclasses.replace(g, trail_length=length, trail_seconds=length * small_scene.dt)
            for g in small_scene.groups
        )
        scene = small_scene.replace(groups=groups)
        with Session(scene) as session:
            view = SimulationView(scene, session.layout, size=(160, 120), app="pyqt6")
            draw_states(view, session)
            advance(session, 2 * length)  # fill (and wrap) the rings
            per_frame = []
            for steps in (1, 1, 2):
                advance(session, steps)
                per_frame.append(view.last_trail_upload_bytes)
            close_view(view)
        uploads[length] = per_frame
    n = small_scene.agent_count
    assert uploads[8] == uploads[256] == [16 * n, 16 * n, 32 * n]


def test_trails_that_missed_states_wait_for_the_whole_rings(qtbot, small_scene):
    """A view that did not see every state (here: a reset and steps after it, more samples
    than it had mirrored) must not draw the rings it holds nor take the newest samples for
    the next ones: it says it is behind, and draws again from the whole rings resent."""
    with Session(small_scene) as session:
        view = SimulationView(small_scene, session.layout, size=(160, 120), app="pyqt6")
        draw_states(view, session)
        advance(session, 3)
        assert all(t.node.visible for t in view.trails.groups.values())
        session.events.state_changed.disconnect()  # no frame between the reset and the steps
        session.reset()
        advance(session, 10)
        view.show_state(session.state)
        assert view.trails_behind and view.last_trail_upload_bytes == 0
        assert not any(t.node.visible for t in view.trails.groups.values())
        session.resend_trails()
        session.settle()
        view.show_state(session.state)
        trails = [t for t in session.state.trails if t is not None]
        assert len(trails) == len(session.state.trails)  # every group's ring, whole
        filled = sum(t.size * t.points.shape[1] for t in trails)
        assert view.last_trail_upload_bytes == 16 * filled and not view.trails_behind
        assert all(t.node.visible for t in view.trails.groups.values())
        close_view(view)


def test_large_scenes_draw_agents_as_dots(qtbot, small_scene, monkeypatch):
    import wander3d.render.view as view_module

    monkeypatch.setattr(view_module, "POINTS_THRESHOLD", 10)
    with Session(small_scene) as session:
        view = SimulationView(small_scene, session.layout, size=(200, 150), app="pyqt6")
        draw_states(view, session)
    view.canvas.native.show()
    qtbot.waitExposed(view.canvas.native)
    assert view.agents.dots
    assert _content(view.render(), small_scene.view.background) > 0.005
    close_view(view)


def test_supersampled_render_and_screenshot(gl_view, tmp_path):
    image = gl_view.render(size=(200, 100), supersample=2)
    assert image.shape == (100, 200, 4)
    written = gl_view.screenshot(tmp_path / "shot.png")
    assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert written.shape == (360, 480, 4)
    assert _content(written, gl_view.scene.view.background) > 0.01


def test_a_screenshot_is_opaque_where_trails_and_agents_blend(gl_view, gl_session):
    """Blending lowers the framebuffer's alpha; a PNG that kept it would show whatever an
    image viewer puts behind it through every trail."""
    for _ in range(20):
        advance(gl_session, 2)
    image = gl_view.render()
    assert _content(image, gl_view.scene.view.background) > 0.01
    assert image[..., 3].min() == 255


def test_headless_render_with_egl(small_scene_file, tmp_path):
    """The offscreen path the `render` command uses: vispy's EGL backend, no display at all."""
    script = textwrap.dedent(
        f"""
        import numpy as np
        from wander3d.scene import load_scene
        from wander3d.session import Session
        from wander3d.render import render_frame
        with Session(load_scene({str(small_scene_file)!r})) as session:
            session.advance(20)
            session.settle()
            image = render_frame(session, size=(160, 120))
        print(image.shape, int((image[..., :3].max(axis=-1) > 100).sum()))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    if result.returncode != 0 and "EGL" in result.stderr and "wander3d" not in result.stderr:
        pytest.skip(f"no EGL here: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    shape, lit = result.stdout.split(")")
    assert shape == "(120, 160, 4"
    assert int(lit) > 20


def test_a_qt_canvas_leaves_the_buffer_swap_to_qt(qtbot, small_scene, monkeypatch):
    """Qt composes a QOpenGLWidget into its window itself; a swap of the widget's own
    surface on top of that made every on-screen frame wait for the rasteriser."""
    with Session(small_scene) as session:
        view = SimulationView(small_scene, session.layout, size=(200, 150), app="pyqt6")
        draw_states(view, session)
    backend = view.canvas._backend
    swaps = []
    monkeypatch.setattr(backend, "_vispy_swap_buffers", lambda: swaps.append(1))
    draws = []
    view.canvas.events.draw.connect(lambda event: draws.append(1), position="last")
    view.canvas.native.show()
    qtbot.waitExposed(view.canvas.native)
    assert view.state is not None  # draw_states showed one
    view.show_state(view.state)
    qtbot.waitUntil(lambda: len(draws) >= 1, timeout=5000)
    image = view.canvas.native.grabFramebuffer()
    assert swaps == []
    assert not image.isNull() and image.pixelColor(100, 75).isValid()
    close_view(view)


def test_cones_small_on_screen_have_fewer_sides_and_look_the_same(gl_view, monkeypatch):
    import wander3d.render.agents as agents_module

    gl_view.set_trails_visible(False)
    gl_view.set_enclosure_visible(False)
    cones = gl_view.agents.nodes[0]
    coarse = gl_view.render()
    assert cones.sides == agents_module.CONE_SIDES[0]
    monkeypatch.setattr(agents_module, "CONE_FINE_PX", 0.0)  # every cone counts as large
    fine = gl_view.render()
    assert cones.sides == agents_module.CONE_SIDES[-1]
    drawn = _content(fine, gl_view.scene.view.background)
    differ = np.abs(coarse[..., :3].astype(int) - fine[..., :3].astype(int)).sum(-1) > 30
    assert drawn > 0.002 and differ.mean() < 0.15 * drawn
    monkeypatch.undo()
    gl_view.follow(0)  # a chase view: the nearest cones fill much of the screen
    gl_view.render()
    assert cones.sides == agents_module.CONE_SIDES[-1]


@pytest.mark.parametrize("orbiting", [False, True])
def test_the_home_view_frames_the_box_centred_with_a_margin(gl_view, orbiting):
    """The box's picture was off-centre (the nearest corner at the bottom edge, a third of a
    wide picture empty): now its projected corners are centred, inside a margin, and fill
    the view up to it. Orbiting, the view looks at the box's centre, so turning keeps it."""
    from wander3d.appearance import FIT_MARGIN

    gl_view.set_orbiting(orbiting)
    gl_view.render((480, 360))
    low, high = gl_view.layout.low, gl_view.layout.high
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                        for z in (low[2], high[2])])  # fmt: skip
    transform = gl_view.viewbox.scene.node_transform(gl_view.canvas.scene)
    mapped = transform.map(corners)
    xy = mapped[:, :2] / mapped[:, 3:4]
    w, h = gl_view.canvas.size
    x = (xy[:, 0] - w / 2) / (w / 2)
    y = (xy[:, 1] - h / 2) / (h / 2)
    limit = 1 / FIT_MARGIN + 1e-3
    assert np.abs(x).max() <= limit and np.abs(y).max() <= limit
    if orbiting:
        np.testing.assert_allclose(gl_view.rig.center, (np.asarray(low) + np.asarray(high)) / 2)
    else:
        assert abs(x.max() + x.min()) < 0.01 and abs(y.max() + y.min()) < 0.01  # centred
        assert max(np.abs(x).max(), np.abs(y).max()) > limit - 0.01  # and as big as fits
