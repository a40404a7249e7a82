"""`wander3d stats --tracks FILE`: anyone's trajectories measured like a scene's.

Checked three ways: a Parquet file written by `wander3d run` gives the very table `wander3d
stats SCENE` prints for the same run; its MSD agrees with tidynamics' (an independent
implementation) to 1%; and foreign tracks (2D, uneven time stamps, text ids) give the speed,
turn rate and turn angle of the circles they were drawn on.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import tidynamics
from plot_support import captured_figures

from wander3d import cli

SECONDS = "8"


def main(args: list[str]) -> int:
    try:
        return cli.main(args)
    except SystemExit as e:
        return int(e.code or 0)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The compare scene run for SECONDS at 10 Hz, written to Parquet."""
    out = tmp_path_factory.mktemp("tracks") / "compare.parquet"
    args = ["run", "compare", "--seconds", SECONDS, "--sample-rate", "10", "--out", str(out)]
    assert main(args) == 0
    return out


def test_a_runs_parquet_gives_the_same_table_as_the_scene(exported, capsys):
    capsys.readouterr()
    assert main(["stats", "compare", "--seconds", SECONDS]) == 0
    scene_table = capsys.readouterr().out
    assert main(["stats", "--tracks", str(exported)]) == 0
    tracks_table = capsys.readouterr().out
    assert "'Five methods compared': 8 s simulated (seed 11)" in tracks_table
    assert tracks_table == scene_table


def test_msd_agrees_with_tidynamics(exported, capsys):
    table = pq.read_table(exported)
    n = int(pc_max(table.column("particle"))) + 1
    xyz = np.stack([table.column(a).to_numpy() for a in "xyz"], axis=-1).astype(np.float64)
    tracks = xyz.reshape(-1, n, 3)  # frame-major rows
    capsys.readouterr()
    assert main(["stats", "--tracks", str(exported), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for index, group in enumerate(doc["groups"]):
        members = slice(60 * index, 60 * (index + 1))  # the compare scene: 5 groups of 60
        theirs = np.mean([tidynamics.msd(tracks[:, a]) for a in range(n)[members]], axis=0)
        ours = np.array(group["curves"]["msd_units2"])
        np.testing.assert_allclose(ours[1:], theirs[1 : len(ours)], rtol=0.01)


def pc_max(column) -> int:
    import pyarrow.compute as pc

    return pc.max(column).as_py()


# ------------------------------------------------------------------------ foreign tracks
RADIUS, SPEED = 5.0, 2.0  # units, units/s: omega = 0.4 rad/s, anticlockwise on paper
OMEGA = SPEED / RADIUS


def circles(particles: int = 4, seconds: float = 12.0, seed: int = 1) -> dict[str, list]:
    """2D tracks on anticlockwise circles, fixes at uneven times (20 to 40 per second)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"particle": [], "t": [], "x": [], "y": [], "group": []}
    for p in range(particles):
        t = np.cumsum(rng.uniform(0.025, 0.05, size=int(seconds * 40)))
        t = np.concatenate([[0.0], t[t < seconds]]) + rng.uniform(0, 3)
        phase = rng.uniform(0, 2 * np.pi)
        rows["particle"] += [f"npc-{p}"] * len(t)
        rows["t"] += list(t)
        rows["x"] += list(10 * p + RADIUS * np.cos(OMEGA * t + phase))
        rows["y"] += list(RADIUS * np.sin(OMEGA * t + phase))
        rows["group"] += ["guards" if p % 2 else "villagers"] * len(t)
    return rows


def write_csv(path, rows: dict[str, list]) -> None:
    pacsv.write_csv(pa.table(rows), path)


def test_uneven_2d_tracks_measure_as_the_circles_they_follow(tmp_path, capsys):
    path = tmp_path / "npcs.csv"
    rows = circles()
    # Particles interleaved, as a tracker writes them frame by frame.
    interleaved = np.argsort(rows["t"], kind="stable")
    write_csv(path, {k: [v[i] for i in interleaved] for k, v in rows.items()})
    assert main(["stats", "--tracks", str(path), "--json", "--sample-rate", "10"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tracks"] == 4 and doc["seed"] is None
    assert [g["name"] for g in doc["groups"]] == ["guards", "villagers"]
    edges = np.array(doc["angle_bin_edges_deg"])
    turn_per_sample = np.degrees(OMEGA * 0.1)
    for g in doc["groups"]:
        assert g["method"] == "tracks" and g["agents"] == 2
        assert g["mean_speed"] == pytest.approx(SPEED, rel=0.01)
        assert g["mean_turn_rate"] == pytest.approx(np.degrees(OMEGA), rel=0.01)
        assert g["mean_cos_turn"] == pytest.approx(np.cos(OMEGA * 0.1), abs=1e-4)
        assert g["wall_contact"] is None  # no enclosure known
        turns = np.array(g["curves"]["turn_angle_counts"])
        lifts = np.array(g["curves"]["lift_angle_counts"])
        # Every turn is a left turn of omega * Ts, every lift 0: each in the bin holding it.
        assert turns.sum() == turns[np.searchsorted(edges, turn_per_sample) - 1]
        assert lifts.sum() == lifts[np.searchsorted(edges, 0.0, side="right") - 1]


def test_frames_with_dt_are_timed_tracks(tmp_path, capsys):
    rows: dict[str, list] = {"particle": [1] * 30 + [2] * 30, "frame": list(range(30)) * 2}
    rows["x"] = list(np.arange(30) * 0.5) * 2
    rows["y"] = list(np.sin(np.arange(30))) * 2
    rows["z"] = [0.0] * 60
    write_csv(tmp_path / "f.csv", rows)
    timed = {**{k: v for k, v in rows.items() if k != "frame"}, "t": list(np.arange(30) * 0.1) * 2}
    write_csv(tmp_path / "t.csv", timed)
    assert main(["stats", "--tracks", str(tmp_path / "f.csv"), "--dt", "0.1", "--json"]) == 0
    by_frame = json.loads(capsys.readouterr().out)
    assert main(["stats", "--tracks", str(tmp_path / "t.csv"), "--json"]) == 0
    by_time = json.loads(capsys.readouterr().out)
    assert by_frame["groups"][0]["name"] == "f"  # no group column: the file's name
    by_frame["groups"][0]["name"] = "t"
    assert {**by_frame, "scene": "", "source": ""} == {**by_time, "scene": "", "source": ""}


def straight(particle, speed: float, seconds: float, heading_deg: float = 30.0) -> dict:
    """A 2D track at constant speed along one heading, a fix every 0.1 s."""
    t = np.arange(round(seconds * 10) + 1) * 0.1
    a = np.radians(heading_deg)
    return {
        "particle": [particle] * len(t),
        "t": list(t),
        "x": list(speed * t * np.cos(a)),
        "y": list(speed * t * np.sin(a)),
    }


def joined(*parts: dict) -> dict:
    return {k: [v for part in parts for v in part[k]] for k in parts[0]}


def test_tracks_of_different_lengths_are_measured_in_full(tmp_path, capsys):
    write_csv(tmp_path / "mixed.csv", joined(straight("a", 2.0, 10.0), straight("b", 4.0, 30.0)))
    assert main(["stats", "--tracks", str(tmp_path / "mixed.csv"), "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    (g,) = doc["groups"]
    # Every sample of both weighs alike: 101 at 2 units/s, 301 at 4.
    assert g["mean_speed"] == pytest.approx((2.0 * 101 + 4.0 * 301) / 402, rel=1e-9)
    assert g["mean_step"] == pytest.approx((0.2 * 100 + 0.4 * 300) / 400, rel=1e-9)
    assert doc["track_counts"]["samples"] == 402 and doc["track_counts"]["gaps"] == 0
    assert g["mean_turn_rate"] == 0.0 and g["twitchiness"] == 0.0
    # The MSD pools every pair of samples of both tracks that are m apart, each alike.
    m = np.array([10, 50, 120])
    pairs = {2.0: np.maximum(101 - m, 0), 4.0: 301 - m}
    expected = sum(v * v * (m * 0.1) ** 2 * n for v, n in pairs.items()) / sum(pairs.values())
    np.testing.assert_allclose(np.array(g["curves"]["msd_units2"])[m], expected, rtol=1e-9)
    assert "measured 402 fixes in 2 tracks as 402 samples" in captured.err
    assert main(["stats", "--tracks", str(tmp_path / "mixed.csv")]) == 0
    assert "2 tracks of up to 30 s (40 s in all)" in capsys.readouterr().out.splitlines()[0]


def with_missing_fixes(rows: dict, start: int, stop: int) -> dict:
    """rows with the positions of fixes start..stop-1 empty, as a tracker writes a lost fix."""
    out = {k: list(v) for k, v in rows.items()}
    for k in range(start, stop):
        out["x"][k] = out["y"][k] = None
    return out


def test_gaps_are_split_never_bridged(tmp_path, capsys):
    rows = circles(particles=1, seconds=20)
    n = len(rows["t"])
    gapped = with_missing_fixes(rows, n // 3, n // 3 + 40)  # about 1.2 s without a fix
    write_csv(tmp_path / "gapped.csv", gapped)
    # The same fixes as two particles: what splitting at the gap must give.
    keep = [k for k in range(n) if gapped["x"][k] is not None]
    pieces = {k: [gapped[k][i] for i in keep] for k in gapped}
    pieces["particle"] = ["one" if i < n // 3 else "two" for i in keep]
    write_csv(tmp_path / "pieces.csv", pieces)
    assert main(["stats", "--tracks", str(tmp_path / "gapped.csv"), "--json"]) == 0
    captured = capsys.readouterr()
    gapped_doc = json.loads(captured.out)
    assert "40 missing (empty or NaN) left out; 1 gap over" in captured.err
    # The table counts the pieces as agents: the summary says they are pieces of one particle.
    assert "in 2 tracks (pieces of 1 particle, each counted as an agent)" in captured.err
    assert gapped_doc["groups"][0]["agents"] == 2
    counts = gapped_doc["track_counts"]
    assert counts["missing"] == 40 and counts["gaps"] == 1 and counts["tracks"] == 2
    assert counts["fixes_used"] == n - 40
    assert main(["stats", "--tracks", str(tmp_path / "pieces.csv"), "--json"]) == 0
    pieces_doc = json.loads(capsys.readouterr().out)
    assert gapped_doc["groups"] == pieces_doc["groups"]
    assert gapped_doc["groups"][0]["mean_turn_rate"] == pytest.approx(np.degrees(OMEGA), rel=0.02)
    # A --max-gap longer than the gap bridges it, when asked to.
    args = ["stats", "--tracks", str(tmp_path / "gapped.csv"), "--json", "--max-gap", "5"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["track_counts"]["gaps"] == 0


def ragged_gapped_frames(seed: int = 8) -> tuple[dict, dict]:
    """Correlated random walks logged by frame, of ragged lengths and start frames, two with
    a gap of 40 frames (split there); and the same fixes with each piece a particle of its
    own (what wander3d measures: trackpy's particles)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"particle": [], "frame": [], "x": [], "y": []}
    pieces: dict[str, list] = {k: [] for k in rows}
    for k in range(9):
        n = int(rng.integers(30, 400))
        frames = int(rng.integers(0, 200)) + np.arange(n)
        heading = np.cumsum(rng.normal(0, 0.3, n))
        step = 1.0 + k / 2  # some faster than others, as animals are
        x = np.cumsum(step * np.cos(heading)) + 30 * k
        y = np.cumsum(step * np.sin(heading))
        piece = np.zeros(n, int)
        if k in (2, 5):
            frames[n // 2 :] += 40  # a gap the default --max-gap splits
            piece[n // 2 :] = 1
        for out, ids in ((rows, [k] * n), (pieces, list(10 * k + piece))):
            out["particle"] += ids
            out["frame"] += list(frames)
            out["x"] += list(x)
            out["y"] += list(y)
    return rows, pieces


@pytest.mark.parametrize("lag", [20, 150])
def test_msd_weighting_trackpy_is_trackpys_emsd(tmp_path, capsys, lag):
    import pandas as pd
    import trackpy

    rows, pieces = ragged_gapped_frames()
    write_csv(tmp_path / "frames.csv", rows)
    args = ["stats", "--tracks", str(tmp_path / "frames.csv"), "--fps", "10", "--json"]
    args += ["--max-lag", str(lag / 10)]
    assert main([*args, "--msd-weighting", "trackpy"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["msd_weighting"] == "trackpy" and doc["track_counts"]["gaps"] == 2
    ours = np.array(doc["groups"][0]["curves"]["msd_units2"])
    theirs = trackpy.emsd(pd.DataFrame(pieces), mpp=1.0, fps=10.0, max_lagtime=lag)
    assert len(ours) == lag + 1 and ours[0] == 0.0
    np.testing.assert_allclose(ours[1:], theirs.to_numpy(), rtol=1e-9)
    # Each pair alike (the default) is another average on ragged tracks, most where lags
    # near the tracks' lengths: the option matters.
    assert main(args) == 0
    pairs = json.loads(capsys.readouterr().out)["groups"][0]
    assert abs(pairs["curves"]["msd_units2"][lag] / ours[lag] - 1) > (0.03 if lag > 100 else 0)
    assert pairs["msd_slope"] != doc["groups"][0]["msd_slope"]


def test_both_msd_weightings_agree_on_tracks_of_one_length(exported, capsys):
    docs = []
    for weighting in ("pairs", "trackpy"):
        capsys.readouterr()
        args = ["stats", "--tracks", str(exported), "--json", "--msd-weighting", weighting]
        assert main(args) == 0
        docs.append(json.loads(capsys.readouterr().out))
    for ours, theirs in zip(docs[0]["groups"], docs[1]["groups"], strict=True):
        m = np.array(ours["curves"]["msd_units2"])
        np.testing.assert_allclose(theirs["curves"]["msd_units2"][1:], m[1:], rtol=1e-9)
    assert main(["stats", "--tracks", str(exported), "--msd-weighting", "trackpy"]) == 0
    assert "MSD weighted as trackpy's emsd" in capsys.readouterr().out.splitlines()[0]


def crw_2d(particles: int, steps: int, seed: int) -> list[np.ndarray]:
    """2D correlated random walks of unit steps, of ragged lengths: (fixes, 2) each."""
    rng = np.random.default_rng(seed)
    walks = []
    for k in range(particles):
        turns = rng.normal(0.05, 0.3, size=steps - k * 37)  # biased left: a mean sine
        heading = np.cumsum(turns) + rng.uniform(0, 2 * np.pi)
        xy = np.cumsum(np.stack([np.cos(heading), np.sin(heading)], axis=1), axis=0)
        walks.append(np.concatenate([[[0.0, 0.0]], xy]))
    return walks


def walks_csv(path, walks: list[np.ndarray], offset: float) -> None:
    rows: dict[str, list] = {"particle": [], "t": [], "x": [], "y": []}
    for k, xy in enumerate(walks):
        rows["particle"] += [k] * len(xy)
        rows["t"] += list(np.arange(len(xy)) * 0.1)
        rows["x"] += list(xy[:, 0] + offset)
        rows["y"] += list(xy[:, 1] - offset)
    write_csv(path, rows)


def test_measures_are_the_same_at_any_coordinate_offset_and_meet_the_closed_forms(tmp_path, capsys):
    walks = crw_2d(5, 600, seed=4)
    docs = []
    for offset in (0.0, 1e7):
        walks_csv(tmp_path / "w.csv", walks, offset)
        assert main(["stats", "--tracks", str(tmp_path / "w.csv"), "--json"]) == 0
        docs.append(json.loads(capsys.readouterr().out)["groups"][0])
    for key, value in docs[0].items():
        if isinstance(value, float):
            assert docs[1][key] == pytest.approx(value, rel=1e-6, abs=1e-12), key
    # Closed-form truth from the walks' own steps (unit length) and turns.
    headings = [np.arctan2(*np.diff(xy, axis=0)[:, ::-1].T) for xy in walks]
    turns = np.concatenate([np.diff(h) for h in headings])
    g = docs[1]
    assert g["mean_step"] == pytest.approx(1.0, rel=1e-9)
    assert g["mean_cos_turn"] == pytest.approx(np.cos(turns).mean(), rel=1e-9)
    assert g["mean_sin_turn"] == pytest.approx(np.sin(turns).mean(), rel=1e-9)
    c, s_ = np.cos(turns).mean(), np.sin(turns).mean()
    assert g["persistence_length_crw"] == pytest.approx(1.0 / (1.0 - c), rel=1e-9)
    general = 2.0 / np.sqrt((1 - c * c - s_ * s_) / ((1 - c) ** 2 + s_ * s_))
    assert g["sinuosity"] == pytest.approx(general, rel=1e-9)
    assert g["sinuosity_symmetric"] == pytest.approx(2.0 / np.sqrt((1 + c) / (1 - c)), rel=1e-9)


def test_a_straight_track_far_from_the_origin_is_ballistic_with_undefined_persistence(
    tmp_path, capsys
):
    rows = straight("far", 3.0, 30.0, heading_deg=37.0)
    rows["x"] = [x + 512_345.678 for x in rows["x"]]  # UTM-like metres
    rows["y"] = [y + 5_234_567.891 for y in rows["y"]]
    write_csv(tmp_path / "line.csv", rows)
    assert main(["stats", "--tracks", str(tmp_path / "line.csv"), "--json"]) == 0
    (g,) = json.loads(capsys.readouterr().out)["groups"]
    assert g["crw_msd_slope"] == pytest.approx(2.0, abs=1e-6)
    assert g["msd_slope"] == pytest.approx(2.0, abs=1e-6)
    assert g["persistence_length_crw"] is None and g["sinuosity"] is None
    assert g["persistence_length_acf_censored"] is True


def test_common_column_spellings_and_explicit_columns(tmp_path, capsys):
    rows = circles(particles=2)
    write_csv(tmp_path / "plain.csv", rows)
    spelled = {"TrackId": rows["particle"], "Time": rows["t"], "X": rows["x"], "Y": rows["y"]}
    spelled["group"] = rows["group"]
    write_csv(tmp_path / "spelled.csv", spelled)
    odd = {"fish": rows["particle"], "when": rows["t"], "east": rows["x"], "north": rows["y"]}
    odd["group"] = rows["group"]
    write_csv(tmp_path / "odd.csv", odd)
    assert main(["stats", "--tracks", str(tmp_path / "plain.csv"), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["groups"]
    assert main(["stats", "--tracks", str(tmp_path / "spelled.csv"), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["groups"] == plain
    assert "wander3d: columns: particle=TrackId, t=Time, x=X, y=Y\n" in captured.err
    mapping = "particle=fish,t=When,x=east,y=north"  # names ignore case
    assert (
        main(["stats", "--tracks", str(tmp_path / "odd.csv"), "--json", "--columns", mapping]) == 0
    )
    assert json.loads(capsys.readouterr().out)["groups"] == plain
    assert main(["stats", "--tracks", str(tmp_path / "odd.csv")]) == 2
    assert (
        "no column 'x' (its columns: fish, when, east, north, group); name it with "
        "--columns" in capsys.readouterr().err
    )
    assert main(["stats", "--tracks", str(tmp_path / "odd.csv"), "--columns", "who=fish"]) == 2
    assert "--columns 'who' is not a role" in capsys.readouterr().err


def test_a_backwards_time_stamp_is_refused_naming_track_and_lines(tmp_path, capsys):
    path = tmp_path / "back.csv"
    path.write_text("particle,t,x,y\n1,0,0,0\n2,0,5,5\n1,0.2,1,0\n1,0.1,2,0\n1,0.3,3,0\n")
    assert main(["stats", "--tracks", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "line 5: particle 1's t = 0.1 is earlier than t = 0.2 on line 4" in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("particle,t,y\n1,0,2\n", "no column 'x' (its columns: particle, t, y)"),
        ("particle,x,y\n1,0,2\n", "no column 't' or 'frame'"),
        (
            "particle,frame,x,y\n1,0,0,2\n",
            "to time its 'frame' column, give the seconds per frame (dt) with --dt S",
        ),
        ("particle,t,x,y\n1,0,0,2\n1,0.1,0,2\n1,0.2,abc,2\n", "line 4: x is 'abc', not a number"),
        ("particle,t,x,y\n1,,0,2\n1,,1,2\n", "every t is missing (empty or NaN)"),
        ("particle,t,x,y\n1,0,0,2\n1,0.1,inf,2\n", "line 3: x is inf, not a finite number"),
        ("particle,t,x,y\n1,0,0,2\n1,inf,0,2\n", "line 3: t is inf, not a finite number"),
        ("particle,t,x,y\n1,0,0,2\n1,0.1,1,2\n1,0.1,2,2\n", "particle 1 has two rows at t = 0.1"),
        ("particle,t,x,y\n1,0,0,2\n1,0.1,1,2\n", "the metrics need at least 2 sample"),
        ("particle,t,x,y\n1,0,0,2\n1,0.1,1,2,7\n", "line 3: 5 fields where the header has 4"),
    ],
)
def test_bad_tracks_are_one_line_naming_the_column_or_row(tmp_path, capsys, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    assert main(["stats", "--tracks", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wander3d: error: --tracks {path}") and message in err, err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["stats", "--tracks", "TMP/t.xyz"], "must be a .csv (.tsv, .txt, .csv.gz) or .parquet"),
        (["stats", "--tracks", "TMP/none.csv"], "no such file"),
        (["stats", "compare", "--tracks", "TMP/t.txt"], "not both"),
        (["stats", "--tracks", "TMP/t.txt", "--seconds", "3"], "--seconds does not apply"),
        (["stats", "compare", "--dt", "0.1"], "--dt applies to --tracks only"),
        (["stats"], "give a SCENE"),
    ],
)
def test_bad_requests(tmp_path, capsys, args, message):
    (tmp_path / "t.txt").write_text("particle,t,x,y\n")
    (tmp_path / "t.xyz").write_text("particle,t,x,y\n")
    args = [a.replace("TMP", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_sampling_faster_than_the_fixes_is_pointed_out(tmp_path, capsys):
    rows = circles(particles=2)
    write_csv(tmp_path / "npcs.csv", rows)
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv"), "--sample-rate", "60"]) == 0
    assert "the samples between fixes lie on straight lines" in capsys.readouterr().err


def test_sampling_slower_than_the_fixes_is_pointed_out(tmp_path, capsys):
    # Fixes every 25 to 50 ms (median 37.5 ms, 26.7 Hz): the default 10 Hz takes one in about
    # three, and turn rates measured so are not the tracks' own.
    write_csv(tmp_path / "npcs.csv", circles(particles=2))
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv")]) == 0
    (note,) = [line for line in capsys.readouterr().err.splitlines() if "sampled at" in line]
    assert re.fullmatch(
        r"wander3d: the tracks have a fix every 0\.03\d+ s \(2[67]\.\d+ Hz, median\), sampled at "
        r"10 Hz: turn rates and twitchiness depend on the sample rate; --sample-rate 2[67]\.\d+ "
        r"measures at the fixes' own rate",
        note,
    ), note
    # At 20 Hz the fixes are not 1.5 times faster: no note either way.
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv"), "--sample-rate", "20"]) == 0
    assert "fix every" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "magic"),
    [("npcs.png", b"\x89PNG\r\n\x1a\n"), ("npcs.SVG", b"<?xml"), ("npcs.pdf", b"%PDF-")],
)
def test_tracks_plot_in_the_format_its_name_asks(tmp_path, capsys, name, magic):
    write_csv(tmp_path / "npcs.csv", circles())
    plot = tmp_path / name
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv"), "--plot", str(plot)]) == 0
    assert plot.read_bytes().startswith(magic)


@pytest.mark.parametrize("name", ["npcs.jpg", "npcs.txt", "npcs"])
def test_a_plot_format_matplotlib_is_not_asked_for_is_refused(tmp_path, capsys, name):
    write_csv(tmp_path / "npcs.csv", circles())
    plot = tmp_path / name
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv"), "--plot", str(plot)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"wander3d: error: --plot {plot}: unknown format "
        f"{repr(plot.suffix) if plot.suffix else '(none)'}; use .png, .svg or .pdf\n"
    )
    assert not plot.exists()


def test_a_per_track_plot_of_many_tracks_keeps_its_legends_short(tmp_path, monkeypatch, recwarn):
    # 40 tracks, one curve each per panel: a legend of 40 lines covered every panel, outgrew
    # it, and matplotlib's "Tight layout not applied" warning leaked to stderr.
    from wander3d.analysis import plot

    figures = captured_figures(monkeypatch)
    write_csv(tmp_path / "npcs.csv", circles(particles=40, seconds=3.0))
    out = tmp_path / "npcs.png"
    args = ["stats", "--tracks", str(tmp_path / "npcs.csv"), "--per-track", "--plot", str(out)]
    assert main(args) == 0
    assert not [w for w in recwarn if "layout" in str(w.message)]
    (fig,) = figures
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        labels = [t.get_text() for t in legend.get_texts()]
        assert len(labels) == plot.LEGEND_ENTRIES
        assert labels[0].startswith("npc-") and labels[-1] == "and 29 more"
    assert out.read_bytes().startswith(b"\x89PNG")


def test_angle_plots_have_plain_ticks_not_a_symlog_block(tmp_path, monkeypatch):
    figures = captured_figures(monkeypatch)
    write_csv(tmp_path / "npcs.csv", circles())
    out = tmp_path / "npcs.png"
    assert main(["stats", "--tracks", str(tmp_path / "npcs.csv"), "--plot", str(out)]) == 0
    (fig,) = figures
    for ax in fig.axes[4:6]:  # the turn and lift angle distributions
        assert ax.get_xscale() == "asinh"
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert "0" in labels and "\u221230" in labels and "180" in labels
        assert not any("10^" in label or "$" in label for label in labels)


def test_image_coordinates_with_y_down_turn_as_the_video_shows(tmp_path, capsys):
    """Walks biased to turn left (counterclockwise, y up) written as a tracker of video writes
    them, y down (row 0 at the top): read as they are, the turns are mirrored (a note says
    so and names --y-down); with --y-down they measure exactly as the walks do."""
    walks = crw_2d(3, 400, seed=6)
    walks_csv(tmp_path / "up.csv", walks, 0.0)
    walks_csv(tmp_path / "down.csv", [xy * [1.0, -1.0] + [0.0, 480.0] for xy in walks], 0.0)
    docs = {}
    for name, extra in (("up", []), ("down", []), ("down", ["--y-down"])):
        path = str(tmp_path / f"{name}.csv")
        assert main(["stats", "--tracks", path, "--json", *extra]) == 0
        captured = capsys.readouterr()
        docs[name, bool(extra)] = json.loads(captured.out)["groups"][0]
        if extra:
            assert "2D tracks with y down (image coordinates)" in captured.err
        else:
            assert "2D tracks taken as y up, seen from above (--y-down for image" in captured.err
    up, mirrored, flipped = docs["up", False], docs["down", False], docs["down", True]
    assert up["mean_sin_turn"] > 0.02
    assert mirrored["mean_sin_turn"] == pytest.approx(-up["mean_sin_turn"], rel=1e-9)
    for key, value in up.items():
        if isinstance(value, float):
            assert flipped[key] == pytest.approx(value, rel=1e-6, abs=1e-9), key
    turns = {key: doc["curves"]["turn_angle_counts"] for key, doc in docs.items()}
    assert turns["down", True] == turns["up", False] != turns["down", False]


def test_y_down_is_refused_for_3d_tracks(tmp_path, capsys):
    rows = straight("a", 3.0, 10.0)
    rows["z"] = [0.5 * x for x in rows["x"]]
    write_csv(tmp_path / "3d.csv", rows)
    assert main(["stats", "--tracks", str(tmp_path / "3d.csv"), "--y-down"]) == 2
    err = capsys.readouterr().err
    assert "y down (image coordinates) applies to 2D (x, y) tracks; these are 3D; --up z" in err
