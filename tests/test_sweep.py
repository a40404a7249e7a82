"""`wander3d sweep`: sweep files, cells, Dask execution, identical tables, resuming after a kill.

Dask clusters take seconds to start on a small machine, so only two tests start real worker
processes (byte-identical tables at 1 and 2 workers, and the kill); the rest use threads or no
cluster at all.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from scene_support import REPO
from scene_support import wander3d_cmd as wander3d

from wander3d.analysis import GroupStats
from wander3d.cli import main
from wander3d.scene import load_scene
from wander3d.sweep import (
    SweepError,
    execute,
    load_sweep,
    open_client,
    parse_key_path,
    run_sweep,
    store,
)
from wander3d.sweep.execute import measure
from wander3d.sweep.plot import write_atlas
from wander3d.sweep.spec import cell_id

#: 12 cells of 20 agents for 3 s: a second or two of work on two cores.
SMALL = """
[sweep]
scene = "default"
seeds = 2
seconds = 3
[sweep.set]
groups.count = 20
[[sweep.vary]]
key = "groups.wander.jitter"
values = [2, 10, 40]
[[sweep.vary]]
key = "groups.wander.radius"
range = [4, 16]
count = 2
scale = "log"
"""


def write(folder: Path, text: str, name: str = "sweep.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- sweep files ---------------------------------------------------------------------------


def test_cells_are_the_product_of_the_values_times_the_seeds(tmp_path):
    sweep = load_sweep(write(tmp_path, SMALL))
    assert [a.key.text for a in sweep.axes] == ["groups.wander.jitter", "groups.wander.radius"]
    assert sweep.axes[1].values == (4.0, 16.0)
    assert len(sweep.cells) == 3 * 2 * 2
    first = sweep.cells[0]
    assert first.values == (2.0, 4.0)
    assert [c.seed for c in sweep.cells[:2]] == [7, 8]  # the default scene's seed is 7
    group = first.scene.groups[0]
    assert (group.count, group.wander.jitter, group.wander.radius) == (20, 2.0, 4.0)
    # Everything not varied or set is the base scene's.
    base = load_scene(REPO / "scenes" / "default.toml")
    assert group.max_speed == base.groups[0].max_speed
    assert first.scene.enclosure == base.enclosure


def test_the_scene_can_be_a_file_beside_the_sweep_file(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    text = (REPO / "scenes" / "default.toml").read_text().replace("seed = 7", "seed = 40")
    (folder / "mine.toml").write_text(text)
    sweep = load_sweep(write(folder, SMALL.replace('"default"', '"mine.toml"')))
    assert sweep.cells[0].seed == 40 and sweep.base.source == folder / "mine.toml"


def test_log_and_linear_ranges(tmp_path):
    text = SMALL.replace("range = [4, 16]\ncount = 2", "range = [1, 100]\ncount = 3")
    assert load_sweep(write(tmp_path, text)).axes[1].values == (1.0, 10.0, 100.0)
    linear = text.replace('scale = "log"', 'scale = "linear"')
    assert load_sweep(write(tmp_path, linear)).axes[1].values == (1.0, 50.5, 100.0)


def test_one_group_key_changes_that_group_only(tmp_path):
    text = """
[sweep]
scene = "compare"
seconds = 2
[[sweep.vary]]
key = "groups[1].wander.rate"
values = [0.5, 2]
"""
    sweep = load_sweep(write(tmp_path, text))
    base = load_scene(REPO / "scenes" / "compare.toml")
    scene = sweep.cells[1].scene
    assert scene.groups[1].wander.rate == 2.0
    assert scene.groups[0] == base.groups[0] and scene.groups[2:] == base.groups[2:]


def test_cell_ids_hash_the_scene_the_seed_and_the_measurement(tmp_path):
    sweep = load_sweep(write(tmp_path, SMALL))
    ids = [c.id for c in sweep.cells]
    assert len(set(ids)) == len(ids)
    again = load_sweep(write(tmp_path, SMALL.replace("seeds = 2", "seeds = 3"), "other.toml"))
    # Same scenes, same seeds: same ids, whatever else the sweep holds.
    assert set(ids) < {c.id for c in again.cells}
    scene = sweep.cells[0].scene
    assert cell_id(scene, 3.0, 10.0) == ids[0]
    assert cell_id(scene, 4.0, 10.0) != ids[0]
    assert cell_id(scene.replace(seed=scene.seed + 1), 3.0, 10.0) != ids[0]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("seeds = 2", "seeds = 0"), "sweep.toml: sweep.seeds: expected a whole number"),
        (("seconds = 3", "secnds = 3"), "sweep.secnds: unknown key, did you mean 'seconds'?"),
        (
            ('scene = "default"', 'scene = "nope"'),
            "nope and no bundled scene 'nope' (compare, default",
        ),
        (("groups.wander.jitter", "groups.wander.jiter"), "did you mean 'jitter'?"),
        (("groups.wander.jitter", "groups[3].wander.jitter"), "the scene has 1 group"),
        (("values = [2, 10, 40]", "values = [2, 10, 2]"), "sweep.vary[0].values: 2.0 appears"),
        (("range = [4, 16]", "range = [-4, 16]"), "sweep.vary[1].range: a log scale needs"),
        (("count = 2", "count = 1"), "sweep.vary[1].count: expected a whole number from 2"),
        (('"groups.wander.radius"', '"groups.wander.jitter"'), "overlaps 'groups.wander.jitter'"),
        (
            ("values = [2, 10, 40]", "values = [2, -10]"),
            "sweep.toml: cell 2 (groups.wander.jitter = -10.0, groups.wander.radius = 4.0, "
            "seed 7): groups[0].wander.jitter: -10.0 is out of range",
        ),
        (("groups.count = 20", "groups.count = 0"), "sweep.set: groups[0].count:"),
        (("[sweep.set]", "[sweep.setting]"), "sweep.setting: unknown key"),
        # A table where a value goes (it ended in "TypeError: unhashable type: 'dict'").
        (
            ("values = [2, 10, 40]", "values = [{jitter = 2}, 10]"),
            "sweep.vary[0].values: {jitter = 2} is a table, not a value of "
            "'groups.wander.jitter'; vary one key per [[sweep.vary]]",
        ),
        (("values = [2, 10, 40]", "values = [[2, {a = 1}]]"), "[2, {a = 1}] holds a table"),
    ],
)
def test_bad_sweep_files_name_the_file_the_key_and_the_cell(tmp_path, change, expected):
    path = write(tmp_path, SMALL.replace(*change))
    with pytest.raises(SweepError) as e:
        load_sweep(path)
    message = str(e.value)
    assert expected in message
    assert "\n" not in message and message.startswith(str(path))


def test_a_bad_sweep_file_is_one_error_line_and_exit_2(tmp_path, capsys):
    path = write(tmp_path, SMALL.replace("values = [2, 10, 40]", 'values = ["big"]'))
    assert main(["sweep", str(path), "--out", str(tmp_path / "a.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: ") and err.count("\n") == 1
    assert "cell 0" in err and "groups[0].wander.jitter" in err
    assert not (tmp_path / "a.parquet").exists()


def test_bad_out_and_plot_options_fail_before_running(tmp_path, capsys):
    path = write(tmp_path, SMALL)
    assert main(["sweep", str(path), "--out", str(tmp_path / "a.txt")]) == 2
    assert "a.txt: unknown format '.txt'; use .parquet, .pq or .csv" in capsys.readouterr().err
    assert main(["sweep", str(path), "--out", str(tmp_path / "no" / "a.csv")]) == 2
    assert f"folder {tmp_path / 'no'} does not exist" in capsys.readouterr().err
    three = SMALL + '[[sweep.vary]]\nkey = "groups.max_speed"\nvalues = [20, 40]\n'
    path = write(tmp_path, three)
    args = ["sweep", str(path), "--out", str(tmp_path / "a.csv"), "--plot", "x.png"]
    assert main(args) == 2
    assert "--plot draws one or two varied keys" in capsys.readouterr().err
    args = ["sweep", str(path), "--out", str(tmp_path / "a.csv"), "--plot", "atlas.jpg"]
    assert main(args) == 2
    assert "--plot atlas.jpg: unknown format '.jpg'; use .png" in capsys.readouterr().err


def test_key_paths():
    assert parse_key_path("groups[2].wander.radius").group == 2
    assert parse_key_path("enclosure.margin").table == "enclosure"
    for bad in ("camera.fov", "groups.name", "groups.wander", "wander.jitter", "groups[x].mass"):
        with pytest.raises(ValueError):
            parse_key_path(bad)


# --- running -------------------------------------------------------------------------------


def test_csv_table_sidecar_and_one_key_plot(tmp_path):
    """Threads, not processes: the table's content, the CSV format and the atlas."""
    text = SMALL.split('[[sweep.vary]]\nkey = "groups.wander.radius"')[0]
    sweep = load_sweep(write(tmp_path, text))
    out = tmp_path / "atlas.csv"
    with open_client(workers=2, processes=False) as client:
        result = run_sweep(sweep, out, client)
    assert (result.cells, result.ran, result.reused) == (6, 6, 0)
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    assert header[:4] == ["groups.wander.jitter", "seed", "cell_id", "group"]
    assert header[4:] == [f.name for f in dataclasses.fields(GroupStats)][1:]
    assert len(lines) == 1 + 6
    assert [line.split(",")[1] for line in lines[1:]] == ["7", "8"] * 3
    sidecar = json.loads((tmp_path / "atlas.csv.json").read_text())
    assert sidecar["sweep"] == text and sidecar["columns"] == header
    assert not store.parts_folder(out).exists()
    png = tmp_path / "atlas.png"
    with open(png, "wb") as f:
        write_atlas(f, result.table, ["groups.wander.jitter"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "atlas.svg"
    with open(svg, "wb") as f:
        write_atlas(f, result.table, ["groups.wander.jitter"], "svg")
    assert svg.read_bytes().startswith(b"<?xml")


@pytest.fixture(scope="module")
def one_worker_table(tmp_path_factory) -> tuple[Path, Path]:
    """The small sweep run by the CLI with one worker process: (sweep file, table)."""
    folder = tmp_path_factory.mktemp("one")
    path = write(folder, SMALL)
    result = wander3d("sweep", str(path), "--out", "one.parquet", "--workers", "1", cwd=folder)
    assert result.returncode == 0, result.stderr
    return path, folder / "one.parquet"


def test_two_workers_write_the_same_bytes_as_one(one_worker_table, tmp_path):
    path, one = one_worker_table
    args = ["sweep", str(path), "--out", "two.parquet", "--workers", "2", "--plot", "a.png"]
    result = wander3d(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "12 cells, running 12 on 2 workers" in result.stderr
    assert (tmp_path / "two.parquet").read_bytes() == one.read_bytes()
    table = pq.read_table(one)
    assert table.num_rows == 12
    assert table.schema.metadata[store.SWEEP_METADATA_KEY].decode() == SMALL
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_existing_cluster_writes_the_same_bytes(one_worker_table, tmp_path, capsys):
    """--scheduler: a cluster started elsewhere (here, threads in this process)."""
    from dask.distributed import LocalCluster

    path, one = one_worker_table
    out = tmp_path / "cluster.parquet"
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        args = ["sweep", str(path), "--out", str(out), "--scheduler", cluster.scheduler_address]
        assert main(args) == 0, capsys.readouterr().err
    assert out.read_bytes() == one.read_bytes()


def test_a_bad_scheduler_address_is_one_error_line(tmp_path, capsys):
    path = write(tmp_path, SMALL)
    args = ["sweep", str(path), "--out", str(tmp_path / "a.parquet"), "--scheduler", "nowhere"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: --scheduler nowhere: cannot connect")
    assert err.count("\n") == 1


def test_a_killed_sweep_resumes_without_recomputing_finished_cells(tmp_path, monkeypatch):
    """SIGKILL the whole sweep (workers too) once part files exist; the rerun runs exactly the
    cells not in them, and kept and new rows alike are what the cells measure."""
    # 144 cells of 300 agents for 40 s: several seconds of work even for cells at engine
    # speed, so the kill comes mid-way (parts are flushed about every store.FLUSH_SECONDS).
    big = SMALL.replace("seeds = 2", "seeds = 24").replace(
        "groups.count = 20", "groups.count = 300"
    )
    path = write(tmp_path, big.replace("seconds = 3", "seconds = 40"))
    out = tmp_path / "atlas.parquet"
    parts = store.parts_folder(out)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "wander3d", "sweep", str(path), "--out", str(out), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the kill reaches the workers
    )
    try:
        deadline = time.monotonic() + 240
        while not list(parts.glob("part-*.parquet")) and time.monotonic() < deadline:
            assert process.poll() is None, "the sweep ended before it could be killed"
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    sweep = load_sweep(path)
    kept = store.read_parts(parts, store.cell_groups(sweep))
    assert 0 < len(kept) < len(sweep.cells)
    assert not out.exists()

    submitted: list[str] = []
    real_run_tasks = execute.run_tasks

    def counting(client, tasks, *args, **kwargs):
        tasks = list(tasks)
        submitted.extend(key for key, _ in tasks)
        return real_run_tasks(client, tasks, *args, **kwargs)

    monkeypatch.setattr(execute, "run_tasks", counting)
    with open_client(workers=2, processes=False) as client:
        result = run_sweep(sweep, out, client)
    assert sorted(submitted) == sorted(c.id for c in sweep.cells if c.id not in kept)
    assert (result.reused, result.ran) == (len(kept), len(sweep.cells) - len(kept))
    assert not parts.exists()
    # A kept cell and a new one hold exactly what measuring them now gives.
    rows = pq.read_table(out).to_pylist()
    old = next(c for c in sweep.cells if c.id in kept)
    new = next(c for c in sweep.cells if c.id not in kept)
    for cell in (old, new):
        (row,) = [r for r in rows if r["cell_id"] == cell.id]
        (stats,) = measure(cell.scene, sweep.seconds, sweep.sample_rate)
        assert row["mean_turn_rate"] == stats.mean_turn_rate
        assert row["persistence"] == stats.persistence


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_finished_sweep_rerun_or_extended_runs_only_the_cells_its_table_lacks(
    tmp_path, monkeypatch, suffix
):
    """The table itself holds the finished cells: a rerun measures nothing, an extended
    sweep only its new cells, and the table is what measuring them all afresh writes."""
    text = SMALL.split('[[sweep.vary]]\nkey = "groups.wander.radius"')[0]  # 6 cells
    extended = text.replace("values = [2, 10, 40]", "values = [2, 10, 40, 80]")  # 8 cells
    submitted: list[list[str]] = []
    real_run_tasks = execute.run_tasks

    def counting(client, tasks, *args, **kwargs):
        tasks = list(tasks)
        submitted.append([key for key, _ in tasks])
        return real_run_tasks(client, tasks, *args, **kwargs)

    monkeypatch.setattr(execute, "run_tasks", counting)
    out, fresh = tmp_path / f"atlas{suffix}", tmp_path / f"fresh{suffix}"
    with open_client(workers=2, processes=False) as client:
        runs = [
            run_sweep(load_sweep(write(tmp_path, sweep_text)), out, client)
            for sweep_text in (text, text, extended)
        ]
        run_sweep(load_sweep(write(tmp_path, extended)), fresh, client)
    assert [(r.ran, r.reused) for r in runs] == [(6, 0), (0, 6), (2, 6)]
    new = {c.id for c in load_sweep(write(tmp_path, extended)).cells} - set(submitted[0])
    assert submitted[1] == [] and sorted(submitted[2]) == sorted(new)
    assert out.read_bytes() == fresh.read_bytes()
    # A table that cannot be read (or lacks today's columns) is measured again.
    out.write_text("not a table\n", encoding="utf-8")
    with open_client(workers=2, processes=False) as client:
        again = run_sweep(load_sweep(write(tmp_path, extended)), out, client)
    assert (again.ran, again.reused) == (8, 0)
    assert out.read_bytes() == fresh.read_bytes()


def test_rerunning_a_finished_sweep_says_nothing_ran(tmp_path, capsys):
    from dask.distributed import LocalCluster

    path = write(tmp_path, SMALL.split('[[sweep.vary]]\nkey = "groups.wander.radius"')[0])
    out = tmp_path / "atlas.parquet"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False) as cluster:
        args = ["sweep", str(path), "--out", str(out), "--scheduler", cluster.scheduler_address]
        assert main(args) == 0
        assert "ran 6 cells" in capsys.readouterr().err
        assert main(args) == 0
    err = capsys.readouterr().err
    assert "6 cells (6 already measured in atlas.parquet or its parts), running 0" in err
    assert "every cell was measured before; 6 rows written to" in err


def test_each_task_checks_its_scene_fits_the_worker_it_runs_on(tmp_path, monkeypatch):
    """The client validates the sweep whatever its own memory; each task, on its worker, asks
    whether its scene fits there (threads here, so the pretend budget reaches the worker)."""
    monkeypatch.setattr("wander3d.scene.memory.memory_budget", lambda: (10_000, "a test budget"))
    cell = load_sweep(write(tmp_path, SMALL)).cells[0]
    with open_client(workers=1, processes=False) as client:
        with pytest.raises(execute.ClusterError) as info:
            execute.run_tasks(client, [(cell.id, cell.scene)], 1.0, 10.0, lambda *_: None)
    assert str(info.value).startswith(f"task {cell.id}, on its worker: 20 agents with ")
    assert "this machine allows (a test budget)" in str(info.value)


def test_atlas_axes_name_keys_with_units_and_mark_censored_persistence():
    import matplotlib.pyplot as plt
    import pyarrow as pa

    from wander3d.sweep.plot import CENSORED_MARK, atlas_figure, axis_title

    assert axis_title("groups.wander.jitter") == "wander jitter (units/√s)"
    assert axis_title("groups[1].max_speed") == "group 1 max speed (units/s)"
    assert axis_title("enclosure.margin") == "margin (units)"
    keys = ["groups.wander.jitter", "groups.wander.radius"]
    rows = [
        {keys[0]: j, keys[1]: r, "seed": 0, "group": "g", "mean_turn_rate": 20.0 + j,
         "twitchiness": 1.0, "persistence": 20.0 if (j, r) == (2.0, 8.0) else 3.0,
         "persistence_censored": (j, r) == (2.0, 8.0), "about_turns": 0.1,
         "wall_contact": 0.2}
        for j in (2.0, 10.0) for r in (2.0, 8.0)
    ]  # fmt: skip
    fig = atlas_figure(pa.Table.from_pylist(rows), keys)
    try:
        axes = fig.axes
        heat = [ax for ax in axes if ax.get_xlabel()]
        assert all(ax.get_xlabel() == "wander jitter (units/√s)" for ax in heat)
        assert all(ax.get_ylabel() == "wander radius (units)" for ax in heat)
        assert all(float(t.get_fontsize()) >= 9 for ax in heat for t in ax.get_xticklabels())
        persistence = next(ax for ax in heat if "persistence" in ax.get_title())
        marks = [t for t in persistence.texts if t.get_text() == CENSORED_MARK]
        assert [m.get_position() for m in marks] == [(0, 1)]  # jitter 2, radius 8 only
        assert "lower bound" in persistence.get_title()
        others = [ax for ax in heat if ax is not persistence]
        assert not any(t.get_text() == CENSORED_MARK for ax in others for t in ax.texts)
    finally:
        plt.close(fig)


def test_a_second_cluster_on_the_machine_prints_no_port_warning():
    """Two sweeps at once (or any Dask dashboard on 8787) made the second warn "Port 8787 is
    already in use" through stderr, into what tune and sweep print."""
    import socket
    import warnings

    from wander3d.sweep.execute import open_client

    busy = socket.socket()
    try:
        try:
            busy.bind(("", 8787))
            busy.listen()
        except OSError:
            pass  # already taken by something else: just as good
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with open_client(workers=1, processes=False):
                pass
        assert not [w for w in caught if "already in use" in str(w.message)]
    finally:
        busy.close()


def test_embedded_workers_keep_their_heap_top_and_glibcs_adaptive_thresholds():
    import dask

    with dask.config.set(
        {"distributed.nanny.pre-spawn-environ": {"MALLOC_TRIM_THRESHOLD_": 65536}}
    ):
        environ = execute._worker_environ()
    # A fixed trim threshold would fix the mmap threshold too (docs/performance.md, "Sweeps").
    assert "MALLOC_TRIM_THRESHOLD_" not in environ
    assert environ["MALLOC_TOP_PAD_"] == str(execute.WORKER_TOP_PAD)


def test_embedded_workers_run_no_profiler_for_a_dashboard_they_have_not():
    settings = execute._cluster_settings()
    assert settings["distributed.worker.profile.enabled"] is False
    assert "MALLOC_TOP_PAD_" in settings["distributed.nanny.pre-spawn-environ"]


#: Weeks of work: 2,000 runs of 300 agents for an hour of simulated time each.
HUGE = """
[sweep]
scene = "default"
seeds = 1000
seconds = 3600
[[sweep.vary]]
key = "groups.wander.jitter"
values = [2, 10]
"""


def _record_runs(monkeypatch) -> list[tuple]:
    """Make the sweep command's run a no-op that records its arguments; returns the record."""
    started: list[tuple] = []

    def run(*args):
        started.append(args)
        return 0

    monkeypatch.setattr("wander3d.commands.sweep._run", run)
    return started


def test_a_sweep_of_weeks_says_so_and_needs_yes_without_a_terminal(tmp_path, capsys, monkeypatch):
    started = _record_runs(monkeypatch)
    path = write(tmp_path, HUGE)
    out = tmp_path / "a.parquet"
    assert main(["sweep", str(path), "--out", str(out), "--workers", "2"]) == 2
    line = capsys.readouterr().err
    assert line.startswith(f"wander3d: error: {path}: 2,000 runs of 3600 s, ")
    assert "hours on 2 workers" in line and line.endswith("nothing started (--yes starts it)\n")
    assert started == [] and sorted(os.listdir(tmp_path)) == ["sweep.toml"]
    assert main(["sweep", str(path), "--out", str(out), "--workers", "2", "--yes"]) == 0
    assert len(started) == 1


@pytest.mark.parametrize(("answer", "status", "runs"), [("y\n", 0, 1), ("\n", 1, 0), ("", 1, 0)])
def test_a_sweep_of_weeks_asks_on_a_terminal(tmp_path, capsys, monkeypatch, answer, status, runs):
    class Terminal:
        def isatty(self) -> bool:
            return True

        def readline(self) -> str:
            return answer

    started = _record_runs(monkeypatch)
    monkeypatch.setattr(sys, "stdin", Terminal())
    path = write(tmp_path, HUGE)
    assert main(["sweep", str(path), "--out", str(tmp_path / "a.parquet")]) == status
    err = capsys.readouterr().err
    assert "Start it? [y/N] " in err
    assert len(started) == runs
    assert ("nothing started" in err) is (runs == 0)


def test_a_short_sweep_or_the_rest_of_a_long_one_starts_without_asking(tmp_path, monkeypatch):
    from wander3d.commands import sweep as command

    sweep = load_sweep(write(tmp_path, HUGE))
    out = tmp_path / "a.parquet"
    cells, steps, seconds = command.estimate(sweep, out, 2)
    assert cells == 2000 and steps == 2000 * 300 * round(3600 / sweep.base.dt)
    assert seconds == pytest.approx(steps / command.AGENT_STEPS_PER_WORKER_S / 2)
    # All but one cell measured already (in the parts): one run is left, and no question.
    monkeypatch.setattr(command, "_measured", lambda sweep, out: {c.id for c in sweep.cells[1:]})
    assert command.estimate(sweep, out, 2)[0] == 1
    assert command._confirmed(sweep, out, 2, None)
