"""The frame bench on this code and on an earlier commit in one sitting, frame by frame.

`wander3d bench --against COMMIT` draws the frame bench's scene with this tree's code and with
COMMIT's, each in a process of its own, taking turns frame by frame (this, that, that, this,
...): a busy machine slows both sides alike, so their ratio holds where absolute times drift
by a quarter from hour to hour. Each side runs its own `wander3d.bench.frames.measure_frames`
(the drawing as that commit drew it, its own benchmark scene); a small driver, the same for
both, makes them take turns after each frame is read back, outside the timed part.

COMMIT's package is taken out of the repository this code sits in (`git archive`) into a
cache directory named after the commit, so its engine kernel compiles once, not every time.
"""

from __future__ import annotations

import io
import json
import os
import queue
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: This code's repository: wander3d/bench/against.py -> the directory holding wander3d/.
TREE = Path(__file__).resolve().parents[2]
#: How a driver says it drew and read back a frame (and how long drawing it took, ms), and
#: hands over its results.
READY, RESULT = "@@wander3d-bench ready ", "@@wander3d-bench result "
#: Seconds a side may take for its set-up (the first frame: building, compiling) and a frame.
SETUP_TIMEOUT, FRAME_TIMEOUT = 900.0, 300.0

# Runs with one tree's wander3d first on the path: it uses nothing that tree's frame bench
# does not offer (measure_frames, the canvas's draw_frame and the RenderTarget it reads frames
# back with, all there since the bench drew into a framebuffer of its own), times each frame
# from draw_frame to the glFinish after it, as the bench does, and waits for its turn after
# every read.
_DRIVER = """
import json, sys, time
from vispy.gloo import gl
from wander3d.bench import frames
from wander3d.render import glcompat, vispy_private

read, finish = glcompat.RenderTarget.read, gl.glFinish
draw_frame = vispy_private.FrameStartCanvas.draw_frame
started = [0.0, 0.0]

def timed_draw_frame(self, *args, **kwargs):
    started[0] = time.perf_counter()
    return draw_frame(self, *args, **kwargs)

def timed_finish():
    finish()
    started[1] = time.perf_counter()

def read_and_wait(self):
    data = read(self)
    print(f"@@wander3d-bench ready {(started[1] - started[0]) * 1e3:.3f}", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("the bench stopped")
    return data

vispy_private.FrameStartCanvas.draw_frame = timed_draw_frame
gl.glFinish = timed_finish
glcompat.RenderTarget.read = read_and_wait
agents, count = int(sys.argv[1]), int(sys.argv[2])
(result,) = frames.measure_frames(agents, frames=count, details=("lod",))
fields = ("agents", "update_ms", "draw_ms", "gpu_ms", "segments", "renderer")
print("@@wander3d-bench result " + json.dumps({k: getattr(result, k) for k in fields}), flush=True)
"""


class AgainstError(RuntimeError):
    """The comparison could not be made (no such commit, no git, a side failed); str() is
    one line naming the commit or the side first."""


@dataclass(frozen=True)
class Side:
    """One side's frame costs (medians over its frames, see bench.frames.FrameResult), and
    `frames_ms`: its timed frames' drawing times (ms) in the order the turns drew them."""

    label: str
    renderer: str
    update_ms: float
    draw_ms: float
    gpu_ms: float | None
    segments: int
    frames_ms: tuple[float, ...] = ()


@dataclass(frozen=True)
class Comparison:
    """The frame bench of `agents` agents on both sides, `frames` frames each, taking turns.

    ratio: this side's draw time over the other's (above 1: this code draws slower);
    load: the machine's 1-minute load average before and after.
    """

    agents: int
    frames: int
    this: Side
    that: Side
    renderer: str
    load: tuple[float, float]

    @property
    def ratio(self) -> float:
        """The median over the turns of this side's frame time over the other's in the same
        turn (frames drawn one right after the other: what a busy machine does to one it
        does to both); the ratio of the medians where there are no frame times."""
        return paired_ratio(self.this, self.that)


def paired_ratio(this: Side, that: Side) -> float:
    """The median of this.frames_ms[i] / that.frames_ms[i] (see Comparison.ratio)."""
    pairs = sorted(a / b for a, b in zip(this.frames_ms, that.frames_ms, strict=False) if b > 0)
    if not pairs:
        return this.draw_ms / that.draw_ms
    middle = len(pairs) // 2
    return pairs[middle] if len(pairs) % 2 else (pairs[middle - 1] + pairs[middle]) / 2


def describe(tree: Path = TREE) -> str:
    """The commit this code is (`git describe --always --dirty`), or "this tree"."""
    try:
        out = subprocess.run(
            ["git", "-C", str(tree), "describe", "--always", "--dirty"],
            capture_output=True, text=True, check=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "this tree"
    return out.stdout.strip()


def commit_tree(commit: str, cache: Path | None = None) -> tuple[str, Path]:
    """(full hash, directory holding COMMIT's wander3d package), extracted once into `cache`
    (default: $XDG_CACHE_HOME/wander3d/trees, else ~/.cache/wander3d/trees)."""
    try:
        full = subprocess.run(
            ["git", "-C", str(TREE), "rev-parse", "--verify", f"{commit}^{{commit}}"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
    except FileNotFoundError as error:
        raise AgainstError(f"{commit}: git is not installed") from error
    except subprocess.SubprocessError as error:
        raise AgainstError(f"{commit}: no such commit in {TREE}") from error
    if cache is None:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        cache = base / "wander3d" / "trees"
    tree = cache / full
    if (tree / "wander3d" / "__init__.py").is_file():
        return full, tree
    cache.mkdir(parents=True, exist_ok=True)
    # Extracted beside its place and renamed into it whole, so a half-written tree is never
    # taken for a cached one.
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        archive = subprocess.run(
            ["git", "-C", str(TREE), "archive", "--format=tar", full, "wander3d"],
            capture_output=True, check=True, timeout=300,
        ).stdout  # fmt: skip
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            # Only regular files and folders inside the scratch directory, where Python has
            # the filter (3.11.4 on); git archive writes nothing else.
            if hasattr(tarfile, "data_filter"):
                tar.extractall(scratch, filter="data")
            else:
                tar.extractall(scratch)
        staged = Path(scratch) / "tree"
        staged.mkdir()
        shutil.move(str(Path(scratch) / "wander3d"), staged / "wander3d")
        try:
            staged.rename(tree)
        except OSError:  # another run extracted it meanwhile
            if not (tree / "wander3d" / "__init__.py").is_file():
                raise
    return full, tree


class _Driver:
    """One side's frame bench in a process of its own, drawing a frame when told to."""

    def __init__(self, label: str, tree: Path, agents: int, frames: int) -> None:
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(tree)}
        # Its messages go to a file: a pipe nobody reads while it draws could fill and stall it.
        self.errors = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _DRIVER, str(agents), str(frames)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
            text=True, env=env, cwd=tree,
        )  # fmt: skip
        # Its lines, read on a thread of their own: a wait with a timeout on the pipe itself
        # would miss lines already read into the stream's buffer.
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # the end

    def wait_ready(self, timeout: float) -> float | dict[str, Any]:
        """Until the side read a frame back (how long drawing it took, ms) or handed over
        its results (a dict)."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AgainstError(f"{self.label}: no frame within {timeout:g} s") from None
            if not line:
                raise AgainstError(f"{self.label}: the frame bench failed:\n{self._stderr()}")
            if line.startswith(READY):
                return float(line[len(READY) :])
            if line.startswith(RESULT):
                return json.loads(line[len(RESULT) :])

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def _stderr(self) -> str:
        self.process.wait(timeout=30)
        self.errors.seek(0)
        return "\n".join(self.errors.read().strip().splitlines()[-12:])

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.errors.close()


def compare(
    commit: str,
    sizes: tuple[int, ...],
    frames: int = 12,
    say: Callable[[str], None] = lambda line: None,
) -> list[Comparison]:
    """The frame bench on this code and on `commit`, taking turns frame by frame, for each
    agent count of `sizes`. Raises AgainstError."""
    full, tree = commit_tree(commit)
    this_label, that_label = describe(), full[:12]
    results = []
    for agents in sizes:
        say(f"frames, {agents:,} agents: {this_label} and {that_label}, taking turns...")
        load_before = os.getloadavg()[0]
        this, that = take_turns([(this_label, TREE), (that_label, tree)], agents, frames)
        results.append(
            Comparison(
                agents=agents,
                frames=frames,
                this=this,
                that=that,
                renderer=this.renderer,
                load=(load_before, os.getloadavg()[0]),
            )
        )
    return results


def take_turns(sides: list[tuple[str, Path]], agents: int, frames: int) -> list[Side]:
    """The frame bench of `agents` agents, `frames` frames, for each (label, tree) of
    `sides`, each in a process of its own, taking turns frame by frame: in order, then in
    reverse, and so on (A B C C B A ...), so that no side always draws right after another.
    Raises AgainstError."""
    drivers = [_Driver(label, tree, agents, frames) for label, tree in sides]
    done: dict[str, dict[str, Any]] = {}
    times: dict[str, list[float]] = {label: [] for label, _ in sides}
    try:
        for driver in drivers:  # set-up and the first (untimed) frame
            driver.wait_ready(SETUP_TIMEOUT)
        turn = 0
        while len(done) < len(drivers):
            for driver in drivers if turn % 2 == 0 else drivers[::-1]:
                if driver.label in done:
                    continue
                driver.go()
                result = driver.wait_ready(FRAME_TIMEOUT)
                if isinstance(result, dict):
                    done[driver.label] = result
                else:
                    times[driver.label].append(result)
            turn += 1
    finally:
        for driver in drivers:
            driver.close()
    return [_side(label, done[label], times[label]) for label, _ in sides]


def _side(label: str, result: dict[str, Any], frames_ms: list[float]) -> Side:
    return Side(
        label=label,
        renderer=str(result["renderer"]),
        update_ms=float(result["update_ms"]),
        draw_ms=float(result["draw_ms"]),
        gpu_ms=None if result["gpu_ms"] is None else float(result["gpu_ms"]),
        segments=int(result["segments"]),
        frames_ms=tuple(frames_ms),
    )


def format_comparison(results: list[Comparison]) -> str:
    """The comparison as the table `wander3d bench --against` prints."""
    first = results[0]
    lines = [
        f"frames (offscreen, {first.renderer}, {first.frames} frames a side, taking turns): "
        f"{first.this.label} against {first.that.label}",
        f"{'agents':>10}  {'side':>14}  {'draw ms':>9}  {'GPU ms':>8}  {'update ms':>9}  "
        f"{'segments':>10}",
    ]
    for row in results:
        for side in (row.this, row.that):
            gpu = "n/a" if side.gpu_ms is None else f"{side.gpu_ms:.1f}"
            lines.append(
                f"{row.agents:>10,}  {side.label:>14}  {side.draw_ms:>9.1f}  {gpu:>8}  "
                f"{side.update_ms:>9.2f}  {side.segments:>10,}"
            )
        verdict = "slower" if row.ratio > 1 else "as fast or faster"
        lines.append(
            f"{row.agents:>10,} agents: {row.this.label} draws in {row.ratio:.2f}x the time of "
            f"{row.that.label} (median of the turns' ratios; {verdict}); load average "
            f"{row.load[0]:.1f} -> {row.load[1]:.1f}"
        )
        if abs(row.this.segments - row.that.segments) > 0.1 * max(row.that.segments, 1):
            lines.append(
                f"{'':>10}  the two draw different numbers of trail segments: their levels of "
                "detail or their pictures differ"
            )
    return "\n".join(lines)
