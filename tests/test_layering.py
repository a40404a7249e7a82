"""The package's layers depend one way only: engine <- scene <- render <- app <- cli.

The engine and the scene layer must run where there is no display: they never import Qt,
vispy or anything of the layers above them. Checked two ways: statically, from every import
statement under wander3d/ (including imports inside functions), and at run time, by looking at
sys.modules in a fresh interpreter after the headless commands ran.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from scene_support import REPO

PACKAGE = REPO / "wander3d"
LAYERS = ("engine", "scene", "render", "app", "cli")
GUI_MODULES = ("PyQt6", "PyQt5", "PySide6", "vispy")
#: Third-party modules the headless layers may use. The engine's compiled step uses numba
#: (no display involved); everything else there is numpy and the standard library.
THIRD_PARTY_ALLOWED = {"engine": {"numpy", "numba"}, "scene": {"numpy"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of every module `source` imports (relative imports resolved)."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            # `from wander3d import scene` imports the submodule wander3d.scene.
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def violations(module: str, imported: set[str]) -> list[str]:
    """Why each import of `module` breaks the layering (empty when all is well)."""
    layer = layer_of(module)
    if layer is None:
        return []
    bad = []
    for name in sorted(imported):
        top = name.split(".")[0]
        if top == "wander3d":
            other = layer_of(name)
            if other is not None:
                if LAYERS.index(other) > LAYERS.index(layer):
                    bad.append(f"{module} ({layer}) imports {name} ({other})")
            elif layer in THIRD_PARTY_ALLOWED:
                # The top-level package (which imports every layer) or another subpackage
                # such as wander3d.analysis: the headless core stays self-contained.
                bad.append(f"{module} ({layer}) imports {name}")
        elif layer in THIRD_PARTY_ALLOWED:
            if top not in sys.stdlib_module_names and top not in THIRD_PARTY_ALLOWED[layer]:
                bad.append(f"{module} ({layer}) imports third-party {name}")
    return bad


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_layers_import_only_downwards():
    problems = []
    for path in package_modules():
        module = module_name(path)
        found = imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        problems += violations(module, found)
    assert problems == []


def test_the_checker_catches_violations():
    """The static check above must be able to fail: feed it code that breaks each rule."""
    cases = {
        "wander3d.engine.x": ("from wander3d.scene import Scene", "imports wander3d.scene"),
        "wander3d.engine.y": ("from ..scene import model", "imports wander3d.scene"),
        "wander3d.engine.z": ("import vispy.scene", "third-party vispy.scene"),
        "wander3d.scene.a": ("from wander3d.render import draw", "(render)"),
        "wander3d.scene.b": ("def f():\n    import PyQt6.QtCore", "third-party PyQt6.QtCore"),
        "wander3d.scene.c": ("from wander3d import cli", "imports wander3d.cli (cli)"),
        "wander3d.scene.d": ("import wander3d", "imports wander3d"),
        "wander3d.render.e": ("from wander3d.app import window", "(app)"),
        "wander3d.app.f": ("from .. import cli", "imports wander3d.cli (cli)"),
        "wander3d.engine.g": ("from wander3d.analysis import stats", "imports wander3d.analysis"),
    }
    for module, (code, expected) in cases.items():
        found = violations(module, imports_of(code, module, is_package=False))
        assert any(expected in v for v in found), (module, code, found)
    # And accepts what is allowed.
    ok = {
        "wander3d.scene.m": "from wander3d.engine.params import GroupParams\nimport tomllib",
        "wander3d.engine.n": "from .params import METHODS\nimport numpy as np",
        "wander3d.app.o": "from wander3d.render import view\nfrom PyQt6 import QtWidgets",
        "wander3d.cli": "from wander3d.app import run_app\nimport argparse",
    }
    for module, code in ok.items():
        assert violations(module, imports_of(code, module, is_package=False)) == [], module


def test_headless_commands_never_load_qt_or_vispy(tmp_path):
    """In a fresh interpreter, run `check` and `run`; no GUI module may have been imported."""
    out = str(tmp_path / "t.npz")
    script = textwrap.dedent(
        f"""
        import sys
        import wander3d, wander3d.cli, wander3d.scene, wander3d.engine
        from wander3d.cli import main
        assert main(["check", "default"]) == 0
        assert main(["run", "default", "--seconds", "0.1", "--out", {out!r}]) == 0
        gui = sorted(m for m in sys.modules if m.split(".")[0] in {GUI_MODULES!r})
        print("GUI:", gui)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "GUI: []" in result.stdout, result.stdout


@pytest.mark.parametrize("module", ["wander3d.cli", "wander3d.scene", "wander3d.engine"])
def test_importing_a_headless_module_loads_no_gui(module):
    script = (
        f"import sys, {module}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {GUI_MODULES!r}))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
