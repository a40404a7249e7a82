"""What each test needs and costs, read from its code: the markers conftest.py gives it.

- `render`, `app`, `gl` (what it needs installed, see extras_support.py): from what the test
  imports, in its module or in its own body (`pytest.importorskip` included), and from the
  fixtures it uses. A test that imports vispy needs the render extra; one that imports Qt or
  uses qtbot, the app extra; one that draws (a view, the window, a recording) also gets `gl`.
- `slow` (left out of the quick loop, `-m "not slow"`): a test that draws or opens a window
  (`gl`, `app`), or starts a program (a subprocess, a Dask cluster, a browser), directly or
  through the helpers and fixtures it calls, in its module or in a `*_support` module.

  And the tests named in SLOW_TESTS: long runs in this process (the engine's statistical
  checks, property tests), each above about half a second of CPU on the project's machine.

A test's own marks add to these. The quick loop, `pytest -m "not slow"`, takes well under a
minute on two cores; the whole suite runs before a merge.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: What importing a module (or a name from it) tells about a test: (prefix, markers).
IMPORT_MARKERS = (
    ("vispy", ("render",)),
    ("imageio", ("render",)),
    ("wander3d.render", ("render",)),
    ("PyQt6", ("app",)),
    ("pytestqt", ("app",)),
    ("wander3d.app", ("app",)),
    # What draws: a view or the window (a GL canvas), an offscreen recording, and the helper
    # that closes GL views.
    ("wander3d.render.SimulationView", ("gl",)),
    ("wander3d.render.view", ("gl",)),
    ("wander3d.render.record", ("gl",)),
    ("wander3d.app.window", ("gl", "app")),
    ("gl_support", ("gl", "app")),
)
#: conftest.py's fixtures and what a test that uses one (directly or through another) needs.
FIXTURE_MARKERS = {
    "qtbot": ("app",),
    "qapp": ("app",),
    "settings": ("app",),
    "dialogs": ("app",),
    "gl_view": ("gl", "app"),
    "make_window": ("gl", "app"),
    "window": ("gl", "app"),
}
#: Names whose use starts another program (or a cluster of them).
STARTS_PROGRAMS = frozenset(
    ("subprocess", "Popen", "executable", "multiprocessing", "open_client", "LocalCluster")
)
#: `wander3d` commands that start programs (a Dask cluster; bench's drawing in a child).
COMMANDS_STARTING_PROGRAMS = frozenset(("sweep", "tune", "bench"))
#: Markers that make a test slow by themselves.
SLOW_MARKERS = frozenset(("gl", "app"))
#: Tests slow for what they compute here (test module -> its slow test functions, every
#: parametrisation): each above about 0.5 s of CPU, measured over the whole `not slow` set.
#: tests/test_marking.py fails when a name here no longer names a test.
SLOW_TESTS = {
    "test_engine_fidelity.py": (
        "test_a_scene_looks_the_same_at_any_dt",
        "test_angle_target_decorrelates_as_check_says",
        "test_sphere_target_decorrelates_in_five_radius_over_jitter_squared",
        "test_vertical_keeps_its_meaning_for_fifteen_minutes",
    ),
    "test_engine_random.py": ("test_uniform_draws_lie_in_the_unit_interval",),
    "test_engine_simulation.py": (
        "test_containment_turns_agents_before_the_wall",
        "test_heading_passes_straight_up_and_down_without_a_flip",
        "test_no_agent_ever_ends_a_step_outside_the_box",
        "test_seek_repicks_its_target_every_interval",
        "test_speed_and_force_limits_hold_every_step",
        "test_sphere_target_stays_on_the_sphere_surface",
        "test_turn_rate_does_not_depend_on_the_step_rate",
        "test_turning_has_no_preferred_side",
        "test_vertical_damping_flattens_paths_from_the_start_and_keeps_turning_lively",
        "test_wall_turns_last_for_every_persistent_method",
        "test_zero_jitter_keeps_the_target_angle_to_the_heading",
    ),
    "test_engine_threads.py": ("test_python_runs_on_while_another_thread_steps",),
    "test_export.py": ("test_streamed_formats_hold_one_chunk_however_long_the_run",),
    "test_layering.py": ("test_layers_import_only_downwards",),
    "test_library_terms.py": ("test_no_library_error_names_a_command_line_option",),
    # Runs the README's commands, Dask's tuning among them.
    "test_readme_examples.py": ("test_the_readme_shows_what_the_example_prints",),
    "test_scene_feel.py": ("test_the_sharpest_turn_check_states_is_the_engines",),
    "test_scene_properties.py": (
        "test_garbage_loads_or_raises_scene_error",
        "test_one_bad_value_in_a_valid_scene_loads_or_raises_scene_error",
        "test_valid_documents_round_trip_through_toml",
    ),
    "test_session_timeline.py": ("test_playing_from_the_past_replays_the_recorded_edits",),
    "test_stats_cli.py": ("test_table_and_plot",),
    "test_track_formats.py": ("test_a_movebank_export_is_projected_to_metres",),
    "test_tracks.py": (
        "test_angle_plots_have_plain_ticks_not_a_symlog_block",
        "test_tracks_plot_in_the_format_its_name_asks",
    ),
    "test_trail_plan.py": ("test_the_plan_draws_the_visible_trail_once_oldest_to_newest",),
    "test_tune_like.py": ("test_the_cli_reports_honestly_what_it_could_not_match",),
}


def imported_names(tree: ast.AST) -> set[str]:
    """Dotted names `tree` imports: modules, `module.name` for `from module import name`,
    and `pytest.importorskip("module")`'s module."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def markers_of_imports(names: Iterable[str]) -> set[str]:
    """The markers IMPORT_MARKERS gives a test that imports `names`."""
    found: set[str] = set()
    for name in names:
        for prefix, markers in IMPORT_MARKERS:
            if name == prefix or name.startswith(prefix + "."):
                found.update(markers)
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@cache
def _definitions(path: Path) -> dict[str, ast.FunctionDef | ast.ClassDef]:
    """The module's functions and classes by name (its classes' methods too)."""
    found: dict[str, ast.FunctionDef | ast.ClassDef] = {}
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.setdefault(node.name, node)
    return found


@cache
def _support_imports(path: Path) -> dict[str, tuple[Path, str]]:
    """Names the module imports from a tests/*_support module: local name -> (its file, the
    name there)."""
    found: dict[str, tuple[Path, str]] = {}
    for node in _tree(path).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.removeprefix("tests.")
            support = path.parent / f"{module}.py"
            if module.endswith("_support") and support.exists():
                for alias in node.names:
                    found[alias.asname or alias.name] = (support, alias.name)
    return found


@cache
def module_markers(path: Path) -> frozenset[str]:
    """Markers every test of the module at `path` gets from its module-level imports."""
    top = [node for node in _tree(path).body if not isinstance(node, ast.FunctionDef)]
    top = [node for node in top if not isinstance(node, ast.ClassDef)]
    return frozenset(markers_of_imports(imported_names(ast.Module(body=top, type_ignores=[]))))


def _used_names(node: ast.AST) -> Iterator[str]:
    """The names `node` uses, and its arguments'."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            yield inner.id
        elif isinstance(inner, ast.Attribute):
            yield inner.attr
        elif isinstance(inner, ast.arg):
            yield inner.arg


def _runs_a_command_starting_programs(node: ast.AST) -> bool:
    """Whether `node` calls something with a list starting with such a command's name, as
    `main(["sweep", ...])` runs the command line in this process."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.List):
            first = inner.args[0].elts[:1]
            if first and isinstance(first[0], ast.Constant):
                if first[0].value in COMMANDS_STARTING_PROGRAMS:
                    return True
    return False


@cache
def starts_programs(path: Path, name: str) -> bool:
    """Whether the function `name` of the module at `path` starts a program, itself or
    through a function or class it names (its module's, or a support module's), or a
    fixture of its module that it takes as an argument."""
    seen: set[tuple[Path, str]] = set()
    todo = [(path, name)]
    while todo:
        where, function = todo.pop()
        if (where, function) in seen or function not in _definitions(where):
            continue
        seen.add((where, function))
        node = _definitions(where)[function]
        used = set(_used_names(node))
        if used & STARTS_PROGRAMS or _runs_a_command_starting_programs(node):
            return True
        support = _support_imports(where)
        for other in used:
            todo.append(support.get(other, (where, other)))
    return False


@cache
def function_markers(path: Path, name: str) -> frozenset[str]:
    """Markers the test function `name` of the module at `path` gets from its own imports."""
    node = _definitions(path).get(name)
    return frozenset(markers_of_imports(imported_names(node))) if node else frozenset()


def derived_markers(path: Path, function: str, fixtures: Iterable[str]) -> set[str]:
    """The markers a test needs, and `slow` if it is: from its module's imports, its own
    imports and code, and the fixtures it uses (`fixtures`: every fixture name it depends
    on)."""
    fixtures = tuple(fixtures)
    found = set(module_markers(path)) | function_markers(path, function)
    for fixture in fixtures:
        found.update(FIXTURE_MARKERS.get(fixture, ()))
    if (
        found & SLOW_MARKERS
        or function in SLOW_TESTS.get(path.name, ())
        or any(starts_programs(path, name) for name in (function, *fixtures))
    ):
        found.add("slow")
    return found
