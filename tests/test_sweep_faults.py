"""Sweeps on a bad day: real kills, a real Dask cluster on 127.0.0.1, servers that are not
Dask, Ctrl+C, two sweeps on one output. Each failure is one `wander3d: error:` line and exit
status 2 (130 for Ctrl+C) within a bounded time, and no finished cell is lost.

Real processes take seconds to start on a small machine, so the tests are few; each waits
for events (a line on stderr, a part file), never for a fixed time, and every wait has a
deadline well inside pytest's timeout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from scene_support import REPO

from wander3d.cli import main
from wander3d.sweep import load_sweep, store
from wander3d.sweep.lock import lock_path, output_lock

#: 300 cells of 300 agents for 20 s each: a minute or more of work on two cores, so a fault
#: comes while the sweep runs.
LONG = """
[sweep]
scene = "default"
seeds = 100
seconds = 20
[sweep.set]
groups.count = 300
[[sweep.vary]]
key = "groups.wander.jitter"
values = [2, 10, 40]
"""

SHORT = LONG.replace("seeds = 100", "seeds = 1").replace("seconds = 20", "seconds = 2")

#: The longest any one wait here may take (s): cluster start-up on two busy cores.
DEADLINE = 90.0
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def write_sweep(folder: Path, text: str = LONG) -> Path:
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(reply: bytes | None) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that accepts and then says nothing (reply None) or answers
    anything with `reply`; its address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if reply is not None:
                with contextlib.suppress(OSError):
                    conn.settimeout(1)
                    conn.recv(100)
                    conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def _default_sigint() -> None:
    """In the child: SIGINT as a terminal's program has it (a test run started in the
    background ignores it, which its children would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: list[str], **kwargs) -> subprocess.Popen:
    """A process in its own group (so a kill or a Ctrl+C reaches its children)."""
    return subprocess.Popen(
        args,
        env=ENV,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        preexec_fn=_default_sigint,
        **kwargs,
    )


def stop(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


class Cluster:
    """A dask scheduler and workers (no nanny: a killed worker stays dead) on 127.0.0.1."""

    def __init__(self, tmp_path: Path) -> None:
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.folder = tmp_path
        self.scheduler = start(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", self.address.rsplit(":", 1)[1], "--no-dashboard",
             "--idle-timeout", "600"],  # gone by itself if a killed test leaves it
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.workers: list[subprocess.Popen] = []

    def add_worker(self, preload: Path | None = None) -> subprocess.Popen:
        extra = ["--preload", str(preload)] if preload else []
        worker = start(
            [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--no-nanny",
             "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
             "--death-timeout", "60", *extra],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.workers.append(worker)
        return worker

    def wait_for_workers(self, n: int) -> None:
        from dask.distributed import Client

        with Client(self.address, timeout=DEADLINE, set_as_default=False) as client:
            client.wait_for_workers(n, timeout=DEADLINE)

    def close(self) -> None:
        for process in [*self.workers, self.scheduler]:
            stop(process)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.close()


def sweep_process(path: Path, out: Path, *options: str) -> subprocess.Popen:
    return start(
        [sys.executable, "-m", "wander3d", "sweep", str(path), "--out", str(out), *options],
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        if process is not None:
            assert process.poll() is None, "the sweep ended too early"
        time.sleep(0.02)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    """Exit status and stderr of a sweep, which must end by itself within DEADLINE."""
    try:
        _, err = process.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        stop(process)
        raise AssertionError("the sweep hung") from None
    return process.returncode, err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("wander3d: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err, err
    return lines[0]


# --- schedulers that cannot be used -------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (None, "no answer within 2 s"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 100, "not a Dask scheduler"),
    ],
)
def test_a_scheduler_that_is_silent_or_not_dask_is_one_line_in_bounded_time(
    tmp_path, capsys, reply, problem
):
    path = write_sweep(tmp_path, SHORT)
    out = tmp_path / "a.parquet"
    with server(reply) as address:
        args = ["sweep", str(path), "--out", str(out), "--scheduler", address, "--timeout", "2"]
        assert main(args) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"wander3d: error: --scheduler {address}: {problem}"
    )
    assert sorted(os.listdir(tmp_path)) == ["sweep.toml"]  # nothing left behind


def test_tls_without_tls_settings_says_what_is_missing(tmp_path, capsys):
    path = write_sweep(tmp_path, SHORT)
    args = ["sweep", str(path), "--out", str(tmp_path / "a.parquet")]
    assert main([*args, "--scheduler", "tls://127.0.0.1:1"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "tls:// needs Dask's TLS settings" in line


# --- a real cluster that fails --------------------------------------------------------------

#: A worker preload that hides wander3d, as on a worker where it is not installed.
NO_WANDER3D = """
import sys

class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "wander3d" or name.startswith("wander3d."):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Hide())
"""


def test_workers_without_wander3d_are_one_line_and_leave_nothing(tmp_path, cluster):
    preload = tmp_path / "hide_wander3d.py"
    preload.write_text(NO_WANDER3D, encoding="utf-8")
    cluster.add_worker(preload)
    cluster.wait_for_workers(1)
    path = write_sweep(tmp_path, SHORT)
    out = tmp_path / "a.parquet"
    code, err = finish(sweep_process(path, out, "--scheduler", cluster.address))
    assert code == 2
    assert "the cluster's workers cannot run wander3d" in one_error_line(err)
    assert "wander3d" in one_error_line(err).split("(", 1)[1]  # names the missing module
    assert sorted(os.listdir(tmp_path)) == ["hide_wander3d.py", "sweep.toml"]


def test_a_lost_worker_is_replaced_and_all_workers_gone_stops_keeping_the_cells(tmp_path, cluster):
    """Kill one of two workers mid-sweep: its task runs again on the other. Then kill that
    one too: the sweep says every worker is gone, within --timeout, and keeps its cells."""
    first, second = cluster.add_worker(), cluster.add_worker()
    cluster.wait_for_workers(2)
    path = write_sweep(tmp_path)
    out = tmp_path / "a.parquet"
    parts = store.parts_folder(out)
    sweep = sweep_process(path, out, "--scheduler", cluster.address, "--timeout", "3")
    wait_for(lambda: any(parts.glob("part-*.parquet")), sweep)
    stop(first)
    before = set(parts.glob("part-*.parquet"))
    wait_for(lambda: set(parts.glob("part-*.parquet")) - before, sweep)  # the other goes on
    stop(second)
    code, err = finish(sweep)
    assert code == 2
    line = one_error_line(err)
    assert "every worker of the cluster is gone (none for 3 s)" in line
    kept = store.read_parts(parts, store.cell_groups(load_sweep(path)))
    assert line.endswith(f"; {len(kept)} cells kept, rerun to resume")
    assert not out.exists() and not lock_path(out).exists()


def test_a_killed_scheduler_is_one_line_keeping_the_cells(tmp_path, cluster):
    cluster.add_worker()
    cluster.wait_for_workers(1)
    path = write_sweep(tmp_path)
    out = tmp_path / "a.parquet"
    parts = store.parts_folder(out)
    sweep = sweep_process(path, out, "--scheduler", cluster.address, "--timeout", "3")
    wait_for(lambda: any(parts.glob("part-*.parquet")), sweep)
    stop(cluster.scheduler)
    code, err = finish(sweep)
    assert code == 2, err
    line = one_error_line(err)
    assert f"lost the connection to the scheduler ({cluster.address})" in line
    assert "cells kept, rerun to resume" in line
    assert any(parts.glob("part-*.parquet"))


# --- Ctrl+C and two sweeps -------------------------------------------------------------------


def test_ctrl_c_stops_a_local_sweep_with_one_line_and_exit_130(tmp_path):
    """SIGINT to the whole process group, as a terminal sends it: no worker traceback, the
    finished cells kept, and the rerun runs only the others."""
    path = write_sweep(tmp_path)
    out = tmp_path / "a.parquet"
    parts = store.parts_folder(out)
    sweep = sweep_process(path, out, "--workers", "2")
    wait_for(lambda: any(parts.glob("part-*.parquet")), sweep)
    os.killpg(sweep.pid, signal.SIGINT)
    code, err = finish(sweep)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    kept = store.read_parts(parts, store.cell_groups(load_sweep(path)))
    assert err.splitlines()[-1] == f"wander3d: interrupted; {len(kept)} cells kept, rerun to resume"
    assert len(kept) > 0
    assert not lock_path(out).exists()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 0.6, 0.9, 1.5, 2.5, 4.0])
def test_ctrl_c_while_the_sweep_starts_is_one_line_and_exit_130(tmp_path, delay):
    """Ctrl+C to the installed command's process group at moments of its start-up: loading
    the engine and Dask, starting the cluster's workers, preparing them. A Ctrl+C raised
    while Python imported used to end in a traceback (exit -2), one inside Dask's import in
    a broken cluster."""
    command = Path(sys.executable).with_name("wander3d")
    out = tmp_path / "a.parquet"
    sweep = start(
        [str(command), "sweep", str(write_sweep(tmp_path)), "--out", str(out), "--workers", "2"],
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    os.killpg(sweep.pid, signal.SIGINT)
    code, err = finish(sweep)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.splitlines()[-1].startswith("wander3d: interrupted"), err
    assert not lock_path(out).exists()


def test_a_second_sweep_on_the_same_output_is_refused_naming_the_holder(tmp_path, capsys):
    path = write_sweep(tmp_path, SHORT)
    out = tmp_path / "a.parquet"
    with output_lock(out):
        assert main(["sweep", str(path), "--out", str(out), "--workers", "1"]) == 2
        line = one_error_line(capsys.readouterr().err)
    assert line == (
        f"wander3d: error: --out {out}: another sweep (pid {os.getpid()} on "
        f"{socket.gethostname()}) is writing it (lock file {lock_path(out)})"
    )
    assert sorted(os.listdir(tmp_path)) == ["sweep.toml"]


def test_a_lock_left_by_a_killed_sweep_is_taken_over(tmp_path):
    out = tmp_path / "a.parquet"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock_path(out).write_text(f"pid {dead.pid} on {socket.gethostname()}\n", encoding="utf-8")
    with output_lock(out) as held:
        assert held.read_text(encoding="utf-8").startswith(f"pid {os.getpid()} ")
    assert not lock_path(out).exists()


def test_ctrl_c_stops_tuning_with_one_line_and_exit_130(tmp_path):
    out = tmp_path / "tuned.toml"
    tune = start(
        [sys.executable, "-m", "wander3d", "tune", "default", "--group", "wanderers",
         "--target", "turn_rate=2", "--trials", "400", "--seconds", "20", "--workers", "2",
         "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert tune.stderr is not None  # piped
    first = tune.stderr.readline()  # after the first batch of trials
    assert first.startswith("wander3d: 8 trials"), first
    os.killpg(tune.pid, signal.SIGINT)
    code, err = finish(tune)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.splitlines()[-1].startswith("wander3d: interrupted after ")
    assert err.splitlines()[-1].endswith(f" trials; nothing written to {out}")
    assert os.listdir(tmp_path) == []


def test_local_workers_start_with_ctrl_c_held_back():
    """A worker spawned as Ctrl+C came died half-way through Python's imports with a
    traceback, before its preload could ignore SIGINT: the workers start with SIGINT blocked,
    inherited from the cluster's start (multiprocessing's resource tracker used to unblock
    it in the thread that spawns them)."""
    from wander3d.sweep.execute import open_client

    with open_client(workers=2) as client:
        pids = client.run(os.getpid).values()
        for pid in pids:
            status = Path(f"/proc/{pid}/status").read_text()
            blocked = int(status.split("SigBlk:")[1].split()[0], 16)
            assert blocked & (1 << (signal.SIGINT - 1)), f"worker {pid}: SIGINT not blocked"
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == set()  # this thread's, as before
