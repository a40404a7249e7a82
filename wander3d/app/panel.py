"""The side panel: display toggles, and per group a visibility box and live parameter sliders.

The panel only emits signals; the main window applies them to the engine and the view.
"""

from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor, QIcon, QPixmap
from PyQt6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from wander3d.engine import METHOD_KEYS, GroupParams
from wander3d.scene import schema

#: Slider steps between a parameter's ends.
SLIDER_STEPS = 1000


@dataclass(frozen=True)
class ParamSpec:
    """A tunable parameter: a GroupParams field ("groups") or a WanderParams one.

    lo, hi: the slider's default range (units of the parameter); a scene value beyond `hi`
    stretches it to twice that value.
    """

    key: str
    table: str
    label: str
    lo: float
    hi: float


PARAMS = {
    p.key: p
    for p in (
        ParamSpec("distance", "groups.wander", "Distance", 0.0, 120.0),
        ParamSpec("radius", "groups.wander", "Radius", 0.5, 60.0),
        ParamSpec("jitter", "groups.wander", "Jitter", 0.0, 60.0),
        ParamSpec("rate", "groups.wander", "Rate", 0.0, 5.0),
        ParamSpec("frequency", "groups.wander", "Frequency", 0.02, 3.0),
        ParamSpec("interval", "groups.wander", "Interval", 0.25, 20.0),
        ParamSpec("max_speed", "groups", "Max speed", 1.0, 200.0),
        ParamSpec("max_force", "groups", "Max force", 1.0, 400.0),
    )
}


def tunable_keys(group: GroupParams) -> tuple[str, ...]:
    """The parameters the panel offers for `group`: its method's wander keys, then limits."""
    return (*METHOD_KEYS[group.wander.method], "max_speed", "max_force")


def param_value(group: GroupParams, key: str) -> float:
    spec = PARAMS[key]
    return float(getattr(group.wander if spec.table == "groups.wander" else group, key))


class ParamControl(QWidget):
    """A slider and a spin box bound to one float parameter.

    valueChanged(float) fires for user changes only, never for `set_value`.
    """

    valueChanged = pyqtSignal(float)

    def __init__(self, spec: ParamSpec, value: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.lo = spec.lo
        self.hi = max(spec.hi, 2.0 * value)
        key = schema.key(spec.table, spec.key)
        unit = f" ({key.unit})" if key.unit else ""
        self.setToolTip(f"{spec.label}{unit}: {key.doc}")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.spin = QDoubleSpinBox()
        span = self.hi - self.lo
        self.spin.setDecimals(3 if span <= 5 else 2 if span <= 50 else 1)
        self.spin.setRange(self.lo, self.hi)
        self.spin.setSingleStep(span / 100)
        self.spin.setKeyboardTracking(False)
        self.spin.setFixedWidth(76)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 0, 0)
        layout.addWidget(self.spin, 0, 1)
        self.set_value(value)
        self.slider.valueChanged.connect(self._slider_moved)
        self.spin.valueChanged.connect(self._spin_changed)

    def value(self) -> float:
        return self.spin.value()

    def set_value(self, value: float) -> None:
        """Show `value` without emitting valueChanged."""
        for w in (self.slider, self.spin):
            w.blockSignals(True)
        self.spin.setValue(value)
        self.slider.setValue(self._to_slider(value))
        for w in (self.slider, self.spin):
            w.blockSignals(False)

    def _to_slider(self, value: float) -> int:
        return round((value - self.lo) / (self.hi - self.lo) * SLIDER_STEPS)

    def _slider_moved(self, position: int) -> None:
        value = self.lo + (self.hi - self.lo) * position / SLIDER_STEPS
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        # The spin box rounds to its decimals; that is the value the engine gets.
        self.valueChanged.emit(self.spin.value())

    def _spin_changed(self, value: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(self._to_slider(value))
        self.slider.blockSignals(False)
        self.valueChanged.emit(value)


def color_icon(color: str, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class GroupControls(QFrame):
    """One group: a visibility check box (with the group's colour) and its sliders."""

    visibilityChanged = pyqtSignal(int, bool)
    paramChanged = pyqtSignal(int, str, float)

    def __init__(self, index: int, group: GroupParams, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index = index
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QGridLayout(self)
        self.visible_box = QCheckBox(group.name)
        self.visible_box.setIcon(color_icon(group.color))
        self.visible_box.setChecked(True)
        self.visible_box.setToolTip(f"Show or hide group '{group.name}'")
        self.visible_box.toggled.connect(lambda on: self.visibilityChanged.emit(self.index, on))
        summary = QLabel(f"{group.wander.method} · {group.count:,}")
        summary.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        summary.setToolTip("wander method · number of agents")
        layout.addWidget(self.visible_box, 0, 0)
        layout.addWidget(summary, 0, 1)
        self.controls: dict[str, ParamControl] = {}
        for row, key in enumerate(tunable_keys(group), start=1):
            control = ParamControl(PARAMS[key], param_value(group, key))
            control.valueChanged.connect(
                lambda value, key=key: self.paramChanged.emit(self.index, key, value)
            )
            label = QLabel(PARAMS[key].label)
            label.setToolTip(control.toolTip())
            layout.addWidget(label, row, 0)
            layout.addWidget(control, row, 1)
            self.controls[key] = control
        layout.setColumnStretch(1, 1)

    def show_values(self, group: GroupParams) -> None:
        """Show `group`'s current parameters (e.g. after a reset) without emitting."""
        for key, control in self.controls.items():
            control.set_value(param_value(group, key))


class SidePanel(QWidget):
    """Display toggles and one GroupControls per group."""

    groupVisibilityChanged = pyqtSignal(int, bool)
    groupParamChanged = pyqtSignal(int, str, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        display = QGroupBox("Display")
        display_layout = QVBoxLayout(display)
        self.trails_box = QCheckBox("Trails")
        self.trails_box.setToolTip("Each agent's recent path, fading with age")
        self.enclosure_box = QCheckBox("Enclosure")
        self.enclosure_box.setToolTip("The box the agents stay in, with a floor grid and axes")
        self.debug_box = QCheckBox("Debug overlay")
        self.debug_box.setToolTip(
            "For the selected agent (click one; Esc clears): wander sphere, target (yellow), "
            "velocity (green) and steering force (red)"
        )
        self.debug_all_box = QCheckBox("Debug every agent of small groups")
        self.debug_all_box.setToolTip("Show the overlay on every agent of groups of 64 or fewer")
        for box in (self.trails_box, self.enclosure_box, self.debug_box, self.debug_all_box):
            display_layout.addWidget(box)
        layout.addWidget(display)
        self.groups_box = QGroupBox("Groups")
        self.groups_layout = QVBoxLayout(self.groups_box)
        layout.addWidget(self.groups_box)
        layout.addStretch(1)
        self.groups: list[GroupControls] = []

    def set_groups(self, groups: tuple[GroupParams, ...]) -> None:
        """Rebuild the group controls for a new simulation."""
        for controls in self.groups:
            controls.setParent(None)
            controls.deleteLater()
        self.groups = []
        for i, group in enumerate(groups):
            controls = GroupControls(i, group)
            controls.visibilityChanged.connect(self.groupVisibilityChanged)
            controls.paramChanged.connect(self.groupParamChanged)
            self.groups_layout.addWidget(controls)
            self.groups.append(controls)

    def show_values(self, groups: tuple[GroupParams, ...]) -> None:
        for controls, group in zip(self.groups, groups, strict=True):
            controls.show_values(group)
