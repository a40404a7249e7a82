"""The legend and caption of a rendered picture: which colour is which group, and what is shown.

`wander3d render` draws them onto each frame after it is read back (the app has its side panel
for that): top left, a swatch per group with its name, method and agents; bottom left, the
scene's name and the simulated time. Drawn with Pillow (which imageio writes GIFs with) in
its bundled font, at a size that follows the picture's height.
"""

from __future__ import annotations

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

    lines = legend_lines(scene)
    swatch = size
    widths = [draw.textlength(text, font=font) for _, text in lines]
    panel_w = min(width - 2 * pad, round(swatch + gap * 2 + max(widths, default=0)) + 2 * pad)
    panel_h = len(lines) * (size + gap) - gap + 2 * pad
    draw.rounded_rectangle((pad, pad, pad + panel_w, pad + panel_h), radius=gap, fill=PANEL_COLOR)
    y = 2 * pad
    for color, text in lines:
        x = 2 * pad
        draw.rectangle((x, y + size * 0.15, x + swatch * 0.7, y + size * 0.85), fill=color)
        draw.text((x + swatch + gap, y), text, font=font, fill=TEXT_COLOR, anchor="la")
        y += size + gap

    caption = caption_text(scene, seconds)
    caption_w = draw.textlength(caption, font=font)
    top = height - pad - size - 2 * pad
    draw.rounded_rectangle(
        (pad, top, pad + caption_w + 2 * pad, height - pad), radius=gap, fill=PANEL_COLOR
    )
    draw.text((2 * pad, top + pad), caption, font=font, fill=TEXT_COLOR, anchor="la")

    out = np.asarray(Image.alpha_composite(base, layer))
    return np.ascontiguousarray(out[..., : image.shape[2]])
