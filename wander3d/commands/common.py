"""What every command shares: exit codes (wander3d.exit_status's), the error type and line,
reading a SCENE argument, and output files named by an option.

The library layers name files and values in their errors; the option a value came from is the
command line's business, so it is added here (`output_option`) or where a command reports the
error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

from wander3d.exit_status import EXIT_APP_UNAVAILABLE as EXIT_APP_UNAVAILABLE
from wander3d.exit_status import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from wander3d.exit_status import EXIT_DECLINED as EXIT_DECLINED
from wander3d.exit_status import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from wander3d.exit_status import EXIT_OK as EXIT_OK
from wander3d.exit_status import EXIT_PIPE_CLOSED as EXIT_PIPE_CLOSED
from wander3d.exit_status import PROG as PROG
from wander3d.files import OutputError, output_file
from wander3d.scene import Scene, SceneError, bundled_scene, bundled_scenes, load_scene

#: Width of the paragraphs of a command's --help.
HELP_WIDTH = 88


def help_paragraph(text: str) -> str:
    """`text` wrapped for a command's --help description or epilog, never inside a hyphenated
    word: textwrap's default breaks after a hyphen, splitting `--max-` from `gap`."""
    return textwrap.fill(text, width=HELP_WIDTH, break_on_hyphens=False)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every command's --help: the description and epilog as written (paragraphs made with
    `help_paragraph`, lists and examples as laid out), each option's help wrapped to the
    terminal without breaking an option's name at its hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class CliError(Exception):
    """Bad input found by a command; the CLI prints it as one line and exits with 2."""


def error_line(message: str) -> None:
    """Print `wander3d: error: MESSAGE` on stderr."""
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)


def require_extra(extra: str, modules: Sequence[str], what: str) -> None:
    """CliError naming `pip install "wander3d[EXTRA]"` if a module of `modules` (top-level
    import names) is not installed; `what` needs them, e.g. "the desktop app".

    Checked before importing anything of them, so a core install gets one line, no traceback.
    """
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        names = " and ".join(missing)
        are = "is" if len(missing) == 1 else "are"
        raise CliError(
            f'{what} needs {names}, which {are} not installed: pip install "{PROG}[{extra}]"'
        )


def resolve_scene(arg: str) -> Path:
    """A scene argument as a path: an existing file, else the name of a bundled scene.

    `wander3d run swarm` works from any folder; a path (with a folder or .toml suffix) is
    always taken as given, so a typo in it is reported as a missing file.
    """
    path = Path(arg)
    if looks_like_name(arg) and not path.exists() and arg in bundled_scenes():
        return bundled_scene(arg)
    return path


def looks_like_name(arg: str) -> bool:
    """Whether a SCENE argument reads as a bundled scene's name: no folder, no extension."""
    return os.sep not in arg and "/" not in arg and Path(arg).suffix == ""


def load_scene_arg(arg: str) -> Scene:
    """The Scene a SCENE argument names; SceneError (naming bundled scenes) if there is none."""
    try:
        return load_scene(resolve_scene(arg))
    except SceneError as e:
        path = Path(arg)
        if e.problem == "no such file" and path.suffix == "" and os.sep not in arg:
            names = ", ".join(bundled_scenes()) or "none"
            raise SceneError(e.file, e.key, f"no such file or bundled scene ({names})") from None
        raise


@contextlib.contextmanager
def output_option(option: str, path: Path) -> Iterator[Path]:
    """`output_file(path)` for a file the option `option` (e.g. "--out") names: an OutputError
    about that file becomes a CliError starting with the option."""
    try:
        with output_file(path) as temporary:
            yield temporary
    except OutputError as e:
        if e.path != Path(path):  # another file's error, raised while this one was open
            raise
        raise CliError(f"{option} {e}") from None
