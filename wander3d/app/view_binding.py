"""Keeps the 3D view showing the session: its run, display toggles, selection and path.

The adapter between the Qt-free `Session` (the model) and the vispy `SimulationView`: the view
learns everything from the session's events and published states (the frame loop hands it
each new state), and nothing here keeps state of the run.
"""

from __future__ import annotations

from PyQt6.QtCore import QObject, pyqtSignal

from wander3d.render import SimulationView
from wander3d.render.path import PATH_MEASURES, path_measures
from wander3d.session import Display, Session


class ViewBinding(QObject):
    """Pushes `session`'s changes into `view`. Connect it before anything else that draws:
    a new simulation must reach the view first."""

    #: The path's colour scale: (measure, value of the lowest colour, of the highest), or
    #: None when no path is shown.
    pathScaleChanged = pyqtSignal(object)

    def __init__(self, session: Session, view: SimulationView, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.view = view
        self.path_measure = PATH_MEASURES[0]
        self._scale: tuple[str, float, float] | None = None
        events = session.events
        events.simulation_changed.connect(self._show_simulation)
        events.display_changed.connect(self._show_display)
        events.selection_changed.connect(self._show_selection)
        events.path_changed.connect(self.show_path)
        events.state_changed.connect(self.show_path)  # the path runs up to the step shown
        self._show_display(session.display)
        view.show_state(session.state)

    def set_path_measure(self, measure: str) -> None:
        """Colour the path by `measure` (one of render.path.PATH_MEASURES)."""
        self.path_measure = measure
        self.show_path()

    def _show_simulation(self, reloaded: bool) -> None:
        # The same file read again keeps the camera; another scene starts at its own view.
        session = self.session
        self.view.set_simulation(session.current_scene(), session.layout, keep_camera=reloaded)
        self.show_path()  # no path in a new simulation: its scale goes too

    def _show_display(self, display: Display) -> None:
        view = self.view
        view.set_trails_visible(display.trails)
        view.set_enclosure_visible(display.enclosure)
        view.set_debug_visible(display.overlay)
        view.set_debug_all(display.overlay_all)
        for group in range(len(self.session.groups)):
            visible = group not in display.hidden_groups
            if view.group_visible(group) != visible:
                view.set_group_visible(group, visible)

    def _show_selection(self, agent: int | None) -> None:
        self.view.select(agent)
        self.show_path()

    def show_path(self) -> None:
        """Draw the selected agent's traced path up to the step shown, or none."""
        session = self.session
        path = session.path
        if path is None or not session.path_on or session.path_agent != session.selected:
            if self.view.path.visible:
                self.view.show_path(None)
            self._set_scale(None)  # whatever hid the path (a new scene too), not only this
            return
        points, breaks = path
        k = min(len(points), session.step + 1)
        values = path_measures(points[:k], breaks[:k], session.dt)[self.path_measure]
        self.view.show_path(points[:k], breaks[:k], values)
        self._set_scale((self.path_measure, *self.view.path.scale))

    def _set_scale(self, scale: tuple[str, float, float] | None) -> None:
        if scale != self._scale:
            self._scale = scale
            self.pathScaleChanged.emit(scale)
