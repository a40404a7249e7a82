"""A smoke run of `wander3d bench`: it runs end to end and reports every number it promises.

Speeds are not asserted here: performance claims live in the benchmark's own output.
"""

import json
import subprocess
import sys

import pytest


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "wander3d", "bench", "--quick", "--agents", "500", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


@pytest.mark.gl
def test_bench_quick_reports_engine_baseline_and_frames(tmp_path):
    out = tmp_path / "bench.json"
    done = bench("--json", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert results["baseline"]["agent_steps_per_s"] > 0
    assert {row["steps_per_call"] for row in results["engine"]} == {1, 60}
    for row in results["engine"]:
        assert row["agents"] == 500
        assert row["agent_steps_per_s"] > 0
        assert 100 < row["bytes_per_agent"] < 10_000
    assert results["machine"]["cores"] >= 1
    # Frames need EGL (Mesa); the bootstrap installs it, so a skip here would hide a problem.
    assert results["frames_error"] is None
    frame = results["frames"][0]
    assert frame["upload_bytes"] > 0 and frame["draw_ms"] > 0
    # Both ways of drawing trails, GPU time from timer queries (Mesa has them) apart from the
    # read-back, and the segments each drew.
    by_detail = {row["detail"]: row for row in results["frames"]}
    assert set(by_detail) == {"reference", "lod"}
    for row in by_detail.values():
        assert row["gpu_ms"] is not None and row["gpu_ms"] > 0 and row["read_ms"] > 0
    assert 0 < by_detail["lod"]["segments"] < by_detail["reference"]["segments"]
    assert "lod draws" in done.stdout
    assert "x baseline" in done.stdout and "agents" in done.stdout


def test_bench_without_frames_needs_only_the_core(tmp_path):
    out = tmp_path / "bench.json"
    done = bench("--no-frames", "--json", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    assert results["frames"] == [] and results["frames_error"] is None
    assert {row["steps_per_call"] for row in results["engine"]} == {1, 60}
    assert "x baseline" in done.stdout


def test_multisampling_is_named_in_words_when_there_is_none():
    from wander3d.bench.run import multisampling

    assert multisampling(0) == "no multisampling" and multisampling(4) == "4x multisampling"


# ---------------------------------------------------------------- --against COMMIT

#: Stands in for a side's frame bench (as the real driver: a line after each frame read back,
#: then `go` awaited; the results last). Its tree, in PYTHONPATH, says which side it is; it
#: notes each timed frame it draws in the file FAKE_ORDER, so the turns can be checked.
FAKE_DRIVER = """
import json, os, sys
label, draw_ms = json.loads(os.environ["FAKE_SIDES"])[os.environ["PYTHONPATH"]]
agents, frames = int(sys.argv[1]), int(sys.argv[2])
for frame in range(frames + 1):  # the first is the untimed warm-up frame
    if frame:
        with open(os.environ["FAKE_ORDER"], "a") as order:
            order.write(label + "\\n")
    print("some other output", flush=True)
    # Drawing times that drift as a busy machine's do, alike for both sides.
    print(f"@@wander3d-bench ready {draw_ms * (1 + frame):.3f}", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit(1)
result = dict(agents=agents, update_ms=0.5, draw_ms=draw_ms, gpu_ms=None, segments=1000,
              renderer="fake")
print("@@wander3d-bench result " + json.dumps(result), flush=True)
"""


def test_against_takes_turns_frame_by_frame_and_reports_the_ratio(monkeypatch, tmp_path):
    """Neither side always draws right after the other (this, that, that, this, ...), each
    frame of one is drawn between frames of the other, and the ratio is the median of this
    over that in each turn."""
    from wander3d.bench import against

    order = tmp_path / "order.txt"
    other = tmp_path / "tree"
    other.mkdir()
    monkeypatch.setattr(against, "_DRIVER", FAKE_DRIVER)
    monkeypatch.setattr(against, "commit_tree", lambda commit: ("f" * 40, other))
    monkeypatch.setattr(against, "describe", lambda: "this")
    sides = {str(against.TREE): ("this", 30.0), str(other): ("that", 20.0)}
    monkeypatch.setenv("FAKE_SIDES", json.dumps(sides))
    monkeypatch.setenv("FAKE_ORDER", str(order))
    (row,) = against.compare("HEAD~1", (1000,), frames=4)
    assert order.read_text().split() == ["this", "that", "that", "this"] * 2
    # The turns' own times, paired: each turn's ratio is 1.5 however far the machine drifts.
    assert row.this.frames_ms == (60.0, 90.0, 120.0, 150.0)
    assert row.ratio == pytest.approx(1.5)
    assert (row.this.label, row.that.label) == ("this", "f" * 12)
    text = against.format_comparison([row])
    assert "draws in 1.50x the time" in text and "; slower)" in text


@pytest.mark.render  # the frame benchmark's extra is asked for first
def test_against_an_unknown_commit_is_one_line_and_exit_status_2():
    command = [sys.executable, "-m", "wander3d", "bench", "--against", "no-such-commit-xyz"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("wander3d: error: --against no-such-commit-xyz: no such commit")


def test_a_commits_package_is_extracted_once_into_the_cache(tmp_path):
    from wander3d.bench.against import commit_tree

    full, tree = commit_tree("HEAD", cache=tmp_path)
    assert len(full) == 40 and tree == tmp_path / full
    assert (tree / "wander3d" / "bench" / "frames.py").is_file()
    marker = tree / "wander3d" / "marker"
    marker.write_text("kept")
    assert commit_tree(full, cache=tmp_path) == (full, tree) and marker.exists()
    assert [p.name for p in tmp_path.iterdir()] == [full]  # no scratch left behind
