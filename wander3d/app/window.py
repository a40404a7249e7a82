"""The main window: puts the view, the side panel, toolbar and status bar together.

It holds no drawing code (that is `wander3d.render.SimulationView`) and changes the simulation
only through the engine's public API. Its parts live beside it: actions, menus and toolbar in
actions.py, scene files (open, reload, save, recent, drops, unsaved edits) in scene_files.py,
placement on the screen in placement.py, the F1 help in help.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PyQt6.QtGui import QCloseEvent, QShowEvent
from PyQt6.QtWidgets import QDockWidget, QLabel, QMainWindow, QScrollArea, QStyle

from wander3d.engine import Simulation
from wander3d.render import CAMERA_MODES, SimulationView
from wander3d.scene import Scene
from wander3d.scene.feel import scene_warnings

from .actions import FlyKeys, WindowActions
from .canvas_window import canvas_application, embed
from .frame_loop import FrameLoop, edited
from .help import HelpDialog, help_html
from .panel import PARAMS, SidePanel
from .placement import place_window
from .recent import RecentFiles
from .scene_files import SceneFiles, slug
from .timeline_bar import TimelineBar
from .watch import SceneWatcher

#: A press and release closer than this (logical pixels) is a click (select), not a drag.
CLICK_SLOP = 4.0


class MainWindow(SceneFiles, WindowActions, QMainWindow):
    """The wander3d window around one running scene.

    settings: where geometry, recent files and folders persist (tests pass an isolated one).
    samples: multisampling of the canvas (0 for none; see glinfo.default_samples).
    """

    def __init__(self, scene: Scene, settings: QSettings, samples: int = 0) -> None:
        super().__init__()
        self.settings = settings
        self.recent = RecentFiles(settings)
        self.scene = scene
        self.sim = Simulation(scene)
        # The text of the file the running scene came from (or was saved to): auto-reload
        # ignores change notifications that leave the file as we know it.
        self._file_text = scene.text
        self.view = SimulationView(
            scene, self.sim, app=canvas_application(), parent=self, samples=samples
        )
        self.setCentralWidget(embed(self.view.canvas.native, self))
        self.view.canvas.native.installEventFilter(FlyKeys(self))
        self.panel = SidePanel()
        self.panel_scroll = QScrollArea()
        self.panel_scroll.setWidget(self.panel)
        self.panel_scroll.setWidgetResizable(True)
        self.panel_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.dock = QDockWidget("Scene", self)
        self.dock.setObjectName("scene_dock")
        self.dock.setWidget(self.panel_scroll)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)

        self.frames = FrameLoop(self.view, self.sim, self)
        self._press_pos: np.ndarray | None = None
        self._placed = False
        self.help_dialog: HelpDialog | None = None
        self.watcher = SceneWatcher(self)
        self.watcher.changed.connect(self._auto_reload)

        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label)
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._connect_panel()
        self._build_timeline()
        self.view.canvas.events.mouse_press.connect(self._mouse_press)
        self.view.canvas.events.mouse_release.connect(self._mouse_release)
        self.setAcceptDrops(True)
        self._show_scene()
        self._restore_window()

    # ------------------------------------------------------------------ building
    def _connect_panel(self) -> None:
        p = self.panel
        p.trails_box.toggled.connect(self.view.set_trails_visible)
        p.enclosure_box.toggled.connect(self.view.set_enclosure_visible)
        p.debug_box.toggled.connect(self.view.set_debug_visible)
        p.debug_all_box.toggled.connect(self.view.set_debug_all)
        p.groupVisibilityChanged.connect(self.view.set_group_visible)
        p.groupParamChanged.connect(self.set_group_param)
        # After the edit is applied (connected later, called later): the title's "*".
        for signal in (p.trails_box.toggled, p.enclosure_box.toggled, p.groupParamChanged):
            signal.connect(self._show_modified)
        self.reset_action.triggered.connect(self._show_modified)

    def _restore_window(self) -> None:
        """Remembered geometry, else the first-launch size; either way all on the screen."""
        geometry = self.settings.value("geometry")
        restored = geometry is not None and self.restoreGeometry(geometry)
        place_window(self, first=not restored)
        state = self.settings.value("window_state")
        if state is not None:
            self.restoreState(state)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._placed:
            # Now the window manager's frame is known: make sure it fits too.
            self._placed = True
            QTimer.singleShot(0, lambda: place_window(self))
            self.view.canvas.native.setFocus()

    def show_help(self) -> None:
        """F1: keys (from the actions themselves), mouse gestures and overlay colours."""
        if self.help_dialog is None:
            self.help_dialog = HelpDialog(help_html(self.menu_actions()), self)
        self.help_dialog.show()
        self.help_dialog.raise_()

    # ------------------------------------------------------------------ scenes
    def _show_scene(self) -> None:
        """Refresh everything that depends on the current scene and simulation."""
        self.panel.set_groups(self.sim.groups)
        for box, on in (
            (self.panel.trails_box, self.view.trails_visible),
            (self.panel.enclosure_box, self.view.enclosure_visible),
            (self.panel.debug_box, self.view.debug_visible),
            (self.panel.debug_all_box, self.view.debug_all),
        ):
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)
        self.follow_action.setChecked(False)
        self._show_camera_mode()
        self._show_file()
        self._show_timeline()
        # Converted old keys, groups that cannot turn back within the margin (as `check` says).
        self.scene_warning = " | ".join(scene_warnings(self.scene))
        self._announce("")

    def _announce(self, message: str) -> None:
        """A status-bar message; the scene's warnings follow it and stay longer."""
        if self.scene_warning:
            text = f"{message}. Warning: " if message else "Warning: "
            self.statusBar().showMessage(text + self.scene_warning, 30000)
        elif message:
            self.statusBar().showMessage(message, 4000)

    # ------------------------------------------------------------------ simulation
    # The frame loop (frame_loop.FrameLoop) runs the simulation; these wire it to the widgets.
    def _build_timeline(self) -> None:
        f = self.frames
        f.runningChanged.connect(self._show_running)
        f.speedChanged.connect(lambda _: self._show_speed())
        f.statusChanged.connect(self._show_status)
        f.groupsChanged.connect(lambda: self.panel.show_values(self.sim.groups))
        f.groupsChanged.connect(self._show_modified)
        self.timeline_bar = TimelineBar(self)
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.timeline_bar)
        self.timeline_bar.seekRequested.connect(f.seek)
        self.timeline_bar.pathChanged.connect(f.set_path)
        f.timelineChanged.connect(self.timeline_bar.show_run)
        f.pathScaleChanged.connect(self.timeline_bar.show_scale)

    def _show_timeline(self) -> None:
        self.timeline_bar.dt = self.sim.dt
        self.timeline_bar.set_enabled(self.frames.timeline.enabled, self.frames.path_available)
        self.timeline_bar.show_run(self.frames.step, self.frames.head)

    @property
    def running(self) -> bool:
        return self.frames.running

    @property
    def speed(self) -> float:
        return self.frames.speed

    def set_running(self, running: bool) -> None:
        self.frames.set_running(running)

    def toggle_running(self) -> None:
        self.frames.toggle_running()

    def single_step(self) -> None:
        self.frames.single_step()

    def reset_simulation(self) -> None:
        self.frames.reset_simulation()

    def change_speed(self, direction: int) -> None:
        self.frames.change_speed(direction)

    def _show_running(self, running: bool) -> None:
        sp = QStyle.StandardPixmap
        self.play_action.setText("Pause" if running else "Play")
        self.play_action.setIcon(
            self.style().standardIcon(sp.SP_MediaPause if running else sp.SP_MediaPlay)
        )

    def _show_speed(self) -> None:
        self.speed_label.setText(f"x{self.speed:g}")

    def set_group_param(self, group: int, key: str, value: float) -> None:
        """Apply a slider: a wander parameter, or a group's max_speed / max_force."""
        wander = PARAMS[key].table == "groups.wander"
        self.frames.edit_group(group, edited(self.sim.groups[group], key, value, wander))

    def _show_status(self, text: str) -> None:
        self.status_label.setText(text)
        # Never let a long message on the left squeeze the figures.
        self.status_label.setMinimumWidth(self.status_label.sizeHint().width())

    # ------------------------------------------------------------------ selection and camera
    def select_agent(self, agent: int | None) -> None:
        self.view.select(agent)
        if agent is None:
            self.follow_action.setChecked(False)
            self.statusBar().clearMessage()
            return
        group = self.sim.groups[int(self.sim.group_index[agent])]
        self.statusBar().showMessage(
            f"Agent {agent} of '{group.name}' ({group.wander.method}); "
            "T follows it, Esc clears", 6000
        )  # fmt: skip

    def _mouse_press(self, event) -> None:
        self._press_pos = np.asarray(event.pos[:2], dtype=float) if event.button == 1 else None

    def _mouse_release(self, event) -> None:
        press, self._press_pos = self._press_pos, None
        if event.button != 1 or press is None:
            return
        pos = np.asarray(event.pos[:2], dtype=float)
        if np.hypot(*(pos - press)) <= CLICK_SLOP:
            self.select_agent(self.view.pick(*pos))

    def toggle_follow(self) -> None:
        """T: chase the selected agent, or stop (the camera goes back to what it was)."""
        if self.view.following is None and self.view.selected is None:
            self.follow_action.setChecked(False)
            self.statusBar().showMessage("Nothing to follow: click an agent first, then T", 6000)
            return
        following = self.view.following is None
        self.view.follow(self.view.selected if following else None)
        self.follow_action.setChecked(following)
        self._show_camera_mode()

    def back(self) -> None:
        """Esc: stop following (camera as before), else clear the selection."""
        if self.view.following is not None:
            self.view.follow(None)
            self.follow_action.setChecked(False)
            self._show_camera_mode()
        else:
            self.select_agent(None)

    def reset_camera(self) -> None:
        self.view.reset_camera()
        self.follow_action.setChecked(False)
        self._show_camera_mode()

    def set_camera_mode(self, mode: str) -> None:
        self.view.set_camera_mode(mode)
        self.follow_action.setChecked(False)
        self._show_camera_mode()

    def _show_camera_mode(self) -> None:
        i = CAMERA_MODES.index(self.view.camera_mode)
        self.camera_combo.setCurrentIndex(i)
        self.mode_actions.actions()[i].setChecked(True)

    # ------------------------------------------------------------------ output
    def screenshot_path(self) -> Path:
        """A new file name in the screenshot folder (created if needed)."""
        default = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.PicturesLocation)
        folder = Path(self.settings.value("screenshot_dir", default or str(Path.home())))
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"wander3d-{slug(self.scene.name)}-{time.strftime('%Y%m%d-%H%M%S')}"
        path = folder / f"{stem}.png"
        n = 2
        while path.exists():
            path = folder / f"{stem}-{n}.png"
            n += 1
        return path

    def save_screenshot(self, path: Path | None = None) -> Path | None:
        """Write the view to a PNG (by default a new file in the screenshot folder)."""
        try:
            path = Path(path) if path is not None else self.screenshot_path()
            stride = self.view.agent_stride
            self.view.set_agent_stride(1)  # a screenshot shows every agent
            try:
                self.view.screenshot(path)
            finally:
                self.view.set_agent_stride(stride)
        except OSError as e:
            self._report(f"Could not save the screenshot: {e}", title="Screenshot")
            return None
        self.statusBar().showMessage(f"Screenshot saved to {path}", 6000)
        return path

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.confirm_discard("closing"):
            event.ignore()
            return
        self.frames.close()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.sync()
        self.view.close()
        super().closeEvent(event)
