"""Which tests need more than the core install, and why they skip where it is missing.

Markers (registered in pyproject.toml): `gl` tests draw with OpenGL (vispy; EGL, or Qt on the
virtual X display); `render` tests import the drawing code without drawing; `app` tests use Qt
(PyQt6 with pytest-qt on pytest-xvfb's display): the app's window, or a Qt GL canvas. A test that
does both has both. conftest.py skips a marked test where what it needs is not installed, naming the
extra that brings it, so that in a core-only install (`pip install -e ".[test-core]"`) `pytest -ra`
lists every skipped test and why. A test module that imports vispy or PyQt6 when it is imported
skips as a whole, first thing, with the same reason:

    pytest.importorskip("PyQt6", reason=missing_extra("app"))
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec

#: extra -> (import name, package name) of what it brings that the tests use. `test` stands for
#: its GUI test tools, which come with the app extra.
EXTRA_MODULES = {
    "render": (("vispy", "vispy"), ("imageio", "imageio")),
    "app": (("PyQt6", "PyQt6"), ("vispy", "vispy")),
    "test": (("pytestqt", "pytest-qt"), ("pytest_xvfb", "pytest-xvfb")),
}

#: marker -> the extras its tests need, the most basic first (its reason is the one given).
MARKER_EXTRAS = {"gl": ("render",), "render": ("render",), "app": ("app", "test")}


@cache
def missing_extra(extra: str) -> str | None:
    """Why a test needing `extra` cannot run here, e.g. "needs the app extra: PyQt6 not
    installed"; None when everything of it is installed."""
    missing = [package for module, package in EXTRA_MODULES[extra] if find_spec(module) is None]
    if not missing:
        return None
    return f"needs the {extra} extra: {' and '.join(missing)} not installed"


def skip_reason(marker: str) -> str | None:
    """Why tests marked `marker` cannot run here; None when they can."""
    for extra in MARKER_EXTRAS[marker]:
        if reason := missing_extra(extra):
            return reason
    return None
