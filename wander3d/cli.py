"""The `wander3d` command (also `python -m wander3d`): the parser and the top-level error policy.

    wander3d [SCENE]                  open the desktop app (default: the bundled default scene)
    wander3d check SCENE...           validate scene files, one summary line each
    wander3d run SCENE --seconds S    simulate without a window; optionally save a trajectory
    wander3d stats SCENE              measure the wander per group (path statistics table)
    wander3d sweep SWEEP --out F      measure a grid of parameters on Dask (parameter atlas)
    wander3d tune SCENE --group G ... search a group's parameters for target metrics
    wander3d render SCENE --out F     draw offscreen to a PNG, MP4 or GIF (no display needed)
    wander3d bench                    engine speed against a tutorial-style loop, frame costs
    wander3d port SCENE --lang L ...  the scene's wander as drop-in code for a game engine
    wander3d share SCENE --out F      the scene, live, as one self-contained web page

Each command lives in its own module of `wander3d.commands`, loaded inside `main`, whose
Ctrl+C handling is in place from the first moment (loading the engine takes seconds). Qt and
vispy are imported only by the commands that draw (and Dask only by `sweep` and `tune`), so the
headless commands work on machines with no display, in a core install without them (`pip
install wander3d`); the app and `render` say which extra to install when theirs is missing. Bad
input never gives a traceback: it is one `wander3d: error: ...` line and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from wander3d.exit_status import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_PIPE_CLOSED, PROG

if TYPE_CHECKING:
    from types import ModuleType

#: Words that mean `open`: `app` is what the quick start's `bootstrap.sh app` calls it.
OPEN_ALIASES = ("app",)


class _Parser(argparse.ArgumentParser):
    """argparse with the program name fixed (python -m would say __main__.py) and its errors
    one line, like every other bad input (the usage is a `--help` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{PROG}: error: {message}\n")


def _commands() -> tuple[ModuleType, ...]:
    """The command modules, in `--help`'s order (importing them loads the engine)."""
    from wander3d.commands import COMMANDS

    return COMMANDS


def _names() -> tuple[str, ...]:
    return tuple(command.NAME for command in _commands())


def build_parser() -> argparse.ArgumentParser:
    from wander3d import __version__
    from wander3d.commands.common import HelpFormatter, help_paragraph
    from wander3d.scene import bundled_scenes

    names = _names()
    version = f"{PROG} {__version__}"
    parser = _Parser(
        prog=PROG,
        usage=f"{PROG} [-h] [--version] [SCENE]\n       {PROG} {{{','.join(names)}}} ...",
        description="See, tune and measure Craig Reynolds' wander steering behaviour in 3D.",
        epilog=help_paragraph(
            "SCENE is a .toml scene file or the name of a bundled scene ("
            + (", ".join(bundled_scenes()) or "none found")
            + f"). Examples: '{PROG}' opens the default scene; '{PROG} check scenes/*.toml'; "
            f"'{PROG} run swarm --seconds 10 --out swarm.npz'."
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=version)
    sub = parser.add_subparsers(
        dest="command", metavar=f"{{{','.join(names)}}}", parser_class=_Parser
    )
    for command in _commands():
        p = sub.add_parser(
            command.NAME,
            prog=f"{PROG} {command.NAME}",
            help=command.HELP,
            formatter_class=HelpFormatter,
        )
        command.configure(p)
        p.add_argument("--version", action="version", version=version)
        p.set_defaults(func=command.main)
    return parser


def _normalise_argv(argv: list[str]) -> list[str]:
    """`wander3d`, `wander3d SCENE` and `wander3d app [SCENE]` mean `wander3d open [SCENE]`."""
    if argv and argv[0] in OPEN_ALIASES:
        return ["open", *argv[1:]]
    if not argv or (argv[0] not in _names() and not argv[0].startswith("-")):
        return ["open", *argv]
    return argv


def _unknown_word(argv: list[str]) -> str | None:
    """The error for a first word that is no command, file or bundled scene (`wander3d chek`,
    `wander3d stat default`), naming the nearest command or scene; None for any other argv.

    Without it the word would open the app on a missing file, or fail on the next argument.
    """
    from wander3d.commands.common import looks_like_name
    from wander3d.scene import bundled_scenes

    names = _names()
    if not argv or argv[0].startswith("-") or argv[0] in (*names, *OPEN_ALIASES):
        return None
    word = argv[0]
    scenes = bundled_scenes()
    if not looks_like_name(word) or Path(word).exists() or word in scenes:
        return None
    close = difflib.get_close_matches(word, [*names, *scenes], n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    return (
        f"{word}: no such command, file or bundled scene{hint} "
        f"(commands: {', '.join(names)}; bundled scenes: {', '.join(scenes) or 'none'})"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (argparse exits itself on bad usage).

    Ctrl+C at any moment, loading the engine and the commands included, is one line and
    status 130.
    """
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def parse_args(argv: list[str]) -> argparse.Namespace:
    """`argv` as the command line reads it. CliError for a first word that is no command, file
    or bundled scene; SystemExit as argparse exits on bad usage (status 2, the error said) or
    after --help or --version (status 0)."""
    from wander3d.commands.common import CliError

    unknown = _unknown_word(argv)
    if unknown is not None:
        raise CliError(unknown)
    argv = _normalise_argv(argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    return args


def _run(argv: list[str]) -> int:
    from wander3d.commands.common import CliError, error_line
    from wander3d.files import OutputError
    from wander3d.scene import MemoryFitError, SceneError

    try:
        args = parse_args(argv)
        return int(args.func(args))
    except (SceneError, MemoryFitError, CliError, OutputError) as e:
        error_line(str(e))
        return EXIT_BAD_INPUT
    except MemoryError:
        error_line("out of memory; try fewer agents or shorter trails")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # `wander3d check ... | head`: the reader left. Point stdout at /dev/null so the flush
        # at exit does not raise again (the recipe from Python's signal module docs).
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
