"""Running measurements on dask.distributed: an embedded local cluster or an existing one.

Each task runs one scene headless and returns its per-group `GroupStats`. Workers use one
thread each and the kernel one thread per task too, so N workers keep N cores busy without
oversubscribing them; every worker loads the compiled kernel once (from numba's disk cache)
before the first task. Results come back as tasks finish, in any order; callers key them by
cell, so the order never shows in what they write.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from multiprocessing import resource_tracker
from typing import Any

from wander3d import LOCAL_WORKER_VARIABLE
from wander3d.analysis import GroupStats, compute_stats, sample_spec
from wander3d.scene import MemoryFitError, Scene, check_fits

#: How long to wait for a scheduler to answer, and for a cluster without workers to get one
#: back, before giving up (s).
CONNECT_TIMEOUT_S = 30.0
#: How often a running sweep checks that its cluster still has a scheduler and workers (s).
_POLL_S = 0.5


class ClusterError(RuntimeError):
    """The cluster cannot be reached or cannot run wander3d; str() is one line."""


class SchedulerError(ClusterError):
    """The scheduler at an address cannot be used; str() is "ADDRESS: problem", and
    `address` is the address as given."""

    def __init__(self, address: str, problem: str) -> None:
        self.address = address
        self.problem = problem
        super().__init__(f"{address}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.address, self.problem))


def default_workers() -> int:
    """Worker processes for an embedded cluster: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def measure(scene: Scene, seconds: float, sample_rate: float) -> list[GroupStats]:
    """Run `scene` headless for `seconds`, sampled at `sample_rate`; its stats per group.

    The simulation steps on one thread: the cluster's workers are the parallelism.
    """
    check_fits(scene)  # on the worker: its memory, not the client's
    samples = sample_spec(scene.run_spec, seconds, sample_rate, threads=1)
    stats, _ = compute_stats(samples, scene.groups, curves=False)
    return stats


def prepare_worker() -> float:
    """Run once on each worker: the kernel and the path measures' passes compiled or loaded
    from numba's cache; seconds."""
    from wander3d.analysis.sums import compile_passes
    from wander3d.engine.warmup import compile_kernel

    return compile_kernel() + compile_passes()


#: Bytes of freed memory glibc keeps at the top of a worker's heap (MALLOC_TOP_PAD_).
WORKER_TOP_PAD = 64 * 2**20


def _worker_environ() -> dict[str, Any]:
    """The environment Dask sets in its worker processes before they start, less
    MALLOC_TRIM_THRESHOLD_, plus MALLOC_TOP_PAD_ = WORKER_TOP_PAD.

    Dask sets that so that freed memory goes back to the system at once; but fixing glibc's
    trim threshold also fixes its mmap threshold at 128 KiB, so every numpy temporary of a
    cell's metrics (a few MB each) is mapped and unmapped afresh, and its pages faulted in
    again: a cell took 1.7 times as long as in a plain process, its metrics 2.7 times
    (docs/performance.md, "Sweeps"). Cells are short and their memory is freed when they
    end, so glibc's own adaptive thresholds suit them, but for one thing: with them, the
    heap's top is still handed back whenever a few MB are free there, which a cell's metrics
    do with about 15 MB of temporaries (300 agents x 20 s) several times over, faulting the
    pages in again each time (3,800 page faults a cell, a third of the metrics' time). The
    top pad keeps WORKER_TOP_PAD bytes of it, so a worker holds at most that much unused.
    Only the embedded cluster is ours to configure: a remote one (--scheduler) keeps its own
    settings.
    """
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    environ["MALLOC_TOP_PAD_"] = str(WORKER_TOP_PAD)
    return environ


def _cluster_settings() -> dict[str, Any]:
    """Dask settings for the embedded cluster's workers, while it starts them."""
    return {
        "distributed.nanny.pre-spawn-environ": _worker_environ(),
        # The workers' statistical profiler feeds the dashboard, which this cluster has not:
        # sampling every thread's stack 100 times a second cost about 1.5 ms of CPU per
        # 300-agent cell (docs/performance.md, "Sweeps").
        "distributed.worker.profile.enabled": False,
    }


def probe_scheduler(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Check that a Dask scheduler answers at `address` within `timeout` seconds.

    Dask's own Client waits without end for a server that accepts the connection but never
    answers, and reports other servers with whatever their bytes decode to (a MemoryError,
    a TypeError for tls:// without certificates); this asks the scheduler who it is, with a
    deadline, and says what is wrong in one line. Raises SchedulerError.
    """
    from distributed.comm import parse_address
    from distributed.core import rpc
    from distributed.security import Security

    try:
        protocol, _ = parse_address(address, strict=True)
    except ValueError:
        raise SchedulerError(address, "cannot connect: expected an address such as "
                             "tcp://host:8786") from None  # fmt: skip
    security = Security()  # from Dask's configuration (distributed.comm.tls.*)
    if protocol == "tls" and security.get_connection_args("client").get("ssl_context") is None:
        raise SchedulerError(
            address, "tls:// needs Dask's TLS settings (distributed.comm.tls.ca-file, "
            ".client.cert and .client.key in the Dask configuration)"
        )  # fmt: skip

    async def identity() -> Any:
        # Dask's own connect gives up (saying why: refused, no route) a little before the
        # deadline, which catches a server that accepts and then says nothing.
        args = security.get_connection_args("client")
        remote = rpc(address, timeout=round(0.8 * timeout, 1), connection_args=args)
        try:
            return await remote.identity()
        finally:
            await remote.close_rpc()

    outcome: list[Any] = []

    def probe() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identity(), timeout)))
        except BaseException as e:  # handed to the caller's thread
            outcome.append(e)

    # On a thread of its own: the caller may be running an event loop (a notebook).
    thread = threading.Thread(target=probe, name="wander3d scheduler probe", daemon=True)
    thread.start()
    thread.join()
    answer = outcome[0]
    if isinstance(answer, TimeoutError):
        raise SchedulerError(address, f"no answer within {timeout:g} s")
    if isinstance(answer, OSError):
        raise SchedulerError(address, f"cannot connect: {_first_line(answer)}")
    if isinstance(answer, BaseException):  # another server's bytes, decoded (a MemoryError)
        raise SchedulerError(address, "not a Dask scheduler")
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise SchedulerError(address, "not a Dask scheduler")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Ctrl+C held back (not lost) while the block runs: raised as KeyboardInterrupt when it
    ends.

    Dask loading, or starting or closing a cluster, interrupted half-way, may print
    tracebacks from its event loop, leave processes behind, or swallow the interrupt (a
    KeyboardInterrupt raised inside Python's import machinery is "ignored", leaving a module
    half made); each takes a second or more, so the interrupt waits for them. Only the main
    thread receives Python's signals; elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked (held pending, not lost) in this thread while the block runs.

    A thread started meanwhile (the cluster's event loop) inherits the mask, and so does
    every process it spawns (local workers), from its first instruction: a worker spawned
    while Ctrl+C comes would otherwise die half-way through Python's imports with a
    traceback, before its preload (`dask_setup`) can ignore SIGINT. A Ctrl+C meanwhile
    reaches this process when the block ends.
    """
    # multiprocessing unblocks SIGINT in the thread that first starts its resource tracker
    # (after blocking it for the tracker alone): started here first, it leaves the mask be.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def dask_setup(worker: Any) -> None:
    """Run by Dask in each worker process of a local cluster as it starts (a preload).

    Ctrl+C in a terminal reaches every process of its foreground group, local workers
    included: they ignore it, leaving the command to stop the sweep and close them, instead
    of each dying with a KeyboardInterrupt traceback. Restarted workers run this too.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _local_cluster(workers: int | None, processes: bool) -> Any:
    import dask
    from dask.distributed import LocalCluster

    preload = [__name__] if processes else []  # threads share this process's signals
    # The spawned workers see this at once (see wander3d/__init__.py), the preload later.
    os.environ[LOCAL_WORKER_VARIABLE] = "1"
    with (
        _interrupts_deferred(),  # entered first: it takes the Ctrl+C the mask held back
        _sigint_blocked() if processes else contextlib.nullcontext(),
        dask.config.set({"distributed.worker.preload": preload, **_cluster_settings()}),
    ):
        return LocalCluster(
            n_workers=workers or default_workers(),
            threads_per_worker=1,
            processes=processes,
            # No dashboard, and the scheduler's HTTP server (health checks) on a free port:
            # Dask's default 8787 is often taken (another sweep), which Dask warns about.
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            worker_dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )


@contextlib.contextmanager
def open_client(
    workers: int | None = None,
    scheduler: str | None = None,
    processes: bool = True,
    timeout: float = CONNECT_TIMEOUT_S,
) -> Iterator[Any]:
    """A dask.distributed Client, every worker prepared; closed (with its cluster) on exit.

    scheduler: address of an existing cluster ("tcp://host:8786"); else a LocalCluster of
    `workers` processes (default: one per core), or threads with processes=False (tests).
    timeout: seconds to wait for the scheduler to answer and for a first worker.
    Raises SchedulerError if the scheduler cannot be reached or has no workers, ClusterError
    if the workers cannot run wander3d.
    """
    with _interrupts_deferred():  # a Ctrl+C inside Dask's import broke the cluster's start
        from dask.distributed import Client

    cluster = None
    client = None
    # Dask logs what it meets (a lost scheduler's reconnect attempts, a rescheduled result)
    # with tracebacks; what matters reaches the caller as one ClusterError line instead.
    levels = _quiet_dask_logs()
    try:
        if scheduler is not None:
            probe_scheduler(scheduler, timeout)
            try:
                client = Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError, ValueError) as e:
                raise SchedulerError(scheduler, f"cannot connect: {_first_line(e)}") from None
        else:
            cluster = _local_cluster(workers, processes)
            client = Client(cluster)
        _quiet_abandoned_tasks(client)
        with contextlib.suppress(Exception):
            client.wait_for_workers(1, timeout=timeout)
        if not client.scheduler_info()["workers"]:
            if scheduler is None:
                raise ClusterError("the local cluster started no workers")
            raise SchedulerError(scheduler, f"the cluster has no workers (waited {timeout:g} s)")
        try:
            client.run(prepare_worker)
        except Exception as e:  # a worker's error, as its cluster sends it
            # Without wander3d a worker cannot even unpickle the function: Dask then sends
            # a plain Exception whose text names the ImportError.
            raise ClusterError(
                f"the cluster's workers cannot run wander3d ({_first_line(e)})"
            ) from None
        yield client
    finally:
        _close(client, cluster)
        for logger, level in levels.items():
            logger.setLevel(level)


def _quiet_dask_logs() -> dict[logging.Logger, int]:
    """Dask's loggers set to CRITICAL; their levels before (Dask's configuration gives some
    of them their own level, so the parent's alone would not do)."""
    names = ["distributed"] + [
        name for name in logging.root.manager.loggerDict if name.startswith("distributed.")
    ]
    levels = {}
    for name in names:
        logger = logging.getLogger(name)
        levels[logger] = logger.level
        logger.setLevel(logging.CRITICAL)
    return levels


def _quiet_abandoned_tasks(client: Any) -> None:
    """Drop asyncio's "Task exception was never retrieved" report of Dask's own tasks on the
    client's event loop: a gather given up after a timeout (the result's worker died, see
    `_result`) ends with an error nobody reads, printed with a traceback at some later time.
    Other reports go to the default handler."""
    loop = getattr(client.loop, "asyncio_loop", None)
    if loop is None:
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if error is not None and type(error).__module__.startswith("distributed"):
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def _close(client: Any, cluster: Any) -> None:
    """Close the client and the cluster it started, even if the scheduler is gone; an
    interrupt meanwhile waits until both are closed (no half-closed processes)."""
    with _interrupts_deferred():
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=5)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)


def worker_count(client: Any) -> int:
    """Workers the client's cluster has now."""
    return len(client.scheduler_info()["workers"])


def run_tasks(
    client: Any,
    tasks: Iterable[tuple[str, Scene]],
    seconds: float,
    sample_rate: float,
    on_result: Callable[[str, Any], None],
    task: Callable[[Scene, float, float], Any] = measure,
    timeout: float = CONNECT_TIMEOUT_S,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Measure each (key, scene) on the cluster; call on_result(key, stats) as each finishes.

    task(scene, seconds, sample_rate) is what runs on a worker (default `measure`: the stats
    per group); on_result gets what it returns.

    Keys must be unique; they name the Dask tasks. An exception in a task is raised here
    (after the results that finished before it were handed over). A worker that dies is
    replaced, and its task run again, as Dask does (up to its allowed failures); raises
    ClusterError if the workers running a task kept dying, if its scene does not fit in the
    memory of the worker it ran on (each task checks, `check_fits`, where it runs), if the
    cluster has had no worker for `timeout` seconds, or if the scheduler is gone.
    """
    from dask.distributed import KilledWorker, wait

    # A fresh token per call: a cancel of this call's futures, still on its way to the
    # scheduler, must not reach a later call's task of the same cell.
    token = uuid.uuid4().hex[:8]
    futures = {
        client.submit(
            task, scene, seconds, sample_rate, key=f"wander3d-{key}-{token}", pure=False
        ): key
        for key, scene in tasks
    }
    pending = set(futures)
    health = _Health(client, timeout, clock)
    try:
        while pending:
            try:
                done, _ = wait(list(pending), timeout=_POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                health.check()
                continue
            except (CancelledError, OSError):  # OSError: Dask's CommClosedError, a reset
                raise health.lost() from None
            for future in done:
                pending.discard(future)
                try:
                    stats = _result(future, health)
                except KilledWorker:
                    raise ClusterError(
                        f"workers died running task {futures[future]} (out of memory?); use "
                        "fewer agents or seconds per run, or fewer workers"
                    ) from None
                except MemoryFitError as e:
                    raise ClusterError(
                        f"task {futures[future]}, on its worker: {e.problem}"
                    ) from None
                except (CancelledError, OSError):
                    raise health.lost() from None
                on_result(futures[future], stats)
            health.check()
    finally:
        with contextlib.suppress(Exception):
            client.cancel([future for future in futures if not future.done()])


def _result(future: Any, health: _Health) -> Any:
    """A finished future's result, watching the cluster meanwhile: a result held by a
    worker that has died is computed again, and waits for a worker like any task."""
    while True:
        try:
            return future.result(timeout=_POLL_S)
        except TimeoutError:
            health.check()


class _Health:
    """Watches a running client: ClusterError once its scheduler is gone, or once it has had
    no workers for `timeout` seconds (Dask would wait for new ones for ever)."""

    def __init__(self, client: Any, timeout: float, clock: Callable[[], float]) -> None:
        self.client = client
        self.timeout = timeout
        self.clock = clock
        self._no_workers_since: float | None = None

    def lost(self) -> ClusterError:
        address = getattr(self.client.scheduler, "address", None) or "the scheduler"
        return ClusterError(f"lost the connection to the scheduler ({address})")

    def check(self) -> None:
        if self.client.status not in ("running", "connecting"):
            raise self.lost()
        try:
            workers = worker_count(self.client)
        except Exception:  # the scheduler cannot answer: gone or going
            raise self.lost() from None
        now = self.clock()
        if workers:
            self._no_workers_since = None
        elif self._no_workers_since is None:
            self._no_workers_since = now
        elif now - self._no_workers_since >= self.timeout:
            raise ClusterError(f"every worker of the cluster is gone (none for {self.timeout:g} s)")
