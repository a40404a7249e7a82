"""The `wander3d` subcommands, one module each; `wander3d.cli` builds the parser from them.

Each command module has `NAME`, `configure(parser)` (adds its arguments and help to an argparse
parser and sets `func`) and `main(args) -> int`. Only the commands that draw import Qt or vispy,
and only inside their functions, so the headless ones run where there is no display.
"""

from . import bench, check, open, port, render, run, share, stats, sweep, tune

#: In the order `wander3d --help` lists them.
COMMANDS = (open, check, run, stats, sweep, tune, render, bench, port, share)

__all__ = ["COMMANDS"]
