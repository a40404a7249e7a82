"""The library layers speak of files and values; the command line adds the option they came from.

A library error names the file (or value) and the problem, so it reads the same to a script, the
app or a Dask worker; the CLI's one error line puts the option in front.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from scene_support import write

from wander3d import cli
from wander3d.files import OutputError, output_file

PACKAGE = Path(__file__).resolve().parent.parent / "wander3d"
#: The command line itself, and the Qt app (which has dialogs, not options).
NOT_LIBRARY = ("cli.py", "__main__.py", "arguments.py", "commands", "app")
OPTION = re.compile(r"(^|[\s(])--[a-z]")


def _library_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in NOT_LIBRARY
    ]


def _raised_text(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every string constant inside a `raise` statement."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for inner in ast.walk(node.exc):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    found.append((node.lineno, inner.value))
    return found


def test_no_library_error_names_a_command_line_option():
    modules = _library_modules()
    assert len(modules) > 40  # the walk found the package
    offending = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in modules
        for line, text in _raised_text(ast.parse(path.read_text(encoding="utf-8")))
        if OPTION.search(text)
    ]
    assert offending == []


def test_the_check_finds_an_option_in_an_error():
    tree = ast.parse('raise ValueError(f"--out {path}: no")\nraise ValueError("a - b -- c")')
    assert [text for _, text in _raised_text(tree) if OPTION.search(text)] == ["--out "]


@pytest.mark.parametrize(
    ("name", "problem"),
    [("folder", "is a directory"), ("missing/out.npz", "folder")],
)
def test_output_file_errors_name_the_file_and_the_problem(tmp_path, name, problem):
    target = tmp_path / name
    if name == "folder":
        target.mkdir()
    with pytest.raises(OutputError) as info, output_file(target):
        pass
    assert info.value.path == target
    assert str(info.value).startswith(f"{target}: {problem}")


@pytest.mark.parametrize(
    ("command", "option", "name"),
    [
        (["run", "default", "--seconds", "0.1", "--out"], "--out", "file.npz"),
        (["stats", "default", "--seconds", "1", "--plot"], "--plot", "file.png"),
        (
            ["tune", "default", "--group", "wanderers", "--target", "turn_rate=20", "--out"],
            "--out",
            "file.toml",
        ),
    ],
)
def test_the_cli_names_the_option_of_a_file_it_cannot_write(
    tmp_path, capsys, command, option, name
):
    target = tmp_path / "no" / name
    assert cli.main([*command, str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"wander3d: error: {option} {target}: folder {target.parent} does not exist\n"


def test_an_error_about_another_file_passes_through_an_option_unchanged(tmp_path):
    from wander3d.commands.common import output_option

    other = OutputError(tmp_path / "other.csv", "cannot write: full")
    with pytest.raises(OutputError) as info, output_option("--plot", tmp_path / "p.png"):
        raise other
    assert info.value is other


def test_a_trajectory_format_error_names_the_file():
    from wander3d.export import ExportError, check_format

    with pytest.raises(ExportError, match=r"^t\.txt: unknown format '\.txt'; use \.parquet"):
        check_format(Path("t.txt"))


def test_a_knob_error_names_the_key_as_given():
    from wander3d.scene import bundled_scene, load_scene
    from wander3d.sweep import tune

    scene = load_scene(bundled_scene("default"))
    with pytest.raises(tune.TuneError, match=r"^wander\.jitter=9:3: give positive bounds"):
        tune.make_knob(scene, 0, "wander.jitter=9:3")


@pytest.mark.render
@pytest.mark.parametrize(
    ("out", "size", "fps", "argument", "message", "option"),
    [
        ("a.bmp", (64, 64), 30, "out", "a.bmp: unknown format '.bmp'", "--out"),
        ("a.png", (12, 64), 30, "size", "12x64 pixels: each side must be 16 to 8192", "--size"),
        ("a.mp4", (65, 64), 30, "size", "65x64 pixels: MP4 (H.264) needs even", "--size"),
        ("a.gif", (64, 64), 500, "fps", "500 frames per second: must be above 0", "--fps"),
    ],
)
def test_a_recording_error_names_the_argument_and_the_cli_its_option(
    tmp_path, capsys, out, size, fps, argument, message, option
):
    from wander3d.render.record import RecordError, check_request

    with pytest.raises(RecordError) as info:
        check_request(Path(out), size, fps)
    assert info.value.argument == argument
    assert str(info.value).startswith(message)
    args = ["render", "default", "--out", out, "--size", f"{size[0]}x{size[1]}", "--fps", str(fps)]
    assert cli.main(args) == 2
    assert capsys.readouterr().err.startswith(f"wander3d: error: {option} {message}")


def test_tracks_that_need_a_time_step_say_which_argument_gives_it(tmp_path):
    from wander3d.analysis.tracks import TracksError, read_tracks

    path = write(tmp_path, "particle,frame,x,y\n1,0,0,2\n", "frames.csv")
    with pytest.raises(TracksError) as info:
        read_tracks(path, 10.0)
    assert info.value.missing == "dt"
    assert "--" not in str(info.value)


def test_a_scheduler_error_names_the_address():
    from wander3d.sweep import SchedulerError, open_client

    with pytest.raises(SchedulerError, match=r"^nowhere: cannot connect") as info:
        with open_client(scheduler="nowhere"):
            pass
    assert info.value.address == "nowhere"
