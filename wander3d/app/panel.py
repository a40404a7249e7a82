"""The side panel: display toggles, the overlay legend, and per group a visibility box and live
parameter controls (controls.py).

The panel only emits signals and shows what it is given; the main window connects it to the
session.
"""

from __future__ import annotations

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtGui import QColor, QIcon, QPixmap
from PyQt6.QtWidgets import QFrame, QGridLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from wander3d.appearance import LEGEND
from wander3d.engine import Enclosure, GroupParams
from wander3d.scene import schema
from wander3d.scene.feel import group_feel
from wander3d.scene.tunables import param_value, tunable_keys

from .controls import (
    PARAMS,
    PanelCheckBox,
    PanelComboBox,
    PanelIntSpinBox,
    ParamControl,
)

__all__ = ["PARAMS", "GroupControls", "SidePanel"]  # PARAMS: for the window


def color_icon(color: str | QColor, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


#: The wander methods and steering modes, as the scene format names them.
METHODS = schema.key("groups.wander", "method").choices
STEERINGS = schema.key("groups.wander", "steering").choices
#: Amber, like the app's highlight: a warning, not an error (the scene runs).
WARNING_STYLE = "color: #f0b429;"
#: The group keys the panel offers in spin boxes, with how (the parameter table's SpinBox rows).
SPIN_BOXES = tuple(
    (k, k.panel) for k in schema.keys_of("groups").values() if isinstance(k.panel, schema.SpinBox)
)
#: What a spin box's tooltip adds for a key that sizes the simulation.
RESTART_NOTE = "Changing it restarts the run from the start (it sizes the simulation)."


def _spin_box(k: schema.Key, how: schema.SpinBox, value: int) -> PanelIntSpinBox:
    """A spin box for whole-number key `k` showing `value`: the key's range, its unit unless
    the label says it, and its meaning as the tooltip."""
    suffix = f" {k.unit}" if k.unit and how.shows_unit else ""
    box = PanelIntSpinBox(int(k.lo or 0), int(k.hi or 0), value, suffix)
    box.setToolTip(f"{k.doc} {RESTART_NOTE}" if k.fixed else k.doc)
    return box


def _labelled(*rows: tuple[str, QWidget]) -> QGridLayout:
    """A grid of (label, widget) rows, the widgets taking the spare width."""
    grid = QGridLayout()
    for row, (label, widget) in enumerate(rows):
        grid.addWidget(QLabel(label), row, 0)
        grid.addWidget(widget, row, 1)
    grid.setColumnStretch(1, 1)
    return grid


class GroupControls(QFrame):
    """One group: a visibility check box (with the group's colour), its method and steering,
    `wander3d check`'s warnings as they become true, its sliders, and its size.

    paramChanged(group, key, value) is a live edit (value: float, or the method's or
    steering's name); sizeChanged(group, key, value) changes a key that sizes the run
    (`count`, `trail_length`: the parameter table's spin boxes), which restarts it.
    """

    visibilityChanged = pyqtSignal(int, bool)
    paramChanged = pyqtSignal(int, str, object)
    sizeChanged = pyqtSignal(int, str, int)

    def __init__(
        self,
        index: int,
        group: GroupParams,
        enclosure: Enclosure,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.index = index
        self.method = group.wander.method
        self.enclosure = enclosure
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QGridLayout(self)
        layout.setVerticalSpacing(2)
        self.visible_box = PanelCheckBox(group.name)
        self.visible_box.setIcon(color_icon(group.color))
        self.visible_box.setChecked(True)
        self.visible_box.setToolTip(f"Show or hide group '{group.name}'")
        self.visible_box.toggled.connect(lambda on: self.visibilityChanged.emit(self.index, on))
        layout.addWidget(self.visible_box, 0, 0, 1, 2)

        self.method_combo = PanelComboBox(METHODS)
        self.method_combo.setCurrentText(group.wander.method)
        self.method_combo.setToolTip(schema.key("groups.wander", "method").doc)
        self.method_combo.textActivated.connect(
            lambda text: self.paramChanged.emit(self.index, "method", text)
        )
        self.steering_combo = PanelComboBox(STEERINGS)
        self.steering_combo.setCurrentText(group.wander.steering)
        self.steering_combo.setToolTip(schema.key("groups.wander", "steering").doc)
        self.steering_combo.textActivated.connect(
            lambda text: self.paramChanged.emit(self.index, "steering", text)
        )
        choices = _labelled(("Method", self.method_combo), ("Steering", self.steering_combo))
        layout.addLayout(choices, 1, 0, 1, 2)

        # `wander3d check`'s warnings about this group, shown while they are true.
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(WARNING_STYLE)
        layout.addWidget(self.warning, 2, 0, 1, 2)

        self.controls: dict[str, ParamControl] = {}
        row = 3
        for row, key in enumerate(tunable_keys(group), start=3):
            control = ParamControl(PARAMS[key], param_value(group, key))
            control.valueChanged.connect(
                lambda value, key=key: self.paramChanged.emit(self.index, key, value)
            )
            layout.addWidget(control, row, 0, 1, 2)
            self.controls[key] = control

        # The whole-number keys (the parameter table's spin boxes): the agents and the trail.
        self.spin_boxes = {
            k.name: _spin_box(k, how, getattr(group, k.name)) for k, how in SPIN_BOXES
        }
        for key, box in self.spin_boxes.items():
            box.editingFinished.connect(lambda box=box, key=key: self._spin_box_edited(box, key))
        spins = _labelled(*((how.label, self.spin_boxes[k.name]) for k, how in SPIN_BOXES))
        layout.addLayout(spins, row + 1, 0, 1, 2)
        layout.setColumnStretch(0, 1)
        self._spin_values = {key: box.value() for key, box in self.spin_boxes.items()}
        self.show_values(group)

    def _spin_box_edited(self, box: PanelIntSpinBox, key: str) -> None:
        if box.value() == self._spin_values[key]:
            return
        self._spin_values[key] = box.value()
        if schema.key("groups", key).fixed:
            self.sizeChanged.emit(self.index, key, box.value())
        else:
            self.paramChanged.emit(self.index, key, box.value())

    def show_values(self, group: GroupParams) -> None:
        """Show `group`'s current parameters (e.g. after a reset) without emitting, and the
        warnings they earn now."""
        for key, control in self.controls.items():
            control.set_value(param_value(group, key))
        for combo, text in (
            (self.method_combo, group.wander.method),
            (self.steering_combo, group.wander.steering),
        ):
            combo.blockSignals(True)
            combo.setCurrentText(text)
            combo.blockSignals(False)
        warnings = group_feel(group, self.enclosure).warnings
        self.warning.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.warning.setVisible(bool(warnings))


def legend_box() -> QGroupBox:
    """What each overlay colour means (appearance.LEGEND), as coloured squares and words."""
    box = QGroupBox("Overlay of the selected agent")
    layout = QGridLayout(box)
    layout.setVerticalSpacing(1)
    for row, (rgba, name, meaning) in enumerate(LEGEND):
        swatch = QLabel()
        swatch.setPixmap(color_icon(QColor.fromRgbF(*rgba[:3])).pixmap(12, 12))
        label = QLabel(name)
        label.setToolTip(meaning)
        swatch.setToolTip(meaning)
        layout.addWidget(swatch, row, 0)
        layout.addWidget(label, row, 1)
    layout.setColumnStretch(1, 1)
    box.setToolTip("Click an agent to see it; F1 explains each colour")
    return box


class SidePanel(QWidget):
    """Display toggles, the overlay legend and one GroupControls per group."""

    groupVisibilityChanged = pyqtSignal(int, bool)
    groupParamChanged = pyqtSignal(int, str, object)
    groupSizeChanged = pyqtSignal(int, str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        display = QGroupBox("Display")
        display_layout = QVBoxLayout(display)
        self.trails_box = PanelCheckBox("Trails")
        self.trails_box.setToolTip("Each agent's recent path, fading with age")
        self.enclosure_box = PanelCheckBox("Enclosure")
        self.enclosure_box.setToolTip("The box the agents stay in, with a floor grid and axes")
        self.debug_box = PanelCheckBox("Overlay on the selected agent")
        self.debug_box.setToolTip(
            "For the selected agent (click one; Esc clears): wander sphere, target, velocity "
            "and steering force (see the legend below)"
        )
        self.debug_all_box = PanelCheckBox("Overlay on every agent (groups ≤ 64)")
        self.debug_all_box.setToolTip("Show the overlay on every agent of groups of 64 or fewer")
        for box in (self.trails_box, self.enclosure_box, self.debug_box, self.debug_all_box):
            display_layout.addWidget(box)
        layout.addWidget(display)
        self.legend = legend_box()
        layout.addWidget(self.legend)
        self.groups_box = QGroupBox("Groups")
        self.groups_layout = QVBoxLayout(self.groups_box)
        layout.addWidget(self.groups_box)
        layout.addStretch(1)
        self.groups: list[GroupControls] = []

    def set_groups(self, groups: tuple[GroupParams, ...], enclosure: Enclosure) -> None:
        """Rebuild the group controls for a new simulation in `enclosure`."""
        for controls in self.groups:
            controls.setParent(None)
            controls.deleteLater()
        self.groups = [self._make(i, group, enclosure) for i, group in enumerate(groups)]
        for controls in self.groups:
            self.groups_layout.addWidget(controls)

    def _make(self, index: int, group: GroupParams, enclosure: Enclosure) -> GroupControls:
        controls = GroupControls(index, group, enclosure)
        controls.visibilityChanged.connect(self.groupVisibilityChanged)
        controls.paramChanged.connect(self.groupParamChanged)
        controls.sizeChanged.connect(self.groupSizeChanged)
        return controls

    def show_values(self, groups: tuple[GroupParams, ...]) -> None:
        """Show the groups' current parameters (after an edit, a reset, a seek); a group
        whose method changed gets that method's sliders."""
        for i, group in enumerate(groups):
            old = self.groups[i]
            if old.method == group.wander.method:
                old.show_values(group)
                continue
            new = self._make(i, group, old.enclosure)
            new.visible_box.setChecked(old.visible_box.isChecked())
            self.groups_layout.replaceWidget(old, new)
            old.setParent(None)
            old.deleteLater()
            self.groups[i] = new

    def show_visibility(self, hidden: frozenset[int]) -> None:
        """Tick the visibility box of every group not in `hidden`, without emitting."""
        for controls in self.groups:
            box = controls.visible_box
            box.blockSignals(True)
            box.setChecked(controls.index not in hidden)
            box.blockSignals(False)
