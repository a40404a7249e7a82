"""The running simulation, owned in one place, without Qt.

A `Session` owns one scene's running `Simulation`, its timeline (seek anywhere in the run so
far) and the selected agent's traced path, and changes them only on its engine thread, as
commands run in the order asked (see session.py for the threading rules). Adapters (the
desktop app's window, panel, frame loop and view; a script) call its methods and observe its
events (psygnal signals); none keeps a copy of the simulation.

Depends on the engine and scene layers, numpy and psygnal; never Qt or vispy.
"""

from .edits import GroupEdit
from .path import TRACE_MAX_AGENTS, PathTracer
from .session import SPEEDS, Display, EngineState, Session, SessionEvents
from .timeline import Timeline

__all__ = [
    "SPEEDS",
    "TRACE_MAX_AGENTS",
    "Display",
    "EngineState",
    "GroupEdit",
    "PathTracer",
    "Session",
    "SessionEvents",
    "Timeline",
]
