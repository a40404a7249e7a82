"""F1: every key (read from the actions, so it cannot drift), mouse gesture and overlay colour."""

from __future__ import annotations

from html import escape

from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from wander3d.appearance import AXIS_COLORS, LEGEND
from wander3d.session import TRACE_MAX_AGENTS

from .actions import key_text

#: (gesture, what it does); vispy's cameras define them, the window adds click to select.
MOUSE = (
    ("Click an agent", "select it: its wander sphere, target, velocity and force are drawn"),
    ("Drag", "turntable / arcball: rotate around the centre; fly: look around"),
    ("Wheel, or right-drag", "zoom (turntable, arcball)"),
    ("Shift + drag", "pan (turntable, arcball)"),
    ("Shift + right-drag", "change the field of view"),
    ("Fly camera keys", "W / S or Up / Down forward and back, A / D or Left / Right sideways, "
     "F / C up and down, I / K / J / L / Q / E turn, Space brakes (click the view first)"),
    ("Drop a .toml file", "open it"),
    ("Wheel over the side panel", "scrolls it; a slider or box changes only when it has the "
     "keyboard focus (click it first)"),
)  # fmt: skip


#: (control, what it does): the bar under the view.
TIMELINE = (
    ("Timeline slider", "drag it (or click it, then Left / Right) to go back to any moment of "
     "the run: the simulation pauses there; Play continues and replays your later slider "
     "edits; moving a panel slider while in the past starts a new future from there"),
    ("Path check box", "tick Path (beside the timeline) to show the selected agent's whole "
     "path since the start; the box beside it chooses the colouring, speed or turn rate (blue "
     "low, red high; the values are named beside it). Not in scenes of more than "
     f"{TRACE_MAX_AGENTS:,} agents"),
)  # fmt: skip
#: Width of the first column (pixels at 96 dpi): every section's descriptions start at one x.
KEY_COLUMN = 180


def _swatch(rgba: tuple[float, ...]) -> str:
    r, g, b = (round(255 * c) for c in rgba[:3])
    return f'<span style="color:#{r:02x}{g:02x}{b:02x}; font-size:large">&#9632;</span>'


def _rows(rows: list[tuple[str, str]]) -> str:
    return "".join(f"<tr valign='top'><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)


def _heading(text: str) -> str:
    return f"<tr><td colspan='2'><h3>{text}</h3></td></tr>"


def _subheading(text: str) -> str:
    return f"<tr><td colspan='2'><i>{text}</i></td></tr>"


def help_html(menus: list[tuple[str, list]]) -> str:
    """The help text: `menus` is Actions.menu_actions() (menu title, actions).

    One table for every section, its first column of fixed width, so the descriptions of
    keys, mouse gestures, the timeline and the overlay all start at one x.
    """
    parts = [_heading("Keys")]
    for title, actions in menus:
        rows = [
            (escape(key_text(a)), escape(a.text().replace("&", "").rstrip("…")) + " — "
             + escape(a.statusTip()))
            for a in actions
        ]  # fmt: skip
        parts += [_subheading(escape(title)), _rows(rows)]
    parts += [_heading("Mouse"), _rows([(escape(g), escape(d)) for g, d in MOUSE])]
    parts += [_heading("Timeline and path"), _rows([(escape(c), escape(d)) for c, d in TIMELINE])]
    legend = [(f"{_swatch(c)} {escape(name)}", escape(meaning)) for c, name, meaning in LEGEND]
    axes = " ".join(_swatch(c) for c in AXIS_COLORS)
    legend += [
        (f"{axes} axes", "x, y (up) and z from the box's low corner"),
        ("trails", "each agent's recent path in its group's colour, fading with age"),
    ]
    parts += [_heading("What the overlay shows"), _rows(legend)]
    return (
        f"<table cellspacing='2' cellpadding='1'><tr><td width='{KEY_COLUMN}'></td><td></td>"
        f"</tr>{''.join(parts)}</table>"
    )


class HelpDialog(QDialog):
    """A non-modal window with `help_html`; it stays open beside the running simulation."""

    def __init__(self, html: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("wander3d: keys, mouse and overlay")
        self.browser = QTextBrowser()
        self.browser.setHtml(html)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(780, 600)
