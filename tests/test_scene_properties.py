"""Property-based tests of the loader and writer.

- Any valid scene document survives Scene -> to_toml() -> tomllib -> Scene unchanged.
- Any garbage, and any valid document with one value replaced by garbage, either loads or
  raises SceneError with a one-line message: never another exception.
"""

from __future__ import annotations

import datetime
import math
import os
import tomllib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wander3d import Scene, SceneError
from wander3d.engine.methods import METHOD_KEYS, METHODS
from wander3d.engine.params import SHARED_WANDER_KEYS
from wander3d.scene import schema
from wander3d.scene.colors import CSS_COLORS, parse_color
from wander3d.scene.schema import FLOAT, INTEGER, Key

#: WANDER3D_HYPOTHESIS_EXAMPLES=5000 for a thorough run; the default keeps the suite fast.
SETTINGS = settings(
    max_examples=int(os.environ.get("WANDER3D_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Printable names, including non-ASCII, quotes and backslashes (the writer must escape them).
names = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=20
).filter(lambda s: s.strip() != "")


def number(k: Key, lo: float | None = None, hi: float | None = None) -> st.SearchStrategy[Any]:
    """Numbers a key accepts (floats, and ints where the range allows), within [lo, hi]."""
    lo = k.lo if lo is None else lo
    hi = k.hi if hi is None else hi
    assert lo is not None and hi is not None, f"{k.name} is unbounded: pass lo and hi"
    floats = st.floats(
        min_value=lo, max_value=hi, exclude_min=k.lo_open, exclude_max=k.hi_open,
        allow_nan=False, allow_infinity=False,
    )  # fmt: skip
    lo_int = math.floor(lo) + 1 if k.lo_open or lo != math.floor(lo) else int(lo)
    hi_int = math.ceil(hi) - 1 if k.hi_open or hi != math.ceil(hi) else int(hi)
    if k.type == INTEGER:
        return st.integers(lo_int, hi_int)
    if lo_int <= hi_int:
        return floats | st.integers(lo_int, hi_int)
    return floats


colors = st.sampled_from(sorted(CSS_COLORS)) | st.from_regex(
    r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})", fullmatch=True
)


def value(k: Key) -> st.SearchStrategy[Any]:
    if k.type in (FLOAT, INTEGER):
        return number(k)
    if k.type == schema.STRING:
        return names
    if k.type == schema.CHOICE:
        return st.sampled_from(k.choices)
    if k.type == schema.COLOR:
        return colors
    if k.type == schema.BOOLEAN:
        return st.booleans()
    raise AssertionError(k)


def optional_table(table: str, skip: tuple[str, ...] = ()) -> st.SearchStrategy[dict[str, Any]]:
    keys = schema.keys_of(table)
    return st.fixed_dictionaries(
        {}, optional={n: value(k) for n, k in keys.items() if n not in skip}
    )


@st.composite
def enclosures(draw: st.DrawFn) -> dict[str, Any]:
    lo = [draw(st.integers(-1000, 1000) | st.floats(-1000, 1000)) for _ in range(3)]
    size = [draw(st.floats(1, 1000)) for _ in range(3)]
    hi = [a + s for a, s in zip(lo, size, strict=True)]
    # The extents as the loader sees them (a + s rounds).
    smallest = min(b - a for a, b in zip(lo, hi, strict=True))
    margin = draw(st.floats(0, smallest / 2, exclude_max=True))
    return {"min": lo, "max": hi, "margin": margin}


@st.composite
def wanders(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(METHODS))
    keys = schema.keys_of("groups.wander")
    allowed = [n for n in SHARED_WANDER_KEYS + METHOD_KEYS[method] if n != "method"]
    chosen = draw(st.lists(st.sampled_from(allowed), unique=True))
    return {"method": method} | {n: draw(value(keys[n])) for n in chosen}


@st.composite
def groups(draw: st.DrawFn, index: int) -> dict[str, Any]:
    keys = schema.keys_of("groups")
    g = draw(optional_table("groups", skip=("count", "name", "initial_speed", "trail_length")))
    g["count"] = draw(st.integers(1, 500))  # small: memory is tested elsewhere
    g["name"] = f"{draw(names)} {index}"  # unique within the scene
    if draw(st.booleans()):
        g["trail_length"] = draw(st.integers(0, 500))
    if draw(st.booleans()):
        top = g.get("max_speed", keys["max_speed"].default)
        g["initial_speed"] = draw(number(keys["initial_speed"], hi=top))
    if draw(st.booleans()):
        g["wander"] = draw(wanders())
    return g


@st.composite
def scene_docs(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for table in ("scene", "camera", "view"):
        if draw(st.booleans()):
            doc[table] = draw(optional_table(table))
    if draw(st.booleans()):
        doc["enclosure"] = draw(enclosures())
    n = draw(st.integers(1, 5))
    doc["groups"] = [draw(groups(i)) for i in range(n)]
    return doc


def _expected(k: Key, given: Any) -> Any:
    if k.type == schema.COLOR:
        return parse_color(given)
    if k.type == FLOAT:
        return float(given)
    return given


@SETTINGS
@given(scene_docs())
def test_valid_documents_round_trip_through_toml(doc):
    scene = Scene.from_dict(doc)
    text = scene.to_toml()
    again = Scene.from_dict(tomllib.loads(text))
    assert again == scene
    assert Scene.from_dict(scene.to_dict()) == scene
    assert again.to_toml() == text  # writing is deterministic
    # Every value given is the value read (after documented normalisation).
    for i, g in enumerate(doc["groups"]):
        for name, given_value in g.items():
            if name == "wander":
                for wname, wvalue in given_value.items():
                    k = schema.key("groups.wander", wname)
                    assert getattr(scene.groups[i].wander, wname) == _expected(k, wvalue)
            else:
                k = schema.key("groups", name)
                assert getattr(scene.groups[i], name) == _expected(k, given_value)
    for name, given_value in doc.get("camera", {}).items():
        assert getattr(scene.camera, name) == _expected(schema.key("camera", name), given_value)
    if "scene" in doc and "dt" in doc["scene"]:
        assert scene.dt == float(doc["scene"]["dt"])


# ----------------------------------------------------------------------------- garbage
key_names = st.sampled_from(
    sorted({k.name for k in schema.KEYS} | set(schema.TABLES) | {"wander", "groups", "x"})
) | st.text(max_size=6)
scalars = (
    st.integers()
    | st.floats()
    | st.booleans()
    | st.text(max_size=10)
    | st.none()
    | st.dates()
    | st.times()
    | st.datetimes()
    | st.just(datetime.date(2024, 1, 1))
)
garbage = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(key_names, children, max_size=5)
    ),
    max_leaves=25,
)


def _loads_or_scene_error(doc: Any) -> None:
    try:
        scene = Scene.from_dict(doc)
    except SceneError as e:
        message = str(e)
        assert message.startswith("<scene>: ") and "\n" not in message, message
        assert len(message) < 400, message
    else:
        # What loaded must also write and read back.
        assert Scene.from_dict(tomllib.loads(scene.to_toml())) == scene


@SETTINGS
@given(st.dictionaries(key_names, garbage, max_size=6) | garbage)
def test_garbage_loads_or_raises_scene_error(doc):
    _loads_or_scene_error(doc)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [path] + [p for k, v in node.items() for p in _leaves(v, (*path, k))]
    if isinstance(node, list):
        return [path] + [p for i, v in enumerate(node) for p in _leaves(v, (*path, i))]
    return [path]


def _replace(node: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: _replace(node[head], rest, new)}
    copy = list(node)
    copy[head] = _replace(node[head], rest, new)
    return copy


@SETTINGS
@given(scene_docs(), st.data())
def test_one_bad_value_in_a_valid_scene_loads_or_raises_scene_error(doc, data):
    path = data.draw(st.sampled_from(_leaves(doc)[1:]))
    _loads_or_scene_error(_replace(doc, path, data.draw(garbage)))
