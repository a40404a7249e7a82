"""Real track files as other projects ship them (tests/data/real_tracks/, with their licences):
each reads without hand edits, with the options its form calls for, and its speed and turn
rate equal an independent computation from its raw fixes: plain arithmetic on the fixes
(pyproj's WGS84 geodesics for longitude and latitude), split at the same gaps and resampled
linearly at the same rate. Local coordinates agree to 1e-6; geographic ones to the 0.1% of
wander3d's local frames (and of interpolating in degrees here)."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from wander3d.cli import main

DATA = Path(__file__).resolve().parent / "data" / "real_tracks"
FEET = 0.3048


def measured(capsys, *args: str) -> dict:
    assert main(["stats", "--tracks", *args, "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    return group


def steps(a: np.ndarray, b: np.ndarray, geographic: bool) -> np.ndarray:
    """Displacements from points a to b, (n, 2 or 3): (east, north[, up]) metres for
    (lon, lat[, alt]) with geographic, else b - a."""
    if not geographic:
        return b - a
    from pyproj import Geod

    azimuth, _, distance = Geod(ellps="WGS84").inv(a[:, 0], a[:, 1], b[:, 0], b[:, 1])
    azimuth = np.radians(azimuth)
    moved = [distance * np.sin(azimuth), distance * np.cos(azimuth)]
    return np.column_stack(moved + ([b[:, 2] - a[:, 2]] if a.shape[1] == 3 else []))


def independent(
    tracks: list[tuple[np.ndarray, np.ndarray]], rate: float, max_gap: float, geographic: bool
) -> tuple[float, float]:
    """Mean speed (units/s) and turn rate (deg/s) of `tracks` [(t, positions)], each split
    where fixes are more than max_gap apart, resampled at `rate` from each piece's first fix:
    speeds from central differences (one-sided at the ends), turns the angle between
    consecutive headings (the last direction kept while at rest)."""
    interval = 1.0 / rate
    speeds, turns = [], []
    for t, p in tracks:
        for piece in np.split(np.arange(len(t)), np.flatnonzero(np.diff(t) > max_gap) + 1):
            tp, pp = t[piece], p[piece]
            times = tp[0] + interval * np.arange(int((tp[-1] - tp[0]) / interval + 1e-9) + 1)
            if len(times) < 3:
                continue
            s = np.column_stack([np.interp(times, tp, pp[:, j]) for j in range(pp.shape[1])])
            v = np.empty((len(s), s.shape[1]))
            v[1:-1] = steps(s[:-2], s[2:], geographic) / (2 * interval)
            v[0] = steps(s[:1], s[1:2], geographic)[0] / interval
            v[-1] = steps(s[-2:-1], s[-1:], geographic)[0] / interval
            speed = np.linalg.norm(v, axis=1)
            speeds.append(speed)
            moving = np.flatnonzero(speed > 1e-12)
            last = np.maximum.accumulate(np.where(speed > 1e-12, np.arange(len(v)), -1))
            last[last < 0] = moving[0]
            h = v[last] / speed[last, None]
            cos = np.clip(np.einsum("ij,ij->i", h[:-1], h[1:]), -1.0, 1.0)
            turns.append(np.degrees(np.arccos(cos)) / interval)
    return float(np.concatenate(speeds).mean()), float(np.concatenate(turns).mean())


def seconds(column) -> np.ndarray:
    """Seconds since the epoch of a column of date-times as pyarrow read them (UTC when
    they carry no zone)."""
    return np.array(
        [(d if d.tzinfo else d.replace(tzinfo=UTC)).timestamp() for d in column.to_pylist()]
    )


def test_traja_one_animal_at_50_fps_in_pixels(capsys):
    """traja's test track (Frame, Time, TrackId, x, y): read as it is, timed by Time."""
    path = DATA / "traja_3527.csv"
    table = pacsv.read_csv(path)
    t = np.asarray(table["Time"], dtype=np.float64)
    p = np.column_stack([np.asarray(table[c], dtype=np.float64) for c in ("x", "y")])
    group = measured(capsys, str(path), "--sample-rate", "50", "--max-gap", "1")
    speed, turn = independent([(t, p)], 50.0, 1.0, geographic=False)
    assert group["agents"] == 1
    assert group["mean_speed"] == pytest.approx(speed, rel=1e-6)
    assert group["mean_turn_rate"] == pytest.approx(turn, rel=1e-5)  # headings in float32


def test_gpxpy_hike_with_elevation_in_segments(capsys):
    """A GPS hike from gpxpy's tests (segment, time, lon, lat, ele): longitude and latitude
    found by their names, each segment a track with --columns."""
    path = DATA / "gpxpy_cerknicko-jezero.csv"
    table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
    segment = np.asarray(table["segment"])
    t = seconds(table["time"])
    p = np.column_stack([np.asarray(table[c], dtype=np.float64) for c in ("lon", "lat", "ele")])
    args = ["--columns", "particle=segment", "--max-gap", "120", "--sample-rate", "0.125"]
    group = measured(capsys, str(path), *args)
    tracks = [(t[segment == k], p[segment == k]) for k in np.unique(segment)]
    speed, turn = independent(tracks, 0.125, 120.0, geographic=True)
    assert group["mean_speed"] == pytest.approx(speed, rel=1e-3)
    assert group["mean_turn_rate"] == pytest.approx(turn, rel=1e-3)


def test_gpxpy_log_whose_first_track_has_no_times(capsys):
    """gpxpy's korita-zbevnica: its first track's 358 points carry no time (as GPX allows):
    they are left out as missing fixes, said in a note, and the rest measures as if they had
    never been in the file."""
    path = DATA / "gpxpy_korita-zbevnica.csv"
    table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
    timed = np.asarray(table["time"].is_valid())
    track = np.asarray(table["track"])[timed]
    t = seconds(table["time"].filter(table["time"].is_valid()))
    p = np.column_stack([np.asarray(table[c], dtype=np.float64) for c in ("lon", "lat", "ele")])
    p = p[timed]
    args = ["--columns", "particle=track", "--max-gap", "120", "--sample-rate", "0.1"]
    assert main(["stats", "--tracks", str(path), *args, "--json"]) == 0
    captured = capsys.readouterr()
    assert "358 fixes without a time" in captured.err
    (group,) = json.loads(captured.out)["groups"]
    tracks = [(t[track == k], p[track == k]) for k in np.unique(track)]
    speed, turn = independent(tracks, 0.1, 120.0, geographic=True)
    assert group["mean_speed"] == pytest.approx(speed, rel=1e-3)
    assert group["mean_turn_rate"] == pytest.approx(turn, rel=1e-3)


def test_tracktable_flights_in_feet_named_with_names(capsys):
    """tracktable's two flights: the header is a comment naming 7 of the 8 fields (and
    swapping latitude and longitude, which nothing can know), so the columns are named with
    --names; the altitude is in feet (--z-unit ft)."""
    path = DATA / "tracktable_TwoSampleFlights.csv"
    names = "object_id,timestamp,longitude,latitude,altitude,speed,heading,extra"
    read = pacsv.ReadOptions(column_names=names.split(","), skip_rows=1)
    table = pacsv.read_csv(path, read_options=read)
    t = seconds(table["timestamp"])
    p = np.column_stack(
        [np.asarray(table[c], dtype=np.float64) for c in ("longitude", "latitude", "altitude")]
    )
    p[:, 2] *= FEET
    ok = np.isfinite(p).all(axis=1)  # one row is missing its latitude: a missing fix
    rate = 1.0 / 60.0
    args = ["--names", names, "--z-unit", "ft", "--sample-rate", f"{rate!r}", "--max-gap", "180"]
    group = measured(capsys, str(path), *args)
    speed, turn = independent([(t[ok], p[ok])], rate, 180.0, geographic=True)
    assert group["mean_speed"] == pytest.approx(speed, rel=1e-3)
    assert group["mean_turn_rate"] == pytest.approx(turn, rel=1e-3)


def test_traffic_glider_parquet_with_utc_timestamps(capsys):
    """traffic's ADS-B glider as Parquet (icao24, latitude, longitude, altitude in feet,
    timestamp with a time zone): read as it is, with --z-unit ft."""
    path = DATA / "traffic_glider_alto_adige.parquet"
    table = pq.read_table(path)
    t = seconds(table["timestamp"])
    p = np.column_stack(
        [np.asarray(table[c], dtype=np.float64) for c in ("longitude", "latitude", "altitude")]
    )
    p[:, 2] *= FEET
    group = measured(capsys, str(path), "--z-unit", "ft", "--sample-rate", "0.1", "--max-gap", "27")
    speed, turn = independent([(t, p)], 0.1, 27.0, geographic=True)
    assert group["mean_speed"] == pytest.approx(speed, rel=1e-3)
    assert group["mean_turn_rate"] == pytest.approx(turn, rel=1e-3)
