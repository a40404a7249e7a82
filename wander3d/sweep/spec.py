"""Sweep files: a base scene, what to vary, and every cell validated before anything runs.

    [sweep]
    scene = "default"         # a scene file (relative to the sweep file) or a bundled name
    seeds = 3                 # runs per cell: seeds 0..2 added to the scene's seed
    seconds = 60              # simulated seconds measured per run
    sample_rate = 10          # samples per simulated second (optional)
    [sweep.set]               # optional: fixed changes to the base scene
    groups.count = 100
    [[sweep.vary]]
    key = "groups.wander.jitter"
    values = [2, 5, 10]
    [[sweep.vary]]
    key = "groups.wander.radius"
    range = [2, 30]
    count = 8
    scale = "log"             # or "linear" (the default)

A cell is one combination of the varied values at one seed: a full scene, validated by the
scene layer, identified by a hash of its canonical TOML text and of what is measured, so that a
resumed sweep recognises the cells it already has. Every problem is a `SweepError`, one line
naming the sweep file, the key and (for an invalid scene) the cell.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import math
import os
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wander3d.analysis import DEFAULT_SAMPLE_RATE, plan_samples
from wander3d.scene import Scene, SceneError, bundled_scene, bundled_scenes, load_scene, schema
from wander3d.scene.toml_writer import toml_value

from .keys import KeyPath, KeyPathError, parse_key_path

DEFAULT_SECONDS = 60.0
#: Beyond this many cells a sweep file is a mistake (and validating it would take minutes).
MAX_CELLS = 100_000
MAX_SEEDS = 10_000
#: Sweep files are small; anything bigger is the wrong file.
MAX_FILE_BYTES = 1024 * 1024
#: Changing how cells are identified or measured must change every cell id: bump this.
_ID_VERSION = "wander3d-sweep-cell-1"

_SWEEP_KEYS = ("scene", "seeds", "seconds", "sample_rate", "set", "vary")
_VARY_KEYS = ("key", "values", "range", "count", "scale")
_SCALES = ("linear", "log")


class SweepError(SceneError):
    """An invalid sweep file: "SWEEP_FILE: KEY: problem" (KEY may name a cell)."""


#: The checks' way to report a problem: (key or None, problem) -> the SweepError to raise,
#: naming the sweep file (`parse_sweep` makes one per file).
_Fail = Callable[[str | None, str], SweepError]


@dataclass(frozen=True)
class Axis:
    """One varied key and its values, in the order the cells use them."""

    key: KeyPath
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Cell:
    """One combination of the varied values at one seed.

    index:   position in the sweep (combinations in the order of the file, seeds innermost);
    values:  the value of each axis;
    seed:    the scene seed it runs with;
    scene:   the full, validated scene;
    id:      16 hex digits hashing the scene's canonical TOML, seconds and sample rate.
    """

    index: int
    values: tuple[Any, ...]
    seed: int
    scene: Scene
    id: str


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file with all its cells built and validated.

    source: the file as the user named it; text: its TOML; base: the base scene after
    `[sweep.set]`; seconds, sample_rate: what each run measures.
    """

    source: str
    text: str
    base: Scene
    seeds: int
    seconds: float
    sample_rate: float
    axes: tuple[Axis, ...]
    cells: tuple[Cell, ...]

    def agent_steps(self, cells: Iterable[Cell]) -> int:
        """Agent-steps that running `cells` (of this sweep) simulates."""
        return sum(
            plan_samples(c.scene.dt, self.seconds, self.sample_rate).steps * c.scene.agent_count
            for c in cells
        )


def cell_id(scene: Scene, seconds: float, sample_rate: float) -> str:
    """The id of a run of `scene` measured for `seconds` at `sample_rate`: 16 hex digits."""
    text = f"{_ID_VERSION}\nseconds={seconds!r}\nsample_rate={sample_rate!r}\n{scene.to_toml()}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Read a sweep file, load its base scene and build every cell; SweepError if anything
    is wrong."""
    label = os.fspath(path)
    text = _read_text(Path(label), label)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(label, None, f"invalid TOML: {e}") from None
    return parse_sweep(doc, label, text, Path(label).parent)


def parse_sweep(doc: Mapping[str, Any], label: str, text: str, folder: Path) -> Sweep:
    """Build a Sweep from a parsed sweep document; scene paths are relative to `folder`."""

    def fail(key: str | None, problem: str) -> SweepError:
        return SweepError(label, key, problem)

    extra = [k for k in doc if k != "sweep"]
    if extra:
        raise fail(str(extra[0]), "unknown table: a sweep file has one [sweep] table")
    sweep = doc.get("sweep")
    if not isinstance(sweep, Mapping):
        raise fail("sweep", "missing: a sweep file needs a [sweep] table")
    _check_keys(sweep, _SWEEP_KEYS, "sweep", fail)
    base = _base_scene(sweep.get("scene"), folder, fail)
    seeds = _whole(sweep.get("seeds", 1), "sweep.seeds", 1, MAX_SEEDS, fail)
    seconds = _positive(sweep.get("seconds", DEFAULT_SECONDS), "sweep.seconds", fail)
    rate = _positive(sweep.get("sample_rate", DEFAULT_SAMPLE_RATE), "sweep.sample_rate", fail)
    base = _apply_set(base, sweep.get("set", {}), fail)
    axes = _axes(sweep.get("vary", []), base, fail)
    combos = math.prod(len(a.values) for a in axes)
    if combos * seeds > MAX_CELLS:
        raise fail("sweep.vary", f"{combos * seeds:,} cells, more than {MAX_CELLS:,}")
    cells = _cells(base, axes, seeds, seconds, rate, fail)
    return Sweep(label, text, base, seeds, seconds, rate, axes, cells)


def _read_text(path: Path, label: str) -> str:
    try:
        # Opened without blocking and checked before reading: a FIFO or a device would
        # otherwise wait for a writer, or read for ever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SweepError(label, None, "no such file") from None
    except IsADirectoryError:
        raise SweepError(label, None, "is a directory, not a sweep file") from None
    except OSError as e:
        raise SweepError(label, None, f"cannot read: {e.strerror or e}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise SweepError(label, None, "is a directory, not a sweep file")
        raise SweepError(label, None, "not a regular file")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise SweepError(label, None, f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise SweepError(label, None, "too large for a sweep file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SweepError(label, None, "not UTF-8 text") from None


def _check_keys(table: Mapping[str, Any], known: tuple[str, ...], where: str, fail: _Fail) -> None:
    for k in table:
        if k not in known:
            close = difflib.get_close_matches(str(k), known, n=1)
            hint = f", did you mean '{close[0]}'?" if close else f" (one of: {', '.join(known)})"
            raise fail(f"{where}.{k}", f"unknown key{hint}")


def _base_scene(name: Any, folder: Path, fail: _Fail) -> Scene:
    if name is None:
        raise fail("sweep.scene", "missing: name a scene file or a bundled scene")
    if not isinstance(name, str) or not name:
        raise fail("sweep.scene", f"expected a scene file or bundled name, got {name!r}")
    path = folder / name
    if not path.exists():
        if Path(name).suffix == "" and name in bundled_scenes():
            path = bundled_scene(name)
        else:
            names = ", ".join(bundled_scenes()) or "none"
            raise fail(
                "sweep.scene", f"no scene file {path} and no bundled scene {name!r} ({names})"
            )
    try:
        return load_scene(path)
    except SceneError as e:
        raise fail("sweep.scene", str(e)) from None


def _whole(value: Any, key: str, lo: int, hi: int, fail: _Fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise fail(key, f"expected a whole number from {lo} to {hi:,}, got {value!r}")
    return value


def _positive(value: Any, key: str, fail: _Fail) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not (math.isfinite(value) and 0 < value <= 1e9):
        raise fail(key, f"expected a positive number, got {value!r}")
    return float(value)


def _key_path(text: Any, key: str, groups: int, fail: _Fail) -> KeyPath:
    try:
        path = parse_key_path(text)
        path.check_groups(groups)
    except KeyPathError as e:
        raise fail(key, str(e)) from None
    return path


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """`groups.wander.jitter = 5` in TOML nests tables: back to dotted key paths."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, f"{name}."))
        else:
            out[name] = v
    return out


def _apply_set(base: Scene, table: Any, fail: _Fail) -> Scene:
    if not isinstance(table, Mapping):
        raise fail("sweep.set", "expected a table of key paths and values")
    doc = base.to_dict()
    for text, value in _flatten(table).items():
        path = _key_path(text, f"sweep.set.{text}", len(base.groups), fail)
        doc = path.apply(doc, value)
    try:
        return Scene.from_dict(doc, source=base.source)
    except SceneError as e:
        raise fail("sweep.set", f"{e.key}: {e.problem}" if e.key else e.problem) from None


def _axes(vary: Any, base: Scene, fail: _Fail) -> tuple[Axis, ...]:
    if not isinstance(vary, list) or not all(isinstance(v, Mapping) for v in vary):
        raise fail("sweep.vary", "expected [[sweep.vary]] tables")
    axes: list[Axis] = []
    for i, table in enumerate(vary):
        where = f"sweep.vary[{i}]"
        _check_keys(table, _VARY_KEYS, where, fail)
        if "key" not in table:
            raise fail(f"{where}.key", "missing: name the key to vary")
        path = _key_path(table["key"], f"{where}.key", len(base.groups), fail)
        for other in axes:
            if path.overlaps(other.key):
                raise fail(f"{where}.key", f"'{path.text}' overlaps '{other.key.text}'")
        axes.append(Axis(path, _values(table, path, where, fail)))
    return tuple(axes)


def _values(table: Mapping[str, Any], path: KeyPath, where: str, fail: _Fail) -> tuple[Any, ...]:
    has_values, has_range = "values" in table, "range" in table
    if has_values == has_range:
        raise fail(where, "give either values = [...] or range = [lo, hi] with count")
    if has_values:
        values = table["values"]
        if not isinstance(values, list) or not values:
            raise fail(f"{where}.values", "expected a non-empty list of values")
        for k in ("count", "scale"):
            if k in table:
                raise fail(f"{where}.{k}", "only with range = [lo, hi]")
        values = [_normalise(v, path) for v in values]
    else:
        values = _range(table, path, where, fail)
    seen = set()
    for v in values:
        frozen = _frozen(v)
        if frozen is None:
            try:
                text = toml_value(v)
            except ValueError:  # a nan or inf inside
                text = repr(v)
            what = "is" if isinstance(v, dict) else "holds"
            raise fail(
                f"{where}.values",
                f"{text} {what} a table, not a value of '{path.text}'; vary one key per "
                '[[sweep.vary]] (e.g. key = "groups.wander.jitter", values = [2, 10])',
            )
        if frozen in seen:
            raise fail(f"{where}.values", f"{v!r} appears twice")
        seen.add(frozen)
    return tuple(values)


def _frozen(value: Any) -> Any:
    """`value` made hashable (lists as tuples, at any depth), to find repeats; None if it is
    or holds a table, which no key takes as its value."""
    if isinstance(value, dict):
        return None
    if isinstance(value, list):
        items = tuple(_frozen(v) for v in value)
        return None if None in items else items
    return value


def _normalise(value: Any, path: KeyPath) -> Any:
    """Numbers as the key's type (so a column holds one type); others as given."""
    kind = path.schema_key.type
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == schema.FLOAT and is_number:
        return float(value)
    return value


def _range(table: Mapping[str, Any], path: KeyPath, where: str, fail: _Fail) -> list[Any]:
    if path.schema_key.type not in (schema.FLOAT, schema.INTEGER):
        raise fail(f"{where}.range", f"'{path.text}' is not a number: give values = [...]")
    bounds = table["range"]
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds)
        or not all(math.isfinite(b) for b in bounds)
    ):
        raise fail(f"{where}.range", f"expected [lo, hi], two numbers, got {bounds!r}")
    count = _whole(table.get("count"), f"{where}.count", 2, MAX_CELLS, fail)
    scale = table.get("scale", "linear")
    if scale not in _SCALES:
        raise fail(f"{where}.scale", f'expected "linear" or "log", got {scale!r}')
    lo, hi = (float(b) for b in bounds)
    if scale == "log":
        if lo <= 0 or hi <= 0:
            raise fail(f"{where}.range", "a log scale needs positive bounds")
        points = np.geomspace(lo, hi, count)
    else:
        points = np.linspace(lo, hi, count)
    if path.is_integer:
        values = [round(float(p)) for p in points]
        if len(set(values)) < count:
            raise fail(f"{where}.count", f"{count} whole numbers do not fit in {bounds!r}")
        return values
    # Round away float noise (geomspace gives 29.999999999999996): values people can read.
    return [float(f"{float(p):.12g}") for p in points]


def _cells(
    base: Scene,
    axes: tuple[Axis, ...],
    seeds: int,
    seconds: float,
    rate: float,
    fail: _Fail,
) -> tuple[Cell, ...]:
    doc = base.to_dict()
    cells: list[Cell] = []
    for number, combo in enumerate(itertools.product(*(a.values for a in axes))):
        combo_doc = doc
        for axis, value in zip(axes, combo, strict=True):
            combo_doc = axis.key.apply(combo_doc, value)
        label = ", ".join(f"{a.key.text} = {v!r}" for a, v in zip(axes, combo, strict=True))
        for offset in range(seeds):
            seed = base.seed + offset
            combo_doc["scene"]["seed"] = seed
            try:
                scene = Scene.from_dict(combo_doc)
            except SceneError as e:
                where = f"cell {number} ({label}, seed {seed})" if label else f"seed {seed}"
                problem = f"{e.key}: {e.problem}" if e.key else e.problem
                raise fail(where, problem) from None
            if plan_samples(scene.dt, seconds, rate).samples < 3:
                raise fail("sweep.seconds", "too short: the metrics need 2 sample intervals")
            cells.append(Cell(len(cells), combo, seed, scene, cell_id(scene, seconds, rate)))
    return tuple(cells)
