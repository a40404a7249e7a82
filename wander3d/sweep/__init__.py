"""Parameter sweeps and tuning on dask.distributed, headless (no Qt, no vispy).

It imports numpy, pyarrow and the engine, scene, analysis and helper layers; dask,
optuna and matplotlib (the atlas) only inside the functions that need them.

    from wander3d.sweep import load_sweep, open_client, run_sweep
    sweep = load_sweep("atlas.toml")            # every cell built and validated
    with open_client(workers=2) as client:      # or scheduler="tcp://host:8786"
        run_sweep(sweep, Path("atlas.parquet"), client)

`spec` reads sweep files, `keys` the key paths they vary, `execute` runs measurements on Dask,
`store` keeps results (part files while running, one table at the end), `lock` lets one sweep
at a time write an output, `plot` draws the atlas and `tune` searches parameters for target
metrics.
"""

from .execute import ClusterError, SchedulerError, open_client
from .keys import KeyPath, KeyPathError, parse_key_path
from .run import SweepRun, run_sweep
from .spec import Axis, Cell, Sweep, SweepError, load_sweep, parse_sweep

__all__ = [
    "Axis",
    "Cell",
    "ClusterError",
    "KeyPath",
    "KeyPathError",
    "SchedulerError",
    "Sweep",
    "SweepError",
    "SweepRun",
    "load_sweep",
    "open_client",
    "parse_key_path",
    "parse_sweep",
    "run_sweep",
]
