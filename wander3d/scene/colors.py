"""Colours in scene files: "#rrggbb", "#rgb" or a few CSS names, normalised to "#rrggbb"."""

from __future__ import annotations

import difflib
import re

#: A small set of CSS colour names (their CSS values), enough to write scenes by hand.
CSS_COLORS: dict[str, str] = {
    "black": "#000000",
    "white": "#ffffff",
    "gray": "#808080",
    "grey": "#808080",
    "silver": "#c0c0c0",
    "darkgray": "#a9a9a9",
    "dimgray": "#696969",
    "lightgray": "#d3d3d3",
    "red": "#ff0000",
    "crimson": "#dc143c",
    "tomato": "#ff6347",
    "coral": "#ff7f50",
    "salmon": "#fa8072",
    "orange": "#ffa500",
    "darkorange": "#ff8c00",
    "gold": "#ffd700",
    "yellow": "#ffff00",
    "khaki": "#f0e68c",
    "lime": "#00ff00",
    "green": "#008000",
    "limegreen": "#32cd32",
    "seagreen": "#2e8b57",
    "olive": "#808000",
    "teal": "#008080",
    "cyan": "#00ffff",
    "aqua": "#00ffff",
    "turquoise": "#40e0d0",
    "skyblue": "#87ceeb",
    "deepskyblue": "#00bfff",
    "steelblue": "#4682b4",
    "dodgerblue": "#1e90ff",
    "blue": "#0000ff",
    "navy": "#000080",
    "midnightblue": "#191970",
    "indigo": "#4b0082",
    "purple": "#800080",
    "violet": "#ee82ee",
    "orchid": "#da70d6",
    "magenta": "#ff00ff",
    "fuchsia": "#ff00ff",
    "pink": "#ffc0cb",
    "hotpink": "#ff69b4",
    "brown": "#a52a2a",
    "chocolate": "#d2691e",
    "maroon": "#800000",
}

_HEX6 = re.compile(r"#[0-9a-fA-F]{6}")
_HEX3 = re.compile(r"#[0-9a-fA-F]{3}")


def parse_color(text: str) -> str:
    """Return `text` as lower-case "#rrggbb"; raise ValueError with a hint if it is no colour."""
    s = text.strip()
    if _HEX6.fullmatch(s):
        return s.lower()
    if _HEX3.fullmatch(s):
        return "#" + "".join(c * 2 for c in s[1:].lower())
    name = s.lower().replace(" ", "")
    if name in CSS_COLORS:
        return CSS_COLORS[name]
    close = difflib.get_close_matches(name, CSS_COLORS, n=1)
    hint = f", did you mean '{close[0]}'?" if close else ': use "#rrggbb", "#rgb" or a CSS name'
    raise ValueError(f'"{text}" is not a colour{hint}')


def rgb(color: str) -> tuple[float, float, float]:
    """A normalised "#rrggbb" as (r, g, b) floats in 0..1, for drawing."""
    c = parse_color(color)
    return (int(c[1:3], 16) / 255, int(c[3:5], 16) / 255, int(c[5:7], 16) / 255)
