"""A non-editable install ships the scenes inside the package and finds them from any folder;
the wheel's metadata keeps the GUI out of the core and declares the extras that bring it.

Built and installed offline: the wheel is built without build isolation by the hatchling of
the test environment (the test extras have it) and installed with no index, so nothing here may
reach a package registry. An unreachable proxy makes any attempt fail loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
#: A proxy nothing listens on (port 9, discard): any download attempt fails at once.
OFFLINE_PROXIES = {
    name: "http://127.0.0.1:9"
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
}
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
OFFLINE = dict(os.environ, PIP_NO_INDEX="1", no_proxy="", NO_PROXY="", **OFFLINE_PROXIES)
#: What only drawing and the desktop app need (distribution names, lower case).
GUI = {"pyqt6", "vispy", "imageio", "imageio-ffmpeg", "pytest-qt", "pytest-xvfb"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    wheels = tmp_path_factory.mktemp("wheels")
    build = subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", str(wheels),
         str(REPO)],
        capture_output=True, text=True, env=OFFLINE, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    (built,) = wheels.glob("wander3d-*.whl")
    return built


def requirements(wheel: Path) -> dict[str, set[str]]:
    """The distributions each extra of the wheel adds ("" for the core), lower case; an extra
    that names others of wander3d's (`wander3d[render]`) has theirs."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    extras = ["", *metadata.get_all("Provides-Extra", [])]
    direct: dict[str, set[Requirement]] = {extra: set() for extra in extras}
    for line in metadata.get_all("Requires-Dist", []):
        requirement = Requirement(line)
        marker = requirement.marker  # `extra == "app"` for an extra's, none for the core's
        for extra in extras:
            if marker.evaluate({"extra": extra}) if marker else extra == "":
                direct[extra].add(requirement)

    def names(extra: str) -> set[str]:
        found = set()
        for requirement in direct[extra]:
            if requirement.name == "wander3d":
                found |= set().union(*(names(e) for e in requirement.extras))
            else:
                found.add(requirement.name.lower())
        return found

    return {extra: names(extra) for extra in extras}


def test_the_core_installs_no_gui_and_the_extras_bring_it(wheel):
    found = requirements(wheel)
    assert set(found) == {"", "render", "app", "test-core", "test"}
    core = found[""]
    assert {"numpy", "numba", "pyarrow", "dask", "optuna", "scipy", "matplotlib"} <= core
    assert not core & GUI
    assert found["render"] == {"vispy", "imageio", "imageio-ffmpeg", "pillow"}
    assert found["app"] == found["render"] | {"pyqt6"}
    assert "pytest" in found["test-core"] and not found["test-core"] & GUI
    assert found["test"] == found["app"] | found["test-core"] | {"pytest-qt", "pytest-xvfb"}


def test_an_installed_wheel_finds_the_default_scene_from_any_folder(wheel, tmp_path):
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    install = subprocess.run(
        [*PIP, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
        capture_output=True, text=True, env=OFFLINE, timeout=600,
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


def test_the_wheel_ships_every_ports_sources(wheel):
    """`wander3d port` reads its languages' checked-in sources from the installed package."""
    from wander3d.port import LANGUAGES, language

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for name in LANGUAGES:
        lang = language(name)
        folder = lang.package.replace(".", "/")
        for path in (lang.core, *lang.sources):
            assert f"{folder}/{path}" in names, f"{name}: {path} is not in the wheel"


def test_the_wheel_ships_the_shared_pages_parts(wheel):
    """`wander3d share` inlines its page, viewer and vendored three.js from the package."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for path in ("page.html", "viewer.mjs", "vendor/three.min.mjs", "vendor/LICENSE"):
        assert f"wander3d/share/{path}" in names, f"{path} is not in the wheel"
