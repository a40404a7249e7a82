"""Running measurements on dask.distributed: an embedded local cluster or an existing one.

Each task runs one scene headless and returns its per-group `GroupStats`. Workers use one
thread each and the kernel one thread per task too, so N workers keep N cores busy without
oversubscribing them; every worker loads the compiled kernel once (from numba's disk cache)
before the first task. Results come back as tasks finish, in any order; callers key them by
cell, so the order never shows in what they write.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wander3d.analysis import GroupStats, compute_stats, sample_spec
from wander3d.scene import MemoryFitError, Scene, check_fits

#: How long to wait for a remote scheduler before giving up (s).
CONNECT_TIMEOUT_S = 20


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
    stats, _ = compute_stats(samples, scene.groups)
    return stats


def prepare_worker() -> float:
    """Run once on each worker: the kernel compiled or loaded from numba's cache; seconds."""
    from wander3d.engine.warmup import compile_kernel

    return compile_kernel()


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


@contextlib.contextmanager
def open_client(
    workers: int | None = None, scheduler: str | None = None, processes: bool = True
) -> Iterator[Any]:
    """A dask.distributed Client, every worker prepared; closed (with its cluster) on exit.

    scheduler: address of an existing cluster ("tcp://host:8786"); else a LocalCluster of
    `workers` processes (default: one per core), or threads with processes=False (tests).
    Raises SchedulerError if the scheduler cannot be reached or has no workers, ClusterError
    if the workers lack wander3d.
    """
    import dask
    from dask.distributed import Client, LocalCluster

    cluster = None
    try:
        if scheduler is not None:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError, ValueError) as e:
                raise SchedulerError(scheduler, f"cannot connect: {e}") from None
        else:
            with dask.config.set(_cluster_settings()):
                cluster = LocalCluster(
                    n_workers=workers or default_workers(),
                    threads_per_worker=1,
                    processes=processes,
                    # No dashboard, and the scheduler's HTTP server (health checks) on a free
                    # port: a fixed one made a second cluster on the machine warn.
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR,
                )
            client = Client(cluster)
    except BaseException:
        if cluster is not None:
            cluster.close()
        raise
    try:
        with contextlib.suppress(Exception):
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        if not client.scheduler_info()["workers"]:
            if scheduler is None:
                raise ClusterError("the local cluster started no workers")
            raise SchedulerError(scheduler, "the cluster has no workers")
        try:
            client.run(prepare_worker)
        except ImportError as e:
            raise ClusterError(f"the cluster's workers cannot import wander3d ({e})") from None
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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
) -> None:
    """Measure each (key, scene) on the cluster; call on_result(key, stats) as each finishes.

    task(scene, seconds, sample_rate) is what runs on a worker (default `measure`: the stats
    per group); on_result gets what it returns.

    Keys must be unique; they name the Dask tasks. An exception in a task is raised here
    (after the results that finished before it were handed over); ClusterError if the
    workers running a task kept dying, or if its scene does not fit in the memory of the
    worker it ran on (each task checks, `check_fits`, where it runs).
    """
    from dask.distributed import KilledWorker, as_completed

    # A fresh token per call: a cancel of this call's futures, still on its way to the
    # scheduler, must not reach a later call's task of the same cell.
    token = uuid.uuid4().hex[:8]
    futures = {
        client.submit(
            task, scene, seconds, sample_rate, key=f"wander3d-{key}-{token}", pure=False
        ): key
        for key, scene in tasks
    }
    try:
        for future in as_completed(futures):
            try:
                stats = future.result()
            except KilledWorker:
                raise ClusterError(
                    f"workers died running task {futures[future]} (out of memory?); use fewer "
                    "agents or seconds per run, or fewer workers"
                ) from None
            except MemoryFitError as e:
                raise ClusterError(f"task {futures[future]}, on its worker: {e.problem}") from None
            on_result(futures[future], stats)
    finally:
        client.cancel([future for future in futures if not future.done()])
