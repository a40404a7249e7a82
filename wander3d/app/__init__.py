"""The desktop app: a PyQt6 main window around a `wander3d.render.SimulationView`."""

from .main import run_app
from .window import MainWindow

__all__ = ["MainWindow", "run_app"]
