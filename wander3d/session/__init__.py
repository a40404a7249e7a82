"""The running simulation, owned in one place, without Qt.

A `Session` owns one scene's running `Simulation`, its timeline (seek anywhere in the run so
far) and the selected agent's traced path, and changes them only on its engine thread, as
jobs (jobs.py) run in the order asked (see session.py for the threading rules). After every
job it publishes the engine's state as immutable copies (published.py): the agents, the
shown trails' new samples and the overlay's arrays, which is all a renderer draws from.
Adapters (the desktop app's window, panel, frame loop and view; the headless recorder; a
script) call its methods and observe its events (psygnal signals); none holds the
simulation.

Depends on the engine and scene layers, numpy and psygnal; never Qt or vispy.
"""

from .edits import GroupEdit
from .path import TRACE_MAX_AGENTS, PathTracer
from .published import (
    OVERLAY_ALL_MAX,
    Display,
    EngineState,
    Overlay,
    TrailSamples,
    overlay_agents,
)
from .session import SPEEDS, Session, SessionEvents
from .timeline import Timeline

__all__ = [
    "OVERLAY_ALL_MAX",
    "SPEEDS",
    "TRACE_MAX_AGENTS",
    "Display",
    "EngineState",
    "GroupEdit",
    "Overlay",
    "PathTracer",
    "Session",
    "SessionEvents",
    "Timeline",
    "TrailSamples",
    "overlay_agents",
]
