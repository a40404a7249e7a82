"""The app's canvas surface: a native OpenGL window (QOpenGLWindow) inside the main window.

vispy's Qt backend draws into a QOpenGLWidget. Qt then composes that widget's texture and
the rest of the main window into one OpenGL picture every frame; on a software renderer this
composing of the whole window cost more than drawing a default scene's agents and trails.
A QOpenGLWindow embedded with QWidget.createWindowContainer is drawn straight into its own
native window and presented by its own buffer swap; the widgets around it are painted, and
sent to the display, only when they change.

`canvas_application` gives a vispy Application whose canvases are such windows (the rest of
vispy's PyQt6 backend is used as it is); `embed` wraps one in the widget to lay out. vispy has
no public way to choose the class: see `wander3d/render/vispy_private.py`.
"""

from __future__ import annotations

import os

import vispy.app
from PyQt6.QtCore import QCoreApplication, QEvent, Qt
from PyQt6.QtGui import QGuiApplication, QKeyEvent, QWindow
from PyQt6.QtOpenGL import QOpenGLWindow
from PyQt6.QtWidgets import QWidget
from vispy.util import SimpleBunch

from wander3d.render.vispy_private import (
    application_with_canvas,
    qt_canvas_backend_base,
    qt_surface_format,
)


def prefer_prompt_updates() -> None:
    """Let Qt handle a window's update request as soon as the event loop is free.

    Qt delays every update request by 5 ms by default ("idle time to gather system events";
    QPlatformWindow::requestUpdate). The frame loop paces frames itself and leaves that idle
    time between them, so the delay only made every frame 5 ms later. Call before the first
    window is shown; a value the user has set wins.
    """
    os.environ.setdefault("QT_QPA_UPDATE_IDLE_TIME", "0")


# The first base is vispy's Qt canvas backend class, found at run time: mypy cannot follow it.
class CanvasWindow(qt_canvas_backend_base(), QOpenGLWindow):  # type: ignore[misc]
    """vispy canvas backend on a QOpenGLWindow.

    Qt calls paintGL when an update is due and swaps the buffers itself right after
    (QOpenGLWindow.frameSwapped says when); vispy's input handlers of the Qt backend serve
    a QWindow's events as they are. `container` is the widget that embeds it (see `embed`).

    A multisampled canvas draws into Qt's multisampled framebuffer object, blitted to the
    window before the swap (QOpenGLWindow.PartialUpdateBlit): multisampling then does not
    depend on the window system offering a multisampled window. Without samples the frame
    is drawn straight into the window (a software renderer would pay for the blit).
    """

    def _init_specific(self, p: SimpleBunch, kwargs: dict[str, object]) -> None:
        # p: the canvas's settings as vispy's backends receive them (parent, context, ...).
        if p.parent is not None and not isinstance(p.parent, QWindow):
            p.parent = None  # a widget parent is the container's business (embed)
        glformat = qt_surface_format(p.context.config)
        # Frames follow the display's refresh without tearing, as the composed main window
        # of a QOpenGLWidget did (the frame loop counts on a swap that waits for it).
        glformat.setSwapInterval(1)
        p.context.shared.add_ref("qt", self)
        behavior = QOpenGLWindow.UpdateBehavior.NoPartialUpdate
        if glformat.samples() > 0:
            behavior = QOpenGLWindow.UpdateBehavior.PartialUpdateBlit
        QOpenGLWindow.__init__(self, behavior, p.parent)
        self.setFormat(glformat)
        self.container: QWidget | None = None
        self.screenChanged.connect(self.screen_changed)
        self._initialized = True

    # QWidget spellings that vispy's shared Qt backend code calls.
    def setMouseTracking(self, enable: bool) -> None:
        """A QWindow always receives mouse moves."""

    def setWindowTitle(self, title: str) -> None:
        self.setTitle(title)

    def devicePixelRatioF(self) -> float:
        return self.devicePixelRatio()

    def setFocus(self) -> None:
        """Give keyboard focus to the embedding widget, which passes it to this window."""
        if self.container is not None:
            self.container.setFocus()
        else:
            self.requestActivate()

    def hasFocus(self) -> bool:
        """Whether the canvas is the window's focus widget (its container is)."""
        if self.container is not None:
            return self.container.hasFocus()
        return QGuiApplication.focusWindow() is self

    def event(self, ev: QEvent | None) -> bool:
        """What a widget in the main window would get from Qt, the embedded window passes on.

        Tab and Shift+Tab move the keyboard focus on to the panels (a window container
        keeps it otherwise); the wheel focuses the canvas, as a widget's WheelFocus does;
        files dragged over the canvas go to the main window, which opens dropped scenes.
        A new display scale on the same screen resizes the drawing as a move to another
        screen does.
        """
        if ev is None:
            return super().event(ev)
        kind = ev.type()
        if kind == _DPR_CHANGE:
            self.screen_changed(self.screen())
        container = self.container
        if container is not None:
            if isinstance(ev, QKeyEvent) and kind == QEvent.Type.KeyPress and _moves_focus(ev):
                return QCoreApplication.sendEvent(container, ev)
            if kind == QEvent.Type.Wheel and not container.hasFocus():
                container.setFocus(Qt.FocusReason.MouseFocusReason)
            main = container.window()
            if kind in _DRAG_HANDLERS and main is not None and main.acceptDrops():
                # Its handler itself: Qt would route a drag event sent to the main window
                # back to the widget under the pointer, the container, which sends it here.
                getattr(main, _DRAG_HANDLERS[kind])(ev)
                return True
        return super().event(ev)

    # The vispy backend interface.
    def _vispy_close(self) -> None:
        self.close()

    def _vispy_set_current(self) -> None:
        if self._vispy_canvas is not None and self.isValid():
            self.makeCurrent()

    def _vispy_swap_buffers(self) -> None:
        """Qt swaps after paintGL; a swap outside it would show an unfinished frame."""

    def _vispy_get_fb_bind_location(self) -> int:
        return self.defaultFramebufferObject()

    def initializeGL(self) -> None:
        if self._vispy_canvas is not None:
            self._vispy_canvas.events.initialize()

    def resizeGL(self, w: int, h: int) -> None:
        if self._vispy_canvas is None:
            return
        # resizeGL's size is logical: vispy wants both. Qt rounds the native window's size
        # to the nearest pixel (qRound); vispy's own backend truncates, a pixel short.
        ratio = self.devicePixelRatio()
        physical = (int(w * ratio + 0.5), int(h * ratio + 0.5))
        self._vispy_set_physical_size(*physical)
        self._vispy_canvas.events.resize(size=(w, h), physical_size=physical)

    def paintGL(self) -> None:
        if self._vispy_canvas is None:
            return
        self._vispy_canvas.set_current()
        self._vispy_canvas.events.draw(region=None)


#: Sent when a window's device pixel ratio changes (Qt 6.6 and later).
_DPR_CHANGE = getattr(QEvent.Type, "DevicePixelRatioChange", None)
_DRAG_HANDLERS = {
    QEvent.Type.DragEnter: "dragEnterEvent",
    QEvent.Type.DragMove: "dragMoveEvent",
    QEvent.Type.DragLeave: "dragLeaveEvent",
    QEvent.Type.Drop: "dropEvent",
}


def _moves_focus(ev: QKeyEvent) -> bool:
    """Tab or Shift+Tab, as QWidget moves the focus on for them."""
    held = ev.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    return ev.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and not held


def canvas_application() -> vispy.app.Application:
    """A vispy Application on PyQt6 whose canvases are CanvasWindows."""
    return application_with_canvas("pyqt6", CanvasWindow)


def embed(window: CanvasWindow, parent: QWidget) -> QWidget:
    """The widget that shows `window` inside `parent`'s layout and takes keyboard focus
    for it (a click, Tab or the mouse wheel focuses the canvas, as on a widget)."""
    container = QWidget.createWindowContainer(window, parent)
    container.setFocusPolicy(Qt.FocusPolicy.WheelFocus)
    container.setMinimumSize(1, 1)
    window.container = container
    return container
