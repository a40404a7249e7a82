"""Damaged inputs of every kind wander3d reads: a clean error or a sane result, never a
traceback, a hang or a wrong answer.

A fixed, seeded corpus of each kind (tests/fuzz_inputs.py: truncated and tampered Parquet,
CSV and JSON, wrong types, NaN and infinities, huge or negative ids, unsorted or duplicate
times, non-UTF-8, empty files, enormous grids, foreign records), kept small so the suite
stays fast; `benchmarks/fuzz.py` runs thousands of the same cases. The cases that found bugs
are pinned by number, and a few properties are checked on good files directly.
"""

from __future__ import annotations

import random

import pytest
from fuzz_inputs import KINDS, make_case, make_runs, run_case

from wander3d.analysis.tracks import TracksError, read_tracks
from wander3d.cli import main
from wander3d.export import ExportError

#: Cases per kind in the suite (benchmarks/fuzz.py: 1,000 and more).
CASES = 40
#: Cases that once ended in a traceback or an allocation of petabytes (see the history).
FOUND = {
    "tracks": (39, 68, 91, 278, 359, 3741, 3988),
    "sweep": (526, 868),
    "replay": (37,),
    "scene": (),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return make_runs(tmp_path_factory.mktemp("runs"))


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_inputs_are_clean_errors_or_sane_results(kind, runs, tmp_path):
    bad = []
    for i in sorted({*range(CASES), *FOUND[kind]}):
        folder = tmp_path / str(i)
        folder.mkdir()
        outcome = run_case(kind, make_case(kind, i, folder, runs))
        if outcome.kind not in ("sane", "error"):
            bad.append(f"{kind} #{i}: {outcome.kind}: {outcome.detail}")
    assert bad == []


def good_tracks(seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    rows = []
    for p in (7, -2, 10**15):  # any ids, huge and negative too
        x = y = 0.0
        for k in range(30):
            x, y = x + rng.uniform(-1, 1), y + rng.uniform(-1, 1)
            rows.append(f"{p},{k * 0.1:.2f},{x:.5f},{y:.5f}")
    return rows


def measure(path, capsys) -> str:
    assert main(["stats", "--tracks", str(path), "--json"]) == 0
    return capsys.readouterr().out


def interleaved(rows: list[str], rng: random.Random) -> list[str]:
    """`rows` with the particles' rows interleaved at random, each particle's kept in time
    order (as trackers write them frame by frame; a time that goes back is refused)."""
    queues: dict[str, list[str]] = {}
    for row in rows:
        queues.setdefault(row.split(",")[0], []).append(row)
    mixed = []
    while queues:
        particle = rng.choice(sorted(queues))
        mixed.append(queues[particle].pop(0))
        if not queues[particle]:
            del queues[particle]
    return mixed


def test_row_order_does_not_change_the_measure(tmp_path, capsys):
    rows = good_tracks()
    shuffled = interleaved(rows, random.Random(1))
    assert shuffled != rows
    tables = []
    for name, order in (("a", rows), ("b", shuffled)):
        (tmp_path / name).mkdir()
        path = tmp_path / name / "t.csv"  # the same name: the group is named after it
        path.write_text("particle,t,x,y\n" + "\n".join(order) + "\n")
        tables.append(measure(path, capsys).replace(str(path), "T"))
    assert tables[0] == tables[1]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda rows: [*rows[:6], rows[5], *rows[6:]], "line 8: repeats line 7 (particle 7"),
        (lambda rows: [*rows, rows[5]], "t = 0.5 is earlier than t = 2.9"),
        (lambda rows: [",".join([r.split(",")[0], "nan", *r.split(",")[2:]]) for r in rows],
         "every t is missing (empty or NaN)"),
        (lambda rows: [rows[0].replace(",0.00,", ",inf,"), *rows[1:]], "t is inf"),
        (lambda rows: [*rows[:3], "7,0.30,1e300,0", *rows[4:]], "x is 1e+300, beyond ±1e+15"),
        (lambda rows: [f"{r.split(',')[0]},{float(r.split(',')[1]) * 1e12},"
                       + ",".join(r.split(",")[2:]) for r in rows], "use a lower sample rate"),
        (lambda rows: [], "no rows"),
    ],
)  # fmt: skip
def test_bad_tracks_are_one_line_naming_the_file(tmp_path, capsys, change, problem):
    path = tmp_path / "t.csv"
    path.write_text("particle,t,x,y\n" + "\n".join(change(good_tracks())) + "\n")
    with pytest.raises(TracksError) as info:
        read_tracks(path, 10.0)
    assert str(info.value).startswith(str(path))
    assert problem in str(info.value)
    assert "\n" not in str(info.value)


def test_non_utf8_and_empty_files_are_clean_errors(tmp_path):
    (tmp_path / "latin.csv").write_bytes(b"particle,t,x,y\n\xe9,0,0,0\n\xe9,1,1,1\n\xe9,2,2,2\n")
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "empty.parquet").write_bytes(b"")
    for name in ("latin.csv", "empty.csv", "empty.parquet"):
        with pytest.raises((TracksError, ExportError), match=name):  # ExportError: its record
            read_tracks(tmp_path / name, 1.0)
