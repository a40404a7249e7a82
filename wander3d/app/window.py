"""The main window: puts the view, the side panel, toolbar and status bar together.

It holds no drawing code (that is `wander3d.render.SimulationView`) and changes the simulation
only through the engine's public API. Its parts live beside it: actions, menus and toolbar in
actions.py, scene files (open, reload, save, recent, drops, unsaved edits) in scene_files.py,
placement on the screen in placement.py, the F1 help in help.py.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PyQt6.QtGui import QCloseEvent, QShowEvent
from PyQt6.QtWidgets import QDockWidget, QLabel, QMainWindow, QScrollArea, QStyle

from wander3d.engine import Simulation
from wander3d.render import CAMERA_MODES, SimulationView
from wander3d.scene import Scene

from .actions import FlyKeys, WindowActions
from .help import HelpDialog, help_html
from .loop import SPEEDS, FrameClock, FrameStats
from .panel import PARAMS, SidePanel
from .placement import place_window
from .recent import RecentFiles
from .scene_files import SceneFiles, slug
from .watch import SceneWatcher

#: Timer interval of the frame loop (ms); the loop steps by elapsed time, not by ticks.
FRAME_MS = 16
#: A press and release closer than this (logical pixels) is a click (select), not a drag.
CLICK_SLOP = 4.0
#: How often the status bar's figures refresh (s).
STATUS_INTERVAL = 0.25


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
        self.view = SimulationView(scene, self.sim, app="pyqt6", parent=self, samples=samples)
        canvas = self.view.canvas.native
        self.setCentralWidget(canvas)
        canvas.installEventFilter(FlyKeys(self))
        self.panel = SidePanel()
        self.panel_scroll = QScrollArea()
        self.panel_scroll.setWidget(self.panel)
        self.panel_scroll.setWidgetResizable(True)
        self.panel_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.dock = QDockWidget("Scene", self)
        self.dock.setObjectName("scene_dock")
        self.dock.setWidget(self.panel_scroll)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)

        self.running = True
        self.speed_index = SPEEDS.index(1.0)
        self.clock = FrameClock(scene.dt)
        self.stats = FrameStats()
        self._last_tick = time.perf_counter()
        self._last_status = 0.0
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
        self.view.canvas.events.mouse_press.connect(self._mouse_press)
        self.view.canvas.events.mouse_release.connect(self._mouse_release)
        self.view.canvas.events.draw.connect(self._drawn, position="last")
        self.setAcceptDrops(True)
        self._show_scene()
        self._restore_window()

        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

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
        self.clock = FrameClock(self.scene.dt)
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

    # ------------------------------------------------------------------ simulation
    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    def set_running(self, running: bool) -> None:
        self.running = running
        self.clock.reset()
        self._last_tick = time.perf_counter()
        sp = QStyle.StandardPixmap
        self.play_action.setText("Pause" if running else "Play")
        self.play_action.setIcon(
            self.style().standardIcon(sp.SP_MediaPause if running else sp.SP_MediaPlay)
        )
        self._show_status()

    def toggle_running(self) -> None:
        self.set_running(not self.running)

    def single_step(self) -> None:
        self.set_running(False)
        self._advance(1)

    def reset_simulation(self) -> None:
        self.sim.reset()
        self.clock.reset()
        self.panel.show_values(self.sim.groups)
        self.view.update()
        self._show_status()

    def change_speed(self, direction: int) -> None:
        self.speed_index = min(len(SPEEDS) - 1, max(0, self.speed_index + direction))
        self._show_speed()

    def _show_speed(self) -> None:
        self.speed_label.setText(f"x{self.speed:g}")
        self._show_status()

    def set_group_param(self, group: int, key: str, value: float) -> None:
        """Apply a slider: a wander parameter, or a group's max_speed / max_force."""
        params = self.sim.groups[group]
        if PARAMS[key].table == "groups.wander":
            self.sim.update_wander(group, **{key: value})
        else:
            changes: dict[str, float] = {key: value}
            # A scene's start speed may not exceed its speed limit (it would not save).
            if key == "max_speed" and params.initial_speed is not None:
                changes["initial_speed"] = min(params.initial_speed, value)
            self.sim.update_group(group, dataclasses.replace(params, **changes))
        self.view.update()  # redraw now, also while paused

    def _advance(self, steps: int) -> None:
        t0 = time.perf_counter()
        self.sim.step(steps)
        sim_ms = (time.perf_counter() - t0) * 1e3
        self.view.update()
        self.stats.record(sim_ms, self.view.last_update_ms)

    def _tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._last_tick = now - self._last_tick, now
        if self.running:
            steps = self.clock.advance(elapsed * self.speed)
            if steps:
                self._advance(steps)
        if now - self._last_status >= STATUS_INTERVAL:
            self._show_status()

    def _drawn(self, event) -> None:
        self.stats.frame(time.perf_counter(), self.view.last_draw_ms)

    def _show_status(self) -> None:
        self._last_status = time.perf_counter()
        sim, st = self.sim, self.stats
        state = "" if self.running else "  ·  paused"
        self.status_label.setText(
            f"step {sim.step_count:,}  ·  t {sim.time:.2f} s  ·  {sim.count:,} agents  ·  "
            f"{st.fps:.0f} fps  ·  sim {st.sim_ms:.1f} ms  ·  draw {st.draw_ms:.1f} ms  ·  "
            f"speed x{self.speed:g}{state}"
        )
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
            self.view.screenshot(path)
        except OSError as e:
            self._report(f"Could not save the screenshot: {e}", title="Screenshot")
            return None
        self.statusBar().showMessage(f"Screenshot saved to {path}", 6000)
        return path

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.confirm_discard("closing"):
            event.ignore()
            return
        self.timer.stop()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.sync()
        self.view.close()
        super().closeEvent(event)
