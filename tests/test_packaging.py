"""A non-editable install ships the scenes inside the package and finds them from any folder.

Built and installed offline: the wheel is built without build isolation by the hatchling of
the test environment (the test extra has it) and installed with no index, so nothing here may
reach a package registry. An unreachable proxy makes any attempt fail loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: A proxy nothing listens on (port 9, discard): any download attempt fails at once.
OFFLINE_PROXIES = {
    name: "http://127.0.0.1:9"
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
}


def test_an_installed_wheel_finds_the_default_scene_from_any_folder(tmp_path):
    wheels, site, elsewhere = tmp_path / "wheels", tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    offline = dict(os.environ, PIP_NO_INDEX="1", no_proxy="", NO_PROXY="", **OFFLINE_PROXIES)
    build = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", str(wheels),
         str(REPO)],
        capture_output=True, text=True, env=offline, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("wander3d-*.whl")
    install = subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
        capture_output=True, text=True, env=offline, timeout=600,
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
