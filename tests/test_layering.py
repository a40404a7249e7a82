"""Every module of wander3d/ sits in a layer, and layers import only the layers they build on.

The layers, from the bottom: engine <- scene <- render <- app <- cli, with headless helpers
beside them (LAYERS below). The engine and the scene layer must run where there is no display:
they never import Qt, vispy or anything of the layers above them. Checked two ways:
statically, from every import statement under wander3d/ (including imports inside
functions), and at run time, by looking at sys.modules in a fresh interpreter after the
headless commands ran.

To add a module or package: place it in PLACES (a new package of an existing kind usually
needs just that line); for a new kind of layer, add a row to LAYERS saying what it may import,
and name it in the `uses` of the layers that may import it. A module in no layer fails the test.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from scene_support import REPO


@dataclass(frozen=True)
class Layer:
    """What a layer's modules may import, besides their own layer and the standard library.

    uses: layers importable anywhere. uses_lazily: layers importable only inside functions,
    so that importing this layer stays cheap and headless. third_party: top-level names of
    third-party packages importable anywhere (None: any). third_party_lazily: ones importable
    only inside functions.
    """

    uses: tuple[str, ...] = ()
    uses_lazily: tuple[str, ...] = ()
    third_party: tuple[str, ...] | None = ()
    third_party_lazily: tuple[str, ...] = ()


LAYERS: dict[str, Layer] = {
    # The simulation: numpy and a compiled step (numba involves no display).
    "engine": Layer(third_party=("numpy", "numba")),
    # Scene files: loading, validation, bundled scenes. Headless.
    "scene": Layer(uses=("engine",), third_party=("numpy",)),
    # `wander3d` itself (wander3d/__init__.py): the public API over the engine and scenes.
    "api": Layer(uses=("engine", "scene")),
    # Standard-library helpers for every layer above the scene: argument types, output files.
    "helpers": Layer(),
    # Trajectory files in and out of `wander3d run` (Parquet, CSV, glTF, npz). Headless.
    "export": Layer(
        uses=("api", "engine", "scene", "helpers"),
        third_party=("numpy", "pyarrow", "pygltflib"),
    ),
    # `wander3d stats`: measures runs and tracks read from files. Headless; matplotlib only
    # for --plot.
    "analysis": Layer(
        uses=("engine", "scene", "helpers", "export"),
        third_party=("numpy", "pyarrow"),
        third_party_lazily=("matplotlib", "pyproj"),
    ),
    # Parameter sweeps and tuning on Dask. Headless; the cluster and optimiser load lazily.
    "sweep": Layer(
        uses=("api", "engine", "scene", "helpers", "export", "analysis"),
        third_party=("numpy", "pyarrow"),
        third_party_lazily=("dask", "distributed", "optuna", "matplotlib"),
    ),
    # Drawing with vispy (never Qt): the same views on screen, offscreen and in recordings.
    # PIL comes with imageio; imageio_ffmpeg is the render extra's ffmpeg.
    "render": Layer(
        uses=("engine", "scene", "helpers"),
        third_party=("numpy", "vispy", "imageio", "PIL", "imageio_ffmpeg"),
    ),
    # `wander3d bench`: headless to import; its frame benchmark draws, so render lazily.
    "bench": Layer(
        uses=("engine", "scene", "helpers"),
        uses_lazily=("render", "bench_drawing"),
        third_party=("numpy",),
        third_party_lazily=("vispy",),
    ),
    # The original drawing the frame benchmark compares against: vispy visuals over render's.
    "bench_drawing": Layer(
        uses=("engine", "scene", "helpers", "render"), third_party=("numpy", "vispy")
    ),
    # `wander3d port`: the engine's model as code in other languages. Headless.
    "port": Layer(uses=("engine", "scene", "helpers"), third_party=("numpy",)),
    # `wander3d share`: a scene as one web page running the JS port. Headless.
    "share": Layer(uses=("api", "engine", "scene", "helpers", "port"), third_party=("numpy",)),
    # The running simulation's one owner, for the app and scripts: headless, no Qt.
    "session": Layer(uses=("engine", "scene"), third_party=("numpy", "psygnal")),
    # The desktop app (Qt): thin adapters over the session.
    "app": Layer(
        uses=(
            "api",
            "engine",
            "scene",
            "helpers",
            "analysis",
            "render",
            "bench",
            "session",
            "port",
            "share",
        ),
        third_party=None,
    ),
    # The command line, and `python -m wander3d`.
    "cli": Layer(
        uses=(
            "api",
            "engine",
            "scene",
            "helpers",
            "analysis",
            "export",
            "sweep",
            "render",
            "bench",
            "session",
            "app",
            "port",
            "share",
        ),
        third_party=None,
    ),
}

#: Third-party packages only the engine may import, whatever a layer's rules say otherwise:
#: numba's thread count is the engine's setting (`Simulation(threads=...)`), made nowhere else.
ENGINE_ONLY = ("numba",)

#: Where every module under wander3d/ sits. A key names a module, or a package together with
#: everything inside it; "wander3d" is the top-level __init__ only.
PLACES: dict[str, str] = {
    "wander3d": "api",
    "wander3d.engine": "engine",
    "wander3d.scene": "scene",
    "wander3d.appearance": "helpers",
    "wander3d.arguments": "helpers",
    "wander3d.files": "helpers",
    "wander3d.analysis": "analysis",
    "wander3d.render": "render",
    "wander3d.bench": "bench",
    "wander3d.session": "session",
    "wander3d.bench.reference_drawing": "bench_drawing",
    "wander3d.app": "app",
    "wander3d.export": "export",
    "wander3d.sweep": "sweep",
    "wander3d.port": "port",
    "wander3d.share": "share",
    "wander3d.cli": "cli",
    "wander3d.commands": "cli",
    "wander3d.__main__": "cli",
}

PACKAGE = REPO / "wander3d"
GUI_MODULES = ("PyQt6", "PyQt5", "PySide6", "vispy")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> dict[str, bool]:
    """Absolute names of every module `source` imports (relative imports resolved), each
    mapped to True when it is imported only inside functions (lazily)."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    in_function = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for inner in ast.walk(node)
        if inner is not node
    }
    found: dict[str, bool] = {}

    def add(name: str, node: ast.AST) -> None:
        found[name] = found.get(name, True) and id(node) in in_function

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            add(target, node)
            # `from wander3d import scene` imports the submodule wander3d.scene.
            for alias in node.names:
                add(f"{target}.{alias.name}", node)
    return found


def place_of(module: str) -> str | None:
    """The layer PLACES gives a module of wander3d, or None if it has none."""
    if module == "wander3d":
        return PLACES[module]
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        layer = PLACES.get(".".join(parts[:n]))
        if layer is not None:
            return layer
    return None


def layer_of_import(name: str) -> str:
    """The layer of an imported wander3d name; a name that is no placed module is an
    attribute of the top-level package (`from wander3d import load_scene`)."""
    return place_of(name) or PLACES["wander3d"]


def violations(module: str, imported: dict[str, bool]) -> list[str]:
    """Why `module` or each of its imports breaks the layering (empty when all is well)."""
    layer = place_of(module)
    if layer is None:
        return [f"{module} is in no layer: place it in PLACES at the top of this file"]
    rules = LAYERS[layer]
    bad = []
    for name, lazy in sorted(imported.items()):
        top = name.split(".")[0]
        if top == "wander3d":
            other = layer_of_import(name)
            if other == layer or other in rules.uses:
                continue
            if other in rules.uses_lazily:
                if not lazy:
                    bad.append(f"{module} ({layer}) imports {name} ({other}) outside a function")
                continue
            bad.append(f"{module} ({layer}) imports {name} ({other})")
        elif top in ENGINE_ONLY and layer != "engine":
            bad.append(f"{module} ({layer}) imports {name}: only the engine may")
        elif top in sys.stdlib_module_names or rules.third_party is None:
            continue
        elif top in rules.third_party_lazily and top not in rules.third_party:
            if not lazy:
                bad.append(f"{module} ({layer}) imports third-party {name} outside a function")
        elif top not in rules.third_party:
            bad.append(f"{module} ({layer}) imports third-party {name}")
    return bad


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_layer_table_is_consistent():
    for name, layer in LAYERS.items():
        named = set(layer.uses) | set(layer.uses_lazily)
        assert named <= set(LAYERS), (name, named - set(LAYERS))
        assert name not in named, name
    assert set(PLACES.values()) <= set(LAYERS)


def test_every_module_is_in_a_layer():
    unplaced = [module_name(p) for p in package_modules() if place_of(module_name(p)) is None]
    assert unplaced == [], "place these in PLACES at the top of tests/test_layering.py"


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
        # The helpers and the top-level package.
        "wander3d.engine.h": ("from wander3d.files import output_file", "(helpers)"),
        "wander3d.scene.i": ("from ..arguments import positive_float", "(helpers)"),
        "wander3d.files": ("from wander3d.engine import Simulation", "(engine)"),
        "wander3d.arguments": ("import numpy", "third-party numpy"),
        "wander3d": ("from wander3d.render import SimulationView", "(render)"),
        # Analysis: headless, matplotlib only when plotting.
        "wander3d.analysis.j": ("from wander3d.render import view", "(render)"),
        "wander3d.analysis.k": ("import matplotlib.pyplot", "matplotlib.pyplot outside a func"),
        "wander3d.analysis.l": ("def f():\n    from PyQt6 import QtCore", "third-party PyQt6"),
        # Bench: render and vispy only inside functions, never the app.
        "wander3d.bench.m": ("from wander3d.render import offscreen", "(render) outside a func"),
        "wander3d.bench.n": ("from vispy import gloo", "third-party vispy outside a function"),
        "wander3d.bench.o": ("def f():\n    from wander3d.app import main", "(app)"),
        # Render: no Qt.
        "wander3d.render.p": ("from PyQt6 import QtWidgets", "third-party PyQt6"),
        # numba belongs to the engine, even in layers that may import anything else.
        "wander3d.app.u": ("import numba", "imports numba: only the engine may"),
        "wander3d.sweep.v": ("def f():\n    import numba", "imports numba: only the engine may"),
        "wander3d.bench.w": ("from numba import config", "imports numba: only the engine may"),
        # A module nobody placed.
        "wander3d.nowhere.grid": ("import math", "wander3d.nowhere.grid is in no layer"),
    }
    for module, (code, expected) in cases.items():
        found = violations(module, imports_of(code, module, is_package=False))
        assert any(expected in v for v in found), (module, code, found)
    # And accepts what is allowed.
    ok = {
        "wander3d.scene.m": "from wander3d.engine.params import GroupParams\nimport tomllib",
        "wander3d.engine.n": "from .methods import METHODS\nimport numpy as np\nimport numba",
        "wander3d.app.o": "from wander3d.render import view\nfrom PyQt6 import QtWidgets",
        "wander3d.cli": "from wander3d.app import run_app\nimport argparse",
        "wander3d.__main__": "from wander3d.cli import main",
        "wander3d": "from wander3d.engine import Simulation\nfrom wander3d.scene import load_scene",
        "wander3d.analysis.q": (
            "from wander3d.files import output_file\nimport numpy as np\n"
            "def plot():\n    import matplotlib.pyplot as plt"
        ),
        "wander3d.bench.r": (
            "from wander3d.engine import Simulation\n"
            "def frames():\n    from vispy import gloo\n    from ..render import offscreen"
        ),
        "wander3d.render.s": "from wander3d.files import output_file\nimport vispy.scene",
    }
    for module, code in ok.items():
        assert violations(module, imports_of(code, module, is_package=False)) == [], module
    # A name imported both at import time and inside a function counts as imported eagerly.
    twice = "def f():\n    import vispy\nimport vispy"
    assert violations("wander3d.bench.t", imports_of(twice, "wander3d.bench.t", False))


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
