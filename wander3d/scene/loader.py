"""load_scene: read a scene file, turning every way it can fail into one SceneError line."""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path

from wander3d.scene.errors import SceneError
from wander3d.scene.memory import format_bytes
from wander3d.scene.model import Scene, build_scene

#: Scene files are a few kilobytes; anything this big is the wrong file (or /dev/zero).
MAX_FILE_BYTES = 1024 * 1024

_UTF8_BOM = b"\xef\xbb\xbf"
_TOML_POSITION = re.compile(r"^(?P<msg>.*?)\s*\(at line (?P<line>\d+), column (?P<col>\d+)\)$")


def _read_bytes(path: Path, label: str) -> bytes:
    def fail(problem: str) -> SceneError:
        return SceneError(label, None, problem)

    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise fail("no such file") from None
    except PermissionError:
        raise fail("permission denied") from None
    except OSError as e:
        raise fail(f"cannot open: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise fail("is a directory, not a scene file")
    # Pipes, sockets and devices could block or never end: a scene is a plain file.
    if not stat.S_ISREG(st.st_mode):
        raise fail("not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise fail(
            f"too large for a scene file ({format_bytes(st.st_size)}, at most "
            f"{format_bytes(MAX_FILE_BYTES)})"
        )
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except PermissionError:
        raise fail("permission denied") from None
    except OSError as e:
        raise fail(f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:  # it grew after stat()
        raise fail(f"too large for a scene file (more than {format_bytes(MAX_FILE_BYTES)})")
    return data


def _decode(data: bytes, label: str) -> str:
    if b"\x00" in data:
        raise SceneError(label, None, "a binary file, not a TOML scene")
    # Windows editors like to start UTF-8 files with a byte-order mark; tomllib rejects it.
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SceneError(
            label,
            None,
            f"line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); save the scene as UTF-8",
        ) from None


def _toml_problem(e: tomllib.TOMLDecodeError) -> str:
    """tomllib's message with the position first: "line 3, column 7: invalid TOML: ..."."""
    msg = str(e)
    m = _TOML_POSITION.match(msg)
    if m:
        return f"line {m['line']}, column {m['col']}: invalid TOML: {m['msg']}"
    return f"invalid TOML: {msg}"


def load_scene(path: str | os.PathLike[str]) -> Scene:
    """Read and validate a TOML scene file.

    Raises SceneError (a ValueError) naming the file and, where there is one, the key path,
    for a missing or unreadable file, a directory, a binary or non-UTF-8 file, invalid TOML
    (with its line) and every invalid value. The Scene keeps the file's path and text.
    """
    label = os.fspath(path)
    if not label:
        raise SceneError("''", None, "no file name given")
    p = Path(label)
    text = _decode(_read_bytes(p, label), label)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SceneError(label, None, _toml_problem(e)) from None
    return build_scene(doc, p, label, text)
