"""A small, correct TOML writer for scene documents (tomllib only reads).

Handles what scenes contain: tables of strings, booleans, integers, finite floats and arrays of
those, nested tables, and arrays of tables. Floats are written with repr(), which round-trips
exactly; strings are escaped as TOML basic strings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}

#: Called with (table path, key) and returns a comment for that line, or "".
Commenter = Callable[[str, str], str]


def toml_string(s: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for c in s:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def toml_value(value: Any) -> str:
    """One inline value; raises ValueError for what TOML (or this writer) cannot hold."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r}: scenes hold finite numbers only")
        # repr() gives the shortest text that reads back bit-identical; it is valid TOML
        # ("30.0", "1e-05", "1.5e+20") as long as it is finite.
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):  # an inline table
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"cannot write a {type(value).__name__} as a TOML value")


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(isinstance(v, Mapping) for v in value)
    )


def _emit_table(
    lines: list[str], path: list[str], table: Mapping[str, Any], header: str | None, note: Commenter
) -> None:
    """Write `table`'s plain keys under `header`, then its sub-tables and arrays of tables."""
    plain = {
        k: v for k, v in table.items() if not isinstance(v, Mapping) and not _is_table_array(v)
    }
    if header is not None:
        if lines:
            lines.append("")
        lines.append(header)
    dotted = ".".join(path)
    for k, v in plain.items():
        line = f"{toml_key(k)} = {toml_value(v)}"
        comment = note(dotted, k)
        lines.append(f"{line}  # {comment}" if comment else line)
    for k, v in table.items():
        sub = [*path, k]
        name = ".".join(toml_key(p) for p in sub)
        if isinstance(v, Mapping):
            _emit_table(lines, sub, v, f"[{name}]", note)
        elif _is_table_array(v):
            for item in v:
                _emit_table(lines, sub, item, f"[[{name}]]", note)


def dumps(doc: Mapping[str, Any], header: str = "", note: Commenter | None = None) -> str:
    """Serialise a document of nested tables to TOML text.

    header: comment lines put at the top (without "#"). note: gives a trailing comment for each
    key, e.g. its unit. Keys that hold tables are written after the plain keys of their parent,
    as TOML requires.
    """
    lines = [f"# {h}" if h else "#" for h in header.splitlines()]
    prefix = len(lines)
    _emit_table(lines, [], doc, None, note or (lambda _table, _key: ""))
    if prefix and len(lines) > prefix and lines[prefix] != "":
        lines.insert(prefix, "")
    return "\n".join(lines) + "\n"
