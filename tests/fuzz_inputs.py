"""Seeded fuzzing of what wander3d reads: track files, sweep files, replay records, scenes.

Each kind has a generator of damaged inputs (made from good ones: truncated and tampered
bytes, wrong types, NaN and infinities, huge or negative ids, unsorted or duplicate times,
non-UTF-8, empty files, enormous grids, foreign records) and a check that reads one case as
the command would and sorts the outcome:

    "sane"   accepted, and what came out passes the kind's sanity checks;
    "error"  a clean error: the library's own error type, one line naming the file;
    "wrong"  accepted, but what came out is not sane (say what);
    "traceback"  any other exception (a traceback for the user).

A hang is the runner's business (tests/test_fuzz.py under pytest's timeout;
benchmarks/fuzz.py with an alarm per case). Case `i` of a kind is the same on every machine:
its random generator is seeded by (kind, i).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import random
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wander3d.scene import MemoryFitError, SceneError, bundled_scene, bundled_scenes

KINDS = ("tracks", "sweep", "replay", "scene")


@dataclass(frozen=True)
class Outcome:
    kind: str  # "sane", "error", "wrong" or "traceback"
    detail: str  # the error line, the insanity, or the exception


# --- value mutations shared by the kinds -----------------------------------------------------

WEIRD_VALUES: tuple[Any, ...] = (
    math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, 1e-320, 0, -1, -(2**63), 2**63,
    2**64 + 7, 10**30, True, False, "", "abc", "ÿ\u0000", [], [1, 2, 3], {}, {"a": 1}, 0.5,
    -0.0, 1e9, 100_000, 2**31,
)  # fmt: skip


def weird(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(WEIRD_VALUES))  # a fresh list or table: it may be mutated


def mutate_doc(doc: Any, rng: random.Random, changes: int) -> Any:
    """A nested dict/list with `changes` random values replaced, keys dropped or added."""
    for _ in range(changes):
        path: list[tuple[Any, Any]] = []
        node = doc
        while isinstance(node, dict | list) and node and rng.random() < 0.75:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        if not path:
            if isinstance(doc, dict):
                doc[rng.choice(["extra", "x"])] = weird(rng)
            continue
        parent, key = path[-1]
        action = rng.random()
        if action < 0.7:
            parent[key] = weird(rng)
        elif action < 0.85 and isinstance(parent, dict):
            del parent[key]
        elif isinstance(parent, dict):
            parent[f"{key}_typo"] = parent[key]
        else:
            parent.append(weird(rng))
    return doc


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Truncated, flipped, spliced or non-UTF-8 bytes."""
    choice = rng.random()
    if not data or choice < 0.1:
        return b""
    if choice < 0.35:
        return data[: rng.randrange(len(data))]
    out = bytearray(data)
    if choice < 0.65:
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    if choice < 0.85:
        at = rng.randrange(len(out))
        return (
            bytes(out[:at])
            + rng.choice([b"\xff\xfe\xfd", b"\x00", b"\r", b"\n\n", b","])
            + bytes(out[at:])
        )
    return bytes(out) * rng.randint(2, 3)


# --- tracks -------------------------------------------------------------------------------


def _good_csv(rng: random.Random) -> list[list[str]]:
    rows = [["particle", "t", "x", "y", "z"]]
    for p in range(3):
        x = y = z = 0.0
        for k in range(20):
            x, y, z = x + rng.uniform(-1, 1), y + rng.uniform(-1, 1), z + rng.uniform(-1, 1)
            rows.append([str(p), f"{k * 0.1:.3f}", f"{x:.4f}", f"{y:.4f}", f"{z:.4f}"])
    return rows


CELL_VALUES = ("", "nan", "NaN", "inf", "-inf", "1e308", "abc", "99999999999999999999",
               "-5", "1e12", "0", "-0", "\u00e9", "1,5", " 3 ", "0x10", "True")  # fmt: skip


def tracks_case(i: int, folder: Path, runs: dict[str, Path]) -> Callable[[], Any]:
    """A damaged track file in `folder`; returns what `stats --tracks` does with it.

    runs: good files `wander3d run` wrote (".parquet", ".csv" with its .json), copied and
    damaged by some cases.
    """
    rng = random.Random(f"tracks-{i}")
    kind = rng.random()
    rate = rng.choice([10.0, 5.0, 7.0, 1.0, 1000.0, 1e-3])
    dt = rng.choice([None, None, 0.1, 1e-9, 1e9])
    if kind < 0.45:
        rows = _good_csv(rng)
        for _ in range(rng.randint(1, 4)):
            what = rng.random()
            if what < 0.5:
                r = rng.randrange(1, len(rows))
                c = rng.randrange(len(rows[r]))
                rows[r][c] = rng.choice(CELL_VALUES)
            elif what < 0.6:
                body = rows[1:]
                rng.shuffle(body)
                rows = [rows[0], *body]
            elif what < 0.7:
                rows.append(list(rows[rng.randrange(1, len(rows))]))  # a duplicate time
            elif what < 0.8:
                rows[0][rng.randrange(len(rows[0]))] = rng.choice(["frame", "group", "vx", "q"])
            elif what < 0.9:
                c = rng.randrange(1, 5)
                for row in rows:
                    del row[c:]
            else:
                for row in rows[1:]:  # an enormous grid
                    with contextlib.suppress(ValueError, IndexError):
                        row[1] = str(float(row[1]) * 1e11)
        data = ("\n".join(",".join(row) for row in rows) + "\n").encode("utf-8")
        if rng.random() < 0.3:
            data = mutate_bytes(data, rng)
        path = folder / f"t{i}.csv"
        path.write_bytes(data)
    elif kind < 0.6:
        path = folder / f"t{i}.parquet"
        _foreign_parquet(path, rng)
    else:
        suffix = rng.choice([".parquet", ".csv"])
        path = folder / f"t{i}{suffix}"
        data = runs[suffix].read_bytes()
        if suffix == ".csv":
            record = runs[".csv"].with_name(runs[".csv"].name + ".json").read_bytes()
            if rng.random() < 0.5:
                data = mutate_bytes(data, rng)
            else:
                record = _mutate_record_bytes(record, rng)
            path.with_name(path.name + ".json").write_bytes(record)
        else:
            data = (
                _mutate_parquet(runs[".parquet"], rng)
                if rng.random() < 0.6
                else mutate_bytes(data, rng)
            )
        path.write_bytes(data)

    def check() -> Any:
        from wander3d.analysis import compute_stats
        from wander3d.analysis.tracks import TrackOptions, read_tracks

        tracks = read_tracks(path, rate, TrackOptions(dt=dt))
        stats, _ = compute_stats(tracks.samples, tracks.groups)
        return tracks, stats

    return check


def _foreign_parquet(path: Path, rng: random.Random) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = rng.choice([0, 1, 5, 40])
    columns: dict[str, Any] = {
        "particle": rng.choice([
            pa.array([k % 3 for k in range(n)], pa.int64()),
            pa.array([f"p{k % 3}" for k in range(n)]),
            pa.array([(-(2**63) if k % 2 else 2**63 - 1) for k in range(n)], pa.int64()),
            pa.array([None] * n, pa.int64()),
        ]),
        "t": pa.array([float(k // 3) * rng.choice([0.1, 1e10, -1.0, math.nan]) for k in range(n)]),
        "x": rng.choice([pa.array(np.arange(n, dtype=float)), pa.array([True] * n),
                         pa.array(["1.5"] * n), pa.array([math.inf] * n)]),
        "y": pa.array(np.zeros(n)),
    }  # fmt: skip
    if rng.random() < 0.3:
        del columns[rng.choice(list(columns))]
    pq.write_table(pa.table(columns), path)


def _mutate_parquet(good: Path, rng: random.Random) -> bytes:
    """The run's Parquet with its record or its columns tampered with, written whole."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(good)
    meta = dict(table.schema.metadata or {})
    key = next(k for k in meta if k.startswith(b"wander3d"))
    if rng.random() < 0.6:
        meta[key] = _mutate_record_bytes(meta[key], rng)
        table = table.replace_schema_metadata(meta)
    else:
        name = rng.choice(table.column_names)
        column = table.column(name).to_numpy().copy()
        if column.dtype.kind == "f":
            column[rng.randrange(len(column))] = rng.choice([math.nan, math.inf, 1e30])
        elif column.dtype.kind in "iu":
            column[rng.randrange(len(column))] = rng.choice([-1, 2**31, 10**15])
        else:
            column[rng.randrange(len(column))] = rng.choice(["", "\x00", "other group"])
        table = table.set_column(table.column_names.index(name), name, pa.array(column))
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


# --- replay records -------------------------------------------------------------------------


def _mutate_record_bytes(raw: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.25:
        return mutate_bytes(raw, rng)
    doc = json.loads(raw)
    if rng.random() < 0.4 and "scene_toml" in doc:
        scene = tomllib.loads(doc["scene_toml"])
        doc["scene_toml"] = _to_toml(mutate_doc(scene, rng, rng.randint(1, 3)))
    else:
        doc = mutate_doc(doc, rng, rng.randint(1, 3))
    return json.dumps(doc, allow_nan=True).encode("utf-8")


def _to_toml(doc: Any) -> str:
    """TOML text for a mutated scene document (values TOML cannot hold become strings)."""
    from wander3d.scene.toml_writer import dumps

    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
            return str(v)
        return v

    try:
        return dumps(clean(doc))
    except (TypeError, ValueError, AttributeError):
        return "not = [toml"


def replay_case(i: int, folder: Path, runs: dict[str, Path]) -> Callable[[], Any]:
    """A run's file with its record damaged; returns what `run --replay` plans from it."""
    rng = random.Random(f"replay-{i}")
    suffix = rng.choice([".parquet", ".csv", ".csv"])
    path = folder / f"r{i}{suffix}"
    if suffix == ".csv":
        path.write_bytes(runs[".csv"].read_bytes())
        record = runs[".csv"].with_name(runs[".csv"].name + ".json").read_bytes()
        if rng.random() < 0.9:
            path.with_name(path.name + ".json").write_bytes(_mutate_record_bytes(record, rng))
    else:
        path.write_bytes(_mutate_parquet(runs[".parquet"], rng))

    def check() -> Any:
        import argparse

        from wander3d.commands.run import _plan
        from wander3d.scene import check_fits

        args = argparse.Namespace(
            replay=str(path), scene=None, seconds=None, sample_every=None, sample_rate=None
        )
        scene, plan = _plan(args)
        check_fits(scene)
        return scene, plan.steps, plan.steps_per_sample

    return check


# --- sweep files ------------------------------------------------------------------------------

GOOD_SWEEP = """
[sweep]
scene = "default"
seeds = 2
seconds = 3
sample_rate = 10
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


def sweep_case(i: int, folder: Path) -> Callable[[], Any]:
    rng = random.Random(f"sweep-{i}")
    path = folder / f"s{i}.toml"
    if rng.random() < 0.25:
        data = mutate_bytes(GOOD_SWEEP.encode("utf-8"), rng)
    else:
        doc = mutate_doc(tomllib.loads(GOOD_SWEEP), rng, rng.randint(1, 3))
        if rng.random() < 0.1 and isinstance(doc.get("sweep"), dict):  # an enormous grid
            doc["sweep"]["vary"] = [
                {"key": "groups.wander.jitter", "range": [1, 50], "count": 10**6}
            ]
        data = _to_toml(doc).encode("utf-8")
    path.write_bytes(data)

    def check() -> Any:
        from wander3d.sweep import load_sweep

        return load_sweep(path)

    return check


# --- scenes -----------------------------------------------------------------------------------


def scene_case(i: int, folder: Path) -> Callable[[], Any]:
    rng = random.Random(f"scene-{i}")
    name = rng.choice(sorted(bundled_scenes()))
    text = bundled_scene(name).read_text(encoding="utf-8")
    path = folder / f"c{i}.toml"
    if rng.random() < 0.2:
        path.write_bytes(mutate_bytes(text.encode("utf-8"), rng))
    else:
        path.write_text(_to_toml(mutate_doc(tomllib.loads(text), rng, rng.randint(1, 3))))

    def check() -> Any:
        from wander3d.engine import Simulation
        from wander3d.scene import check_fits, load_scene

        scene = load_scene(path)
        check_fits(scene)
        # A few steps of at most 50 agents a group: the engine meets every value, quickly.
        small = scene.replace(
            groups=tuple(dataclasses.replace(g, count=min(g.count, 50)) for g in scene.groups)
        )
        sim = Simulation(small.run_spec)
        sim.step(3)
        return sim

    return check


# --- checking ---------------------------------------------------------------------------------


def clean_errors() -> tuple[type[BaseException], ...]:
    from wander3d.analysis.tracks import TracksError
    from wander3d.commands.common import CliError
    from wander3d.export import ExportError
    from wander3d.sweep import SweepError

    return (TracksError, ExportError, SceneError, SweepError, MemoryFitError, CliError)


def insanity(kind: str, result: Any) -> str | None:
    """Why an accepted case's result is wrong, or None if it is sane."""
    if kind == "tracks":
        tracks, stats = result
        s = tracks.samples
        if s.count < 3 or not np.isfinite(s.positions).all():
            return f"{s.count} samples, finite positions: {np.isfinite(s.positions).all()}"
        norms = np.linalg.norm(s.headings, axis=-1)
        if not np.allclose(norms, 1.0, atol=1e-3):
            return "headings are not unit vectors"
        for g in stats:
            for name, value in vars(g).items():
                if isinstance(value, float) and math.isinf(value):
                    return f"{g.name}: {name} is {value}"
        return None
    if kind == "sweep":
        sweep = result
        expected = math.prod(len(a.values) for a in sweep.axes) * sweep.seeds
        if len(sweep.cells) != expected:
            return f"{len(sweep.cells)} cells, expected {expected}"
        return None
    if kind == "replay":
        _scene, steps, every = result
        if not (steps >= 1 and every >= 1):
            return f"steps {steps}, every {every}"
        return None
    if kind == "scene":
        sim = result
        if not np.isfinite(sim.positions).all():
            return "positions are not finite after 3 steps"
        return None
    raise ValueError(kind)


def run_case(kind: str, check: Callable[[], Any]) -> Outcome:
    errors = clean_errors()
    try:
        result = check()
    except errors as e:
        text = str(e)
        if "\n" in text.strip() or not text.strip():
            return Outcome("traceback", f"not one line: {text!r}")
        return Outcome("error", text)
    except Exception as e:
        return Outcome("traceback", f"{type(e).__name__}: {e}"[:300])
    why = insanity(kind, result)
    return Outcome("wrong", why) if why else Outcome("sane", "")


def make_runs(folder: Path) -> dict[str, Path]:
    """Small good run files (Parquet, and CSV with its record) for the cases to damage."""
    from wander3d.cli import main

    runs = {}
    for suffix in (".parquet", ".csv"):
        out = folder / f"good{suffix}"
        code = main(["run", "default", "--seconds", "2", "--sample-rate", "10", "--out", str(out)])
        assert code == 0
        runs[suffix] = out
    return runs


def make_case(kind: str, i: int, folder: Path, runs: dict[str, Path]) -> Callable[[], Any]:
    if kind == "tracks":
        return tracks_case(i, folder, runs)
    if kind == "replay":
        return replay_case(i, folder, runs)
    if kind == "sweep":
        return sweep_case(i, folder)
    return scene_case(i, folder)
