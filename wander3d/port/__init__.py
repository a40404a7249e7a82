"""Ports: the engine's model as drop-in code for game engines (`wander3d port`).

A port is a core in another language that repeats the engine's steps bit for bit (the contract
is docs/ports.md), plus an engine adapter, a conformance driver and a README. This package plans
a port of a scene (`plan_port`: its groups, parameters and exact starting state) and writes one
language's files (`write_port`); each language is a subpackage (`wander3d.port.js`, ...) with
its checked-in sources and a `Language` saying how to render them. Headless: it builds on the
engine and the scene layer only.
"""

from .language import LANGUAGES, Language, language
from .plan import GroupPort, PortError, PortPlan, plan_port
from .write import write_port

__all__ = [
    "LANGUAGES",
    "GroupPort",
    "Language",
    "PortError",
    "PortPlan",
    "language",
    "plan_port",
    "write_port",
]
