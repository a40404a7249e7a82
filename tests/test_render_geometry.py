"""Geometry and bookkeeping of the render layer that need no OpenGL."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest
from extras_support import missing_extra

pytest.importorskip("vispy", reason=missing_extra("render"))

from wander3d.appearance import CIRCLE_SEGMENTS, CONE_ASPECT, cone_length
from wander3d.engine import Simulation
from wander3d.render.agents import cone_mesh, hidden_faces
from wander3d.render.camera import _axis_angle, fit_distance
from wander3d.render.debug import debug_geometry
from wander3d.render.enclosure import enclosure_lines, nice_step
from wander3d.render.trails import GroupTrail, TrailVisual, _slot_runs
from wander3d.session import Overlay
from wander3d.session.published import TrailPublisher


def test_cone_mesh_is_a_closed_cone_along_x():
    verts, norms, faces = cone_mesh(8)
    assert verts.shape == norms.shape == (17, 3)
    assert faces.shape == (14 * 3,) and faces.max() < len(verts)
    np.testing.assert_allclose(np.linalg.norm(norms, axis=1), 1.0, atol=1e-6)
    assert verts[:, 0].min() == pytest.approx(-0.4) and verts[:, 0].max() == pytest.approx(0.6)
    radial = np.hypot(verts[:, 1], verts[:, 2])
    assert radial.max() == pytest.approx(CONE_ASPECT)
    # Every triangle faces outwards: its winding normal agrees with the vertex normals.
    tri = verts[faces.reshape(-1, 3)]
    winding = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    mean_normal = norms[faces.reshape(-1, 3)].mean(axis=1)
    assert np.all(np.einsum("ij,ij->i", winding, mean_normal) > 0)


@pytest.mark.parametrize(
    ("extent", "step"), [(200, 20), (120, 20), (90, 10), (400, 50), (33, 5), (1, 0.1)]
)
def test_nice_step(extent, step):
    assert nice_step(extent) == pytest.approx(step)


def test_enclosure_lines_box_grid_and_axes():
    low, high = np.array([-100.0, -60, -100]), np.array([100.0, 60, 100])
    pos, colors = enclosure_lines(low, high)
    assert len(pos) % 2 == 0 and colors.shape == (len(pos), 4)
    assert np.all(pos >= low - 1e-4) and np.all(pos <= high + 1e-4)
    segs = pos.reshape(-1, 2, 3)
    lengths = np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1)
    # 12 box edges: 4 of each extent.
    for extent in (200.0, 120.0, 200.0):
        assert np.sum(np.isclose(lengths[:12], extent)) >= 4
    # The grid lies on the floor, inside the box: 9 interior lines each way at 20 units.
    floor = np.all(np.isclose(segs[12:-3, :, 1], -60.0), axis=1)
    assert floor.all() and len(floor) == 18
    # Axis triad at the low corner.
    np.testing.assert_allclose(segs[-3:, 0], np.tile(low, (3, 1)))


def test_debug_geometry_sphere_and_arrows(small_scene):
    sim = Simulation(small_scene.run_spec)
    sim.step(5)
    agent = 3  # a sphere-method agent
    pos, colors, targets = debug_geometry(
        Overlay.of(sim, np.array([agent])), sim.groups, sim.layout
    )
    assert len(pos) == len(colors) and len(pos) % 2 == 0
    np.testing.assert_allclose(targets[0], sim.wander_points[agent], rtol=1e-5, atol=1e-4)
    sphere = pos[: 3 * CIRCLE_SEGMENTS * 2]
    distances = np.linalg.norm(sphere - sim.wander_centers[agent], axis=1)
    np.testing.assert_allclose(distances, sim.wander_radii[agent], rtol=1e-4)
    # The velocity arrow starts at the agent and points along its velocity.
    shafts = pos.reshape(-1, 2, 3)
    from_agent = np.all(np.isclose(shafts[:, 0], sim.positions[agent], atol=1e-3), axis=1)
    directions = shafts[from_agent, 1] - shafts[from_agent, 0]
    cos = (
        directions
        @ sim.velocities[agent]
        / (np.linalg.norm(directions, axis=1) * np.linalg.norm(sim.velocities[agent]))
    )
    assert np.isclose(cos, 1.0, atol=1e-4).any()


def test_debug_geometry_seek_has_no_sphere_and_empty_selection(small_scene):
    sim = Simulation(small_scene.run_spec)
    seek_agent = sim.group_slices[1].start
    pos, _, _ = debug_geometry(Overlay.of(sim, np.array([seek_agent])), sim.groups, sim.layout)
    assert len(pos) == 2 + 2 * 10  # the line to the target, two arrows of five segments
    pos, colors, targets = debug_geometry(
        Overlay.of(sim, np.array([], np.int64)), sim.groups, sim.layout
    )
    assert pos.shape == (0, 3) and colors.shape == (0, 4) and targets.shape == (0, 3)


@pytest.mark.parametrize(
    ("first", "count", "capacity", "runs"),
    [(0, 0, 8, []), (3, 2, 8, [(3, 2)]), (6, 4, 8, [(6, 2), (0, 2)]), (16, 8, 8, [(0, 8)])],
)
def test_slot_runs(first, count, capacity, runs):
    assert _slot_runs(first, count, capacity) == runs


class RingMirror:
    """Stands in for a Trail node: keeps the rows a GPU ring would hold."""

    def __init__(self, n_agents: int, capacity: int) -> None:
        self.points = np.zeros((capacity, n_agents, 3), np.float32)
        self.broken = np.zeros((capacity, n_agents), bool)
        self.head = self.size = 0
        self.n_agents = n_agents

    def write(self, first_slot, points, flags):
        self.points[first_slot : first_slot + len(points)] = points
        self.broken[first_slot : first_slot + len(points)] = flags & 1  # bit 0: this sample's
        return points.nbytes

    def set_ring_state(self, head, size):
        self.head, self.size = head, size


@pytest.mark.parametrize("every", [1, 3])
def test_group_trail_mirrors_the_engine_ring(small_scene, every):
    """Whatever the pattern of steps between the states published (resets and long jumps
    included), the mirror holds exactly the engine's filled slots, and a frame uploads only
    new samples."""
    import dataclasses

    dt = small_scene.dt
    group = dataclasses.replace(
        small_scene.groups[0], trail_seconds=small_scene.groups[0].trail_length * every * dt
    )
    sim = Simulation(small_scene.replace(groups=(group, *small_scene.groups[1:])).run_spec)
    buffer = sim.trail_buffers[0]
    assert buffer.every == every
    mirror = RingMirror(group.count, buffer.capacity)
    trail = GroupTrail(cast(TrailVisual, mirror))  # it has what GroupTrail uses of a node
    publisher = TrailPublisher(len(sim.groups))

    def sync() -> int:
        return trail.show(publisher.publish(sim.trail_buffers, [True, True])[0])

    sync()
    rng = np.random.default_rng(1)
    for frame in range(60):
        reset = frame == 30
        if reset:
            sim.reset()
        steps = int(rng.choice([0, 1, 2, 5, 3 * buffer.capacity * every]))
        before = buffer.samples_written
        sim.step(steps)
        sent = sync()
        new = buffer.samples_written - before
        if not reset and new <= buffer.capacity:
            assert sent == new * group.count * 12  # the stand-in counts xyz only
        assert (mirror.head, mirror.size) == (buffer.head, buffer.size)
        filled = buffer.ordered_slots()
        np.testing.assert_array_equal(
            mirror.points[filled], buffer.points[:, filled].swapaxes(0, 1)
        )
        np.testing.assert_array_equal(mirror.broken[filled], buffer.breaks[:, filled].T)


def test_fit_distance_backs_off_for_narrow_views():
    low, high = np.array([-100.0, -60, -100]), np.array([100.0, 60, 100])
    wide = fit_distance(low, high, fov=45.0, aspect=1.6, azimuth=30.0, elevation=25.0)
    narrow = fit_distance(low, high, fov=45.0, aspect=0.5, azimuth=30.0, elevation=25.0)
    assert narrow > wide > 0
    assert fit_distance(low, high, 20.0, 1.6, 30.0, 25.0) > wide


def test_axis_angle_round_trip():
    from vispy.util import transforms

    for degrees, axis in [(30.0, (0, 1, 0)), (170.0, (1, 2, 3)), (0.0, (1, 0, 0))]:
        rotation = transforms.rotate(degrees, axis)
        got_degrees, got_axis = _axis_angle(rotation)
        np.testing.assert_allclose(transforms.rotate(got_degrees, got_axis), rotation, atol=1e-6)


def test_agent_size_follows_the_box_and_fits_a_thin_tunnel():
    assert cone_length(np.array([-100, -60, -100]), np.array([100, 60, 100])) == pytest.approx(6.0)
    # An 800 x 50 x 50 tunnel: 3% of 800 would be half its width; a cone stays 12% of 50.
    assert cone_length(np.array([-400, -25, -25]), np.array([400, 25, 25])) == pytest.approx(6.0)


def test_hidden_faces_follow_the_screens_orientation():
    """A GL perspective looking down -z keeps counter-clockwise faces in front, so the back
    ones hide; a mirrored mesh or a mirrored screen swaps them; behind the camera: unsure."""
    near, far = 1.0, 100.0
    perspective = np.array(
        [
            [1.0, 0, 0, 0],
            [0, 1.0, 0, 0],
            [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
            [0, 0, -1.0, 0],
        ]
    )

    def project(matrix):
        return lambda points: np.c_[points, np.ones(len(points))] @ matrix.T

    ahead = np.array([0.5, -0.3, -10.0])
    assert hidden_faces(project(perspective), ahead, mirrored=False) == "back"
    assert hidden_faces(project(perspective), ahead, mirrored=True) == "front"
    flipped = np.diag([1.0, -1.0, 1.0, 1.0]) @ perspective
    assert hidden_faces(project(flipped), ahead, mirrored=False) == "front"
    assert hidden_faces(project(perspective), -ahead, mirrored=False) is False


def test_frame_box_centres_the_boxs_picture_where_looking_at_its_centre_did_not():
    from wander3d.appearance import FIT_MARGIN
    from wander3d.render.camera import _basis, frame_box

    low, high = np.array([-160.0, -45, -90]), np.array([160.0, 45, 90])  # the fish tank
    fov, aspect, az, el = 45.0, 16 / 9, 20.0, 10.0
    right, up, forward = _basis(az, el)
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    points = low + corners * (high - low)

    def picture(center, distance):
        eye = center - distance * forward
        rel = points - eye
        depth = rel @ forward
        tan_v = np.tan(np.radians(fov) / 2)
        return (rel @ right) / depth / (tan_v * aspect), (rel @ up) / depth / tan_v

    x, y = picture((low + high) / 2, fit_distance(low, high, fov, aspect, az, el))
    assert abs(x.max() + x.min()) > 0.05 or abs(y.max() + y.min()) > 0.05  # off-centre
    center, distance = frame_box(low, high, fov, aspect, az, el)
    x, y = picture(center, distance)
    assert abs(x.max() + x.min()) < 1e-6 and abs(y.max() + y.min()) < 1e-6
    assert max(np.abs(x).max(), np.abs(y).max()) == pytest.approx(1 / FIT_MARGIN, rel=1e-6)
    # A distance the scene sets is kept; the picture is centred from there.
    center, kept = frame_box(low, high, fov, aspect, az, el, distance=500.0)
    x, y = picture(center, kept)
    assert kept == 500.0 and abs(x.max() + x.min()) < 1e-6 and abs(y.max() + y.min()) < 1e-6


def test_an_orbiting_camera_fits_the_box_at_every_angle_and_no_further():
    """Fitted to the box's bounding cylinder, the fish tank filled about half of an orbit
    video's frame; fitted to the box at every angle, it fills it at its widest."""
    from wander3d.render.camera import _basis, home_from_scene
    from wander3d.scene import CameraParams

    low, high = np.array([-160.0, -45, -90]), np.array([160.0, 45, 90])  # the fish tank
    camera = CameraParams(mode="turntable", azimuth=20.0, elevation=10.0, fov=45.0,
                          distance=None)  # fmt: skip
    aspect = 16 / 9
    home = home_from_scene(camera, low, high, aspect, centred=False)
    centre = np.array(home.center)
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    points = low + corners * (high - low)
    tan_v = np.tan(np.radians(camera.fov) / 2)
    widest = 0.0
    for azimuth in np.arange(0.0, 360.0, 0.5):
        right, up, forward = _basis(azimuth, camera.elevation)
        rel = points - (centre - home.distance * forward)
        depth = rel @ forward
        x = (rel @ right) / depth / (tan_v * aspect)
        y = (rel @ up) / depth / tan_v
        widest = max(widest, np.abs(x).max(), np.abs(y).max())
    assert widest <= 1.0  # in view at every angle
    assert widest > 0.85  # and filling it where the box is widest
