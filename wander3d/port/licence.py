"""The licence every port file carries: wander3d's (LICENSE at the repository's root), as SPDX
lines (https://spdx.dev/learn/handling-license-info/) at the top of each file, in the file's
own comment syntax, so a game can ship the code as it is.

The checked-in sources (wander3d/port/<lang>/) carry the lines themselves; the files a port
generates (README.md, scene.toml, start.txt) get them here.
"""

from __future__ import annotations

#: The SPDX identifier of pyproject.toml's `license` (tests/test_port_framework.py checks both).
LICENSE_ID = "MIT"
LICENCE_LINES = (
    "SPDX-FileCopyrightText: 2026 The wander3d authors",
    f"SPDX-License-Identifier: {LICENSE_ID}",
)


def commented(prefix: str, suffix: str = "") -> str:
    """The licence lines as comments (`prefix` and `suffix` around each), newline-ended."""
    return "".join(f"{prefix}{line}{suffix}\n" for line in LICENCE_LINES)


def licensed(path: str, text: str) -> str:
    """`text` of the generated file `path` with the licence lines on top (Markdown as an HTML
    comment; TOML and start.txt as `#` lines, which every core's start reader skips)."""
    if path.endswith(".md"):
        return commented("<!-- ", " -->") + "\n" + text
    return commented("# ") + text
