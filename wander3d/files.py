"""Output files written whole or not at all.

Commands write to a temporary file beside the target and rename it onto the target only when
complete, so a failed or interrupted run never leaves a half-written file, and never removes
anything that was there before (a device such as /dev/null included). The finished file gets the
mode a plain `open(path, "w")` would give it (0666 less the umask), not the private 0600 of
`tempfile.mkstemp`.

A temporary file is named `.NAME.wander3d-PID-XXXXXXXX.SUFFIX` (hidden, beside NAME, saying
what made it and which process): one that a killed process (kill -9, a power cut) could not
remove is removed by the next write of the same output, once its process is gone.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _current_umask() -> int:
    """The process's umask (reading it means setting it; it is put straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def unknown_format(path: Path | str, suffixes: tuple[str, ...]) -> str:
    """The one wording of every command for an output whose extension names no format it
    writes: "PATH: unknown format '.txt'; use .png, .svg or .pdf"."""
    return f"{path}: {format_problem(path, suffixes)}"


def format_problem(path: Path | str, suffixes: tuple[str, ...]) -> str:
    """`unknown_format` without the path (for an OutputError, which puts it in front)."""
    suffix = Path(path).suffix
    named = f"'{suffix}'" if suffix else "(none)"
    listed = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}" if len(suffixes) > 1 else suffixes[0]
    return f"unknown format {named}; use {listed}"


class OutputError(ValueError):
    """An output file cannot be written. str() is one line, "PATH: problem"; the attributes
    are `path` (the Path asked for) and `problem` (str). A command line that took the path
    from an option puts the option's name in front."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[Path, str]]:
        return (type(self), (self.path, self.problem))


@contextlib.contextmanager
def output_file(path: Path) -> Iterator[Path]:
    """Yield a temporary path (same folder and suffix as `path`) to write; on success it
    replaces `path`.

    Raises OutputError at once for a folder, a missing folder or one that cannot be written
    (so a bad path fails before a long run), and for write errors such as a full disk.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(path, "is a directory")
    folder = path.parent
    if not folder.is_dir():
        raise OutputError(path, f"folder {folder} does not exist")
    remove_stale_temporaries(path)
    try:
        handle, name = tempfile.mkstemp(
            prefix=f"{_temporary_prefix(path)}{os.getpid()}-", suffix=path.suffix, dir=folder
        )
    except OSError as e:
        raise OutputError(path, f"cannot write: {e.strerror or e}") from None
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, 0o666 & ~_current_umask())
        if path.exists() and not path.is_file():
            # A device or pipe (e.g. /dev/stdout): copy into it rather than replace it.
            with open(path, "wb") as target:
                target.write(temporary.read_bytes())
        else:
            os.replace(temporary, path)
    except OSError as e:
        raise OutputError(path, f"cannot write: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}.wander3d-"


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (one of another user counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (OSError, OverflowError):  # no such process, or no such process id
        return False
    return True


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporary files that writes of `path` by processes now gone left beside it
    (see the module's description); the paths removed. Another live process's are kept."""
    path = Path(path)
    prefix = _temporary_prefix(path)
    pattern = re.compile(re.escape(prefix) + r"(\d+)-[^/]*" + re.escape(path.suffix) + "$")
    removed = []
    for name in glob.glob(glob.escape(str(path.parent / prefix)) + "*", include_hidden=True):
        found = pattern.match(os.path.basename(name))
        if found is None or process_alive(int(found.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(name)
            removed.append(Path(name))
    return removed


def replace_block(path: Path, start: str, end: str, block: str) -> bool:
    """Replace the text of `path` from the marker `start` to the marker `end` (both included)
    with `block`, which carries them again (a README's generated part), writing the file
    whole; return whether it changed.

    Raises ValueError if `path` lacks the markers, in that order.
    """
    text = Path(path).read_text(encoding="utf-8")
    first = text.find(start)
    last = text.find(end, max(first, 0))
    if first < 0 or last < 0:
        raise ValueError(f"{path}: no {start!r} ... {end!r} block")
    new = text[:first] + block + text[last + len(end) :]
    if new == text:
        return False
    with output_file(Path(path)) as temporary:
        temporary.write_text(new, encoding="utf-8")
    return True
