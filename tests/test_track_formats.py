"""The field's track files read as they are (docs/tracks/): a Movebank CSV export, trackpy's
linked DataFrame saved to CSV and a tracker's NaN-gapped export; and wander3d's MSD against
trackpy's on ragged tracks far from the origin."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from plot_support import captured_figures
from scene_support import REPO

from wander3d import cli

EXAMPLES = REPO / "docs" / "tracks"


def run(args: list[str], capsys) -> tuple[dict, str]:
    assert cli.main(["stats", "--json", *args]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_a_movebank_export_is_projected_to_metres(capsys):
    from pyproj import Geod

    doc, err = run(["--tracks", str(EXAMPLES / "movebank.csv"), "--sample-rate", "0.05"], capsys)
    assert "columns: particle=individual-local-identifier, t=timestamp" in err
    assert "longitude/latitude measured in metres in each track's own frame" in err
    assert "pyproj" in err
    counts = doc["track_counts"]
    assert counts["fixes"] == 362 and counts["missing"] == 5 and counts["gaps"] == 1
    # The mean step between fixes (one a minute) is the geodesic distance between them.
    rows = [line.split(",") for line in (EXAMPLES / "movebank.csv").read_text().splitlines()[1:]]
    fixes = [(r[-2], float(r[3]), float(r[4])) for r in rows if r[3]]
    geod = Geod(ellps="WGS84")
    steps = [
        geod.inv(a[1], a[2], b[1], b[2])[2] for a, b in itertools.pairwise(fixes) if a[0] == b[0]
    ]
    # Steps across the split gap are not steps; sampled at 20 s, each fix-to-fix minute is 3.
    seconds = (counts["samples"] - counts["tracks"]) * 20.0
    assert doc["groups"][0]["mean_speed"] == pytest.approx(
        (sum(steps) - _across_gap(fixes, geod)) / seconds, rel=0.01
    )


def _across_gap(fixes, geod) -> float:
    """The distance of the one step across the lost fixes of Stork-1 (events 50-52)."""
    stork = [f for f in fixes if f[0] == "Stork-1"]
    return geod.inv(stork[49][1], stork[49][2], stork[50][1], stork[50][2])[2]


def test_geographic_tracks_are_labelled_in_metres_others_in_units(tmp_path, capsys, monkeypatch):
    movebank = ["--tracks", str(EXAMPLES / "movebank.csv"), "--sample-rate", "0.05"]
    doc, _ = run(movebank, capsys)
    assert doc["length_unit"] == "m"
    units = doc["units"]
    assert units["mean_speed"] == "m/s" and units["mean_step"] == "m"
    assert units["sinuosity"] == "m^-1/2" and units["mean_turn_rate"] == "deg/s"
    trackpy, _ = run(["--tracks", str(EXAMPLES / "trackpy.csv"), "--fps", "25"], capsys)
    assert trackpy["length_unit"] == "units" and trackpy["units"]["mean_speed"] == "units/s"

    figures = captured_figures(monkeypatch)
    assert cli.main(["stats", *movebank, "--plot", str(tmp_path / "storks.png")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[:2] == ["m/s", "deg/s"]
    assert table[-2].split() == ["m", "m", "m", "m^-1/2", "m^-1/2"]
    assert "units" not in "\n".join(table)
    assert figures[0].axes[3].get_ylabel() == "MSD (m^2, log scale)"


def test_trackpy_csv_with_fps_is_timed_by_its_frames(tmp_path, capsys):
    by_fps, err = run(["--tracks", str(EXAMPLES / "trackpy.csv"), "--fps", "25"], capsys)
    by_dt, _ = run(["--tracks", str(EXAMPLES / "trackpy.csv"), "--dt", "0.04"], capsys)
    assert by_fps["groups"] == by_dt["groups"] and by_fps["track_counts"]["tracks"] == 4
    assert "columns:" not in err  # frame, particle, x, y: trackpy's own names


def test_a_trackers_nan_gaps_are_missing_fixes(capsys):
    doc, err = run(["--tracks", str(EXAMPLES / "tracker_nan.csv"), "--fps", "30"], capsys)
    assert "columns: particle=TrackId, frame=Frame, x=X, y=Y" in err
    counts = doc["track_counts"]
    assert counts["missing"] > 0 and counts["gaps"] > 0
    assert counts["fixes_used"] <= counts["fixes"] - counts["missing"]


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trackpy, on pandas 3
def test_msd_agrees_with_trackpy_on_ragged_nan_gapped_tracks_far_away(tmp_path, capsys):
    """Ragged tracks at UTM-sized coordinates, two with fixes lost (NaN): wander3d splits them
    at the gaps, and its pooled MSD equals trackpy's per-track MSDs of the pieces, pooled pair
    by pair (trackpy's emsd weighs tracks by an effective count of independent pairs)."""
    pd = pytest.importorskip("pandas")
    tp = pytest.importorskip("trackpy")
    rng = np.random.default_rng(7)
    rows: list = []  # pandas DataFrames, as trackpy takes them
    pieces: list = []
    for particle in range(6):
        n = 150 + 70 * particle
        heading = np.cumsum(rng.normal(0, 0.2, n))
        xy = np.cumsum(np.stack([np.cos(heading), np.sin(heading)], 1), 0)
        lost = np.zeros(n, dtype=bool)
        if particle in (2, 4):
            lost[60 : 60 + 5 * particle] = True  # 10 or 20 frames without a fix
        far = xy + np.array([5.2e5, 5.1e6])
        far[lost] = np.nan
        rows.append(
            pd.DataFrame(
                {"frame": np.arange(n), "particle": particle, "x": far[:, 0], "y": far[:, 1]}
            )
        )
        # The pieces between the gaps, near the origin: trackpy's own FFT MSD loses digits
        # far from it (wander3d centres the positions first).
        piece = np.cumsum(np.diff(np.concatenate([[True], lost])) != 0)
        for k in np.unique(piece[~lost]):
            keep = ~lost & (piece == k)
            pieces.append(
                pd.DataFrame(
                    {
                        "frame": np.arange(keep.sum()),
                        "particle": len(pieces),
                        "x": xy[keep, 0],
                        "y": xy[keep, 1],
                    }
                )
            )
    path = tmp_path / "linked.csv"
    pd.concat(rows, ignore_index=True).to_csv(path, float_format="%.10f")
    doc, _ = run(["--tracks", str(path), "--fps", "10"], capsys)
    assert doc["track_counts"]["gaps"] == 2 and doc["track_counts"]["tracks"] == 8
    ours = np.array(doc["groups"][0]["curves"]["msd_units2"])
    m = len(ours) - 1
    split = pd.concat(pieces, ignore_index=True)
    imsd = tp.imsd(split, mpp=1.0, fps=10.0, max_lagtime=m).to_numpy()  # (lags, pieces)
    lengths = split.groupby("particle").size().to_numpy()
    pairs = np.maximum(lengths[None, :] - np.arange(1, m + 1)[:, None], 0)
    theirs = np.where(pairs > 0, imsd * pairs, 0.0).sum(axis=1) / pairs.sum(axis=1)
    np.testing.assert_allclose(ours[1:], theirs, rtol=1e-4)
