"""The legend and caption of a rendered picture: which colour is which group, and what is shown.

`wander3d render` draws them onto each frame after it is read back (the app has its side panel
for that): top left, a swatch per group with its name, method and agents; bottom left, the
scene's name and the simulated time. Drawn with Pillow (which imageio writes GIFs with) in
its bundled font, at a size that follows the picture's height.

The legend adapts to the picture: a column of groups where it is short enough to stay in the
picture's top margin, else the groups side by side in rows across the top, else their names
alone in rows (on a 320 x 180 picture the column of the five methods covered a third of it,
down into the box).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from wander3d.scene import Scene

#: Text height as a fraction of the picture's height, and its smallest size (pixels).
TEXT_SHARE = 1 / 36
MIN_TEXT = 11
TEXT_COLOR = (230, 233, 237, 255)
#: A translucent dark panel behind the text, so it reads over any background or trails.
PANEL_COLOR = (0, 0, 0, 150)
#: The most of the picture's height a legend should take (the scene is framed with a margin
#: about this big); the first layout no taller is drawn, else the shortest.
LEGEND_SHARE = 0.15


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def text_size(height: int) -> int:
    """The text's size (pixels) on a picture `height` pixels high."""
    return max(MIN_TEXT, round(height * TEXT_SHARE))


def legend_lines(scene: Scene) -> list[tuple[str, str]]:
    """(colour "#rrggbb", words) per group: its name, method and number of agents."""
    lines = []
    for group in scene.groups:
        method = group.wander.method
        name = group.name if group.name == method else f"{group.name} ({method})"
        lines.append((group.color, f"{name} · {group.count:,}"))
    return lines


def caption_text(scene: Scene, seconds: float) -> str:
    """E.g. "Fish tank · t 8.0 s"."""
    return f"{scene.name} · t {seconds:.1f} s"


def short_legend_lines(scene: Scene) -> list[tuple[str, str]]:
    """(colour "#rrggbb", the group's name) per group: the legend where space is short."""
    return [(group.color, group.name) for group in scene.groups]


def annotate(image: np.ndarray, scene: Scene, seconds: float) -> np.ndarray:
    """`image` ((h, w, 3 or 4) uint8, row 0 at the top) with the legend and the caption for
    `scene` at `seconds` of simulated time drawn on it; a new array of the same shape."""
    height, width = image.shape[:2]
    size = text_size(height)
    font = _font(size)
    pad, gap = max(4, size // 2), max(2, size // 4)
    base = Image.fromarray(np.ascontiguousarray(image)).convert("RGBA")
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)

    def measure(text: str) -> float:
        return draw.textlength(text, font=font)

    caption = caption_text(scene, seconds)
    caption_top = height - pad - size - 2 * pad
    room = (width - 2 * pad, caption_top - 2 * pad)  # the legend stays above the caption
    panel, places = legend_layout(
        legend_lines(scene), short_legend_lines(scene), measure, size, pad, gap, room
    )
    draw.rounded_rectangle(panel, radius=gap, fill=PANEL_COLOR)
    for (color, text), (x, y) in places:
        draw.rectangle((x, y + size * 0.15, x + size * 0.7, y + size * 0.85), fill=color)
        draw.text((x + size + gap, y), text, font=font, fill=TEXT_COLOR, anchor="la")

    draw.rounded_rectangle(
        (pad, caption_top, pad + measure(caption) + 2 * pad, height - pad),
        radius=gap,
        fill=PANEL_COLOR,
    )
    draw.text((2 * pad, caption_top + pad), caption, font=font, fill=TEXT_COLOR, anchor="la")

    out = np.asarray(Image.alpha_composite(base, layer))
    return np.ascontiguousarray(out[..., : image.shape[2]])


Entry = tuple[str, str]
Placed = list[tuple[Entry, tuple[float, float]]]


def legend_layout(
    full: list[Entry],
    short: list[Entry],
    measure: Callable[[str], float],
    size: int,
    pad: int,
    gap: int,
    room: tuple[int, int],
) -> tuple[tuple[float, float, float, float], Placed]:
    """The legend's panel (x0, y0, x1, y1) and each entry's place (its swatch's top left), in
    the first layout no taller than LEGEND_SHARE of the picture and as wide as `room` (width,
    height) at most, else the shortest: the full entries in a column, then in rows, then the
    short ones in rows. `measure(text)` is a text's width in pixels."""
    picture_height = room[1] + 4 * pad + size
    candidates = [
        _laid_out(full, measure, size, pad, gap, None),
        _laid_out(full, measure, size, pad, gap, room[0]),
        _laid_out(short, measure, size, pad, gap, room[0]),
    ]

    def height(layout: tuple[tuple[float, float, float, float], Placed]) -> float:
        x0, y0, x1, y1 = layout[0]
        return y1 - y0 if x1 - x0 <= room[0] + 1 else float("inf")

    for layout in candidates:
        if height(layout) <= LEGEND_SHARE * picture_height:
            return layout
    return min(candidates, key=height)


def _laid_out(
    entries: list[Entry],
    measure: Callable[[str], float],
    size: int,
    pad: int,
    gap: int,
    width: int | None,
) -> tuple[tuple[float, float, float, float], Placed]:
    """`entries` in a column (width None), or side by side in rows `width` pixels wide."""
    places: Placed = []
    x, y, right = 2.0 * pad, 2.0 * pad, 2.0 * pad
    for entry in entries:
        w = size + gap + measure(entry[1])
        if places and (width is None or x + w > pad + width - pad):
            x, y = 2 * pad, y + size + gap
        places.append((entry, (x, y)))
        right = max(right, x + w)
        x += w + 2 * size
    bottom = y + size
    return (pad, pad, right + pad, bottom + pad), places
