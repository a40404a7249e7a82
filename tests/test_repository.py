"""The repository holds what it should: no run's output committed, or left lying, at its top
level, where the README's examples write theirs."""

from __future__ import annotations

import subprocess

import pytest
from scene_support import REPO

pytestmark = pytest.mark.skipif(
    not (REPO / ".git").exists(), reason="not a git checkout (an unpacked sdist)"
)

#: What the top level holds: the project's own files and folders.
TOP_LEVEL = {
    ".ci",
    ".gitignore",
    "LICENSE",
    "README.md",
    "benchmarks",
    "docs",
    "package-lock.json",  # the p5.js port's pinned npm packages
    "package.json",
    "pyproject.toml",
    "scenes",
    "scripts",
    "tests",
    "wander3d",
}

#: What the commands write, named as the README's examples name them (a port's folder by a
#: file in it): each must be ignored at the top level.
OUTPUTS = [
    "swarm.npz",  # run
    "compare.parquet",
    "compare.csv",
    "compare.csv.json",  # a CSV's run record
    "compare.glb",
    "default.png",  # render
    "compare.mp4",
    "fish.gif",
    "stats.png",  # stats --plot
    "stats.svg",
    "stats.pdf",
    "atlas.parquet.parts/part-00000.parquet",  # a sweep's unfinished cells, and its lock
    "atlas.parquet.lock",
    "tuned.toml",  # tune --out
    "bench.json",  # bench --json
    "compare.html",  # share
    "compare-js/wander.mjs",  # port
    "compare-cs/Wander.cs",
    "compare-csharp/Wander.cs",
    "compare-cpp/wander.hpp",
    "notes.txt",
    "pytest.log",
]


def git(*args: str) -> list[str]:
    done = subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, check=False, timeout=60
    )
    return done.stdout.splitlines()


def ignored(path: str) -> bool:
    done = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", path], cwd=REPO, check=False, timeout=60
    )
    return done.returncode == 0


def test_only_the_projects_own_files_are_committed_at_the_top_level():
    committed = {path.split("/")[0] for path in git("ls-files")}
    assert committed - TOP_LEVEL == set(), "a run's output was committed at the top level"


def test_no_output_lies_untracked_and_unignored_at_the_top_level():
    """A file a run (or a test) left at the top level that .gitignore does not cover would be
    committed by the next `git add .`: delete it, or name it in .gitignore."""
    loose = [
        path
        for path in git("ls-files", "--others", "--exclude-standard", "--directory")
        if "/" not in path.rstrip("/")
    ]
    assert loose == []


@pytest.mark.parametrize("path", OUTPUTS)
def test_what_the_commands_write_at_the_top_level_is_ignored(path):
    assert ignored(path)


@pytest.mark.parametrize("path", ["pyproject.toml", "docs/new.png", "tests/data.csv"])
def test_the_projects_own_kinds_of_files_are_not_ignored(path):
    assert not ignored(path)
