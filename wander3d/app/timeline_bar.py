"""The timeline bar under the view: a slider through the run so far, and the path toggle.

Its labels have fixed widths, wide enough for what they show, so that neither the clock
ticking nor the path's colour scale appearing resizes the slider (its handle would jump).
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtWidgets import QComboBox, QLabel, QSizePolicy, QSlider, QToolBar, QWidget

from wander3d.render.path import PATH_MEASURES
from wander3d.session import TRACE_MAX_AGENTS

from .controls import PanelCheckBox

#: Units of each path measure, for the colour scale's label.
MEASURE_UNITS = {"speed": "units/s", "turn rate": "°/s"}
#: The widest texts the clock and the colour scale show, to size their labels once.
WIDEST_TIME = "9999.99 / 9999.99 s · step 999,999"
WIDEST_SCALE = " blue ≤ 0.000, red ≥ 9,999 units/s"
TIMELINE_TIP = "Timeline: drag to go back to any moment of the run (pauses); play replays it"
NO_TIMELINE_TIP = "No timeline: one snapshot of this scene exceeds the budget"
PATH_TIP = (
    "Show the selected agent's whole path since the start, coloured by the measure on the "
    "right (blue: low, cyan, yellow, red: high)"
)


def _value(x: float) -> str:
    """3 significant digits, without an exponent up to the thousands: 0.0123, 8.86, 1,234."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


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
        self._no_path = ""
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip(TIMELINE_TIP)
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.slider.setMinimumWidth(160)
        self.slider.valueChanged.connect(self._moved)
        self.time_label = QLabel()
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.time_label.setFixedWidth(self._text_width(WIDEST_TIME))
        # A check box, not a button: it reads as a switch. Choosing a colouring turns it on.
        self.path_button = PanelCheckBox("Path, coloured by")
        self.path_button.setToolTip(PATH_TIP)
        self.path_button.toggled.connect(self._path_changed)
        self.measure_combo = QComboBox()
        self.measure_combo.addItems(PATH_MEASURES)
        self.measure_combo.setToolTip("What the path's colour shows (choosing one shows the path)")
        self.measure_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.measure_combo.currentIndexChanged.connect(self._path_changed)
        self.measure_combo.activated.connect(lambda _: self.path_button.setChecked(True))
        self.scale_label = QLabel()
        self.scale_label.setToolTip("The values the path's blue and red stand for")
        self.scale_label.setFixedWidth(self._text_width(WIDEST_SCALE))
        self.addWidget(QLabel(" Time "))
        self.addWidget(self.slider)
        self.addWidget(self.time_label)
        self.addSeparator()
        self.addWidget(self.path_button)
        self.addWidget(self.measure_combo)
        self.addWidget(self.scale_label)

    def _text_width(self, text: str) -> int:
        return self.fontMetrics().horizontalAdvance(text) + 12

    def show_run(self, step: int, head: int) -> None:
        """Show `step` of a run recorded up to `head` (leaves a slider being dragged alone)."""
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, head))
        if not self.slider.isSliderDown():
            self.slider.setValue(step)
        self.slider.blockSignals(False)
        # The window's one clock (the status bar shows none): time shown, time recorded, step.
        self.time_label.setText(f"{step * self.dt:.2f} / {head * self.dt:.2f} s · step {step:,}")

    def set_enabled(self, timeline: bool, path: bool, agents: int) -> None:
        """Whether the scene (of `agents` agents) has a timeline and path tracing (big scenes
        may have neither); where it has no path, the bar says why in place of the scale."""
        self.slider.setEnabled(timeline)
        self.slider.setToolTip(TIMELINE_TIP if timeline else NO_TIMELINE_TIP)
        self.path_button.setEnabled(path)
        self.measure_combo.setEnabled(path)
        if path:
            self._no_path, why = "", ""
        elif timeline:
            self._no_path = f" no path above {TRACE_MAX_AGENTS:,} agents"
            why = (
                f"tracing a path re-simulates every agent, which a scene of {agents:,} agents "
                "would keep you waiting for"
            )
        else:
            self._no_path = " no path without a timeline"
            why = "it replays the timeline, which one snapshot of this scene would outgrow"
        if not path:
            self.path_button.setChecked(False)
        self.path_button.setToolTip(f"{PATH_TIP}.\nNot in this scene: {why}." if why else PATH_TIP)
        self.show_scale(None)

    def show_scale(self, scale: tuple[str, float, float] | None) -> None:
        """The path's colour scale (measure, lowest colour's value, highest's), or None."""
        if scale is None:
            self.scale_label.setText(self._no_path)
            self.scale_label.setToolTip(self.path_button.toolTip() if self._no_path else "")
            return
        measure, low, high = scale
        units = MEASURE_UNITS.get(measure, "")
        text = f" blue ≤ {_value(low)}, red ≥ {_value(high)} {units}"
        self.scale_label.setText(text)
        self.scale_label.setToolTip(f"The values the path's blue and red stand for:{text}")

    @property
    def measure(self) -> str:
        return self.measure_combo.currentText()

    def _moved(self, value: int) -> None:
        self.seekRequested.emit(value)

    def _path_changed(self, *_: object) -> None:
        self.show_scale(None)
        self.pathChanged.emit(self.path_button.isChecked(), self.measure)
