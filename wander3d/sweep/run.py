"""Running a sweep: skip the cells already measured, run the rest, write the table."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from wander3d.analysis import GroupStats

from . import execute, store
from .spec import Sweep


@dataclass(frozen=True)
class SweepRun:
    """What a finished sweep did: cells in all, cells found from an earlier run, cells run
    now, the agent-steps they simulated, seconds taken, and the table written."""

    cells: int
    reused: int
    ran: int
    agent_steps: int
    seconds: float
    table: pa.Table


def run_sweep(
    sweep: Sweep,
    out: Path,
    client: Any,
    on_progress: Callable[[int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    timeout: float = execute.CONNECT_TIMEOUT_S,
) -> SweepRun:
    """Measure every cell of `sweep` not already in `out` (an earlier run's table) or its parts
    folder, on `client`, and write the table to `out` (then remove the parts folder).

    on_start(to_run, reused) is called once before any cell runs; on_progress(done) after
    each finished cell. Interrupted (KeyboardInterrupt, a failed task, a cluster that lost
    its workers for `timeout` seconds), the cells finished so far stay in the parts folder
    for the next run. The caller holds the output's lock (`lock.output_lock`).
    """
    folder = store.parts_folder(out)
    groups = store.cell_groups(sweep)
    results = store.read_table_cells(out, groups)
    results.update(store.read_parts(folder, groups))
    todo = store.missing(sweep, results)
    if on_start is not None:
        on_start(len(todo), len(results))
    writer = store.PartWriter(folder)
    done = 0

    def finished(cell_id: str, stats: list[GroupStats]) -> None:
        nonlocal done
        writer.add(cell_id, stats)
        results[cell_id] = [
            {"name": s.name, **{f.name: getattr(s, f.name) for f in store.metric_fields()}}
            for s in stats
        ]
        done += 1
        if on_progress is not None:
            on_progress(done)

    start = time.perf_counter()
    try:
        tasks = ((cell.id, cell.scene) for cell in todo)
        execute.run_tasks(
            client, tasks, sweep.seconds, sweep.sample_rate, finished, timeout=timeout
        )
    finally:
        writer.flush()
    seconds = time.perf_counter() - start
    table = store.build_table(sweep, results)
    store.write_table(table, out, sweep.text)
    store.remove_parts(folder)
    reused = len(sweep.cells) - len(todo)
    return SweepRun(len(sweep.cells), reused, len(todo), sweep.agent_steps(todo), seconds, table)
