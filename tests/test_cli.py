"""The `wander3d` command line: exit codes, messages without tracebacks, and the npz it writes."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scene_support import REPO, SCENES, wander3d_cmd, write

import wander3d
from wander3d import cli, load_scene
from wander3d.commands import COMMANDS
from wander3d.commands import open as open_command
from wander3d.commands.progress import Progress
from wander3d.scene import bundled_scene

BAD = "[[groups]]\ncount = 10\n[groups.wander]\nradious = 3\n"
SMALL = '[scene]\nseed = 4\ndt = 0.02\n[[groups]]\nname = "a"\ncount = 7\n[[groups]]\ncount = 5\n'


def assert_clean_failure(result: subprocess.CompletedProcess[str], *phrases: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("wander3d: error: ")]
    assert errors, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


def test_version():
    result = wander3d_cmd("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"wander3d {wander3d.__version__}"


@pytest.mark.parametrize("command", [[], ["check"], ["run"], ["open"]])
def test_help_and_version_on_every_command(command, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([*command, "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: wander3d {' '.join(command)}".rstrip())
    with pytest.raises(SystemExit) as info:
        cli.main([*command, "--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"wander3d {wander3d.__version__}\n"


@pytest.mark.parametrize("columns", [60, 80, 100, 140])
@pytest.mark.parametrize("command", [[], *([command.NAME] for command in COMMANDS)])
def test_help_never_breaks_a_word_at_its_hyphen(command, columns, capsys, monkeypatch):
    """`--max-` at the end of a line and `gap` on the next read as two things."""
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    lines = capsys.readouterr().out.splitlines()
    broken = [line for line in lines if re.search(r"[A-Za-z0-9]-$", line.rstrip())]
    assert broken == [], broken


def test_check_valid_scenes_one_line_each():
    paths = [str(p.relative_to(REPO)) for p in sorted(SCENES.glob("*.toml"))]
    result = wander3d_cmd("check", *paths)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # shipped scenes are current and turn back within the margin
    # One line per scene, then one indented line per group saying what its parameters mean.
    lines = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert len(lines) == len(paths)
    assert "  wanderers (sphere): turns decorrelate in ~7.2 s" in result.stdout
    default = next(line for line in lines if line.startswith("scenes/default.toml: "))
    for part in (
        "'Default'",
        "1 group,",
        "300 agents (sphere)",
        "box 200 x 120 x 200",
        "dt 0.01667",
    ):
        assert part in default, default


def test_check_reports_a_bad_scene_and_goes_on(tmp_path):
    good = write(tmp_path, SMALL, "good.toml")
    bad = write(tmp_path, BAD, "bad.toml")
    result = wander3d_cmd("check", str(good), str(bad), str(tmp_path / "missing.toml"), "default")
    assert_clean_failure(
        result,
        f"wander3d: error: {bad}: groups[0].wander.radious: unknown key, did you mean 'radius'?",
        f"wander3d: error: {tmp_path / 'missing.toml'}: no such file",
    )
    assert len(result.stderr.splitlines()) == 2
    scene_lines = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert [line.split(":")[0] for line in scene_lines] == [str(good), "default"]


def test_check_bundled_scene_by_name_from_any_folder(tmp_path):
    result = wander3d_cmd("check", "swarm", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "30,000 agents" in result.stdout


def test_unknown_name_mentions_bundled_scenes(tmp_path):
    result = wander3d_cmd("check", "defualt", cwd=tmp_path)
    assert_clean_failure(result, "defualt: no such file or bundled scene (", "default")


def test_run_writes_the_trajectory(tmp_path):
    scene_path = write(tmp_path, SMALL, "small.toml")
    out = tmp_path / "traj.npz"
    result = wander3d_cmd(
        "run", str(scene_path), "--seconds", "1", "--out", str(out), "--sample-every", "10"
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    # stderr is not a TTY here: no \r-animated bar, just the final line.
    assert "\r" not in result.stderr
    assert "ran 50 steps (1.00 s simulated) of 12 agents" in result.stderr
    assert str(out) in result.stdout

    with np.load(out, allow_pickle=False) as data:
        steps = 50  # 1 s / dt 0.02
        samples = steps // 10 + 1
        assert data["positions"].shape == (samples, 12, 3)
        assert data["positions"].dtype == np.float32
        assert data["velocities"].shape == (samples, 12, 3)
        assert data["velocities"].dtype == np.float32
        np.testing.assert_allclose(data["times"], np.arange(samples) * 10 * 0.02)
        np.testing.assert_array_equal(data["steps"], np.arange(samples) * 10)
        np.testing.assert_array_equal(data["group_index"], [0] * 7 + [1] * 5)
        assert list(data["group_names"]) == ["a", "group 2"]
        assert float(data["dt"]) == 0.02
        assert int(data["seed"]) == 4
        assert str(data["scene_text"]) == SMALL
        assert data["bounds"].shape == (2, 3)
        positions = data["positions"]
        velocities = data["velocities"]

    # The samples are the simulation's own states: replay it in-process and compare.
    sim = wander3d.Simulation(load_scene(scene_path).run_spec)
    np.testing.assert_array_equal(positions[0], sim.positions.astype(np.float32))
    sim.step(10)
    np.testing.assert_array_equal(positions[1], sim.positions.astype(np.float32))
    np.testing.assert_array_equal(velocities[1], sim.velocities.astype(np.float32))


def test_run_without_out_just_simulates(tmp_path):
    result = wander3d_cmd("run", "default", "--seconds", "0.5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ran 30 steps" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_invalid_scene(tmp_path):
    bad = write(tmp_path, BAD, "bad.toml")
    out = tmp_path / "x.npz"
    result = wander3d_cmd("run", str(bad), "--seconds", "1", "--out", str(out))
    assert_clean_failure(result, f"{bad}: groups[0].wander.radious")
    assert not out.exists()


def test_run_unwritable_output_fails_before_simulating(tmp_path):
    result = wander3d_cmd(
        "run", "default", "--seconds", "1000", "--out", str(tmp_path / "no" / "dir" / "t.npz")
    )
    assert_clean_failure(result, "does not exist")
    assert "ran " not in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
def test_run_reports_a_full_disk_in_one_line_and_leaves_the_target_alone(tmp_path, suffix):
    full = tmp_path / f"full{suffix}"  # the format comes from the name; the device is full
    full.symlink_to("/dev/full")
    result = wander3d_cmd("run", "default", "--seconds", "0.1", "--out", str(full))
    assert_clean_failure(result, "cannot write: No space left on device")
    assert full.is_symlink() and not full.is_file()


@pytest.mark.parametrize(
    "command",
    [
        ["run", "default", "--seconds", "1"],
        ["stats", "default", "--seconds", "1"],
        pytest.param(["render", "default", "--out", "OUT/default.png"], marks=pytest.mark.render),
    ],
)
def test_a_scene_too_big_for_this_machine_is_one_error_line(tmp_path, monkeypatch, capsys, command):
    """Valid everywhere, the default scene does not fit a (pretend) 100 kB machine: the command
    that would build its simulation says so before starting, in one line, exit status 2."""
    monkeypatch.setattr("wander3d.scene.memory.memory_budget", lambda: (100_000, "a test budget"))
    assert cli.main([part.replace("OUT", str(tmp_path)) for part in command]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wander3d: error: {bundled_scene('default')}: 300 agents with ")
    assert err.endswith(
        " 0.1 MiB this machine allows (a test budget); lower count or trail_length\n"
    )
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_check_warns_of_a_valid_scene_too_big_for_this_machine(monkeypatch, capsys):
    monkeypatch.setattr("wander3d.scene.memory.memory_budget", lambda: (100_000, "a test budget"))
    assert cli.main(["check", "default"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("default: 'Default': 1 group, 300 agents")
    assert captured.err.startswith(f"wander3d: warning: {bundled_scene('default')}: 300 agents")
    assert "this machine allows (a test budget)" in captured.err


def test_run_refuses_a_trajectory_too_big_for_memory(tmp_path):
    result = wander3d_cmd(
        "run", "swarm", "--seconds", "1e6", "--out", str(tmp_path / "t.npz"), cwd=tmp_path
    )
    assert_clean_failure(result, "the trajectory would need", "--sample-every")
    assert not (tmp_path / "t.npz").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["run", "default", "--seconds", "-1"],
        ["run", "default", "--seconds", "nan"],
        ["run", "default", "--seconds", "abc"],
        ["run", "default", "--seconds", "1", "--sample-every", "0"],
        ["check"],
        ["--bogus"],
        ["check", "default", "--bogus"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: ") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["stat", "default"], "stat: no such command, file or bundled scene; did you mean stats?"),
        (["chek"], "chek: no such command, file or bundled scene; did you mean check?"),
        (["defualt"], "defualt: no such command, file or bundled scene; did you mean default?"),
        (["zzzz"], "zzzz: no such command, file or bundled scene (commands: open, check,"),
    ],
)
def test_a_mistyped_first_word_names_what_it_may_mean_and_opens_nothing(
    argv, hint, capsys, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    opened = []

    def open_main(args):
        opened.append(args)
        return 0

    monkeypatch.setattr(open_command, "main", open_main)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wander3d: error: {hint}") and err.count("\n") == 1, err
    assert "bundled scenes: compare, default, fish" in err
    assert not opened


def test_bad_arguments_from_the_shell():
    result = wander3d_cmd("run", "default", "--seconds", "soon")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        "wander3d: error: argument --seconds: expected a number, got 'soon'"
    )


# ----------------------------------------------------------------------------- in-process
@pytest.mark.parametrize(
    ("argv", "missing", "extra"),
    [
        ([], "PyQt6", "app"),
        (["swarm"], "vispy", "app"),
        (["render", "default", "--out", "x.png"], "vispy", "render"),
        (["render", "default", "--out", "x.gif"], "imageio", "render"),
        (["bench", "--quick"], "vispy", "render"),
    ],
)
def test_without_its_extra_a_command_names_it_in_one_line(
    argv, missing, extra, monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, missing, None)  # as if it were not installed
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("wander3d: error: ") and err.count("\n") == 1
    assert missing in err and f'pip install "wander3d[{extra}]"' in err
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def desktop(monkeypatch):
    """As on a desktop with the app extra installed, whatever this test run has."""
    monkeypatch.setattr(open_command, "APP_MODULES", ())
    monkeypatch.setenv("DISPLAY", os.environ.get("DISPLAY", ":0"))


def test_open_reports_a_broken_gui_stack_without_traceback(desktop, monkeypatch, capsys):
    broken = types.ModuleType("wander3d.app")

    def __getattr__(name):
        raise ImportError("libEGL.so.1: cannot open shared object file", name="PyQt6.QtGui")

    monkeypatch.setattr(broken, "__getattr__", __getattr__, raising=False)
    monkeypatch.setitem(sys.modules, "wander3d.app", broken)
    assert cli.main(["default"]) == 1
    err = capsys.readouterr().err
    assert "cannot start the desktop app: libEGL.so.1" in err


@pytest.fixture
def fake_app(desktop, monkeypatch):
    """An app that records the scene paths it is opened on."""
    calls = []
    app = types.ModuleType("wander3d.app")

    def run_app(scene_path):
        calls.append(scene_path)
        return 0

    monkeypatch.setattr(app, "run_app", run_app, raising=False)
    monkeypatch.setitem(sys.modules, "wander3d.app", app)
    return calls


def test_bare_command_opens_the_app_on_the_default_scene(fake_app):
    assert cli.main([]) == 0
    assert fake_app == [None]


def test_scene_argument_opens_the_app_on_that_file(fake_app, tmp_path):
    path = write(tmp_path, SMALL, "mine.toml")
    assert cli.main([str(path)]) == 0
    assert cli.main(["open", str(path)]) == 0
    assert cli.main(["swarm"]) == 0  # a bundled scene by name
    assert fake_app == [path, path, bundled_scene("swarm")]


def test_progress_bar_redraws_on_a_tty():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    progress = Progress(stream, total_steps=100, agents=10, dt=0.01)
    for done in (10, 50, 100):
        progress._last = -1.0  # draw every update in this test
        progress.update(done)
    progress.finish(100)
    text = stream.getvalue()
    assert text.count("\r") == 4  # three updates and the final redraw
    assert "[" + "#" * Progress.WIDTH + "] 100%" in text
    assert text.endswith("agent-steps/s\n")
    assert "ran 100 steps (1.00 s simulated) of 10 agents" in text


def test_a_run_that_also_draws_rates_only_its_stepping(monkeypatch):
    """`render` divided agent-steps by the whole wall time, drawing and encoding included."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    clock = iter([0.0, 1.0, 10.0])
    monkeypatch.setattr("wander3d.commands.progress.time.perf_counter", lambda: next(clock, 10.0))
    progress = Progress(stream, total_steps=100, agents=10_000, dt=0.01, only_steps=False)
    progress.update(50)
    assert "agent-steps/s" not in stream.getvalue()  # no live rate of drawing and stepping
    progress.finish(100, step_seconds=0.5)
    line = stream.getvalue().splitlines()[-1]
    assert line == (
        "wander3d: ran 100 steps (1.00 s simulated) of 10,000 agents in 10.00 s: 0.50 s "
        "simulating (2.0M agent-steps/s), 9.50 s drawing and writing"
    )


def test_progress_is_one_final_line_when_not_a_tty():
    stream = io.StringIO()
    progress = Progress(stream, total_steps=100, agents=10, dt=0.01)
    progress.update(50)
    progress.finish(100)
    assert stream.getvalue().count("\n") == 1
    assert "\r" not in stream.getvalue()


def test_interrupted_run_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "t.npz"

    def interrupted(self, n=1):
        raise KeyboardInterrupt

    monkeypatch.setattr(wander3d.Simulation, "step", interrupted)
    assert cli.main(["run", "default", "--seconds", "5", "--out", str(out)]) == 130
    assert "wander3d: interrupted" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.app
def test_open_without_a_display_says_what_to_do():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    result = subprocess.run(
        [sys.executable, "-m", "wander3d"], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 1
    assert result.stderr.startswith("wander3d: error: no display") and "xvfb-run" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    from wander3d.files import output_file

    target = tmp_path / "keep.npz"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), output_file(target) as temporary:
        temporary.write_bytes(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]
    with output_file(target) as temporary:
        temporary.write_bytes(b"new")
    assert target.read_bytes() == b"new"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_output_files_honour_the_umask(tmp_path, umask):
    from wander3d.files import output_file

    target = tmp_path / "out.npz"
    previous = os.umask(umask)
    try:
        with output_file(target) as temporary:
            temporary.write_bytes(b"data")
    finally:
        os.umask(previous)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_run_output_is_readable_by_others_under_umask_022(tmp_path, capsys):
    out = tmp_path / "t.npz"
    previous = os.umask(0o022)
    try:
        assert cli.main(["run", "default", "--seconds", "0.1", "--out", str(out)]) == 0
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o644


def test_app_is_an_alias_of_open(fake_app):
    assert cli.main(["app"]) == 0
    assert cli.main(["app", "swarm"]) == 0
    assert fake_app == [None, bundled_scene("swarm")]


def test_cell_progress_draws_cells_and_time_left_on_a_tty_only():
    from wander3d.commands.progress import CellProgress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    progress = CellProgress(stream, total=4)
    for done in (1, 4):
        progress._last = -1.0  # draw every update in this test
        progress.update(done)
    progress.finish()
    text = stream.getvalue()
    assert "[" + "#" * 7 + "-" * 23 + "] 1/4 cells" in text and "left" in text
    assert "[" + "#" * CellProgress.WIDTH + "] 4/4 cells" in text and text.endswith("\n")
    quiet = io.StringIO()
    progress = CellProgress(quiet, total=4)
    progress.update(4)
    progress.finish()
    assert quiet.getvalue() == ""


@pytest.mark.parametrize(
    ("args", "formats"),
    [
        (["run", "default", "--seconds", "1", "--out", "a.txt"], ".parquet, .csv, .glb or .npz"),
        pytest.param(
            ["render", "default", "--out", "a.txt"], ".png, .mp4 or .gif", marks=pytest.mark.render
        ),
        (["stats", "default", "--seconds", "1", "--plot", "a.txt"], ".png, .svg or .pdf"),
        (["sweep", str(REPO / "docs" / "atlas.toml"), "--out", "a.txt"], ".parquet, .pq or .csv"),
        (["share", "default", "--out", "a.txt"], ".html or .htm"),
    ],
)
def test_every_command_words_an_unknown_output_format_alike(args, formats, tmp_path, capsys):
    """`share --out a.txt` wrote HTML there; the others said it four different ways."""
    args = [str(tmp_path / a) if a == "a.txt" else a for a in args]
    assert cli.main(args) == 2
    out = tmp_path / "a.txt"
    assert capsys.readouterr().err == (
        f"wander3d: error: {args[args.index(str(out)) - 1]} {out}: unknown format '.txt'; "
        f"use {formats}\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("display", [None, ":99"])
def test_a_missing_scene_file_is_said_first_with_or_without_a_display(
    tmp_path, capsys, monkeypatch, display
):
    """Without a display `wander3d missing.toml` said "no display" (exit 1); with one it
    opened the app on the default scene, while `wander3d nosuchscene` was one line, exit 2."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    if display:
        monkeypatch.setenv("DISPLAY", display)
    missing = tmp_path / "missing.toml"
    assert cli.main([str(missing)]) == 2
    assert capsys.readouterr().err == f"wander3d: error: {missing}: no such file\n"
