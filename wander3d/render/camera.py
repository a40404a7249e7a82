"""Cameras: turntable (default), arcball and fly, all with +y up, switchable without a jump.

vispy's three cameras describe their orientation differently (angles, an arcball quaternion
with swizzled axes, a fly quaternion). `CameraRig` converts through the one thing they share,
the camera-to-scene matrix, so switching mode keeps the view where it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from vispy.scene import ViewBox
from vispy.scene.cameras import ArcballCamera, BaseCamera, FlyCamera, TurntableCamera
from vispy.util import transforms
from vispy.util.quaternion import Quaternion

from wander3d.appearance import FIT_MARGIN
from wander3d.scene import CameraParams

from .vispy_private import set_arcball_rotation

CAMERA_MODES = ("turntable", "arcball", "fly")
#: The chase view looks down on the followed agent from this many degrees above its heading.
CHASE_ELEVATION = 18.0
#: Fraction of the way the chase view turns towards the agent's heading per update (smooths
#: the wander's small turns away).
CHASE_TURN = 0.12


@dataclass(frozen=True)
class CameraHome:
    """The start view (a scene's [camera] table, resolved against its box).

    mode: one of CAMERA_MODES; azimuth, elevation, fov: degrees; distance: units from `center`
    ((3,) units), already resolved when the scene leaves it unset.
    """

    mode: str
    azimuth: float
    elevation: float
    distance: float
    fov: float
    center: tuple[float, float, float]


def _basis(azimuth: float, elevation: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, forward) unit vectors of a turntable view from `azimuth`, `elevation` (deg)."""
    az, el = math.radians(azimuth), math.radians(elevation)
    # vispy's turntable with +y up looks from the centre's side given by this direction.
    eye = np.array([-math.cos(el) * math.cos(az), math.sin(el), math.cos(el) * math.sin(az)])
    forward = -eye
    right = np.cross(forward, (0.0, 1.0, 0.0))
    right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else np.array([1.0, 0, 0])
    return right, np.cross(right, forward), forward


def _centred(values: np.ndarray, depth: np.ndarray) -> tuple[float, float]:
    """The shift s across the view that centres points at `values` (along right or up) and
    `depth` (along the view) on the screen, and their half extent then (tangent units)."""
    lo, hi = float(values.min()), float(values.max())
    for _ in range(60):  # (values - s) / depth: max + min falls as s grows
        s = (lo + hi) / 2
        q = (values - s) / depth
        lo, hi = (s, hi) if q.max() + q.min() > 0 else (lo, s)
    s = (lo + hi) / 2
    return s, float(np.abs((values - s) / depth).max())


def frame_box(
    low: np.ndarray,
    high: np.ndarray,
    fov: float,
    aspect: float,
    azimuth: float,
    elevation: float,
    distance: float | None = None,
) -> tuple[np.ndarray, float]:
    """The point to look at ((3,) units) and the distance from it (units) at which the box's
    projection is centred in the view and fills it but for a margin (FIT_MARGIN); with a
    `distance` (units) given, the point that centres it seen from there (the box's centre
    when a corner is behind the eye).

    low, high: (3,) box corners (units); fov: vertical field of view (degrees); aspect: width
    / height of the canvas; azimuth, elevation: the turntable angles (degrees) it is seen from.
    Looking at the box's centre would not centre its picture: perspective draws the near
    corners bigger, so the box sat low or to one side with a corner at the edge.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    right, up, forward = _basis(azimuth, elevation)
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    centre = (low + high) / 2
    rel = low + corners * (high - low) - centre
    a, b, z = rel @ right, rel @ up, rel @ forward
    tan_v = math.tan(math.radians(fov) / 2) / FIT_MARGIN
    tan_h = tan_v * aspect

    def fill(distance: float) -> tuple[float, float, float]:
        """(share of the allowed view filled, shift right, shift up) at `distance`."""
        depth = distance + z
        sx, ex = _centred(a, depth)
        sy, ey = _centred(b, depth)
        return max(ex / tan_h, ey / tan_v), sx, sy

    size = float(np.linalg.norm(high - low)) or 1.0
    near = float(max(0.0, -z.min())) + 1e-6 * size  # every corner in front of the eye
    if distance is not None:
        if distance <= near:
            return centre, float(distance)
        _, sx, sy = fill(distance)
        return centre + sx * right + sy * up, float(distance)
    far = near + size
    while fill(far)[0] > 1.0:
        far *= 2.0
    for _ in range(60):  # the box fills less of the view the further it is
        mid = (near + far) / 2
        near, far = (mid, far) if fill(mid)[0] > 1.0 else (near, mid)
    _, sx, sy = fill(far)
    return centre + sx * right + sy * up, far


def fit_distance(
    low: np.ndarray,
    high: np.ndarray,
    fov: float,
    aspect: float,
    azimuth: float,
    elevation: float,
) -> float:
    """Distance from the box's centre, looked at, at which the whole box just fits the view.

    low, high: (3,) box corners (units); fov: vertical field of view (degrees); aspect: width
    / height of the canvas; azimuth, elevation: the turntable angles (degrees) it is seen from.
    Each corner must lie inside the view frustum, shrunk by FIT_MARGIN.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    right, up, forward = _basis(azimuth, elevation)
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    rel = low + corners * (high - low) - (low + high) / 2
    tan_v = math.tan(math.radians(fov) / 2) / FIT_MARGIN
    tan_h = tan_v * aspect
    # A corner at depth z (along `forward`, from the centre) fits if |x| <= (d + z) tan_h.
    z = rel @ forward
    need = np.maximum(np.abs(rel @ right) / tan_h, np.abs(rel @ up) / tan_v) - z
    return float(need.max())


#: Degrees between the azimuths an orbiting camera's distance is fitted at.
ORBIT_STEP = 2.0


def home_from_scene(
    camera: CameraParams, low: np.ndarray, high: np.ndarray, aspect: float, centred: bool = True
) -> CameraHome:
    """A CameraHome from a scene's CameraParams (mode, azimuth, elevation, distance, fov).

    The view frames the box: its picture centred (frame_box; fitted too, unless the scene
    sets the distance), or with `centred` False for a camera that will orbit the box, looking
    at its centre (else its picture would drift as the view turns) from where it fits at any
    angle.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    centre = (low + high) / 2
    distance = camera.distance
    angles = (camera.azimuth, camera.elevation)
    if centred:
        centre, distance = frame_box(low, high, camera.fov, aspect, *angles, distance)
    elif distance is None:
        # Near enough that the box itself fits at every angle of a turn about the vertical
        # (sampled every ORBIT_STEP degrees; FIT_MARGIN covers the angles between): a long
        # box's bounding cylinder, fitted instead, left it small in the middle of an orbit
        # video.
        distance = max(
            fit_distance(low, high, camera.fov, aspect, azimuth, camera.elevation)
            for azimuth in np.arange(0.0, 360.0, ORBIT_STEP)
        )
    x, y, z = (float(c) for c in centre)
    return CameraHome(
        mode=camera.mode,
        azimuth=float(camera.azimuth),
        elevation=float(camera.elevation),
        distance=float(distance),
        fov=float(camera.fov),
        center=(x, y, z),
    )


def _wrap(degrees: float) -> float:
    """`degrees` in [-180, 180)."""
    return (degrees + 180.0) % 360.0 - 180.0


def chase_azimuth(heading: np.ndarray) -> float | None:
    """The turntable azimuth (degrees) whose eye sits behind `heading` ((3,), +y up); None
    when the heading is (nearly) vertical or zero."""
    hx, hz = float(heading[0]), float(heading[2])
    if math.hypot(hx, hz) < 1e-9:
        return None
    # The turntable's eye lies along (-cos az, ., sin az) from its centre: put it at -heading.
    return math.degrees(math.atan2(-hz, hx))


def _axis_angle(rotation: np.ndarray) -> tuple[float, np.ndarray]:
    """(degrees, unit axis) with transforms.rotate(degrees, axis) == rotation (4x4, vispy's
    row-vector convention)."""
    r = rotation[:3, :3].T  # column-vector convention
    angle = math.acos(max(-1.0, min(1.0, (np.trace(r) - 1.0) / 2.0)))
    if angle < 1e-9:
        return 0.0, np.array([1.0, 0.0, 0.0])
    # The axis is the rotation's fixed direction: the eigenvector of eigenvalue 1.
    values, vectors = np.linalg.eig(r)
    axis = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    axis /= np.linalg.norm(axis)
    degrees = math.degrees(angle)
    # The eigenvector's sign is arbitrary; keep the one that reproduces the rotation.
    if not np.allclose(transforms.rotate(degrees, axis)[:3, :3], rotation[:3, :3], atol=1e-5):
        axis = -axis
    return degrees, axis


class CameraRig:
    """The view's camera: creates, resets and switches vispy cameras on `viewbox`."""

    def __init__(self, viewbox: ViewBox, home: CameraHome, scale: float) -> None:
        """scale: a length typical of the scene (units); sets pan and fly speeds."""
        self.viewbox = viewbox
        self.home = home
        self.scale = scale
        self._orbit_distance = home.distance
        self._before_chase = None
        self._chase_heading = 0.0
        self._chase_offset = 0.0
        self._chase_set = 0.0
        self._chase_min = 0.0
        self.reset()

    @property
    def camera(self) -> BaseCamera:
        """The vispy camera on the viewbox now (it changes with the mode)."""
        return self.viewbox.camera

    @property
    def mode(self) -> str:
        cam = self.camera
        if isinstance(cam, FlyCamera):
            return "fly"
        return "arcball" if isinstance(cam, ArcballCamera) else "turntable"

    def reset(self) -> None:
        """Back to the home view, in the home mode (ending a chase view)."""
        self._before_chase = None
        h = self.home
        cam = TurntableCamera(
            fov=h.fov, azimuth=h.azimuth, elevation=h.elevation, distance=h.distance,
            center=h.center, up="+y", scale_factor=self.scale,
        )  # fmt: skip
        self.viewbox.camera = cam
        if h.mode != "turntable":
            self.set_mode(h.mode)

    def at_home(self) -> bool:
        """Whether the camera still shows the home view (nobody rotated, zoomed or panned)."""
        h, cam = self.home, self.camera
        if h.mode != "turntable" or not isinstance(cam, TurntableCamera):
            return False
        return bool(
            math.isclose(cam.azimuth, h.azimuth, abs_tol=1e-6)
            and math.isclose(cam.elevation, h.elevation, abs_tol=1e-6)
            and math.isclose(cam.distance, h.distance, rel_tol=1e-9)
            and np.allclose(cam.center, h.center)
        )

    def set_mode(self, mode: str) -> None:
        """Switch to `mode` (one of CAMERA_MODES), keeping the current view."""
        if mode not in CAMERA_MODES:
            raise ValueError(f"camera mode must be one of {CAMERA_MODES}, not {mode!r}")
        self._before_chase = None  # a chosen mode ends a chase view where it is
        if mode == self.mode:
            return
        old = self.camera
        target = np.array(old.transform.matrix, dtype=np.float64)
        eye = (np.array([0.0, 0.0, 0.0, 1.0]) @ target)[:3]
        if isinstance(old, FlyCamera):
            # A fly camera sits at its centre; orbit the point as far ahead as it last orbited.
            distance = self._orbit_distance
            forward = (np.array([0.0, 0.0, -1.0, 0.0]) @ target)[:3]
            center = eye + forward / np.linalg.norm(forward) * distance
        else:
            center = np.asarray(self.center, dtype=np.float64)
            distance = float(np.linalg.norm(eye - center)) or self.home.distance
            self._orbit_distance = distance
        fov = old.fov
        if mode == "turntable":
            offset = (eye - center) / distance
            cam = TurntableCamera(
                fov=fov,
                azimuth=math.degrees(math.atan2(offset[2], -offset[0])),
                elevation=math.degrees(math.asin(max(-1.0, min(1.0, offset[1])))),
                distance=distance, center=tuple(center), up="+y", scale_factor=self.scale,
            )  # fmt: skip
            self.viewbox.camera = cam
            return
        if mode == "arcball":
            cam = ArcballCamera(
                fov=fov, distance=distance, center=tuple(center), scale_factor=self.scale
            )
            self.viewbox.camera = cam
            degrees, axis = self._rotation_between(cam, target, center)
            # ArcballCamera rotates about the quaternion's axis with y and z swapped.
            set_arcball_rotation(
                cam,
                Quaternion.create_from_axis_angle(math.radians(degrees), axis[0], axis[2], axis[1]),
            )
        else:
            cam = FlyCamera(fov=fov)
            # Our world is +y up; vispy's auto roll would keep +z up.
            cam.auto_roll = False
            self.viewbox.camera = cam
            # Attaching makes vispy's fly camera jump to a corner of the scene; undo that.
            cam.center = tuple(eye)
            cam.scale_factor = self.scale / 3.0
            cam.rotation1 = Quaternion()
            cam.rotation2 = Quaternion()
            cam.view_changed()
            degrees, axis = self._rotation_between(cam, target, eye)
            # FlyCamera rotates by minus its quaternion's angle.
            cam.rotation1 = Quaternion.create_from_axis_angle(-math.radians(degrees), *axis)
        cam.view_changed()

    @staticmethod
    def _rotation_between(
        cam: BaseCamera, target: np.ndarray, center: np.ndarray
    ) -> tuple[float, np.ndarray]:
        """The rotation that gives `cam` (now unrotated, around `center`) the matrix `target`.

        Every vispy 3D camera's matrix is left @ rotation @ translate(center); with the rotation
        at identity its matrix is left @ translate(center), which gives `left`.
        """
        right = transforms.translate(center)
        left = np.asarray(cam.transform.matrix) @ np.linalg.inv(right)
        rotation = np.linalg.inv(left) @ target @ np.linalg.inv(right)
        return _axis_angle(rotation)

    @property
    def center(self) -> tuple[float, float, float]:
        """The point the camera orbits (turntable, arcball) or sits at (fly)."""
        x, y, z = self.camera.center
        return float(x), float(y), float(z)

    def set_angles(self, azimuth: float, elevation: float) -> None:
        """Orbit to `azimuth`, `elevation` (degrees) around the centre, in turntable mode."""
        self.set_mode("turntable")
        cam = self.camera
        cam.azimuth = azimuth
        cam.elevation = elevation

    # ------------------------------------------------------------------ chase view
    @property
    def chasing(self) -> bool:
        return self._before_chase is not None

    def start_chase(self, position: np.ndarray, heading: np.ndarray, distance: float) -> None:
        """Look at `position` ((3,) units) from `distance` units behind and above `heading`
        ((3,)), whatever the mode; `end_chase` gives the camera before it back."""
        before = self._before_chase or self.camera
        azimuth = chase_azimuth(heading)
        if azimuth is None:
            azimuth = self.camera.azimuth if self.mode == "turntable" else 0.0
        cam = TurntableCamera(
            fov=self.camera.fov, azimuth=azimuth, elevation=CHASE_ELEVATION, distance=distance,
            center=tuple(float(c) for c in position), up="+y", scale_factor=self.scale,
        )  # fmt: skip
        self.viewbox.camera = cam
        self._before_chase = before
        self._chase_heading = azimuth
        self._chase_offset = 0.0
        self._chase_set = cam.azimuth
        # Zooming in never puts the eye inside the agent.
        self._chase_min = distance / 5.0

    def chase(self, position: np.ndarray, heading: np.ndarray) -> None:
        """Move the chase view with its agent: centred on it, turning smoothly behind it.

        A user's drag since the last call turns the view around the agent and stays."""
        cam = self.camera
        self._chase_offset = _wrap(self._chase_offset + cam.azimuth - self._chase_set)
        azimuth = chase_azimuth(heading)
        if azimuth is not None:
            turn = _wrap(azimuth - self._chase_heading)
            self._chase_heading = _wrap(self._chase_heading + CHASE_TURN * turn)
        cam.azimuth = _wrap(self._chase_heading + self._chase_offset)
        self._chase_set = cam.azimuth
        cam.center = tuple(float(c) for c in position)
        if cam.distance < self._chase_min:
            cam.distance = self._chase_min

    def end_chase(self) -> None:
        """Back to the camera (mode and view) there was before `start_chase`."""
        before, self._before_chase = self._before_chase, None
        if before is not None:
            self.viewbox.camera = before

    def orbit(self, degrees: float) -> None:
        """Turn the turntable view `degrees` around the vertical axis."""
        self.set_mode("turntable")
        self.camera.azimuth = (self.camera.azimuth + degrees + 180.0) % 360.0 - 180.0
