"""The README shows what its examples print: each is run again (scripts/readme_examples.py)
and compared. After a change that moves the numbers, `python scripts/readme_examples.py
--update` rewrites the README from real output (read its diff before committing)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from scene_support import REPO

pytest.importorskip("dask", reason="the tune example runs on Dask (the core install has it)")


def _checker():
    spec = importlib.util.spec_from_file_location(
        "readme_examples", REPO / "scripts" / "readme_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_examples", module)
    spec.loader.exec_module(module)
    return module


checker = _checker()
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_every_marked_readme_example_has_a_checker_and_back():
    shown = {*checker.blocks(README), *checker.numbers(README)}
    owners = {name.split("/")[0].removesuffix("-script") for name in shown}
    assert owners == set(checker.EXAMPLES)
    for command in checker.PICTURES:
        assert command in README  # the pictures are made by the commands the README shows


def test_the_checker_finds_a_changed_number_and_update_puts_it_back():
    values = {"stats-compare/seek-msd-slope": "9.99"}
    assert checker.differences(README, values)
    fixed = checker.updated(README, values)
    assert checker.differences(fixed, values) == []
    assert "-->9.99<!-- /example -->" in fixed and fixed.count("\n") == README.count("\n")


#: Examples that run longer than the per-test bound: the fit to hidden tracks (a few
#: minutes on two busy cores).
SLOW = {"tune-like": 1200}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.timeout(SLOW[name])) if name in SLOW else name
        for name in sorted(checker.EXAMPLES)
    ],
)
def test_the_readme_shows_what_the_example_prints(name):
    values = checker.measure([name], README)
    problems = checker.differences(README, values)
    assert not problems, (
        "\n\n".join(problems) + "\n\nrun `python scripts/readme_examples.py --update`"
    )


def test_every_command_the_readme_shows_is_one_wander3d_takes():
    shown = checker.commands(README)
    assert len(shown) > 20 and "wander3d --help" in shown
    assert not any(command.startswith("wander3d:") for command in shown)  # output, not commands
    assert checker.command_problems(README) == []


def test_a_renamed_option_in_a_readme_command_is_found():
    stale = README.replace("--sample-every 6", "--sample-each 6")
    (problem,) = checker.command_problems(stale)
    assert "--sample-each" in problem and "unrecognized arguments" in problem
