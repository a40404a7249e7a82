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

Two more rules: only the engine and the session hold a Simulation; and docs/architecture.md
says what the code does (its table of what each layer imports, its picture of the layers,
the names of its picture of a frame's path). `python tests/test_layering.py` prints the
table's rows and the picture's arrows as the code has them.
"""

from __future__ import annotations

import ast
import os
import re
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
    # What drawing involves without Qt or vispy (trail levels of detail, frame pacing): numpy
    # alone, so a core install imports and tests it.
    "drawing": Layer(uses=("helpers",), third_party=("numpy",)),
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
    # Parameter sweeps and tuning on Dask. Headless; the cluster and optimisers load lazily.
    "sweep": Layer(
        uses=("api", "engine", "scene", "helpers", "export", "analysis"),
        third_party=("numpy", "pyarrow"),
        third_party_lazily=("dask", "distributed", "optuna", "scipy", "matplotlib"),
    ),
    # Drawing with vispy (never Qt): the same views on screen, offscreen and in recordings,
    # of the states a session publishes. PIL comes with imageio; imageio_ffmpeg is the
    # render extra's ffmpeg.
    "render": Layer(
        uses=("engine", "scene", "helpers", "session", "drawing"),
        third_party=("numpy", "vispy", "imageio", "PIL", "imageio_ffmpeg"),
    ),
    # `wander3d bench`: headless to import; its frame benchmark draws, so render lazily.
    "bench": Layer(
        uses=("engine", "scene", "helpers", "session"),
        uses_lazily=("render", "bench_drawing"),
        third_party=("numpy",),
        third_party_lazily=("vispy",),
    ),
    # The original drawing the frame benchmark compares against: vispy visuals over render's.
    "bench_drawing": Layer(
        uses=("engine", "scene", "helpers", "session", "drawing", "render"),
        third_party=("numpy", "vispy"),
    ),
    # `wander3d port`: the engine's model as code in other languages. Headless.
    "port": Layer(uses=("engine", "scene", "helpers"), third_party=("numpy",)),
    # `wander3d share`: a scene as one web page running the JS port. Headless.
    "share": Layer(
        uses=("api", "engine", "scene", "helpers", "drawing", "port"), third_party=("numpy",)
    ),
    # The running simulation's one owner, for the app and scripts: headless, no Qt.
    "session": Layer(uses=("engine", "scene"), third_party=("numpy", "psygnal")),
    # The desktop app (Qt): thin adapters over the session.
    "app": Layer(
        uses=(
            "api",
            "engine",
            "scene",
            "helpers",
            "drawing",
            "render",
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
            "drawing",
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
    "wander3d.exit_status": "helpers",
    "wander3d.drawing": "drawing",
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


#: The conditions of a block that only type checkers run.
_TYPE_CHECKING = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def imports_of(source: str, module: str, is_package: bool) -> dict[str, bool]:
    """Absolute names of every module `source` imports (relative imports resolved), each
    mapped to True when it is imported only inside functions (lazily) or for type checking
    (`if TYPE_CHECKING:`, never at run time)."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    in_function = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for inner in ast.walk(node)
        if inner is not node
    } | {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in _TYPE_CHECKING
        for statement in node.body
        for inner in ast.walk(statement)
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
        "wander3d.scene.x": ("if TYPE_CHECKING:\n    import PyQt6", "third-party PyQt6"),
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
        "wander3d.analysis.r": "if TYPE_CHECKING:\n    from matplotlib.figure import Figure",
        "wander3d.bench.s": "if typing.TYPE_CHECKING:\n    from wander3d.render import view",
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


#: The packages that may hold a `Simulation`: the engine (its recorder and timing keep their
#: own runs) and the session (the one owner of a running one). `wander3d/__init__.py` only
#: re-exports the class for scripts (the public API) and holds none.
SIMULATION_OWNERS = ("wander3d.engine", "wander3d.session")
SIMULATION_REEXPORT = "wander3d"


def simulation_uses(source: str, module: str) -> list[str]:
    """Where `source` names the engine's Simulation (imports it, its module, or reaches it
    as an attribute): `module`'s lines that would let it hold one."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            target = node.module or ""
            if "Simulation" in names or target.endswith("simulation") or "simulation" in names:
                found.append(f"{module}:{line} imports {', '.join(sorted(names))} from {target}")
        elif isinstance(node, ast.Import):
            found += [
                f"{module}:{line} imports {a.name}"
                for a in node.names
                if a.name.endswith(".simulation")
            ]
        elif isinstance(node, ast.Attribute) and node.attr == "Simulation":
            found.append(f"{module}:{line} uses .Simulation")
        elif isinstance(node, ast.Name) and node.id == "Simulation":
            found.append(f"{module}:{line} names Simulation")
    return found


def test_nothing_outside_the_engine_and_the_session_holds_a_simulation():
    """Drawing, exporting, measuring and the app read what the engine and the session hand
    out (samples, published states, layouts, start states), never a live simulation."""
    problems = []
    for path in package_modules():
        module = module_name(path)
        if module == SIMULATION_REEXPORT or module.startswith(SIMULATION_OWNERS):
            continue
        problems += simulation_uses(path.read_text(encoding="utf-8"), module)
    assert problems == []


def test_the_session_hands_out_no_simulation():
    """No public attribute or method of Session returns (or is annotated as) a Simulation."""
    source = (PACKAGE / "session" / "session.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    (session,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Session"]
    leaks = [
        f.name
        for f in session.body
        if isinstance(f, ast.FunctionDef)
        and not f.name.startswith("_")
        and f.returns is not None
        and "Simulation" in ast.unparse(f.returns)
    ]
    assert leaks == []


def test_the_simulation_check_catches_holders():
    cases = {
        "from wander3d.engine import Simulation": "imports Simulation",
        "from ..engine.simulation import Simulation": "imports Simulation",
        "import wander3d.engine.simulation": "imports wander3d.engine.simulation",
        "import wander3d\nsim = wander3d.Simulation(spec)": "uses .Simulation",
        "def f(s: 'x') -> None:\n    return Simulation": "names Simulation",
    }
    for code, expected in cases.items():
        found = simulation_uses(code, "wander3d.render.z")
        assert any(expected in f for f in found), (code, found)
    harmless = "from wander3d.render import SimulationView\nfrom wander3d.engine import Layout"
    assert simulation_uses(harmless, "wander3d.app.y") == []


# ---------------------------------------------------------------- docs/architecture.md

ARCHITECTURE = REPO / "docs" / "architecture.md"


@dataclass(frozen=True)
class Uses:
    """What a layer's modules import, as the code has it: other layers and third-party
    packages, those imported only inside functions apart (`lazily`)."""

    layers: frozenset[str]
    layers_lazily: frozenset[str]
    third_party: frozenset[str]
    third_party_lazily: frozenset[str]


def layer_uses() -> dict[str, Uses]:
    """Per layer of LAYERS, what its modules import today."""
    imported: dict[str, dict[str, bool]] = {name: {} for name in LAYERS}
    packages: dict[str, dict[str, bool]] = {name: {} for name in LAYERS}
    for path in package_modules():
        module = module_name(path)
        layer = place_of(module)
        assert layer is not None, module
        found = imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        for name, lazy in found.items():
            top = name.split(".")[0]
            if top == "wander3d":
                other, into = layer_of_import(name), imported[layer]
                if other == layer:
                    continue
            elif top in sys.stdlib_module_names:
                continue
            else:
                other, into = top, packages[layer]
            into[other] = into.get(other, True) and lazy
    return {
        name: Uses(
            layers=frozenset(o for o, lazy in imported[name].items() if not lazy),
            layers_lazily=frozenset(o for o, lazy in imported[name].items() if lazy),
            third_party=frozenset(p for p, lazy in packages[name].items() if not lazy),
            third_party_lazily=frozenset(p for p, lazy in packages[name].items() if lazy),
        )
        for name in LAYERS
    }


def uses_cell(eager: frozenset[str], lazily: frozenset[str]) -> str:
    """A table cell listing `eager` then `lazily`, e.g. "engine, scene; lazily render"."""
    parts = [", ".join(sorted(eager))] if eager else []
    if lazily:
        parts.append("lazily " + ", ".join(sorted(lazily)))
    return "; ".join(parts) or "—"


def places_cell(layer: str) -> str:
    """The modules PLACES puts in `layer`, as paths: `wander3d/engine`, `wander3d/files.py`."""
    paths = []
    for module, place in PLACES.items():
        if place == layer:
            path = PACKAGE.parent / module.replace(".", "/")
            paths.append(
                "wander3d/__init__.py"
                if module == "wander3d"
                else module.replace(".", "/") + ("" if path.is_dir() else ".py")
            )
    return ", ".join(f"`{p}`" for p in sorted(paths))


def picture_edges(uses: dict[str, Uses]) -> set[tuple[str, str]]:
    """(layer, layer it uses) for the picture: every use, less those another path implies."""
    graph = {n: set(u.layers | u.layers_lazily) for n, u in uses.items()}

    def reach(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo += graph[node]
        return seen

    return {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if not any(b in reach(c) for c in targets - {b})
    }


def doc_block(text: str, start: str) -> list[str]:
    """The lines of architecture.md from the line starting `start` to the next blank one."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    block = []
    for line in lines[first:]:
        if not line.strip():
            break
        block.append(line)
    return block


def mermaid_block(text: str, kind: str) -> list[str]:
    """The lines of the first mermaid block of architecture.md that draws a `kind`."""
    lines = text.splitlines()
    first = next(
        i for i in range(len(lines) - 1)
        if lines[i].strip() == "```mermaid" and lines[i + 1].strip().startswith(kind)
    )  # fmt: skip
    return lines[first + 1 : lines.index("```", first + 1)]


def expected_table(uses: dict[str, Uses]) -> dict[str, tuple[str, str, str]]:
    """Per layer: (its modules, the layers it uses, its third-party packages) as the
    table in docs/architecture.md must show them."""
    return {
        name: (
            places_cell(name),
            uses_cell(u.layers, u.layers_lazily),
            uses_cell(u.third_party, u.third_party_lazily),
        )
        for name, u in uses.items()
    }


def test_the_architecture_table_says_what_each_layer_imports():
    """docs/architecture.md's table of layers: every layer of LAYERS, its modules (PLACES)
    and the layers and packages its modules import today, no more and no fewer (the doc
    once listed analysis and bench among the app's, which it never imported)."""
    rows = {}
    for line in doc_block(ARCHITECTURE.read_text(encoding="utf-8"), "| Layer |")[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[2], cells[3], cells[4])
    expected = expected_table(layer_uses())
    assert rows.keys() == expected.keys()
    wrong = {n: (rows[n], expected[n]) for n in expected if rows[n] != expected[n]}
    assert wrong == {}, "docs/architecture.md's table (as written, as it must be)"


def test_the_architecture_picture_is_the_layers_as_imported():
    """The mermaid picture of the layers: an arrow for each layer another uses, less the
    arrows another path already implies; dotted where it is imported only in functions."""
    drawn = set()
    for line in mermaid_block(ARCHITECTURE.read_text(encoding="utf-8"), "flowchart"):
        for arrow, lazily in (("-.->", True), ("-->", False)):
            if arrow in line:
                a, b = (part.strip() for part in line.split(arrow))
                drawn.add((a, b, lazily))
                break
    uses = layer_uses()
    expected = {(a, b, b in uses[a].layers_lazily) for a, b in picture_edges(uses)}
    assert drawn == expected


def test_the_frame_path_names_what_the_code_has():
    """Every `file: Name.attribute` of the picture of a frame's path exists in that file."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = re.findall(r"`(wander3d/[\w/]+\.py): ([\w.]+)`", text)
    assert len(named) >= 10
    missing = []
    for path, qualified in named:
        tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
        scope: list[ast.stmt] = tree.body
        for part in qualified.split("."):
            found = [
                node
                for node in scope
                if (isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == part)
                or (
                    isinstance(node, ast.AnnAssign | ast.Assign)
                    and part in {t.id for t in _targets(node)}
                )
            ]
            if not found:
                missing.append(f"{path}: {qualified}")
                break
            scope = getattr(found[0], "body", [])
    assert missing == []


def _targets(node: ast.AnnAssign | ast.Assign) -> list[ast.Name]:
    targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
    return [t for t in targets if isinstance(t, ast.Name)]


if __name__ == "__main__":  # print the table's rows and the picture's arrows as they must be
    current = layer_uses()
    for name, (modules, layers, packages) in expected_table(current).items():
        print(f"| `{name}` | ... | {modules} | {layers} | {packages} |")
    for a, b in sorted(picture_edges(current)):
        print(f"    {a} {'-.->' if b in current[a].layers_lazily else '-->'} {b}")
