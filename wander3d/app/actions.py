"""The window's actions, menus and toolbar, and which keys reach the canvas instead.

Every command is a QAction with window-wide shortcuts, so it works wherever the focus is, except
where the focused widget needs the key itself: a slider its arrows, a check box Space (see
panel.py), and the fly camera its movement keys (`FlyKeys` below). `Actions` only builds them;
the main window connects each to what it does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from PyQt6.QtCore import QEvent, QObject, Qt
from PyQt6.QtGui import QAction, QActionGroup, QIcon, QKeyEvent, QKeySequence
from PyQt6.QtWidgets import (
    QComboBox,
    QLabel,
    QMainWindow,
    QMenu,
    QMenuBar,
    QStyle,
    QToolBar,
    QWidget,
)

from wander3d.render import CAMERA_MODES

from .theme import draw_camera, draw_follow, draw_home, drawn_icon

#: Keys vispy's fly camera moves with (its keymap): in fly mode they go to the canvas.
FLY_KEYS = frozenset(
    (
        Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Space,
        Qt.Key.Key_W, Qt.Key.Key_A, Qt.Key.Key_S, Qt.Key.Key_D, Qt.Key.Key_F, Qt.Key.Key_C,
        Qt.Key.Key_I, Qt.Key.Key_J, Qt.Key.Key_K, Qt.Key.Key_L, Qt.Key.Key_Q, Qt.Key.Key_E,
    )
)  # fmt: skip
MODE_TIPS = {
    "turntable": "Orbit the centre with the floor level (+y up)",
    "arcball": "Rotate freely around the centre",
    "fly": "Fly through the scene: WASD / arrows move, F / C up and down, drag looks",
}
CAMERA_TIP = (
    "Camera: turntable (drag rotates, wheel zooms, Shift+drag pans), arcball, or fly "
    "(WASD / arrows move, F / C up and down, drag looks) (1, 2, 3)"
)


class FlyKeys(QObject):
    """Event filter on the canvas: in fly mode its movement keys are not shortcuts.

    in_fly_mode: tells whether the view's camera is in fly mode now.
    """

    def __init__(self, in_fly_mode: Callable[[], bool], parent: QObject) -> None:
        super().__init__(parent)
        self.in_fly_mode = in_fly_mode

    def eventFilter(self, obj: QObject | None, event: QEvent | None) -> bool:
        if (
            isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.ShortcutOverride
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
            and Qt.Key(event.key()) in FLY_KEYS
            and self.in_fly_mode()
        ):
            event.accept()  # deliver it to the canvas as a key press
            return True
        return False


def key_text(action: QAction) -> str:
    """The action's shortcuts as the user sees them, e.g. "., Right"."""
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())


def standard_icon(widget: QWidget, icon: QStyle.StandardPixmap) -> QIcon:
    """One of the style's standard icons (play, pause, open...)."""
    style = widget.style()
    assert style is not None  # a widget always has a style (the application's)
    return style.standardIcon(icon)


def steady_width(button: QWidget, action: QAction, texts: tuple[str, ...]) -> None:
    """Make `button` (showing `action`) as wide as the widest of the `texts` the action
    switches between, so that the toolbar after it does not shift (Pause / Play: 11 px)."""
    current = action.text()
    widths = []
    for text in texts:
        action.setText(text)
        widths.append(button.sizeHint().width())
    action.setText(current)
    button.setMinimumWidth(max(widths))


def add_menu(parent: QMenuBar | QMenu, title: str) -> QMenu:
    menu = parent.addMenu(title)
    assert menu is not None  # addMenu(str) always makes one
    return menu


def make_action(
    window: QMainWindow,
    text: str,
    shortcuts: tuple[str, ...] = (),
    tip: str = "",
    icon: QStyle.StandardPixmap | QIcon | None = None,
    checkable: bool = False,
) -> QAction:
    """An action of `window` whose tooltip names its shortcuts, e.g. "Play or pause (Space)".

    Its shortcuts are window-wide, so the keys work whichever panel widget has the focus.
    icon: one of the style's standard icons, or one drawn (theme.drawn_icon).
    """
    action = QAction(text, window)
    if isinstance(icon, QIcon):
        action.setIcon(icon)
    elif icon is not None:
        action.setIcon(standard_icon(window, icon))
    if shortcuts:
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(f"{tip or text} ({key_text(action)})")
    elif tip:
        action.setToolTip(tip)
    action.setStatusTip(tip or text)
    action.setCheckable(checkable)
    window.addAction(action)
    return action


class Actions:
    """Every command of `window` as a QAction, and the menus and toolbar that offer them."""

    def __init__(self, window: QMainWindow) -> None:
        sp = QStyle.StandardPixmap
        self.window = window

        a = functools.partial(make_action, window)

        self.open = a("&Open scene…", ("Ctrl+O",), "Open a scene file", sp.SP_DialogOpenButton)
        self.reload = a("&Reload", ("Ctrl+R",), "Reload the scene file", sp.SP_BrowserReload)
        self.auto_reload = a(
            "Reload &automatically", tip="Reload when the file changes on disk", checkable=True
        )
        self.save_as = a(
            "&Save scene as…", ("Ctrl+S",), "Save the scene with the current parameters",
            sp.SP_DialogSaveButton,
        )  # fmt: skip
        self.export_code = a(
            "&Export code…", tip="Write the scene, with the current parameters, as code for a "
            "game engine (JavaScript / three.js, C# / Unity, C++ / Unreal)",
        )  # fmt: skip
        self.share_page = a(
            "S&hare as web page…", tip="Write the scene, with the current parameters, as one "
            "web page that runs it live in any browser, offline",
        )  # fmt: skip
        self.screenshot = a(
            "Save s&creenshot", ("Ctrl+Shift+S", "F12"), "Save the view as a PNG",
            drawn_icon(draw_camera),
        )  # fmt: skip
        self.quit = a("&Quit", ("Ctrl+Q",), "Quit wander3d")
        self.play = a("Pause", ("Space",), "Play or pause", sp.SP_MediaPause)
        self.step = a("Step", (".", "Right"), "Pause and advance one step", sp.SP_MediaSkipForward)
        self.reset = a("Reset", ("R",), "Back to the scene's start", sp.SP_MediaSkipBackward)
        self.slower = a("Slower", ("[", "-"), "Halve the time speed", sp.SP_MediaSeekBackward)
        self.faster = a("Faster", ("]", "+"), "Double the time speed", sp.SP_MediaSeekForward)
        self.home = a("Reset view", ("Home",), "Back to the scene's camera", drawn_icon(draw_home))
        self.follow = a(
            "Follow", ("T",),
            "Chase the selected agent from behind; T again or Esc gives the camera back",
            drawn_icon(draw_follow), checkable=True,
        )  # fmt: skip
        self.back = a(
            "Back / clear selection", ("Esc",),
            "Stop following (camera as before), else clear the selected agent",
        )  # fmt: skip
        self.camera_modes = QActionGroup(window)
        for i, mode in enumerate(CAMERA_MODES, start=1):
            act = a(f"{mode.capitalize()} camera", (str(i),), MODE_TIPS[mode], checkable=True)
            self.camera_modes.addAction(act)
        self.help = a(
            "&Keys, mouse and overlay…", ("F1",), "Every key, mouse gesture and overlay colour",
            sp.SP_DialogHelpButton,
        )  # fmt: skip
        self.help.setIconText("Help")
        self.recent_menu = QMenu("Open &recent", window)
        self.speed_label = QLabel()
        self.speed_label.setToolTip("Time speed: simulated seconds per real second")
        self.speed_label.setMinimumWidth(40)
        self.speed_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.camera_combo = QComboBox()
        self.camera_combo.addItems([m.capitalize() for m in CAMERA_MODES])
        self.camera_combo.setToolTip(CAMERA_TIP)
        self.camera_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def build_menus(self, panel_toggle: QAction) -> None:
        """The menu bar; `panel_toggle` shows or hides the side panel."""
        bar = self.window.menuBar()
        assert bar is not None  # a main window makes its menu bar on first use
        file_menu = add_menu(bar, "&File")
        file_menu.addAction(self.open)
        file_menu.addMenu(self.recent_menu)
        for act in (self.reload, self.auto_reload, self.save_as, self.export_code,
                    self.share_page, None, self.screenshot, None, self.quit):  # fmt: skip
            file_menu.addSeparator() if act is None else file_menu.addAction(act)
        sim_menu = add_menu(bar, "&Simulation")
        for act in (self.play, self.step, self.reset, self.slower, self.faster):
            sim_menu.addAction(act)
        view_menu = add_menu(bar, "&View")
        for act in (self.home, self.follow, self.back):
            view_menu.addAction(act)
        view_menu.addSeparator()
        for act in self.camera_modes.actions():
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(panel_toggle)
        help_menu = add_menu(bar, "&Help")
        help_menu.addAction(self.help)

    def build_toolbar(self) -> QToolBar:
        """The main toolbar, added to the window."""
        bar = QToolBar("Simulation", self.window)
        bar.setObjectName("main_toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.setMovable(False)
        self.window.addToolBar(bar)
        for act in (self.open, self.reload, None, self.play, self.step, self.reset, None,
                    self.slower):  # fmt: skip
            bar.addSeparator() if act is None else bar.addAction(act)
        bar.addWidget(self.speed_label)
        bar.addAction(self.faster)
        bar.addSeparator()
        bar.addAction(self.home)
        bar.addAction(self.follow)
        bar.addWidget(self.camera_combo)
        bar.addSeparator()
        bar.addAction(self.screenshot)
        bar.addAction(self.help)
        play = bar.widgetForAction(self.play)
        if play is not None:
            steady_width(play, self.play, ("Pause", "Play"))
        return bar

    def menu_actions(self) -> list[tuple[str, list[QAction]]]:
        """(menu title, its actions with shortcuts) in menu order: what the help lists."""
        found = []
        bar = self.window.menuBar()
        assert bar is not None
        for menu_action in bar.actions():
            menu = menu_action.menu()
            actions = [a for a in menu.actions() if a.shortcuts()] if menu else []
            if actions:
                found.append((menu_action.text().replace("&", ""), actions))
        return found
