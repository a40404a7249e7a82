"""The window's actions, menus and toolbar, and which keys reach the canvas instead.

Every command is a QAction with window-wide shortcuts, so it works wherever the focus is, except
where the focused widget needs the key itself: a slider its arrows, a check box Space (see
panel.py), and the fly camera its movement keys (`FlyKeys` below).
"""

from __future__ import annotations

from PyQt6.QtCore import QEvent, QObject, Qt
from PyQt6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence
from PyQt6.QtWidgets import QComboBox, QLabel, QMainWindow, QStyle, QToolBar

from wander3d.render import CAMERA_MODES

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
    """Event filter on the canvas: in fly mode its movement keys are not shortcuts."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
            and Qt.Key(event.key()) in FLY_KEYS
            and self.window.view.camera_mode == "fly"
        ):
            event.accept()  # deliver it to the canvas as a key press
            return True
        return False


def key_text(action: QAction) -> str:
    """The action's shortcuts as the user sees them, e.g. "., Right"."""
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())


class WindowActions:
    """Mixin for MainWindow: builds its actions, menus and toolbar."""

    def _action(
        self,
        text: str,
        slot,
        shortcuts: tuple[str, ...] = (),
        tip: str = "",
        icon: QStyle.StandardPixmap | None = None,
        checkable: bool = False,
    ) -> QAction:
        """An action whose tooltip names its shortcuts, e.g. "Play or pause (Space)"."""
        action = QAction(text, self)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
            # Window-wide, so the keys work whichever panel widget has the focus.
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setToolTip(f"{tip or text} ({key_text(action)})")
        elif tip:
            action.setToolTip(tip)
        action.setStatusTip(tip or text)
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        sp = QStyle.StandardPixmap
        a = self._action
        self.open_action = a(
            "&Open scene…", self._open_dialog, ("Ctrl+O",), "Open a scene file",
            sp.SP_DialogOpenButton,
        )  # fmt: skip
        self.reload_action = a(
            "&Reload", lambda: self.reload_scene(dialog=True), ("Ctrl+R",),
            "Reload the scene file", sp.SP_BrowserReload,
        )  # fmt: skip
        self.auto_reload_action = a(
            "Reload &automatically", self._toggle_auto_reload,
            tip="Reload when the file changes on disk", checkable=True,
        )  # fmt: skip
        self.auto_reload_action.setChecked(self.settings.value("auto_reload", True, type=bool))
        self.save_as_action = a(
            "&Save scene as…", self._save_dialog, ("Ctrl+S",),
            "Save the scene with the current parameters", sp.SP_DialogSaveButton,
        )  # fmt: skip
        self.screenshot_action = a(
            "Save s&creenshot", lambda: self.save_screenshot(), ("Ctrl+Shift+S", "F12"),
            "Save the view as a PNG",
        )  # fmt: skip
        self.quit_action = a("&Quit", self.close, ("Ctrl+Q",), "Quit wander3d")
        self.play_action = a(
            "Pause", self.toggle_running, ("Space",), "Play or pause", sp.SP_MediaPause
        )
        self.step_action = a(
            "Step", self.single_step, (".", "Right"), "Pause and advance one step",
            sp.SP_MediaSkipForward,
        )  # fmt: skip
        self.reset_action = a(
            "Reset", self.reset_simulation, ("R",), "Back to the scene's start",
            sp.SP_MediaSkipBackward,
        )  # fmt: skip
        self.slower_action = a(
            "Slower", lambda: self.change_speed(-1), ("[", "-"), "Halve the time speed",
            sp.SP_MediaSeekBackward,
        )  # fmt: skip
        self.faster_action = a(
            "Faster", lambda: self.change_speed(+1), ("]", "+"), "Double the time speed",
            sp.SP_MediaSeekForward,
        )  # fmt: skip
        self.home_action = a(
            "Reset view", self.reset_camera, ("Home",), "Back to the scene's camera",
            sp.SP_DirHomeIcon,
        )  # fmt: skip
        self.follow_action = a(
            "Follow", self.toggle_follow, ("T",),
            "Chase the selected agent from behind; T again or Esc gives the camera back",
            checkable=True,
        )  # fmt: skip
        self.deselect_action = a(
            "Back / clear selection", self.back, ("Esc",),
            "Stop following (camera as before), else clear the selected agent",
        )  # fmt: skip
        self.mode_actions = QActionGroup(self)
        for i, mode in enumerate(CAMERA_MODES, start=1):
            act = a(
                f"{mode.capitalize()} camera",
                lambda _=False, m=mode: self.set_camera_mode(m),
                (str(i),),
                MODE_TIPS[mode],
                checkable=True,
            )
            self.mode_actions.addAction(act)
        self.help_action = a(
            "&Keys, mouse and overlay…", self.show_help, ("F1",),
            "Every key, mouse gesture and overlay colour", sp.SP_DialogHelpButton,
        )  # fmt: skip
        self.help_action.setIconText("Help")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        for act in (self.reload_action, self.auto_reload_action, self.save_as_action, None,
                    self.screenshot_action, None, self.quit_action):  # fmt: skip
            file_menu.addSeparator() if act is None else file_menu.addAction(act)
        sim_menu = bar.addMenu("&Simulation")
        for act in (self.play_action, self.step_action, self.reset_action, self.slower_action,
                    self.faster_action):  # fmt: skip
            sim_menu.addAction(act)
        view_menu = bar.addMenu("&View")
        for act in (self.home_action, self.follow_action, self.deselect_action):
            view_menu.addAction(act)
        view_menu.addSeparator()
        for act in self.mode_actions.actions():
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(self.dock.toggleViewAction())
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.help_action)
        self._rebuild_recent_menu()

    def _build_toolbar(self) -> None:
        bar = QToolBar("Simulation", self)
        bar.setObjectName("main_toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.setMovable(False)
        self.addToolBar(bar)
        for act in (self.open_action, self.reload_action, None, self.play_action, self.step_action,
                    self.reset_action, None, self.slower_action):  # fmt: skip
            bar.addSeparator() if act is None else bar.addAction(act)
        self.speed_label = QLabel()
        self.speed_label.setToolTip("Time speed: simulated seconds per real second")
        self.speed_label.setMinimumWidth(40)
        self.speed_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        bar.addWidget(self.speed_label)
        bar.addAction(self.faster_action)
        bar.addSeparator()
        bar.addAction(self.home_action)
        bar.addAction(self.follow_action)
        self.camera_combo = QComboBox()
        self.camera_combo.addItems([m.capitalize() for m in CAMERA_MODES])
        self.camera_combo.setToolTip(CAMERA_TIP)
        self.camera_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.camera_combo.activated.connect(lambda i: self.set_camera_mode(CAMERA_MODES[i]))
        bar.addWidget(self.camera_combo)
        bar.addSeparator()
        bar.addAction(self.screenshot_action)
        bar.addAction(self.help_action)
        self._show_speed()

    def menu_actions(self) -> list[tuple[str, list[QAction]]]:
        """(menu title, its actions with shortcuts) in menu order: what the help lists."""
        found = []
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            actions = [a for a in menu.actions() if a.shortcuts()] if menu else []
            if actions:
                found.append((menu_action.text().replace("&", ""), actions))
        return found
