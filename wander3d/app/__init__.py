"""The desktop app: a PyQt6 main window around a `wander3d.render.SimulationView`, its parts
thin adapters over a `wander3d.session.Session` (the model). Uses the session, render,
drawing, share, port, scene and engine layers and the helpers; PyQt6 and vispy's Qt backend.
"""

from .main import run_app
from .window import MainWindow

__all__ = ["MainWindow", "run_app"]
