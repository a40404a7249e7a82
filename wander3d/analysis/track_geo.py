"""Longitude and latitude as metres: each track measured in a frame of its own.

A file's tracks may lie anywhere on Earth; one projection for all of them stretches those far
from its centre (5,300 km away, 30 m steps measured 30.4 m). So each track (each piece
between gaps) gets its own azimuthal equidistant frame, centred on the middle of its extent:
a fix is placed at its geodesic distance from that centre, in its direction (pyproj's Geod,
Karney's geodesics on WGS84: exact to nanometres). Distances from the centre are then true,
and any other distance is stretched by at most c / sin c - 1, about c^2 / 6, for a track that
reaches c radians from its centre: 0.1% at 490 km (`frame_error`).

Axes, right-handed with +y up as wander3d's: x east, y altitude (metres; 0 without one),
z south (-north), so that seen from above east is right and north is up, as on a map.
"""

from __future__ import annotations

import math

import numpy as np

Array = np.ndarray

#: The WGS84 ellipsoid's mean radius (m), for the frames' error bound.
EARTH_RADIUS = 6_371_008.8
#: Steps between fixes faster than this (m/s, about the speed of sound) are implausible for
#: anything that walks, swims or flies under its own power, and most likely bad fixes.
IMPLAUSIBLE_SPEED = 343.0


def check_degrees(lon: Array, lat: Array) -> tuple[int, str] | None:
    """(fix, problem) of the first longitude or latitude that is not on Earth, or None.

    Latitude must be within -90..90; longitude within -180..180, or 0..360 in a file whose
    longitudes are never negative."""
    bad_lat = np.abs(lat) > 90
    if bad_lat.any():
        k = int(np.argmax(bad_lat))
        return k, f"latitude {lat[k]:g} is outside -90..90 (degrees)"
    east_only = bool(np.nanmin(lon, initial=0.0) >= 0)
    bad_lon = (lon < -180) | (lon > (360 if east_only else 180))
    if bad_lon.any():
        k = int(np.argmax(bad_lon))
        span = "0..360" if east_only else "-180..180"
        return k, f"longitude {lon[k]:g} is outside {span} (degrees)"
    return None


def local_frames(lon: Array, lat: Array, starts: Array, ends: Array) -> tuple[Array, Array, Array]:
    """Metres east and north of each piece's centre, plus the centre's own place (so that
    the pieces keep their places relative to each other, for coverage: no measure of a
    piece depends on it), and each piece's reach from its centre (m).

    lon, lat: (n,) degrees of fixes whose pieces are the contiguous blocks starts[i]:ends[i].
    The centre is the middle of the piece's latitude span and of its longitude span (taken
    the short way round, across the antimeridian if that is shorter); the centres are placed
    in the same way about theirs."""
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    piece = np.repeat(np.arange(len(starts)), ends - starts)
    lon0, lat0 = _centres(lon, lat, starts)
    azimuth, _back, distance = geod.inv(lon0[piece], lat0[piece], lon, lat)
    a = np.radians(np.asarray(azimuth))
    d = np.asarray(distance)
    reach = np.maximum.reduceat(d, starts) if len(d) else np.zeros(0)
    # Where each centre is, about the centres' own centre.
    lon00, lat00 = _centres(lon0, lat0, np.zeros(1, dtype=np.int64))
    azimuth0, _back, distance0 = geod.inv(
        np.full(len(lon0), lon00[0]), np.full(len(lat0), lat00[0]), lon0, lat0
    )
    a0 = np.radians(np.asarray(azimuth0))
    d0 = np.asarray(distance0)
    east, north = d * np.sin(a), d * np.cos(a)
    wide = frame_errors(reach) > MAX_FRAME_ERROR
    if wide.any():
        rows = np.repeat(wide, ends - starts)
        sub_starts = np.concatenate([[0], np.cumsum((ends - starts)[wide])[:-1]])
        east[rows], north[rows] = _developed(lon[rows], lat[rows], sub_starts, geod)
    east += (d0 * np.sin(a0))[piece]
    north += (d0 * np.cos(a0))[piece]
    return east, north, reach


#: A piece whose frame would stretch distances by more than this is laid out by its geodesic
#: steps instead (`_developed`): from about 490 km from its centre.
MAX_FRAME_ERROR = 1e-3


def frame_errors(reach: Array) -> Array:
    """`frame_error` of each reach (m)."""
    c = np.asarray(reach, dtype=np.float64) / EARTH_RADIUS
    safe = np.where(c > 1e-9, c, 1.0)
    return np.where(c > 1e-9, safe / np.sin(safe) - 1.0, c * c / 6.0)


def _developed(lon: Array, lat: Array, starts: Array, geod: object) -> tuple[Array, Array]:
    """Pieces laid flat by their geodesic steps: each step as long as the geodesic between
    its fixes, each turn the change of the geodesic's azimuth at the fix between two steps,
    the first step in its own azimuth; centred on the piece's middle. Exact for steps and
    turns at any extent (a flight across a continent), where one frame would stretch them."""
    n = len(lon)
    same = np.ones(n - 1, dtype=bool)
    same[starts[1:] - 1] = False  # no step from one piece's last fix to the next's first
    forward, back, step = geod.inv(lon[:-1], lat[:-1], lon[1:], lat[1:])  # type: ignore[attr-defined]
    forward, back, step = (np.asarray(v, dtype=np.float64) for v in (forward, back, step))
    arrive = back + 180.0  # the azimuth each step arrives at its end with
    turn = np.zeros(n - 1)
    turn[1:] = (forward[1:] - arrive[:-1] + 180.0) % 360.0 - 180.0
    first = np.zeros(n - 1, dtype=bool)
    first[0] = True
    first[starts[1:]] = True  # a piece's first step (its index is its first fix's)
    turn[first] = forward[first]
    # Headings: each piece's first azimuth plus its turns so far (cumulative sums restarted).
    total = np.cumsum(turn)
    heading = np.radians(
        total - np.repeat(total[first] - turn[first], np.diff(np.r_[np.flatnonzero(first), n - 1]))
    )
    dx = np.where(same, step * np.sin(heading), 0.0)
    dy = np.where(same, step * np.cos(heading), 0.0)
    x = np.concatenate([[0.0], np.cumsum(dx)])
    y = np.concatenate([[0.0], np.cumsum(dy)])
    # Each piece from its own first fix, centred on the middle of its extent.
    ends = np.append(starts[1:], n)
    for values in (x, y):
        values -= np.repeat(values[starts], ends - starts)
        middle = (np.maximum.reduceat(values, starts) + np.minimum.reduceat(values, starts)) / 2
        values -= np.repeat(middle, ends - starts)
    return x, y


def _centres(lon: Array, lat: Array, starts: Array) -> tuple[Array, Array]:
    """The middle of each block's latitude span and of its longitude span, the short way
    round (across the antimeridian if that is shorter)."""
    lat0 = (np.maximum.reduceat(lat, starts) + np.minimum.reduceat(lat, starts)) / 2
    wrapped = np.mod(lon, 360.0)  # 0..360: spans that cross 180 deg are short here
    low, high = np.minimum.reduceat(lon, starts), np.maximum.reduceat(lon, starts)
    low360, high360 = np.minimum.reduceat(wrapped, starts), np.maximum.reduceat(wrapped, starts)
    across = (high360 - low360) < (high - low)
    lon0 = np.where(across, (low360 + high360) / 2, (low + high) / 2)
    return (lon0 + 180.0) % 360.0 - 180.0, lat0


def frame_error(reach: float) -> float:
    """The largest relative stretch of a distance in a frame reaching `reach` m from its
    centre: c / sin c - 1, c = reach / R."""
    c = reach / EARTH_RADIUS
    return c / math.sin(c) - 1.0 if c > 1e-9 else c * c / 6.0


def to_lon_lat(x: Array, y: Array, crs: str) -> tuple[Array, Array]:
    """Coordinates in the coordinate reference system `crs` (e.g. "EPSG:32633", any string
    pyproj reads) as longitude, latitude (deg, WGS84); ValueError naming a CRS pyproj does
    not know."""
    from pyproj import CRS, Transformer
    from pyproj.exceptions import CRSError

    try:
        source = CRS.from_user_input(crs)
    except CRSError as e:
        raise ValueError(
            f"{crs!r} is not a coordinate reference system pyproj knows ({e})"
        ) from None
    transformer = Transformer.from_crs(source, "EPSG:4326", always_xy=True)
    lon, lat = transformer.transform(x, y)
    return np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)


__all__ = [
    "EARTH_RADIUS",
    "IMPLAUSIBLE_SPEED",
    "check_degrees",
    "frame_error",
    "local_frames",
    "to_lon_lat",
]
