"""A non-editable install ships the scenes inside the package and finds them from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_an_installed_wheel_finds_the_default_scene_from_any_folder(tmp_path):
    wheels, site, elsewhere = tmp_path / "wheels", tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(wheels), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("wander3d-*.whl")
    install = subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    # Only the installed copy may be importable: no checkout on the path, run from elsewhere.
    env = dict(os.environ, PYTHONPATH=str(site))
    check = subprocess.run(
        [sys.executable, "-I", "-c",
         f"import sys; sys.path.insert(0, {str(site)!r}); "
         "from wander3d.cli import main; sys.exit(main(['check', 'default', 'compare']))"],
        capture_output=True, text=True, cwd=elsewhere, env=env, timeout=300,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
    assert "Default" in check.stdout and "Five methods compared" in check.stdout
    where = subprocess.run(
        [sys.executable, "-I", "-c",
         f"import sys; sys.path.insert(0, {str(site)!r}); "
         "from wander3d.scene import bundled_scene; print(bundled_scene())"],
        capture_output=True, text=True, cwd=elsewhere, timeout=300,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)
