"""Turn a parsed TOML document (plain dicts and lists) into checked engine parameters.

Every rule reads the key table in `wander3d.scene.schema`. The first problem found raises a
`SceneError` naming the file and the key path (e.g. "groups[0].wander.radius"); nothing else is
ever raised, whatever the input, so callers need to catch exactly one exception type.
"""

from __future__ import annotations

import difflib
import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from wander3d.engine.methods import METHOD_KEYS
from wander3d.engine.params import (
    SHARED_WANDER_KEYS,
    Enclosure,
    GroupParams,
    WanderParams,
)
from wander3d.scene import schema
from wander3d.scene.colors import parse_color
from wander3d.scene.errors import SceneError
from wander3d.scene.memory import MAX_SCENE_BYTES, describe_need, estimate_bytes, format_bytes
from wander3d.scene.schema import (
    BOOLEAN,
    CHOICE,
    COLOR,
    FLOAT,
    INTEGER,
    MAX_GROUPS,
    MAX_NAME_LENGTH,
    STRING,
    VEC3,
    Key,
)
from wander3d.scene.toml_writer import toml_key, toml_string

TOP_LEVEL_TABLES = ("scene", "enclosure", "camera", "view", "groups")
_AXES = "xyz"


class _Context:
    """Where we are: the file label every error names, and the notices given so far."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.notices: list[str] = []

    def error(self, key: str | None, problem: str) -> SceneError:
        return SceneError(self.file, key, problem)


def describe(value: Any) -> str:
    """A value's TOML type and a short rendering, for "expected X, got Y" messages."""
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int):
        return f"an integer ({show(value)})"
    if isinstance(value, float):
        return f"a float ({show(value)})"
    if isinstance(value, str):
        return f"a string ({show(value)})"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "an array"
    if value is None:
        return "nothing"
    # tomllib also yields dates and times.
    return f"a {type(value).__name__} ({show(value)})"


def show(value: Any, limit: int = 40) -> str:
    """A value as written in TOML, cut to `limit` characters (messages stay one short line)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = repr(value)  # TOML spells inf, -inf and nan the same way
    elif isinstance(value, int):
        text = str(value) if abs(value) < 10**30 else f"an integer of {len(str(abs(value)))} digits"
    elif isinstance(value, str):
        text = toml_string(value)
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(show(v, limit) for v in value[:8]) + "]"
    elif hasattr(value, "isoformat"):  # TOML dates and times
        text = value.isoformat()
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _methods_text(methods: tuple[str, ...] | list[str]) -> str:
    quoted = ", ".join(f"'{m}'" for m in methods)
    return f"method {quoted}" if len(methods) == 1 else f"methods {quoted}"


def _unknown_key(ctx: _Context, path: str, name: Any, table: str, known: list[str]) -> SceneError:
    """An unknown key: suggest the table it belongs in, or the closest known key."""
    if not isinstance(name, str):
        return ctx.error(path or None, f"unknown key {show(name)}")
    # A user's key may hold anything (newlines, quotes): write it as TOML would.
    shown = toml_key(name) if len(name) <= 40 else toml_key(name[:37]) + "..."
    where = f"{path}.{shown}" if path else shown
    elsewhere = [
        schema.TABLES[t]
        for t in schema.TABLES
        if t != table and name in schema.keys_of(t) and name not in known
    ]
    if not path and name in [k.name for k in schema.KEYS]:
        # A key at the top level that belongs in a table (e.g. `dt` without `[scene]`).
        elsewhere = [schema.TABLES[k.table] for k in schema.KEYS if k.name == name]
    if elsewhere:
        return ctx.error(where, f"unknown key here; '{name}' belongs in {' or '.join(elsewhere)}")
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return ctx.error(where, f"unknown key, did you mean '{close[0]}'?")
    return ctx.error(where, "unknown key; known keys: " + ", ".join(known))


def _table(ctx: _Context, value: Any, path: str, table: str) -> Mapping[Any, Any]:
    """Check that `value` is a table whose keys are all known to `table`."""
    if not isinstance(value, Mapping):
        raise ctx.error(path, f"expected a table {schema.TABLES[table]}, got {describe(value)}")
    known = list(schema.keys_of(table))
    if table == "groups":
        known.append("wander")
    for name in value:
        if name not in known:
            raise _unknown_key(ctx, path, name, table, known)
    return value


def _check_range(ctx: _Context, k: Key, value: float, path: str) -> None:
    lo_bad = k.lo is not None and (value <= k.lo if k.lo_open else value < k.lo)
    hi_bad = k.hi is not None and (value >= k.hi if k.hi_open else value > k.hi)
    if lo_bad or hi_bad:
        raise ctx.error(path, f"{show(value)} is out of range: must be {k.range_text()}")


def _number(ctx: _Context, k: Key, value: Any, path: str) -> float:
    # bool is an int in Python but `true` is never a number in a scene file.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ctx.error(path, f"expected a number, got {describe(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ctx.error(path, f"expected a finite number, got {show(value)}")
    _check_range(ctx, k, value, path)  # before float(): a huge int would overflow it
    return float(value)


def _integer(ctx: _Context, k: Key, value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.error(path, f"expected an integer, got {describe(value)}")
    _check_range(ctx, k, value, path)
    return int(value)


def _string(ctx: _Context, value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ctx.error(path, f"expected a string, got {describe(value)}")
    if not value.strip():
        raise ctx.error(path, "must not be empty")
    if len(value) > MAX_NAME_LENGTH:
        raise ctx.error(path, f"too long ({len(value)} characters, at most {MAX_NAME_LENGTH})")
    # Names go into window titles, one-line summaries and saved TOML: no control characters,
    # and no lone surrogates (which cannot be written as UTF-8).
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in value):
        raise ctx.error(path, f"must be printable text without control characters: {show(value)}")
    return value


def _choice(ctx: _Context, k: Key, value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ctx.error(path, f"expected a string, got {describe(value)}")
    if value in k.choices:
        return value
    close = difflib.get_close_matches(value, k.choices, n=1)
    hint = f", did you mean '{close[0]}'?" if close else ""
    options = ", ".join(f"'{c}'" for c in k.choices)
    raise ctx.error(path, f"unknown {k.name} {show(value)}{hint} (one of {options})")


def _color(ctx: _Context, value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ctx.error(path, f'expected a colour string like "#ffb000", got {describe(value)}')
    try:
        return parse_color(value)
    except ValueError as e:
        raise ctx.error(path, str(e)) from None


def _vec3(ctx: _Context, k: Key, value: Any, path: str) -> tuple[float, float, float]:
    if not isinstance(value, list | tuple):
        raise ctx.error(path, f"expected an array of 3 numbers [x, y, z], got {describe(value)}")
    if len(value) != 3:
        raise ctx.error(path, f"expected 3 numbers [x, y, z], got {len(value)}")
    x, y, z = (_number(ctx, k, v, f"{path}[{i}]") for i, v in enumerate(value))
    return (x, y, z)


def read_value(ctx: _Context, k: Key, value: Any, path: str) -> Any:
    """Check one value against its key's type and range; return it converted."""
    if k.type == FLOAT:
        return _number(ctx, k, value, path)
    if k.type == INTEGER:
        return _integer(ctx, k, value, path)
    if k.type == STRING:
        return _string(ctx, value, path)
    if k.type == CHOICE:
        return _choice(ctx, k, value, path)
    if k.type == COLOR:
        return _color(ctx, value, path)
    if k.type == BOOLEAN:
        if not isinstance(value, bool):
            raise ctx.error(path, f"expected true or false, got {describe(value)}")
        return value
    if k.type == VEC3:
        return _vec3(ctx, k, value, path)
    raise AssertionError(f"schema key {k.path} has unknown type {k.type!r}")


def _read_table(
    ctx: _Context, d: Mapping[Any, Any], table: str, path: str, names: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """Read the given keys (default: all of the table's) that are present in `d`."""
    out: dict[str, Any] = {}
    keys = schema.keys_of(table)
    for name in names if names is not None else tuple(keys):
        if name in d:
            out[name] = read_value(ctx, keys[name], d[name], f"{path}.{name}")
    return out


def _read_wander(ctx: _Context, value: Any, path: str) -> WanderParams:
    d = _table(ctx, value, path, "groups.wander")
    method_key = schema.key("groups.wander", "method")
    method = method_key.default
    if "method" in d:
        method = read_value(ctx, method_key, d["method"], f"{path}.method")
    applicable = SHARED_WANDER_KEYS + METHOD_KEYS[method]
    for name in d:
        if name not in applicable:
            users = schema.key("groups.wander", name).methods
            instead = [
                k for k in METHOD_KEYS[method] if not any(k in METHOD_KEYS[u] for u in users)
            ]
            use = (
                "; '" + method + "' uses " + ", ".join(f"'{k}'" for k in instead) + " instead"
                if instead
                else ""
            )
            raise ctx.error(
                f"{path}.{name}",
                f"not used by method '{method}' ({name} is for {_methods_text(users)}{use})",
            )
    # Keys a method does not read keep the engine's defaults, so equal scenes compare equal.
    return WanderParams(**_read_table(ctx, d, "groups.wander", path, applicable))


#: A key older scene files have, read once more to convert it (not in the docs' table).
_TRAIL_EVERY = Key("groups", "trail_every", INTEGER, None, "steps", "", lo=1, hi=10_000)


def _convert_trail_every(ctx: _Context, d: Mapping[Any, Any], path: str, dt: float) -> Any:
    """`d` with the removed `trail_every` (steps) turned into `trail_seconds`, and a notice.

    Unambiguous: the old trail covered trail_length * trail_every * dt seconds.
    """
    if not isinstance(d, Mapping) or "trail_every" not in d:
        return d
    key = f"{path}.trail_every"
    every = _integer(ctx, _TRAIL_EVERY, d["trail_every"], key)
    if "trail_seconds" in d:
        raise ctx.error(key, "replaced by trail_seconds; give only trail_seconds")
    out = {k: v for k, v in d.items() if k != "trail_every"}
    length_key = schema.key("groups", "trail_length")
    length = length_key.default
    if "trail_length" in d:
        length = read_value(ctx, length_key, d["trail_length"], f"{path}.trail_length")
    if length > 0:
        seconds = min(length * every * dt, schema.MAX_TRAIL_SECONDS)
        out["trail_seconds"] = seconds
        ctx.notices.append(
            f"{ctx.file}: {key}: trails are set in seconds now, the same at any dt; read as "
            f"trail_seconds = {seconds:.4g} ({length} points every {every} steps of "
            f"{dt:.4g} s): write that instead"
        )
    return out


def _read_group(ctx: _Context, value: Any, index: int, dt: float) -> GroupParams:
    path = f"groups[{index}]"
    d = _table(ctx, _convert_trail_every(ctx, value, path, dt), path, "groups")
    for k in schema.keys_of("groups").values():
        if k.required and k.name not in d:
            raise ctx.error(f"{path}.{k.name}", f"missing: every group needs a {k.name}")
    fields = _read_table(ctx, d, "groups", path)
    fields.setdefault("name", f"group {index + 1}")
    fields.setdefault("color", schema.GROUP_PALETTE[index % len(schema.GROUP_PALETTE)])
    max_speed = fields.get("max_speed", schema.default("groups", "max_speed"))
    initial = fields.get("initial_speed")
    if initial is not None and initial > max_speed:
        raise ctx.error(
            f"{path}.initial_speed",
            f"{show(initial)} is more than max_speed ({show(max_speed)})",
        )
    wander = _read_wander(ctx, d["wander"], f"{path}.wander") if "wander" in d else WanderParams()
    return GroupParams(wander=wander, **fields)


def _read_groups(ctx: _Context, value: Any, dt: float) -> tuple[GroupParams, ...]:
    if isinstance(value, Mapping):
        raise ctx.error("groups", "expected an array of tables written [[groups]], got [groups]")
    if not isinstance(value, list | tuple):
        raise ctx.error("groups", f"expected an array of [[groups]] tables, got {describe(value)}")
    if not value:
        raise ctx.error("groups", "a scene needs at least one [[groups]] table with a count")
    if len(value) > MAX_GROUPS:
        raise ctx.error("groups", f"too many groups ({len(value)}, at most {MAX_GROUPS})")
    groups = tuple(_read_group(ctx, g, i, dt) for i, g in enumerate(value))
    seen: dict[str, int] = {}
    for i, g in enumerate(groups):
        if g.name in seen:
            raise ctx.error(
                f"groups[{i}].name",
                f"duplicate group name {show(g.name)} (also groups[{seen[g.name]}].name)",
            )
        seen[g.name] = i
    # A fixed bound, the same on every machine; whether the scene fits on this one is asked
    # where it runs (`memory.check_fits`).
    if estimate_bytes(groups) > MAX_SCENE_BYTES:
        raise ctx.error(
            "groups",
            f"{describe_need(groups)}, more than the {format_bytes(MAX_SCENE_BYTES)} a scene "
            "may use; lower count or trail_length",
        )
    return groups


def _read_enclosure(ctx: _Context, value: Any) -> Enclosure:
    d = _table(ctx, value, "enclosure", "enclosure")
    fields = {
        name: schema.default("enclosure", name) for name in schema.keys_of("enclosure")
    } | _read_table(ctx, d, "enclosure", "enclosure")
    lo, hi, margin = fields["min"], fields["max"], fields["margin"]
    for axis, a, b in zip(_AXES, lo, hi, strict=True):
        if a >= b:
            key = "enclosure.max" if "max" in d else "enclosure.min"
            raise ctx.error(
                key,
                f"max must be greater than min on every axis, but on {axis} "
                f"min = {show(a)} and max = {show(b)}",
            )
    half = min(b - a for a, b in zip(lo, hi, strict=True)) / 2
    if margin >= half:
        raise ctx.error(
            "enclosure.margin",
            f"{show(margin)} must be less than half the box's smallest extent ({show(half)})",
        )
    return Enclosure(min=lo, max=hi, margin=margin)


def parse_scene(data: Any, file: str, default_name: str) -> dict[str, Any]:
    """Check a parsed scene document; return the fields of a `Scene` (camera and view as dicts).

    `file` is the label errors name; `default_name` the scene name when [scene] has none.
    "notices" lists what was read but should be written differently (removed keys, converted).
    Raises SceneError, and only SceneError, for anything invalid.
    """
    ctx = _Context(file)
    if not isinstance(data, Mapping):
        raise ctx.error(None, f"expected a table of scene keys, got {describe(data)}")
    for name in data:
        if name not in TOP_LEVEL_TABLES:
            raise _unknown_key(ctx, "", name, "", list(TOP_LEVEL_TABLES))
    if "groups" not in data:
        raise ctx.error(
            "groups", "missing: a scene needs at least one [[groups]] table with a count"
        )

    scene = _read_table(ctx, _table(ctx, data.get("scene", {}), "scene", "scene"), "scene", "scene")
    enclosure = _read_enclosure(ctx, data.get("enclosure", {}))
    camera = _read_table(
        ctx, _table(ctx, data.get("camera", {}), "camera", "camera"), "camera", "camera"
    )
    view = _read_table(ctx, _table(ctx, data.get("view", {}), "view", "view"), "view", "view")
    dt = scene.get("dt", schema.default("scene", "dt"))
    groups = _read_groups(ctx, data["groups"], dt)
    return {
        "name": scene.get("name", default_name),
        "seed": scene.get("seed", schema.default("scene", "seed")),
        "dt": dt,
        "enclosure": enclosure,
        "groups": groups,
        "camera": camera,
        "view": view,
        "notices": tuple(ctx.notices),
    }
