"""Where the window goes: inside the screen's available area, frame and all.

`fit_rect` is plain arithmetic on (x, y, width, height) tuples so it is tested with any screen;
`place_window` applies it to a real window, at start-up and after it is shown (when the window
manager's frame is known).
"""

from __future__ import annotations

from PyQt6.QtCore import QRect
from PyQt6.QtWidgets import QWidget

Rect = tuple[int, int, int, int]
Margins = tuple[int, int, int, int]

#: First-launch size (logical pixels), when the screen has room for it.
PREFERRED_SIZE = (1440, 900)
#: Frame assumed before the window manager has drawn one: (left, top, right, bottom).
GUESSED_FRAME = (4, 32, 4, 4)


def fit_rect(client: Rect, frame: Margins, available: Rect) -> Rect:
    """The client rectangle nearest to `client` whose frame lies inside `available`.

    client: (x, y, width, height) of the window's contents; frame: the decoration's (left, top,
    right, bottom) widths; available: the screen's available area (x, y, width, height), all in
    logical pixels. The size shrinks only where it must; the position moves only where needed.
    """
    x, y, w, h = client
    left, top, right, bottom = frame
    ax, ay, aw, ah = available
    w = max(1, min(w, aw - left - right))
    h = max(1, min(h, ah - top - bottom))
    x = min(max(x, ax + left), ax + aw - right - w)
    y = min(max(y, ay + top), ay + ah - bottom - h)
    return x, y, w, h


def first_rect(frame: Margins, available: Rect) -> Rect:
    """PREFERRED_SIZE (or what fits of it), centred on `available`."""
    ax, ay, aw, ah = available
    w, h = PREFERRED_SIZE
    x = ax + (aw - w) // 2
    y = ay + (ah - h) // 2
    return fit_rect((x, y, w, h), frame, available)


def _frame_of(window: QWidget) -> Margins:
    inner, outer = window.geometry(), window.frameGeometry()
    if window.isVisible() and outer != inner:
        return (
            inner.left() - outer.left(),
            inner.top() - outer.top(),
            outer.right() - inner.right(),
            outer.bottom() - inner.bottom(),
        )
    return GUESSED_FRAME


def _available(window: QWidget) -> Rect | None:
    screen = window.screen()
    if screen is None:
        return None
    a = screen.availableGeometry()
    return a.x(), a.y(), a.width(), a.height()


def place_window(window: QWidget, first: bool = False) -> None:
    """Move and shrink `window` so all of it (frame included) is on its screen; `first`: give
    it the first-launch size first."""
    available = _available(window)
    if available is None:
        return
    frame = _frame_of(window)
    if first:
        x, y, w, h = first_rect(frame, available)
    else:
        g = window.geometry()
        x, y, w, h = fit_rect((g.x(), g.y(), g.width(), g.height()), frame, available)
    if QRect(x, y, w, h) != window.geometry():
        window.setGeometry(QRect(x, y, w, h))
