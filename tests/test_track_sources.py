"""Track files as the field's tools write them, read without hand edits: each format written
here as its tool writes it (idtracker.ai's tidy and wide tables, a Movebank export, AIS
broadcasts, a GPS hike with elevation, aircraft around the world, European spreadsheets),
and every refusal one line naming the line and the option that helps.

The geographic checks compare with pyproj's geodesics, an independent computation: a track
walked with true 30.000 m steps must measure 30.000 m whatever else is in the file.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyproj import Geod

from wander3d import cli

GEOD = Geod(ellps="WGS84")


def stats(args: list[str], capsys) -> tuple[dict, str]:
    code = cli.main(["stats", "--json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), captured.err


def refused(args: list[str], capsys) -> str:
    assert cli.main(["stats", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def geodesic_walk(lon0, lat0, n, step=30.0, turn=3.0, azimuth=10.0):
    """Fixes of a walk of `step` m geodesic steps turning `turn` deg clockwise each step."""
    lon, lat = [lon0], [lat0]
    for _ in range(n - 1):
        a, b, back = GEOD.fwd(lon[-1], lat[-1], azimuth, step)
        lon.append(a)
        lat.append(b)
        azimuth = back + 180.0 + turn
    return np.array(lon), np.array(lat)


def circle_rows(particles=2, n=100, dt=0.1):
    """(particle, t, x, y) rows on anticlockwise circles of radius 5 at 2 units/s."""
    t = np.arange(n) * dt
    rows = []
    for p in range(particles):
        for k in range(n):
            rows.append((p, t[k], 10 * p + 5 * np.cos(0.4 * t[k]), 5 * np.sin(0.4 * t[k])))
    return rows


CIRCLE_TURN_RATE = np.degrees(0.4)


# ---------------------------------------------------------------- geographic, at any extent
def movebank(tmp_path, places, altitude=True):
    head = "individual-local-identifier,timestamp,location-long,location-lat"
    rows = [head + (",height-above-ellipsoid" if altitude else "")]
    for name, (lon0, lat0) in places.items():
        lon, lat = geodesic_walk(lon0, lat0, 200)
        for k in range(200):
            row = f"{name},2020-05-01 06:{k // 60:02d}:{k % 60:02d}.000,{lon[k]:.9f},{lat[k]:.9f}"
            rows.append(row + (",100" if altitude else ""))
    path = tmp_path / f"movebank-{len(places)}-{altitude}.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


NEAR = {"near": (8.95, 47.75)}
WORLD = {"near": (8.95, 47.75), "arabia": (60.0, 20.0), "pampas": (-60.0, -30.0)}


@pytest.mark.parametrize("places", [NEAR, WORLD], ids=["alone", "three-continents"])
def test_a_geographic_track_measures_its_true_steps_whatever_else_is_in_the_file(
    tmp_path, capsys, places
):
    doc, err = stats(["--tracks", str(movebank(tmp_path, places)), "--sample-rate", "1"], capsys)
    g = doc["groups"][0]
    assert g["mean_step"] == pytest.approx(30.0, rel=1e-6)  # true 30.000 m, within 0.1%
    assert g["mean_sin_turn"] == pytest.approx(-np.sin(np.radians(3.0)), rel=1e-4)  # clockwise
    assert (
        "each track's own frame" in err
        and "altitude (height-above-ellipsoid) read as metres" in err
    )


def test_an_altitude_column_keeps_the_turns_sign(tmp_path, capsys):
    flat, _ = stats(
        ["--tracks", str(movebank(tmp_path, NEAR, False)), "--sample-rate", "1"], capsys
    )
    high, _ = stats(["--tracks", str(movebank(tmp_path, NEAR, True)), "--sample-rate", "1"], capsys)
    assert flat["groups"][0]["mean_sin_turn"] < 0
    assert high["groups"][0]["mean_sin_turn"] == pytest.approx(
        flat["groups"][0]["mean_sin_turn"], rel=1e-9
    )


def test_aircraft_around_the_world_measure_their_geodesic_speed(tmp_path, capsys):
    """ADS-B state vectors (OpenSky's columns, epoch seconds, altitude in metres): three
    aircraft on three continents flying 230 m/s along geodesics for ten minutes."""
    rows = ["time,icao24,lat,lon,velocity,track,geoaltitude"]  # track: the ground track's angle
    for name, (lon0, lat0) in {"3c6444": (8.5, 50.0), "a0b1c2": (-100.0, 40.0),
                               "7c0001": (150.0, -33.0)}.items():  # fmt: skip
        lon, lat = geodesic_walk(lon0, lat0, 61, step=2300.0, turn=0.5, azimuth=80)
        for k in range(61):
            rows.append(f"{1_600_000_000 + 10 * k},{name},{lat[k]:.7f},{lon[k]:.7f},230,80.5,11000")
    path = tmp_path / "states.csv"
    path.write_text("\n".join(rows) + "\n")
    doc, err = stats(["--tracks", str(path), "--sample-rate", "0.1"], capsys)
    g = doc["groups"][0]
    assert g["agents"] == 3 and g["mean_step"] == pytest.approx(2300.0, rel=1e-3)
    assert "particle=icao24" in err  # not traffic's "track", an angle
    assert "widest reaches" in err and "geoaltitude" in err


def test_bad_coordinates_are_refused_or_left_out_with_the_line(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("id,t,lon,lat\n1,0,8,47\n1,1,8.001,95\n1,2,8.002,47\n")
    assert "line 3: latitude 95 is outside -90..90" in refused(["--tracks", str(path)], capsys)
    path.write_text("id,t,lon,lat\n1,0,-8,47\n1,1,200,47\n1,2,-8.002,47\n")
    assert "line 3: longitude 200 is outside -180..180" in refused(["--tracks", str(path)], capsys)
    lon, lat = geodesic_walk(8.0, 47.0, 50)
    rows = [f"1,{k},{lon[k]:.9f},{lat[k]:.9f}" for k in range(50)]
    rows[20] = "1,20,0,0"  # a logger without a fix
    path.write_text("id,t,lon,lat\n" + "\n".join(rows) + "\n")
    doc, err = stats(["--tracks", str(path), "--sample-rate", "1", "--max-gap", "5"], capsys)
    assert doc["track_counts"]["missing"] == 1 and "longitude 0, latitude 0" in err
    assert doc["groups"][0]["mean_speed"] < 40  # not 1e5 m/s towards (0, 0)


def test_degrees_under_other_names_are_pointed_out_and_geographic_reads_them(tmp_path, capsys):
    lon, lat = geodesic_walk(8.0, 47.0, 100)
    path = tmp_path / "xy.csv"
    path.write_text(
        "id,t,X,Y\n" + "\n".join(f"1,{k},{lon[k]:.9f},{lat[k]:.9f}" for k in range(100)) + "\n"
    )
    _, err = stats(["--tracks", str(path), "--sample-rate", "1"], capsys)
    assert "warning: X, Y are all within ±180 and ±90" in err and "--geographic" in err
    doc, _ = stats(["--tracks", str(path), "--sample-rate", "1", "--geographic"], capsys)
    assert doc["groups"][0]["mean_step"] == pytest.approx(30.0, rel=1e-6)


def test_projected_coordinates_with_crs_measure_as_geodesics(tmp_path, capsys):
    from pyproj import Transformer

    lon, lat = geodesic_walk(15.0, 50.0, 100)
    east, north = Transformer.from_crs("EPSG:4326", "EPSG:32633", always_xy=True).transform(
        lon, lat
    )
    path = tmp_path / "utm.csv"
    path.write_text(
        "id,t,x,y\n" + "\n".join(f"1,{k},{east[k]:.4f},{north[k]:.4f}" for k in range(100)) + "\n"
    )
    plain, _ = stats(["--tracks", str(path), "--sample-rate", "1"], capsys)
    doc, err = stats(["--tracks", str(path), "--sample-rate", "1", "--crs", "EPSG:32633"], capsys)
    assert doc["groups"][0]["mean_step"] == pytest.approx(30.0, rel=1e-6)
    assert plain["groups"][0]["mean_step"] != pytest.approx(30.0, rel=1e-5)  # UTM's scale
    assert "EPSG:32633 coordinates measured" in err


def test_an_implausible_speed_is_warned_with_its_lines(tmp_path, capsys):
    lon, lat = geodesic_walk(8.0, 47.0, 30)
    lon[10] += 1.0  # one fix 75 km off
    path = tmp_path / "jump.csv"
    path.write_text(
        "id,t,lon,lat\n" + "\n".join(f"a,{k},{lon[k]:.9f},{lat[k]:.9f}" for k in range(30)) + "\n"
    )
    _, err = stats(["--tracks", str(path), "--sample-rate", "1"], capsys)
    assert "warning: 2 steps between fixes faster than 343 m/s" in err
    assert "jump.csv: line 11 to line 12" in err or "line 10 to line 11" in err


def test_feet_are_named_and_z_unit_converts_them(tmp_path, capsys):
    lon, lat = geodesic_walk(8.0, 47.0, 50, turn=0.0)
    rows = [f"1,{k},{lon[k]:.9f},{lat[k]:.9f},{1000 + 10 * k}" for k in range(50)]
    path = tmp_path / "climb.csv"
    path.write_text("hex,t,lon,lat,alt_baro\n" + "\n".join(rows) + "\n")
    feet, err = stats(["--tracks", str(path), "--sample-rate", "1"], capsys)
    assert "altitude (alt_baro) read as feet" in err
    metres, _ = stats(["--tracks", str(path), "--sample-rate", "1", "--z-unit", "m"], capsys)
    assert feet["groups"][0]["mean_step"] == pytest.approx(np.hypot(30.0, 3.048), rel=1e-6)
    assert metres["groups"][0]["mean_step"] == pytest.approx(np.hypot(30.0, 10.0), rel=1e-6)


# ------------------------------------------------------------------------- 3D and its axes
def test_z_up_data_turn_in_their_own_horizontal_plane(tmp_path, capsys):
    """A helix about +z turning +3 deg a step (anticlockwise seen from above, +z up)."""
    rows = [
        f"1,{k * 0.1:.1f},{10 * np.cos(np.radians(3 * k)):.9f},"
        f"{10 * np.sin(np.radians(3 * k)):.9f},{0.05 * k:.4f}"
        for k in range(200)
    ]
    path = tmp_path / "helix.csv"
    path.write_text("id,t,x,y,z\n" + "\n".join(rows) + "\n")
    doc, err = stats(["--tracks", str(path), "--up", "z"], capsys)
    assert doc["groups"][0]["mean_sin_turn"] == pytest.approx(np.sin(np.radians(3)), rel=1e-3)
    _, err = stats(["--tracks", str(path)], capsys)
    assert "3D tracks taken as +y up (--up z for z-up data)" in err


# --------------------------------------------------------------------- the field's formats
def test_idtracker_wide_and_tidy_tables_give_the_same_measures(tmp_path, capsys):
    rows = circle_rows()
    t = sorted({r[1] for r in rows})
    by = {(p, tt): (x, y) for p, tt, x, y in rows}
    wide = ["time,x1,y1,x2,y2"] + [
        f"{tt:.2f}," + ",".join(f"{by[p, tt][0]:.6f},{by[p, tt][1]:.6f}" for p in (0, 1))
        for tt in t
    ]
    (tmp_path / "trajectories.csv").write_text("\n".join(wide) + "\n")
    tidy = ["frame,time,individual,x,y"] + [
        f"{round(tt * 10)},{tt:.2f},{p + 1},{x:.6f},{y:.6f}" for p, tt, x, y in rows
    ]
    (tmp_path / "tidy.csv").write_text("\n".join(tidy) + "\n")
    a, err = stats(["--tracks", str(tmp_path / "trajectories.csv")], capsys)
    assert "a wide table: x1, y1 ... x2, y2 as 2 tracks" in err
    b, err = stats(["--tracks", str(tmp_path / "tidy.csv")], capsys)
    assert "particle=individual" in err
    for key in ("mean_speed", "mean_turn_rate", "mean_sin_turn", "msd_slope"):
        assert a["groups"][0][key] == pytest.approx(b["groups"][0][key], rel=1e-9)
    assert a["groups"][0]["mean_turn_rate"] == pytest.approx(CIRCLE_TURN_RATE, rel=0.02)


def test_ais_broadcasts_with_repeats_and_late_rows(tmp_path, capsys):
    lines = ["MMSI,BaseDateTime,LAT,LON,SOG,COG,Heading,VesselName"]
    for mmsi in (366000001, 367000002):
        lon, lat = geodesic_walk(-74.02, 40.65, 60, step=300.0, turn=1.0)
        lines += [
            f"{mmsi},2020-01-01T00:{k:02d}:00,{lat[k]:.7f},{lon[k]:.7f},9.7,45,45,SHIP"
            for k in range(60)
        ]
    lines.insert(11, lines[11])  # a broadcast received twice
    lines[21], lines[22] = lines[22], lines[21]  # and one received late
    path = tmp_path / "AIS_2020_01_01.csv"
    path.write_text("\n".join(lines) + "\n")
    err = refused(["--tracks", str(path), "--sample-rate", "0.0166667"], capsys)
    assert "line 23: particle 366000001's t = 1140 is earlier than t = 1200 on line 22" in err
    assert "--sort puts each track's fixes in time order" in err
    err = refused(["--tracks", str(path), "--sort", "--sample-rate", "0.0166667"], capsys)
    assert "line 13: repeats line 12" in err and "--drop-duplicates" in err
    args = ["--tracks", str(path), "--sort", "--drop-duplicates", "--sample-rate", "0.0166667"]
    doc, err = stats(args, capsys)
    assert "columns: particle=MMSI, t=BaseDateTime, x=LON, y=LAT" in err
    assert doc["track_counts"]["duplicates"] == 1 and "1 repeated dropped" in err
    assert doc["groups"][0]["mean_step"] == pytest.approx(300.0, rel=1e-4)


def test_a_time_repeated_at_another_position_is_refused_with_both_lines(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("id,t,x,y\n1,0,0,0\n1,1,1,0\n1,1,2,0\n1,2,3,0\n")
    err = refused(["--tracks", str(path), "--drop-duplicates"], capsys)
    assert "line 4: particle 1 has two rows at t = 1 at different positions" in err
    assert "line 3" in err


def test_a_gps_hike_without_an_id_column_is_one_track(tmp_path, capsys):
    lon, lat = geodesic_walk(7.0, 46.0, 300, step=1.2, turn=0.0)
    rows = [
        f"{lat[k]:.9f},{lon[k]:.9f},{1500 + 0.5 * k:.1f},2021-07-01T10:{k // 60:02d}:{k % 60:02d}Z"
        for k in range(300)
    ]
    path = tmp_path / "hike.csv"
    path.write_text("lat,lon,ele,time\n" + "\n".join(rows) + "\n")
    doc, err = stats(["--tracks", str(path), "--sample-rate", "1"], capsys)
    assert "no particle column: the file is one track" in err
    assert doc["groups"][0]["name"] == "hike" and doc["tracks"] == 1
    assert doc["groups"][0]["mean_step"] == pytest.approx(np.hypot(1.2, 0.5), rel=1e-6)


def test_a_gps_log_whose_first_points_have_no_time_leaves_them_out_as_missing(tmp_path, capsys):
    """A GPX track converted to CSV (gpxpy's korita-zbevnica: its first 358 points have no
    <time>): more empty times than the rows the time form is first looked for in, then ISO
    times, and one more point without a time on the way. The points without a time cannot
    be placed in time: left out as missing and said, the rest measured as without them."""
    lon, lat = geodesic_walk(14.1, 45.4, 600, step=1.2, turn=0.0)
    stamps = [""] * 250 + [f"2010-10-03T09:{k // 60:02d}:{k % 60:02d}Z" for k in range(350)]
    stamps[400] = ""
    rows = [f"1,{stamps[k]},{lon[k]:.9f},{lat[k]:.9f},733.6" for k in range(600)]
    path = tmp_path / "gpx.csv"
    path.write_text("track,time,lon,lat,ele\n" + "\n".join(rows) + "\n")
    timed = tmp_path / "timed.csv"
    timed.write_text("track,time,lon,lat,ele\n" + "\n".join(r for r in rows if ",," not in r))
    args = ["--sample-rate", "1", "--columns", "particle=track"]
    doc, err = stats(["--tracks", str(path), *args], capsys)
    assert doc["track_counts"]["missing"] == 251 and doc["tracks"] == 1
    assert "251 fixes without a time (time empty or NaN, the first on line 2) left out" in err
    alone, _ = stats(["--tracks", str(timed), *args], capsys)
    assert doc["groups"][0] | {"name": ""} == alone["groups"][0] | {"name": ""}
    assert doc["groups"][0]["mean_step"] == pytest.approx(1.2, rel=1e-6)


def test_a_header_written_as_a_comment_names_the_columns(tmp_path, capsys):
    """tracktable writes its point files' header as a comment, `#object_id,update_time,...`,
    and leaves unknown fields empty: the comment names the columns, and a note says so."""
    rows = []
    for name, (lon0, lat0) in {"DAL54": (-66.75, 28.25), "UAL48": (-42.1, 58.4)}.items():
        lon, lat = geodesic_walk(lon0, lat0, 40, step=2300.0, turn=0.5, azimuth=80)
        for k in range(40):
            stamp = f"2013-07-01 05:{50 + k // 60:02d}:{k % 60:02d}"
            rows.append(f"{name},{stamp},{lon[k]:.5f},{lat[k]:.5f},,,33000,{name}")
    header = "object_id,update_time,longitude,latitude,speed,heading,altitude,ads_callsign"
    path = tmp_path / "asdi.csv"
    path.write_text(f"# tracktable points\n#{header}\n" + "\n".join(rows) + "\n")
    plain = tmp_path / "plain.csv"
    plain.write_text(f"{header}\n" + "\n".join(rows) + "\n")
    doc, err = stats(["--tracks", str(path), "--z-unit", "ft", "--sample-rate", "1"], capsys)
    assert "column names taken from the comment line 2" in err
    assert doc["tracks"] == 2 and doc["groups"][0]["mean_step"] == pytest.approx(2300, rel=1e-3)
    alone, _ = stats(["--tracks", str(plain), "--z-unit", "ft", "--sample-rate", "1"], capsys)
    assert doc["groups"][0] | {"name": ""} == alone["groups"][0] | {"name": ""}


@pytest.mark.parametrize(
    ("name", "write", "note"),
    [
        ("semi.csv", lambda rows: _text(rows, ";", ","), "';'-separated, decimal commas"),
        ("tabs.tsv", lambda rows: _text(rows, "\t", "."), "tab-separated"),
        ("zipped.csv.gz", lambda rows: gzip.compress(_text(rows, ",", ".")), "gz-compressed"),
        ("notes.csv", lambda rows: b"# logger v2\n# m\n" + _text(rows, ",", ".").replace(
            b"\n1,", b"\n# a comment\n1,", 1), ""),
        ("remark.csv", lambda rows: b"# logger, v2, by, me\n" + _text(rows, ",", "."), ""),
        ("utf16.csv", lambda rows: _text(rows, ",", ".").decode().encode("utf-16"),
         "read as UTF-16 text"),
    ],
)  # fmt: skip
def test_dialects_read_as_they_come(tmp_path, capsys, name, write, note):
    (tmp_path / "plain.csv").write_bytes(_text(circle_rows(), ",", "."))
    (tmp_path / name).write_bytes(write(circle_rows()))
    plain, _ = stats(["--tracks", str(tmp_path / "plain.csv")], capsys)
    doc, err = stats(["--tracks", str(tmp_path / name)], capsys)
    assert doc["groups"][0] | {"name": ""} == plain["groups"][0] | {"name": ""}
    assert note in err


def _text(rows, sep: str, decimal: str) -> bytes:
    lines = [sep.join(["id", "t", "x", "y"])]
    for p, t, x, y in rows:
        lines.append(sep.join([str(p), *(f"{v:.6f}".replace(".", decimal) for v in (t, x, y))]))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    ("stamps", "args", "note"),
    [
        (lambda t: f"{1588312800000 + round(t * 1000)}", [], "read as epoch milliseconds"),
        (lambda t: f"{1588312800 + t:.3f}", [], ""),
        (lambda t: f"{round(t * 1000)}", ["--time-unit", "ms"], ""),
        (lambda t: f"01.05.2020 06:00:{t:06.3f}".replace(".", ",", 2).replace(",", ".", 2),
         [], "read as '%d.%m.%Y %H:%M:%S'"),
        (lambda t: f"13/05/2020 06:00:{t:06.3f}", [], "read as '%d/%m/%Y %H:%M:%S'"),
        (lambda t: f"05/01/2020 06:00:{t:06.3f}", ["--time-format", "%m/%d/%Y %H:%M:%S"], ""),
    ],
)  # fmt: skip
def test_times_in_common_forms(tmp_path, capsys, stamps, args, note):
    rows = circle_rows(particles=1)
    path = tmp_path / "times.csv"
    path.write_text(
        "id,timestamp,x,y\n" + "\n".join(f"{p},{stamps(t)},{x},{y}" for p, t, x, y in rows) + "\n"
    )
    doc, err = stats(["--tracks", str(path), *args], capsys)
    assert doc["groups"][0]["mean_turn_rate"] == pytest.approx(CIRCLE_TURN_RATE, rel=0.02)
    assert note in err


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("id,t,x,y\n1,01/05/2020 06:00:00,0,0\n1,02/05/2020 06:00:00,1,1\n", [],
         "line 2: t values such as '01/05/2020 06:00:00' read both day-first and month-first"
         "; give the form, e.g. '%d/%m/%Y %H:%M:%S', with --time-format"),
        ("id,t,x,y\n1,yesterday,0,0\n", [], "line 2: t is 'yesterday': not a number, nor a "
         "date-time"),
        ("id,t,x,y\n" + "1,,0,0\n" * 250 + "1,yesterday,0,0\n", [],
         "line 252: t is 'yesterday': not a number, nor a date-time"),
        ("# id t x\n1,0,0,0\n1,0.1,1,2\n", [], "line 2, '1,0,0,0'..., looks like a row, not "
         "column names (the comment above it says 'id t x'): the file has no header line; name "
         "its columns with --names"),
        ("id;t;x;y\n1;0;0;0\n", ["--sep", ","], "has no ','; name the separator with --sep"),
        ("id,t,x,y\n1,0,0,0\n1,0.1,1,2,5\n", [], "line 3: 5 fields where the header has 4 "
         "('1,0.1,1,2,5'); --skip-bad-rows skips such rows"),
    ],
)  # fmt: skip
def test_refusals_name_the_line_and_the_option_that_helps(tmp_path, capsys, text, args, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    assert message in refused(["--tracks", str(path), *args], capsys)


def test_a_parquet_id_column_of_lists_is_refused(tmp_path, capsys):
    table = pa.table(
        {"particle": [[1], [1], [1]], "t": [0.0, 1, 2], "x": [0.0, 1, 2], "y": [0.0] * 3}
    )
    pq.write_table(table, tmp_path / "lists.parquet")
    err = refused(["--tracks", str(tmp_path / "lists.parquet")], capsys)
    assert "column particle holds list" in err and "not one id per row" in err


def test_a_parquet_with_timestamps_reads_them(tmp_path, capsys):
    rows = circle_rows(particles=1)
    stamps = pa.array(
        [
            np.datetime64("2020-05-01T06:00:00") + np.timedelta64(round(t * 1e9), "ns")
            for _, t, _, _ in rows
        ]
    )
    table = pa.table(
        {"track_id": [r[0] for r in rows], "timestamp": stamps, "x": [r[2] for r in rows],
         "y": [r[3] for r in rows]}
    )  # fmt: skip
    pq.write_table(table, tmp_path / "stamps.parquet")
    doc, _ = stats(["--tracks", str(tmp_path / "stamps.parquet")], capsys)
    assert doc["groups"][0]["mean_turn_rate"] == pytest.approx(CIRCLE_TURN_RATE, rel=0.02)


def test_a_track_at_rest_is_left_out_of_the_straightness(tmp_path, capsys):
    """A ship at anchor: fixes at one place at uneven times (interpolation used to leave
    4e-12 of path and count its straightness as 0)."""
    times = np.cumsum(np.random.default_rng(1).uniform(0.05, 0.15, 100))
    rows = ["id,t,x,y"] + [f"anchored,{t:.3f},512345.678,5234567.891" for t in times]
    rows += [f"moving,{k * 0.1:.1f},{512345.678 + k:.3f},5234567.891" for k in range(100)]
    path = tmp_path / "harbour.csv"
    path.write_text("\n".join(rows) + "\n")
    doc, _ = stats(["--tracks", str(path)], capsys)
    assert doc["groups"][0]["straightness"] == pytest.approx(1.0, rel=1e-9)


def test_a_track_across_a_continent_keeps_its_geodesic_steps_and_turns(tmp_path, capsys):
    """A flight of 300 geodesic steps of 20 km turning 0.2 deg clockwise each: 6,000 km, far
    beyond what one azimuthal frame holds to 0.1% (it would stretch steps by up to 6%)."""
    lon, lat = geodesic_walk(-120.0, 35.0, 301, step=20_000.0, turn=0.2, azimuth=70.0)
    rows = [f"AAL1,{10 * k},{lon[k]:.9f},{lat[k]:.9f}" for k in range(301)]
    path = tmp_path / "flight.csv"
    path.write_text("callsign,t,lon,lat\n" + "\n".join(rows) + "\n")
    args = ["--tracks", str(path), "--sample-rate", "0.1", "--columns", "particle=callsign"]
    doc, err = stats(args, capsys)
    g = doc["groups"][0]
    assert g["mean_step"] == pytest.approx(20_000.0, rel=1e-6)
    assert g["mean_sin_turn"] == pytest.approx(-np.sin(np.radians(0.2)), rel=1e-3)
    assert "laid out by their geodesic steps and turns" in err
