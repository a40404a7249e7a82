"""Outputs and inputs on a bad day: a full disk, a killed writer's leftovers, directories,
FIFOs and devices where files belong, a missing CSV record, a sample rate a run's file does
not hold. Each is one `wander3d: error:` line naming the file and exit status 2, with
nothing left behind.

A full disk is simulated with RLIMIT_FSIZE in a child process (writes past the limit fail
with EFBIG, as they fail with ENOSPC on a full disk): it needs no root and no mount.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from scene_support import REPO

from wander3d.cli import main
from wander3d.files import output_file, remove_stale_temporaries
from wander3d.sweep import SweepError, load_sweep

SWEEP = """
[sweep]
scene = "default"
seeds = 2
seconds = 2
[sweep.set]
groups.count = 20
[[sweep.vary]]
key = "groups.wander.jitter"
values = [2, 10]
"""


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert lines and lines[-1].startswith("wander3d: error: "), err
    return lines[-1]


def limited(args: list[str], cwd: Path, limit: int) -> subprocess.CompletedProcess:
    """Run wander3d with files limited to `limit` bytes (a disk that fills up)."""

    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "wander3d", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=limit_files,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- a full disk --------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def compiled_code_cached() -> None:
    """The kernel and the path measures compiled into numba's cache, as the limited runs
    below import them, before any disk fills up: numba writes its cache beside the code and
    fails on a full disk, and these tests are about wander3d's own files."""
    warm = (
        "from wander3d.engine.warmup import compile_kernel; "
        "from wander3d.analysis.sums import compile_passes; compile_kernel(); compile_passes()"
    )
    subprocess.run(
        [sys.executable, "-c", warm],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
        timeout=300,
    )


@pytest.mark.parametrize("name", ["x.csv", "x.parquet", "x.npz"])
def test_a_full_disk_names_the_trajectory_and_leaves_nothing(tmp_path, name):
    done = limited(["run", "default", "--seconds", "3", "--out", name], tmp_path, 64 * 1024)
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    assert line.startswith(f"wander3d: error: --out {name}: cannot write: ")  # not the sidecar
    assert os.listdir(tmp_path) == []


def test_a_full_disk_stops_a_sweep_with_one_line_and_leaves_nothing(tmp_path):
    (tmp_path / "s.toml").write_text(SWEEP, encoding="utf-8")
    args = ["sweep", "s.toml", "--out", "a.parquet", "--workers", "1", "--timeout", "60"]
    done = limited(args, tmp_path, 2048)  # the lock file fits; no part file does
    assert done.returncode == 2
    assert one_error_line(done.stderr).startswith(
        "wander3d: error: --out a.parquet.parts: cannot write: "
    )
    assert os.listdir(tmp_path) == ["s.toml"]


# --- leftovers of killed writers ----------------------------------------------------------


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path):
    target = tmp_path / "out.csv"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".out.csv.wander3d-{dead.pid}-abcd1234.csv"
    live = tmp_path / f".out.csv.wander3d-{os.getpid()}-efgh5678.csv"  # a writer still at it
    other = tmp_path / f".other.csv.wander3d-{dead.pid}-abcd1234.csv"  # another output's
    for path in (stale, live, other):
        path.write_text("half", encoding="utf-8")
    with output_file(target) as temporary:
        assert temporary.name.startswith(f".out.csv.wander3d-{os.getpid()}-")
        temporary.write_text("whole", encoding="utf-8")
    assert target.read_text(encoding="utf-8") == "whole"
    assert not stale.exists() and live.exists() and other.exists()
    assert remove_stale_temporaries(tmp_path / "other.csv") == [other]


# --- wrong kinds of files -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "default", "--seconds", "1", "--out", "DIR"], "--out DIR: is a directory"),
        (["stats", "--tracks", "DIR"], "--tracks DIR: is a directory"),
        (["stats", "--tracks", "DIR.csv"], "--tracks DIR.csv: is a directory"),
        (["run", "--replay", "DIR.csv"], "--replay DIR.csv: is a directory"),
        (["run", "--replay", "FIFO.csv"], "--replay FIFO.csv: not a regular file"),
        (["stats", "--tracks", "FIFO.csv"], "--tracks FIFO.csv: not a regular file"),
        (["sweep", "FIFO.csv", "--out", "a.csv"], "FIFO.csv: not a regular file"),
        (["sweep", "/dev/zero", "--out", "a.csv"], "/dev/zero: not a regular file"),
        (["run", "--replay", "plain.csv"], "--replay plain.csv: a CSV's run record is beside "
         "it, in plain.csv.json, which does not exist"),
    ],
)  # fmt: skip
def test_directories_fifos_and_devices_are_named_for_what_they_are(
    tmp_path, monkeypatch, capsys, args, expected
):
    monkeypatch.chdir(tmp_path)
    os.mkdir("DIR")
    os.mkdir("DIR.csv")
    os.mkfifo("FIFO.csv")  # read as it is, it would block for ever
    Path("plain.csv").write_text("particle,t,x,y\n", encoding="utf-8")
    assert main(args) == 2
    assert one_error_line(capsys.readouterr().err) == f"wander3d: error: {expected}"


@pytest.mark.render
def test_a_directory_as_render_out_is_named(tmp_path, capsys):
    assert main(["render", "default", "--out", str(tmp_path)]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"wander3d: error: --out {tmp_path}: is a directory"
    )


def test_a_fifo_sweep_file_is_refused_without_opening_it_for_good(tmp_path):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    with pytest.raises(SweepError, match="not a regular file"):
        load_sweep(fifo)


# --- a run's own file at a rate it does not hold -------------------------------------------


def test_stats_tracks_on_a_run_file_gives_the_scenes_table_or_says_which_rates_do(tmp_path, capsys):
    run = tmp_path / "run.parquet"
    assert main(["run", "default", "--seconds", "6", "--sample-rate", "10", "--out", str(run)]) == 0
    capsys.readouterr()
    for rate in ("10", "5"):  # every 6 and every 12 steps: samples the file holds
        assert main(["stats", "--tracks", str(run), "--sample-rate", rate]) == 0
        tracks = capsys.readouterr().out
        assert main(["stats", "default", "--seconds", "6", "--sample-rate", rate]) == 0
        assert tracks == capsys.readouterr().out
    assert main(["stats", "--tracks", str(run), "--sample-rate", "7"]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"wander3d: error: --tracks {run}: holds every 6 steps of its run (10 Hz); at 7 Hz "
        "`stats SCENE` samples every 9 steps, which it does not hold; a sample rate of 10, 5 "
        "or 3.333 Hz (every 6, 12 or 18 steps) gives the scene's table"
    )
