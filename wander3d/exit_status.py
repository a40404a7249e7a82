"""The `wander3d` command's name and exit statuses.

Standard library only: the command's outermost guard (`wander3d.cli.main`) needs them before
the engine and the commands load, which takes seconds on a busy machine, seconds in which
Ctrl+C must still end the command with one line and status 130, never a traceback.
"""

PROG = "wander3d"

EXIT_OK = 0
EXIT_APP_UNAVAILABLE = 1
EXIT_DECLINED = 1  # the user answered no (`sweep` asks before a run of hours)
EXIT_PIPE_CLOSED = 1  # stdout closed early (`| head`), as Python itself exits then
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a program ended by Ctrl+C
