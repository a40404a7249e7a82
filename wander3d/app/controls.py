"""Controls of one float parameter, made for a scrolling panel.

The mouse wheel over the panel scrolls it: a slider or spin box takes the wheel (and the keys
the window also uses as shortcuts that it moves by: the arrows, Home, End, Page Up and Down)
only while it has the keyboard focus. Space stays the window's play / pause everywhere but on
a check box, which toggles with it: a focused value box, whose line edit would take it as
text (and drop it: no number holds a space), leaves it to the window.
Values are shown exactly, with their unit; sliders are logarithmic for parameters that span
decades (the table of them: wander3d.scene.tunables).
"""

from __future__ import annotations

import math

from PyQt6.QtCore import QEvent, Qt, pyqtSignal
from PyQt6.QtGui import QKeyEvent, QWheelEvent
from PyQt6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QWidget,
)

from wander3d.scene import schema
from wander3d.scene.tunables import PARAMS as PARAMS  # the panel's table, re-exported
from wander3d.scene.tunables import ParamSpec

#: Slider steps between a parameter's ends.
SLIDER_STEPS = 1000
#: Sliders are at least this wide (logical pixels): a pixel is at most 1/160 of the range.
SLIDER_MIN_WIDTH = 160
#: Decimals spin boxes keep (and accept when typed); they show no trailing zeros.
MAX_DECIMALS = 6
#: Keys a focused slider or spin box keeps for itself although they are window shortcuts.
#: Not Space: a slider does nothing with it, and focus often rests on one (after a drag, after
#: Save As), where Space must still play and pause.
NAVIGATION_KEYS = frozenset(
    (
        Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home,
        Qt.Key.Key_End, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown,
    )
)  # fmt: skip
#: A focused check box keeps Space, which toggles it.
TOGGLE_KEYS = frozenset((Qt.Key.Key_Space,))
#: Keys a focused value box leaves to the window's shortcuts, although its line edit asks
#: for them as text.
WINDOW_KEYS = frozenset((Qt.Key.Key_Space,))


def keeps_key(event: QEvent | None, keys: frozenset[Qt.Key] = NAVIGATION_KEYS) -> bool:
    """Whether `event` is a shortcut check for a key of `keys`, which the focused widget uses
    itself; if so it is accepted, which delivers the key to the widget instead of the window."""
    if (
        isinstance(event, QKeyEvent)
        and event.type() == QEvent.Type.ShortcutOverride
        and Qt.Key(event.key()) in keys
    ):
        event.accept()
        return True
    return False


def leaves_key(event: QEvent | None) -> bool:
    """Whether `event` is a shortcut check for a key of WINDOW_KEYS without modifiers; if so
    it is left unaccepted, which gives the key to the window's shortcut."""
    if (
        isinstance(event, QKeyEvent)
        and event.type() == QEvent.Type.ShortcutOverride
        and Qt.Key(event.key()) in WINDOW_KEYS
        and event.modifiers() == Qt.KeyboardModifier.NoModifier
    ):
        event.ignore()
        return True
    return False


def passes_wheel_on(widget: QWidget, event: QWheelEvent | None) -> bool:
    """Whether the wheel `event` is left to the scroll area behind `widget` (ignored), as it
    is unless the widget has focus: scrolling the panel must not change the values it
    passes over."""
    if widget.hasFocus():
        return False
    if event is not None:
        event.ignore()
    return True


class PanelSlider(QSlider):
    """A horizontal slider that ignores the wheel unless focused, and keeps its keys."""

    def __init__(self) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def wheelEvent(self, event: QWheelEvent | None) -> None:
        if not passes_wheel_on(self, event):
            super().wheelEvent(event)

    def event(self, event: QEvent | None) -> bool:
        return keeps_key(event) or super().event(event)


class PanelSpinBox(QDoubleSpinBox):
    """A spin box that ignores the wheel unless focused, keeps its keys and leaves Space to
    the window."""

    def __init__(self) -> None:
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setKeyboardTracking(False)
        self.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)

    def wheelEvent(self, event: QWheelEvent | None) -> None:
        if not passes_wheel_on(self, event):
            super().wheelEvent(event)

    def event(self, event: QEvent | None) -> bool:
        if leaves_key(event):
            return False
        return keeps_key(event) or super().event(event)

    def textFromValue(self, value: float) -> str:
        """Exact, without trailing zeros beyond one decimal: 0.2, 40.0, 0.015."""
        text = self.locale().toString(value, "f", self.decimals())
        point = self.locale().decimalPoint()
        if point in text:
            text = text.rstrip("0")
            if text.endswith(point):
                text += "0"
        return text


class PanelComboBox(QComboBox):
    """A combo box that ignores the wheel unless focused (the panel scrolls instead)."""

    def __init__(self, items: tuple[str, ...]) -> None:
        super().__init__()
        self.addItems(items)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def wheelEvent(self, event: QWheelEvent | None) -> None:
        if not passes_wheel_on(self, event):
            super().wheelEvent(event)


class PanelIntSpinBox(QSpinBox):
    """A whole-number box that ignores the wheel unless focused, keeps its keys, leaves Space
    to the window, and reports only a finished edit (Enter, or focus leaving): each change
    restarts the run."""

    def __init__(self, lo: int, hi: int, value: int, suffix: str = "") -> None:
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setKeyboardTracking(False)
        self.setRange(lo, hi)
        self.setValue(value)
        self.setGroupSeparatorShown(True)
        if suffix:
            self.setSuffix(suffix)

    def wheelEvent(self, event: QWheelEvent | None) -> None:
        if not passes_wheel_on(self, event):
            super().wheelEvent(event)

    def event(self, event: QEvent | None) -> bool:
        if leaves_key(event):
            return False
        return keeps_key(event) or super().event(event)


class PanelCheckBox(QCheckBox):
    """A check box that keeps Space (it toggles it) when focused."""

    def event(self, event: QEvent | None) -> bool:
        return keeps_key(event, TOGGLE_KEYS) or super().event(event)


class ParamControl(QWidget):
    """A label, a spin box with the unit, and below them a full-width slider, bound to one
    float parameter.

    The spin box accepts any value the scene format allows and always shows the value exactly;
    the slider's range stretches to include it. valueChanged(float) fires for user changes
    only, never for `set_value`.
    """

    valueChanged = pyqtSignal(float)

    def __init__(self, spec: ParamSpec, value: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        key = schema.key(spec.table, spec.key)
        self.unit = key.unit
        unit = f" ({key.unit})" if key.unit else ""
        self.setToolTip(f"{spec.label}{unit}: {key.doc}")
        self.lo, self.hi = spec.lo, spec.hi
        self.label = QLabel(spec.label)
        self.slider = PanelSlider()
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(SLIDER_MIN_WIDTH)
        self.spin = PanelSpinBox()
        smallest = 10.0**-MAX_DECIMALS if key.lo_open else key.lo or 0.0
        self.spin.setDecimals(MAX_DECIMALS)  # before the range, which it rounds
        self.spin.setRange(smallest, min(key.hi if key.hi is not None else 1e6, 1e6))
        if key.unit:
            self.spin.setSuffix(f" {key.unit}")
        self.spin.setMinimumWidth(120)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setVerticalSpacing(0)
        layout.addWidget(self.label, 0, 0)
        layout.addWidget(self.spin, 0, 1, Qt.AlignmentFlag.AlignRight)
        layout.addWidget(self.slider, 1, 0, 1, 2)
        layout.setColumnStretch(0, 1)
        self.set_value(value)
        self.slider.valueChanged.connect(self._slider_moved)
        self.spin.valueChanged.connect(self._spin_changed)

    def value(self) -> float:
        return self.spin.value()

    def set_value(self, value: float) -> None:
        """Show `value` exactly, without emitting valueChanged."""
        for w in (self.slider, self.spin):
            w.blockSignals(True)
        self._include(value)
        self.spin.setValue(value)
        self.slider.setValue(self._to_slider(value))
        for w in (self.slider, self.spin):
            w.blockSignals(False)

    def _include(self, value: float) -> None:
        """Stretch the slider's range to hold `value`."""
        if value > self.hi:
            self.hi = 2.0 * value
        if value < self.lo:
            self.lo = value / 2.0 if self.spec.log and value > 0 else value
        self.slider.setSingleStep(1)
        self.slider.setPageStep(SLIDER_STEPS // 20)

    def _to_slider(self, value: float) -> int:
        if self.spec.log and self.lo > 0:
            t = math.log(max(value, self.lo) / self.lo) / math.log(self.hi / self.lo)
        else:
            t = (value - self.lo) / (self.hi - self.lo)
        return round(min(1.0, max(0.0, t)) * SLIDER_STEPS)

    def _from_slider(self, position: int) -> float:
        t = position / SLIDER_STEPS
        if self.spec.log and self.lo > 0:
            return self.lo * (self.hi / self.lo) ** t
        return self.lo + (self.hi - self.lo) * t

    def _slider_moved(self, position: int) -> None:
        value = self._from_slider(position)
        # Round to what a person reads: 3 significant digits.
        digits = max(0, 2 - math.floor(math.log10(abs(value)))) if value else 0
        value = round(value, min(MAX_DECIMALS, digits))
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        # The spin box holds the value the engine gets.
        self.valueChanged.emit(self.spin.value())

    def _spin_changed(self, value: float) -> None:
        self.slider.blockSignals(True)
        self._include(value)
        self.slider.setValue(self._to_slider(value))
        self.slider.blockSignals(False)
        self.valueChanged.emit(value)
