"""The main window: wires toolbar, menus, side panel and status bar to the view and the engine.

It holds no drawing code (that is `wander3d.render.SimulationView`) and changes the simulation
only through the engine's public API. Bad scene files never stop the running scene: opening or
reloading one shows its SceneError and keeps what was there.
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PyQt6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PyQt6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStyle,
    QToolBar,
)

from wander3d.engine import Simulation
from wander3d.render import CAMERA_MODES, SimulationView
from wander3d.scene import Scene, SceneError, load_scene
from wander3d.scene.feel import scene_warnings

from .loop import SPEEDS, FrameClock, FrameStats
from .panel import PARAMS, SidePanel
from .recent import RecentFiles
from .watch import SceneWatcher

#: Timer interval of the frame loop (ms); the loop steps by elapsed time, not by ticks.
FRAME_MS = 16
#: A press and release closer than this (logical pixels) is a click (select), not a drag.
CLICK_SLOP = 4.0
#: How often the status bar's figures refresh (s).
STATUS_INTERVAL = 0.25
SCENE_FILTER = "Scene files (*.toml);;All files (*)"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "scene"


class MainWindow(QMainWindow):
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
        self.setCentralWidget(self.view.canvas.native)
        self.panel = SidePanel()
        scroll = QScrollArea()
        scroll.setWidget(self.panel)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(330)
        self.dock = QDockWidget("Scene", self)
        self.dock.setObjectName("scene_dock")
        self.dock.setWidget(scroll)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)

        self.running = True
        self.speed_index = SPEEDS.index(1.0)
        self.clock = FrameClock(scene.dt)
        self.stats = FrameStats()
        self._last_tick = time.perf_counter()
        self._last_status = 0.0
        self._press_pos: np.ndarray | None = None
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
            keys = ", ".join(
                QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts
            )
            action.setToolTip(f"{tip or text} ({keys})")
        elif tip:
            action.setToolTip(tip)
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        sp = QStyle.StandardPixmap
        a = self._action
        self.open_action = a(
            "&Open scene…",
            self._open_dialog,
            ("Ctrl+O",),
            "Open a scene file",
            sp.SP_DialogOpenButton,
        )
        self.reload_action = a(
            "&Reload",
            lambda: self.reload_scene(dialog=True),
            ("Ctrl+R",),
            "Reload the scene file",
            sp.SP_BrowserReload,
        )
        self.auto_reload_action = a(
            "Reload &automatically",
            self._toggle_auto_reload,
            tip="Reload when the file changes on disk",
            checkable=True,
        )
        self.auto_reload_action.setChecked(self.settings.value("auto_reload", True, type=bool))
        self.save_as_action = a(
            "&Save scene as…",
            self._save_dialog,
            ("Ctrl+S",),
            "Save the scene with the current parameters",
            sp.SP_DialogSaveButton,
        )
        self.screenshot_action = a(
            "Save s&creenshot",
            lambda: self.save_screenshot(),
            ("Ctrl+Shift+S", "F12"),
            "Save the view as a PNG",
        )
        self.quit_action = a("&Quit", self.close, ("Ctrl+Q",), "Quit wander3d")
        self.play_action = a(
            "Pause", self.toggle_running, ("Space",), "Play or pause", sp.SP_MediaPause
        )
        self.step_action = a(
            "Step",
            self.single_step,
            (".", "Right"),
            "Pause and advance one step",
            sp.SP_MediaSkipForward,
        )
        self.reset_action = a(
            "Reset",
            self.reset_simulation,
            ("R",),
            "Back to the scene's start",
            sp.SP_MediaSkipBackward,
        )
        self.slower_action = a(
            "Slower",
            lambda: self.change_speed(-1),
            ("[", "-"),
            "Halve the time speed",
            sp.SP_MediaSeekBackward,
        )
        self.faster_action = a(
            "Faster",
            lambda: self.change_speed(+1),
            ("]", "+"),
            "Double the time speed",
            sp.SP_MediaSeekForward,
        )
        self.home_action = a(
            "Reset view",
            self.reset_camera,
            ("Home",),
            "Back to the scene's camera",
            sp.SP_DirHomeIcon,
        )
        self.follow_action = a(
            "Follow",
            self.toggle_follow,
            ("T",),
            "Keep the camera on the selected agent",
            checkable=True,
        )
        self.deselect_action = a(
            "Clear selection", lambda: self.select_agent(None), ("Esc",), "Clear the selected agent"
        )
        self.mode_actions = QActionGroup(self)
        for i, mode in enumerate(CAMERA_MODES, start=1):
            act = a(
                f"{mode.capitalize()} camera",
                lambda _=False, m=mode: self.set_camera_mode(m),
                (str(i),),
                f"{mode.capitalize()} camera",
                checkable=True,
            )
            self.mode_actions.addAction(act)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addAction(self.reload_action)
        file_menu.addAction(self.auto_reload_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.screenshot_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        sim_menu = bar.addMenu("&Simulation")
        for act in (
            self.play_action,
            self.step_action,
            self.reset_action,
            self.slower_action,
            self.faster_action,
        ):
            sim_menu.addAction(act)
        view_menu = bar.addMenu("&View")
        for act in (self.home_action, self.follow_action, self.deselect_action):
            view_menu.addAction(act)
        view_menu.addSeparator()
        for act in self.mode_actions.actions():
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(self.dock.toggleViewAction())
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
        self.camera_combo.setToolTip(
            "Camera: turntable (drag rotates, wheel zooms, Shift+drag pans), arcball, or fly "
            "(WASD moves, drag looks) (1, 2, 3)"
        )
        self.camera_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.camera_combo.activated.connect(lambda i: self.set_camera_mode(CAMERA_MODES[i]))
        bar.addWidget(self.camera_combo)
        bar.addSeparator()
        bar.addAction(self.screenshot_action)
        self._show_speed()

    def _connect_panel(self) -> None:
        p = self.panel
        p.trails_box.toggled.connect(self.view.set_trails_visible)
        p.enclosure_box.toggled.connect(self.view.set_enclosure_visible)
        p.debug_box.toggled.connect(self.view.set_debug_visible)
        p.debug_all_box.toggled.connect(self.view.set_debug_all)
        p.groupVisibilityChanged.connect(self.view.set_group_visible)
        p.groupParamChanged.connect(self.set_group_param)

    def _restore_window(self) -> None:
        geometry = self.settings.value("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1440, 900)
        state = self.settings.value("window_state")
        if state is not None:
            self.restoreState(state)

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

    def _show_file(self) -> None:
        """Title, Reload and the file watcher follow the scene's file."""
        source = self.scene.source
        where = f" — {source.name}" if source else ""
        self.setWindowTitle(f"{self.scene.name}{where} — wander3d")
        self.reload_action.setEnabled(source is not None)
        self._watch()

    def _watch(self) -> None:
        on = self.auto_reload_action.isChecked() and self.scene.source is not None
        self.watcher.watch(self.scene.source if on else None)

    def _replace_scene(self, scene: Scene, keep_camera: bool) -> bool:
        """Start `scene` in place of the current one; False (and nothing changed) on failure."""
        try:
            sim = Simulation(scene)
        except MemoryError:
            self._report("Not enough memory for this scene; try fewer agents or shorter trails.")
            return False
        self.scene, self.sim = scene, sim
        self._file_text = scene.text
        self.view.set_simulation(scene, sim, keep_camera=keep_camera)
        self._show_scene()
        return True

    def open_scene(self, path: Path, dialog: bool = True) -> bool:
        """Open the scene at `path`; an invalid file is reported and the current scene kept."""
        path = Path(path)
        try:
            scene = load_scene(path)
        except SceneError as e:
            self._report(str(e), dialog, title="Cannot open scene")
            if not path.exists():
                self.recent.remove(path)
                self._rebuild_recent_menu()
            return False
        if not self._replace_scene(scene, keep_camera=False):
            return False
        self.recent.add(path)
        self.settings.setValue("last_dir", str(path.resolve().parent))
        self._rebuild_recent_menu()
        self._announce(f"Opened {path}")
        return True

    def reload_scene(self, dialog: bool = True) -> bool:
        """Read the scene file again, keeping the camera; errors keep the running scene."""
        source = self.scene.source
        if source is None:
            return False
        try:
            scene = load_scene(source)
        except SceneError as e:
            self._report(str(e), dialog, title="Cannot reload scene")
            return False
        if not self._replace_scene(scene, keep_camera=True):
            return False
        self._announce(f"Reloaded {source.name}")
        return True

    def _auto_reload(self) -> None:
        source = self.scene.source
        try:
            text = source.read_text(encoding="utf-8") if source is not None else None
        except (OSError, UnicodeDecodeError):
            text = None  # let reload_scene report it
        if text is not None and text == self._file_text:
            return
        self.reload_scene(dialog=False)

    def _toggle_auto_reload(self, on: bool) -> None:
        self.settings.setValue("auto_reload", bool(on))
        self._watch()

    def current_scene(self) -> Scene:
        """The scene as it runs now: live parameter edits and display toggles included."""
        view = dataclasses.replace(
            self.scene.view,
            show_trails=self.view.trails_visible,
            show_enclosure=self.view.enclosure_visible,
        )
        return self.scene.replace(groups=self.sim.groups, view=view)

    def save_scene_as(self, path: Path) -> bool:
        """Write the current scene to `path` as TOML; it becomes the open file."""
        path = Path(path)
        if path.suffix.lower() != ".toml":
            path = path.with_suffix(".toml")
        try:
            scene = self.current_scene()
            text = scene.to_toml()
            path.write_text(text, encoding="utf-8")
        except (SceneError, OSError) as e:
            self._report(f"Could not save {path}: {e}", title="Cannot save scene")
            return False
        self.scene = dataclasses.replace(scene, source=path, text=text)
        self.sim.adopt_current_groups()  # R now resets to the saved scene's start
        self._file_text = text
        self.recent.add(path)
        self.settings.setValue("last_dir", str(path.resolve().parent))
        self._rebuild_recent_menu()
        self._show_file()
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scene", self._last_dir(), SCENE_FILTER)
        if path:
            self.open_scene(Path(path))

    def _save_dialog(self) -> None:
        start = str(Path(self._last_dir()) / f"{_slug(self.scene.name)}.toml")
        path, _ = QFileDialog.getSaveFileName(self, "Save scene as", start, SCENE_FILTER)
        if path:
            self.save_scene_as(Path(path))

    def _last_dir(self) -> str:
        if self.scene.source is not None and not self.settings.contains("last_dir"):
            return str(self.scene.source.parent)
        return str(self.settings.value("last_dir", str(Path.home())))

    def _rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = self.recent.paths()
        for i, path in enumerate(paths, start=1):
            act = menu.addAction(f"&{i % 10} {path.name}")
            act.setToolTip(str(path))
            act.setStatusTip(str(path))
            act.triggered.connect(lambda _=False, p=path: self.open_scene(p))
        menu.setEnabled(bool(paths))

    def _report(self, message: str, dialog: bool = True, title: str = "wander3d") -> None:
        """Tell the user about a problem: a dialog, or a status bar message (auto-reload)."""
        if dialog:
            QMessageBox.warning(self, title, message)
        else:
            self.statusBar().showMessage(f"{title}: {message}", 15000)

    def show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    # ------------------------------------------------------------------ drag and drop
    @staticmethod
    def _dropped_scene(event: QDragEnterEvent | QDropEvent) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".toml"):
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_scene(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_scene(event)
        if path is not None:
            event.acceptProposedAction()
            self.open_scene(path)

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
        following = self.view.following is None and self.view.selected is not None
        self.view.follow(self.view.selected if following else None)
        self.follow_action.setChecked(following)

    def reset_camera(self) -> None:
        self.view.reset_camera()
        self.follow_action.setChecked(False)
        self._show_camera_mode()

    def set_camera_mode(self, mode: str) -> None:
        self.view.set_camera_mode(mode)
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
        stem = f"wander3d-{_slug(self.scene.name)}-{time.strftime('%Y%m%d-%H%M%S')}"
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
        self.timer.stop()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.sync()
        self.view.close()
        super().closeEvent(event)
