"""F1: every key (read from the actions, so it cannot drift), mouse gesture and overlay colour."""

from __future__ import annotations

from html import escape

from PyQt6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from wander3d.render.debug import LEGEND
from wander3d.render.enclosure import AXIS_COLORS

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


def _swatch(rgba: tuple[float, ...]) -> str:
    r, g, b = (round(255 * c) for c in rgba[:3])
    return f'<span style="color:#{r:02x}{g:02x}{b:02x}; font-size:large">&#9632;</span>'


def _rows(rows: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"<tr><td style='padding-right:14px'><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows
    )
    return f"<table cellspacing='2'>{cells}</table>"


def help_html(menus: list[tuple[str, list]]) -> str:
    """The help text: `menus` is Actions.menu_actions() (menu title, actions)."""
    parts = ["<h3>Keys</h3>"]
    for title, actions in menus:
        rows = [
            (escape(key_text(a)), escape(a.text().replace("&", "").rstrip("…")) + " — "
             + escape(a.statusTip()))
            for a in actions
        ]  # fmt: skip
        parts += [f"<p><i>{escape(title)}</i></p>", _rows(rows)]
    parts += ["<h3>Mouse</h3>", _rows([(escape(g), escape(d)) for g, d in MOUSE])]
    legend = [(f"{_swatch(c)} {escape(name)}", escape(meaning)) for c, name, meaning in LEGEND]
    axes = " ".join(_swatch(c) for c in AXIS_COLORS)
    legend += [
        (f"{axes} axes", "x, y (up) and z from the box's low corner"),
        ("trails", "each agent's recent path in its group's colour, fading with age"),
    ]
    parts += ["<h3>What the overlay shows</h3>", _rows(legend)]
    return "".join(parts)


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
        self.resize(640, 560)
