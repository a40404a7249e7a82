"""The method table (wander3d/engine/methods.py) is the one place that knows the wander methods.

The kernel defines each method's id (its compiled branches read them); the table names them.
These tests fail when the two disagree, and when a module other than the table matches on a
method's name again instead of reading the table.
"""

from __future__ import annotations

import ast

from scene_support import REPO

from wander3d.engine import kernel
from wander3d.engine.methods import METHOD_TABLE, METHODS, traits

KERNEL = REPO / "wander3d" / "engine" / "kernel.py"
TABLE = REPO / "wander3d" / "engine" / "methods.py"


def kernel_method_ids(source: str) -> dict[str, int]:
    """The kernel's method ids by constant name: the module-level assignment naming SPHERE."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            names = [t.id for t in node.targets[0].elts if isinstance(t, ast.Name)]
            if "SPHERE" in names:
                return {name: getattr(kernel, name) for name in names}
    raise AssertionError("kernel.py assigns no method ids")


def test_the_table_names_every_kernel_method_id_once():
    ids = kernel_method_ids(KERNEL.read_text(encoding="utf-8"))
    assert {m.name.upper(): m.id for m in METHOD_TABLE} == ids
    assert len(set(ids.values())) == len(ids)


def test_the_table_gives_each_method_its_traits():
    assert METHODS == tuple(m.name for m in METHOD_TABLE)
    for m in METHOD_TABLE:
        assert traits(m.name) is m
        # check states each method's pace one way or the other.
        assert (m.decorrelation is None) != (m.rhythm is None), m.name


def _strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_strings(e) for e in node.elts))
    return set()


def method_name_matches(source: str) -> list[int]:
    """Lines that compare something called method with a method's name, match on one, or key
    a dict by one (a second table)."""
    names = set(METHODS)
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            named = [op for op in operands if _strings(op) & names]
            if named and any("method" in ast.unparse(op) for op in operands if op not in named):
                lines.append(node.lineno)
        elif isinstance(node, ast.Match) and "method" in ast.unparse(node.subject):
            values = (p.value for p in ast.walk(node) if isinstance(p, ast.MatchValue))
            if any(_strings(v) & names for v in values):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(
            k is not None and _strings(k) & names for k in node.keys
        ):
            lines.append(node.lineno)
    return lines


def test_no_module_but_the_table_matches_on_a_method_name():
    found = {
        str(path.relative_to(REPO)): lines
        for path in sorted((REPO / "wander3d").rglob("*.py"))
        if path != TABLE and (lines := method_name_matches(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "read the method's traits (wander3d.engine.methods.traits) instead"


def test_the_match_finder_finds_matches():
    caught = (
        'if g.wander.method == "seek":\n    pass',
        'x = method in ("angle", "noise")',
        'x = "sphere" != old_method',
        'match w.method:\n    case "noise":\n        pass',
        'KEYS = {"sphere": 1}',
    )
    for code in caught:
        assert method_name_matches(code) == [1], code
    # A job called "seek" is no method, nor is a method's default.
    for code in ('x = job[0] == "seek"', 'method: str = "sphere"', 'x = method == "fly"'):
        assert method_name_matches(code) == [], code


def test_kernel_ids_are_found_in_the_kernels_source():
    source = "SPHERE, ANGLE = 0, 1\nOTHER = 3\n"
    assert kernel_method_ids(source) == {"SPHERE": kernel.SPHERE, "ANGLE": kernel.ANGLE}
