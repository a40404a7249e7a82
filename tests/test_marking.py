"""The markers conftest.py gives each test from its code (tests/marking.py) say what the test
needs and costs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from marking import SLOW_TESTS, TESTS, _definitions, derived_markers


@pytest.fixture
def module(tmp_path):
    """Write a test module (and support modules beside it) and return its path."""

    def write(source: str, name: str = "test_probe.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import vispy\ndef test_a(): pass\n", {"render"}),
        ("from vispy.scene import Node\ndef test_a(): pass\n", {"render"}),
        ("import pytest\npytest.importorskip('imageio')\ndef test_a(): pass\n", {"render"}),
        ("from PyQt6.QtCore import Qt\ndef test_a(): pass\n", {"app", "slow"}),
        ("from wander3d.render import SimulationView\ndef test_a(): pass\n",
         {"render", "gl", "slow"}),
        ("from wander3d.render.trail_plan import plan\ndef test_a(): pass\n", {"render"}),
        ("def test_a():\n    from wander3d.app import panel\n", {"app", "slow"}),
        ("def test_a(): pass\n", set()),
    ],
)  # fmt: skip
def test_what_a_test_imports_says_what_it_needs(module, source, expected):
    assert derived_markers(module(source), "test_a", ()) == expected


def test_an_import_in_another_test_is_not_this_ones(module):
    path = module("def test_a():\n    import vispy\n\ndef test_b(): pass\n")
    assert derived_markers(path, "test_a", ()) == {"render"}
    assert derived_markers(path, "test_b", ()) == set()


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [("qtbot", {"app", "slow"}), ("window", {"app", "gl", "slow"}), ("tmp_path", set())],
)
def test_the_fixtures_a_test_uses_say_what_it_needs(module, fixture, expected):
    assert derived_markers(module("def test_a(): pass\n"), "test_a", (fixture,)) == expected


def test_a_test_starting_a_program_is_slow_through_helpers_and_fixtures(module):
    module(
        """
        import subprocess

        def wander(*args):
            return subprocess.run(["wander3d", *args])
        """,
        "probe_support.py",
    )
    path = module(
        """
        import pytest
        from probe_support import wander as run_it

        def helper():
            return run_it("check")

        @pytest.fixture
        def started():
            return helper()

        def test_direct():
            helper()

        def test_by_fixture(started):
            pass

        def test_sweep_in_process():
            main(["sweep", "s.toml", "--out", "a.parquet"])

        def test_quick():
            main(["check", "default"])
        """
    )
    assert "slow" in derived_markers(path, "test_direct", ())
    assert "slow" in derived_markers(path, "test_by_fixture", ("started",))
    assert "slow" in derived_markers(path, "test_sweep_in_process", ())
    assert derived_markers(path, "test_quick", ()) == set()


@pytest.mark.parametrize("name", sorted(SLOW_TESTS))
def test_every_test_named_slow_exists(name):
    """A renamed test would silently leave the list, and run in the quick loop."""
    defined = _definitions(TESTS / name)
    missing = [test for test in SLOW_TESTS[name] if test not in defined]
    assert missing == []
