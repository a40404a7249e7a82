"""Helpers for scene-layer and command tests: write scene files, check error messages, run the
`wander3d` command as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wander3d import SceneError, load_scene

REPO = Path(__file__).resolve().parents[1]
SCENES = REPO / "scenes"

#: The smallest valid scene.
MINIMAL = "[[groups]]\ncount = 10\n"


def wander3d_cmd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m wander3d ARGS` the way a user would (from any folder, no stdin)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "wander3d", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def write(folder: Path, text: str | bytes, name: str = "scene.toml") -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path) -> SceneError:
    """Load a scene that must be invalid; return the error after checking its shape."""
    with pytest.raises(SceneError) as info:
        load_scene(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(f"{path}: "), message
    return info.value


def assert_rejected(folder: Path, text: str | bytes, key: str | None, *phrases: str) -> str:
    """`text` must be rejected; the message names the file, the key path and each phrase."""
    path = write(folder, text)
    error = load_error(path)
    message = str(error)
    if key is not None:
        assert message.startswith(f"{path}: {key}: "), message
        assert error.key == key
    else:
        assert error.key is None, message
    for phrase in phrases:
        assert phrase in message, f"{phrase!r} not in {message!r}"
    return message
