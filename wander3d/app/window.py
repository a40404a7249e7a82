"""The main window: wires the session (the model) to the view, the side panel, the toolbar,
the timeline bar and the status bar.

It holds neither drawing code (`wander3d.render.SimulationView`) nor simulation state (the
`wander3d.session.Session` owns that): its parts are adapters over the session, built here and
connected to it. Actions, menus and toolbar are in actions.py, scene files (open, reload, save,
recent, title) in scene_files.py, pacing in frame_loop.py, the view's binding in
view_binding.py, placement on the screen in placement.py, the F1 help in help.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PyQt6.QtCore import QSettings, QStandardPaths, Qt, QTimer
from PyQt6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QShowEvent
from PyQt6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QScrollArea,
    QStyle,
)
from vispy.app.canvas import MouseEvent

from wander3d.engine import max_threads
from wander3d.render import CAMERA_MODES, SimulationView
from wander3d.scene import MemoryFitError, Scene, SceneError
from wander3d.scene.feel import scene_warnings
from wander3d.session import Display, Session

from .actions import Actions, FlyKeys, standard_icon
from .canvas_window import canvas_application, embed
from .code_export import CodeExport
from .frame_loop import FrameLoop
from .help import HelpDialog, help_html
from .messages import Messages
from .panel import SidePanel
from .placement import place_window
from .scene_files import SceneFiles, dropped_scene, slug
from .status import STATUS_TIP
from .timeline_bar import TimelineBar
from .view_binding import ViewBinding
from .web_share import WebShare

#: A press and release closer than this (logical pixels) is a click (select), not a drag.
CLICK_SLOP = 4.0


class MainWindow(QMainWindow):
    """The wander3d window around one running scene.

    settings: where geometry, recent files and folders persist (tests pass an isolated one).
    samples: multisampling of the canvas (0 for none; see glinfo.default_samples).
    """

    def __init__(self, scene: Scene, settings: QSettings, samples: int = 0) -> None:
        super().__init__()
        self.settings = settings
        # The engine steps on all cores but one, so the GUI thread and the renderer always
        # have a core and the window answers input while a big scene steps.
        self.session = session = Session(scene, threads=max(1, max_threads() - 1))
        self.view = SimulationView(
            scene, session.layout, app=canvas_application(), parent=self, samples=samples
        )
        self.setCentralWidget(embed(self.view.canvas.native, self))
        # First of the session's observers: a new simulation must reach the view first.
        self.view_binding = ViewBinding(session, self.view, self)
        self.view.canvas.native.installEventFilter(
            FlyKeys(lambda: self.view.camera_mode == "fly", self)
        )
        self.panel = SidePanel()
        self.panel_scroll = QScrollArea()
        self.panel_scroll.setWidget(self.panel)
        self.panel_scroll.setWidgetResizable(True)
        self.panel_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.dock = QDockWidget("Scene", self)
        self.dock.setObjectName("scene_dock")
        self.dock.setWidget(self.panel_scroll)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)

        self.messages = Messages(self)
        self.commands = Actions(self)
        panel_toggle = self.dock.toggleViewAction()
        assert panel_toggle is not None  # a dock widget always has one
        self.commands.build_menus(panel_toggle)
        self.toolbar = self.commands.build_toolbar()
        self.files = SceneFiles(session, self, settings, self.commands, self.messages)
        self.code_export = CodeExport(session, self, settings, self.commands, self.messages)
        self.web_share = WebShare(session, self, settings, self.commands, self.messages)
        self.frames = FrameLoop(session, self.view, self)
        self.timeline_bar = TimelineBar(self)
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.timeline_bar)
        self.status_label = QLabel()
        self.status_label.setToolTip(STATUS_TIP)
        self.messages.bar.addPermanentWidget(self.status_label)
        self.help_dialog: HelpDialog | None = None
        self._press_pos: np.ndarray | None = None
        self._placed = False

        self._wire_actions()
        self._bind_panel()
        self._bind_timeline()
        events = session.events
        events.simulation_changed.connect(self._show_scene)
        events.scene_changed.connect(self._show_warnings)
        events.running_changed.connect(self._show_running)
        events.speed_changed.connect(self._show_speed)
        events.selection_changed.connect(self._show_selection)
        events.edit_rejected.connect(self._edit_rejected)
        self.frames.statusChanged.connect(self._show_status)
        self.view.canvas.events.mouse_press.connect(self._mouse_press)
        self.view.canvas.events.mouse_release.connect(self._mouse_release)
        self.setAcceptDrops(True)
        self._show_scene(False)
        self._show_warnings(scene)
        self._show_speed(session.speed)
        session.set_running(True)
        self._restore_window()

    # ------------------------------------------------------------------ wiring
    def _wire_actions(self) -> None:
        a, s = self.commands, self.session
        a.screenshot.triggered.connect(lambda: self.save_screenshot())
        a.quit.triggered.connect(self.close)
        a.play.triggered.connect(s.toggle_running)
        a.step.triggered.connect(s.single_step)
        a.reset.triggered.connect(s.reset)
        a.slower.triggered.connect(lambda: s.change_speed(-1))
        a.faster.triggered.connect(lambda: s.change_speed(+1))
        a.home.triggered.connect(self.reset_camera)
        a.follow.triggered.connect(self.toggle_follow)
        a.back.triggered.connect(self.back)
        for action, mode in zip(a.camera_modes.actions(), CAMERA_MODES, strict=True):
            action.triggered.connect(lambda _=False, m=mode: self.set_camera_mode(m))
        a.camera_combo.activated.connect(lambda i: self.set_camera_mode(CAMERA_MODES[i]))
        a.help.triggered.connect(self.show_help)

    def _bind_panel(self) -> None:
        """The side panel shows the session's groups and display, and edits them."""
        p, s = self.panel, self.session
        p.trails_box.toggled.connect(lambda on: s.set_display(trails=on))
        p.enclosure_box.toggled.connect(lambda on: s.set_display(enclosure=on))
        p.debug_box.toggled.connect(lambda on: s.set_display(overlay=on))
        p.debug_all_box.toggled.connect(lambda on: s.set_display(overlay_all=on))
        p.groupVisibilityChanged.connect(s.set_group_visible)
        p.groupParamChanged.connect(self.edit_group)
        # Deferred: the restart rebuilds the panel, box that asked included.
        p.groupSizeChanged.connect(
            lambda g, key, value: QTimer.singleShot(0, lambda: self.resize_group(g, key, value))
        )
        s.events.groups_changed.connect(p.show_values)
        s.events.display_changed.connect(self._show_display)

    def _bind_timeline(self) -> None:
        bar, s = self.timeline_bar, self.session
        bar.seekRequested.connect(s.seek)
        bar.pathChanged.connect(self._set_path)
        self.frames.timelineChanged.connect(bar.show_run)
        self.view_binding.pathScaleChanged.connect(bar.show_scale)

    def _restore_window(self) -> None:
        """Remembered geometry, else the first-launch size; either way all on the screen."""
        geometry = self.settings.value("geometry")
        restored = geometry is not None and self.restoreGeometry(geometry)
        place_window(self, first=not restored)
        state = self.settings.value("window_state")
        if state is not None:
            self.restoreState(state)

    def showEvent(self, event: QShowEvent | None) -> None:
        super().showEvent(event)
        if not self._placed:
            # Now the window manager's frame is known: make sure it fits too.
            self._placed = True
            QTimer.singleShot(0, lambda: place_window(self))
            self.view.canvas.native.setFocus()

    def show_help(self) -> None:
        """F1: keys (from the actions themselves), mouse gestures and overlay colours."""
        if self.help_dialog is None:
            self.help_dialog = HelpDialog(help_html(self.commands.menu_actions()), self)
        self.help_dialog.show()
        self.help_dialog.raise_()

    # ------------------------------------------------------------------ showing the session
    def _show_scene(self, reloaded: bool) -> None:
        """A new simulation: its groups in the panel, its timeline, a fresh camera state; for
        another scene (not the same one reloaded or restarted), the panel from its top."""
        s = self.session
        self.panel.set_groups(s.groups, s.scene.enclosure)
        scroll = self.panel_scroll.verticalScrollBar()
        if not reloaded and scroll is not None:
            scroll.setValue(0)
        self._show_display(s.display)
        self.commands.follow.setChecked(False)
        self._show_camera_mode()
        self.timeline_bar.dt = s.dt
        self.timeline_bar.set_enabled(s.timeline_enabled, s.path_available, s.agent_count)
        self.timeline_bar.show_run(s.step, s.head)

    def _show_warnings(self, scene: Scene) -> None:
        # Converted old keys, groups that cannot turn back within the margin (as `check` says).
        self.messages.set_scene_warnings(scene_warnings(scene))
        self.messages.announce()

    def _show_display(self, display: Display) -> None:
        p = self.panel
        for box, on in (
            (p.trails_box, display.trails),
            (p.enclosure_box, display.enclosure),
            (p.debug_box, display.overlay),
            (p.debug_all_box, display.overlay_all),
        ):
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)
        p.show_visibility(display.hidden_groups)

    def _show_running(self, running: bool) -> None:
        sp = QStyle.StandardPixmap
        self.commands.play.setText("Pause" if running else "Play")
        self.commands.play.setIcon(
            standard_icon(self, sp.SP_MediaPause if running else sp.SP_MediaPlay)
        )

    def _show_speed(self, speed: float) -> None:
        self.commands.speed_label.setText(f"x{speed:g}")

    def _show_status(self, text: str) -> None:
        self.status_label.setText(text)
        # Never let a long message on the left squeeze the figures.
        self.status_label.setMinimumWidth(self.status_label.sizeHint().width())

    # ------------------------------------------------------------------ editing
    def edit_group(self, group: int, key: str, value: float | str) -> None:
        """Apply a panel control: a wander parameter (the method and steering too), or a
        group's max_speed / max_force."""
        try:
            self.session.edit(group, **{key: value})
        except (SceneError, ValueError) as e:
            self.messages.problem("Cannot change the parameter", str(e))

    def _edit_rejected(self, why: str) -> None:
        # The edit passed against the groups shown but not against the live ones.
        self.messages.problem("Cannot change the parameter", why)

    def resize_group(self, group: int, key: str, value: int) -> None:
        """A group's agent count or trail length: the run starts again with it."""
        try:
            self.session.resize_group(group, **{key: value})
        except (SceneError, ValueError, MemoryFitError) as e:
            self.messages.problem("Cannot change the group", str(e))
            self.panel.set_groups(self.session.groups, self.session.scene.enclosure)
            return
        except MemoryError:
            self.messages.problem("Cannot change the group", "Not enough memory for it.")
            self.panel.set_groups(self.session.groups, self.session.scene.enclosure)
            return
        name = self.session.groups[group].name
        what = "agents" if key == "count" else "trail points"
        self.messages.announce(f"'{name}' has {value:,} {what}: the run started again")

    def _set_path(self, on: bool, measure: str) -> None:
        self.view_binding.set_path_measure(measure)
        self.session.set_path(on)

    # ------------------------------------------------------------------ selection and camera
    def select_agent(self, agent: int | None) -> None:
        self.session.select(agent)

    def _show_selection(self, agent: int | None) -> None:
        if agent is None:
            self.commands.follow.setChecked(False)
            self.messages.clear()
            return
        group = self.session.groups[int(self.session.group_index[agent])]
        self.messages.note(
            f"Agent {agent} of '{group.name}' ({group.wander.method}); T follows it, Esc clears",
            6000,
        )

    def _mouse_press(self, event: MouseEvent) -> None:
        self._press_pos = np.asarray(event.pos[:2], dtype=float) if event.button == 1 else None

    def _mouse_release(self, event: MouseEvent) -> None:
        press, self._press_pos = self._press_pos, None
        if event.button != 1 or press is None:
            return
        pos = np.asarray(event.pos[:2], dtype=float)
        if np.hypot(*(pos - press)) <= CLICK_SLOP:
            self.select_agent(self.view.pick(*pos))

    def toggle_follow(self) -> None:
        """T: chase the selected agent, or stop (the camera goes back to what it was)."""
        if self.view.following is None and self.view.selected is None:
            self.commands.follow.setChecked(False)
            self.messages.note("Nothing to follow: click an agent first, then T", 6000)
            return
        following = self.view.following is None
        self.view.follow(self.view.selected if following else None)
        self.commands.follow.setChecked(following)
        self._show_camera_mode()

    def back(self) -> None:
        """Esc: stop following (camera as before), else clear the selection."""
        if self.view.following is not None:
            self.view.follow(None)
            self.commands.follow.setChecked(False)
            self._show_camera_mode()
        else:
            self.select_agent(None)

    def reset_camera(self) -> None:
        self.view.reset_camera()
        self.commands.follow.setChecked(False)
        self._show_camera_mode()

    def set_camera_mode(self, mode: str) -> None:
        self.view.set_camera_mode(mode)
        self.commands.follow.setChecked(False)
        self._show_camera_mode()

    def _show_camera_mode(self) -> None:
        i = CAMERA_MODES.index(self.view.camera_mode)
        self.commands.camera_combo.setCurrentIndex(i)
        self.commands.camera_modes.actions()[i].setChecked(True)

    # ------------------------------------------------------------------ output
    def screenshot_path(self) -> Path:
        """A new file name in the screenshot folder (created if needed)."""
        default = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.PicturesLocation)
        folder = Path(self.settings.value("screenshot_dir", default or str(Path.home())))
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"wander3d-{slug(self.session.scene.name)}-{time.strftime('%Y%m%d-%H%M%S')}"
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
            self.messages.problem("Screenshot", f"Could not save the screenshot: {e}")
            return None
        self.messages.note(f"Screenshot saved to {path}", 6000)
        return path

    def show_error(self, title: str, message: str) -> None:
        self.messages.problem(title, message)

    # ------------------------------------------------------------------ window events
    def dragEnterEvent(self, event: QDragEnterEvent | None) -> None:
        if event is None:
            return
        if dropped_scene(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent | None) -> None:
        path = dropped_scene(event.mimeData()) if event is not None else None
        if event is not None and path is not None:
            event.acceptProposedAction()
            self.files.open_scene(path)

    def closeEvent(self, event: QCloseEvent | None) -> None:
        if event is None:
            return
        if not self.files.confirm_discard("closing"):
            event.ignore()
            return
        self.frames.close()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.sync()
        self.view.close()
        super().closeEvent(event)
