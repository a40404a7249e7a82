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
