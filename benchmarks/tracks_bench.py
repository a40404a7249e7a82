"""Reading a large tracks file: wander3d's streaming read against pyarrow reading the file
alone, in one run, with each one's peak memory.

    python benchmarks/tracks_bench.py                 # 20 M rows (about 560 MB of CSV)
    python benchmarks/tracks_bench.py --rows 2000000  # a quicker look

Writes (once, kept in --folder) a CSV of particles wandering on a plane, a fix a second,
`particle,t,x,y` like a tracker's export; then, each in a fresh process so that its peak
resident memory is its own:

  pyarrow      pyarrow.csv.read_csv(FILE): the file parsed into memory, nothing else;
  pyarrow typed  the same with the column types read_tracks gives pyarrow (ids dictionary-
               encoded, numbers float64): the parse read_tracks cannot do without;
  read 1 Hz    wander3d.analysis.tracks.read_tracks(FILE, 1.0): read, order, split, resample;
  stats 1 Hz   `wander3d stats --tracks FILE --sample-rate 1`: the whole command, metrics too;
               (seconds from after the imports: each measures reading, not starting Python)
  stats 10 Hz  the same at 10 Hz, ten times the samples (8 GB of them), in a process whose
               address space is limited to --limit GiB (its memory budget half that): refused,
               and how much memory it took to say so.

Prints seconds and peak RSS of each, and the ratio of `read 1 Hz` to `pyarrow`. Time it
alone on the machine (the team's rule: under flock /tmp/wander3d-timing.lock) and note the
load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
if len(sys.argv) > 4:  # an address-space limit: memory_budget() is half of it
    limit = int(float(sys.argv[4]) * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
# Imports first, outside the time: each measures reading, not starting Python.
import numpy, pyarrow, pyarrow.csv as pacsv
if kind != "pyarrow":
    from wander3d import cli
    from wander3d.analysis.tracks import read_tracks
start = time.perf_counter()
outcome = "ok"
if kind == "pyarrow":
    rows = pacsv.read_csv(path).num_rows
    outcome = f"{rows:,} rows"
elif kind == "typed":
    import pyarrow as pa
    types = {"particle": pa.dictionary(pa.int32(), pa.string())}
    types |= {name: pa.float64() for name in ("t", "x", "y")}
    convert = pacsv.ConvertOptions(column_types=types)
    rows = pacsv.read_csv(path, convert_options=convert).num_rows
    outcome = f"{rows:,} rows"
elif kind == "read":
    tracks = read_tracks(path, 1.0)
    outcome = f"{tracks.counts.samples:,} samples of {tracks.counts.tracks:,} tracks"
else:
    import contextlib, io
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = cli.main(["stats", "--tracks", path, "--sample-rate", sys.argv[3]])
        except SystemExit as e:
            code = e.code
    outcome = "measured" if code == 0 else "refused: " + err.getvalue().strip()[-160:]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak, "outcome": outcome}))
"""


def write_file(path: Path, rows: int, particles: int) -> None:
    """`rows` fixes of `particles` correlated random walks, a fix a second, particle by
    particle (as most exports are), written with pyarrow."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(1)
    per = rows // particles
    schema = pa.schema(
        [("particle", pa.int32()), ("t", pa.int32()), ("x", pa.float64()), ("y", pa.float64())]
    )
    with pacsv.CSVWriter(path, schema) as out:
        for first in range(0, particles, 100):
            ids = np.arange(first, min(first + 100, particles))
            heading = np.cumsum(rng.normal(0, 0.2, (len(ids), per)), axis=1)
            x = np.round(np.cumsum(np.cos(heading), axis=1) + 500.0 * ids[:, None], 3)
            y = np.round(np.cumsum(np.sin(heading), axis=1), 3)
            out.write_table(pa.table({
                "particle": np.repeat(ids, per).astype(np.int32),
                "t": np.tile(np.arange(per), len(ids)).astype(np.int32),
                "x": x.ravel(), "y": y.ravel(),
            }))  # fmt: skip


def measure(kind: str, path: Path, *extra: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path), *extra],
        capture_output=True, text=True, env=env, timeout=3600, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--particles", type=int, default=2000)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument(
        "--limit", type=float, default=6.0, help="GiB of address space for the 10 Hz run"
    )
    args = parser.parse_args()
    path = args.folder / f"wander3d-tracks-{args.rows}.csv"
    if not path.exists():
        print(f"writing {path} ...", flush=True)
        write_file(path, args.rows, args.particles)
    size = path.stat().st_size / 1e6
    print(f"{path}: {size:,.0f} MB, {args.rows:,} rows; load average {os.getloadavg()[0]:.2f}")
    results = {}
    for name, kind, extra in (
        ("pyarrow", "pyarrow", ()),
        ("pyarrow typed", "typed", ()),
        ("read 1 Hz", "read", ()),
        ("stats 1 Hz", "stats", ("1",)),
        ("stats 10 Hz", "stats", ("10", str(args.limit))),
    ):
        r = measure(kind, path, *extra)
        results[name] = r
        peak = r["peak"] / 2**30
        print(f"{name:<14} {r['seconds']:8.2f} s  peak {peak:6.2f} GiB  {r['outcome']}", flush=True)
    read = results["read 1 Hz"]["seconds"]
    ratio = read / results["pyarrow"]["seconds"]
    typed = read / results["pyarrow typed"]["seconds"]
    print(f"read_tracks / pyarrow.csv.read_csv: {ratio:.2f}x the time ({typed:.2f}x the typed "
          f"read's); load average now {os.getloadavg()[0]:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
