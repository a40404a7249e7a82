"""The timeline bar under the view: a slider through the run so far, and the path toggle."""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QComboBox, QLabel, QSizePolicy, QSlider, QToolBar, QToolButton, QWidget

from wander3d.render.path import PATH_MEASURES

#: Units of each path measure, for the colour scale's label.
MEASURE_UNITS = {"speed": "units/s", "turn rate": "°/s"}


class TimelineBar(QToolBar):
    """Slider from the run's start to the furthest step recorded, at the step shown.

    Emits `seekRequested(step)` when the user moves the slider (drag, click, keys) and
    `pathChanged(on, measure)` when the path toggle or its colouring changes.
    """

    seekRequested = pyqtSignal(int)
    pathChanged = pyqtSignal(bool, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Timeline", parent)
        self.setObjectName("timeline_toolbar")
        self.setMovable(False)
        self.dt = 1.0
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip(
            "Timeline: drag to go back to any moment of the run (pauses); play replays it"
        )
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.slider.setMinimumWidth(160)
        self.slider.valueChanged.connect(self._moved)
        self.time_label = QLabel()
        self.time_label.setMinimumWidth(220)
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.path_button = QToolButton()
        self.path_button.setText("Path")
        self.path_button.setCheckable(True)
        self.path_button.setToolTip(
            "Show the selected agent's whole path since the start, coloured by the measure "
            "on the right (blue: low, cyan, yellow, red: high)"
        )
        self.path_button.toggled.connect(self._path_changed)
        self.measure_combo = QComboBox()
        self.measure_combo.addItems(PATH_MEASURES)
        self.measure_combo.setToolTip("What the path's colour shows")
        self.measure_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.measure_combo.currentIndexChanged.connect(self._path_changed)
        self.scale_label = QLabel()
        self.scale_label.setToolTip("The values the path's blue and red stand for")
        self.addWidget(QLabel(" Time "))
        self.addWidget(self.slider)
        self.addWidget(self.time_label)
        self.addSeparator()
        self.addWidget(self.path_button)
        self.addWidget(self.measure_combo)
        self.addWidget(self.scale_label)

    def show_run(self, step: int, head: int) -> None:
        """Show `step` of a run recorded up to `head` (leaves a slider being dragged alone)."""
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, head))
        if not self.slider.isSliderDown():
            self.slider.setValue(step)
        self.slider.blockSignals(False)
        # The window's one clock (the status bar shows none): time shown, time recorded, step.
        self.time_label.setText(f"{step * self.dt:.2f} / {head * self.dt:.2f} s · step {step:,}")

    def set_enabled(self, timeline: bool, path: bool) -> None:
        """Whether the scene has a timeline and path tracing (big scenes may have neither)."""
        self.slider.setEnabled(timeline)
        if not timeline:
            self.slider.setToolTip("No timeline: one snapshot of this scene exceeds the budget")
        self.path_button.setEnabled(path)
        if not path:
            self.path_button.setChecked(False)

    def show_scale(self, scale: tuple[str, float, float] | None) -> None:
        """The path's colour scale (measure, lowest colour's value, highest's), or None."""
        if scale is None:
            self.scale_label.setText("")
            return
        measure, low, high = scale
        units = MEASURE_UNITS.get(measure, "")
        self.scale_label.setText(f" blue ≤ {low:.3g}, red ≥ {high:.3g} {units}")

    @property
    def measure(self) -> str:
        return self.measure_combo.currentText()

    def _moved(self, value: int) -> None:
        self.seekRequested.emit(value)

    def _path_changed(self, *_: object) -> None:
        self.scale_label.setText("")
        self.pathChanged.emit(self.path_button.isChecked(), self.measure)
