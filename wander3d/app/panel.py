"""The side panel: display toggles, the overlay legend, and per group a visibility box and live
parameter controls (controls.py).

The panel only emits signals and shows what it is given; the main window connects it to the
session.
"""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QColor, QIcon, QPixmap
from PyQt6.QtWidgets import QFrame, QGridLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from wander3d.engine import GroupParams
from wander3d.render.debug import LEGEND
from wander3d.scene.tunables import param_value, tunable_keys

from .controls import PARAMS, PanelCheckBox, ParamControl

__all__ = ["PARAMS", "GroupControls", "SidePanel"]  # PARAMS: for the window


def color_icon(color: str | QColor, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class GroupControls(QFrame):
    """One group: a visibility check box (with the group's colour) and its controls."""

    visibilityChanged = pyqtSignal(int, bool)
    paramChanged = pyqtSignal(int, str, float)

    def __init__(self, index: int, group: GroupParams, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index = index
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QGridLayout(self)
        layout.setVerticalSpacing(2)
        self.visible_box = PanelCheckBox(group.name)
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
            layout.addWidget(control, row, 0, 1, 2)
            self.controls[key] = control
        layout.setColumnStretch(0, 1)

    def show_values(self, group: GroupParams) -> None:
        """Show `group`'s current parameters (e.g. after a reset) without emitting."""
        for key, control in self.controls.items():
            control.set_value(param_value(group, key))


def legend_box() -> QGroupBox:
    """What each overlay colour means (render.debug.LEGEND), as coloured squares and words."""
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
    groupParamChanged = pyqtSignal(int, str, float)

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
        """Show the groups' current parameters (after an edit, a reset, a seek)."""
        for controls, group in zip(self.groups, groups, strict=True):
            controls.show_values(group)

    def show_visibility(self, hidden: frozenset[int]) -> None:
        """Tick the visibility box of every group not in `hidden`, without emitting."""
        for controls in self.groups:
            box = controls.visible_box
            box.blockSignals(True)
            box.setChecked(controls.index not in hidden)
            box.blockSignals(False)
