"""The `wander3d` command (also `python -m wander3d`).

    wander3d [SCENE]                  open the desktop app (default: the bundled default scene)
    wander3d check SCENE...           validate scene files, one summary line each
    wander3d run SCENE --seconds S    simulate without a window; optionally save a trajectory
    wander3d stats SCENE              measure the wander per group (path statistics table)
    wander3d render SCENE --out F     draw offscreen to a PNG, MP4 or GIF (no display needed)
    wander3d bench                    engine speed against a tutorial-style loop, frame costs

Qt and vispy are imported only by the command that draws (opening the app), so `check` and
`run` work on machines with no display and no GUI libraries. Bad input never gives a traceback:
it is one `wander3d: error: ...` line and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any, NoReturn

import numpy as np

from wander3d import Scene, SceneError, Simulation, __version__, load_scene
from wander3d.analysis.command import configure_parser as configure_stats_parser
from wander3d.arguments import finite_float, positive_float, positive_int
from wander3d.engine.warmup import compile_kernel, compiling_notice
from wander3d.files import OutputError, output_file
from wander3d.scene import bundled_scene, bundled_scenes, memory_budget
from wander3d.scene.feel import scene_feel, scene_warnings
from wander3d.scene.memory import format_bytes

PROG = "wander3d"
#: Subcommands; any other first argument that is not an option is taken as a scene to open.
COMMANDS = ("open", "check", "run", "stats", "render", "bench")

EXIT_OK = 0
EXIT_APP_UNAVAILABLE = 1
EXIT_PIPE_CLOSED = 1  # stdout closed early (`| head`), as Python itself exits then
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """Bad input found by a command; main() prints it as one line and exits with 2."""


# ----------------------------------------------------------------------------- helpers
def _error_line(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)


def resolve_scene(arg: str) -> Path:
    """A scene argument as a path: an existing file, else the name of a bundled scene.

    `wander3d run swarm` works from any folder; a path (with a folder or .toml suffix) is
    always taken as given, so a typo in it is reported as a missing file.
    """
    path = Path(arg)
    looks_like_name = os.sep not in arg and "/" not in arg and path.suffix == ""
    if looks_like_name and not path.exists() and arg in bundled_scenes():
        return bundled_scene(arg)
    return path


def _load(arg: str) -> Scene:
    try:
        return load_scene(resolve_scene(arg))
    except SceneError as e:
        path = Path(arg)
        if e.problem == "no such file" and path.suffix == "" and os.sep not in arg:
            names = ", ".join(bundled_scenes()) or "none"
            raise SceneError(e.file, e.key, f"no such file or bundled scene ({names})") from None
        raise


def summary(scene: Scene) -> str:
    """One line describing a valid scene, for `wander3d check`."""
    methods = list(dict.fromkeys(g.wander.method for g in scene.groups))
    n_groups = len(scene.groups)
    box = " x ".join(f"{e:g}" for e in scene.extent)
    return (
        f"{scene.name!r}: {n_groups} group{'s' if n_groups != 1 else ''}, "
        f"{scene.agent_count:,} agents ({', '.join(methods)}), box {box}, "
        f"dt {scene.dt:.4g} s, seed {scene.seed}"
    )


# ----------------------------------------------------------------------------- open
def _no_display() -> bool:
    """True on Linux with no X or Wayland display for Qt (it would abort without a word)."""
    if not sys.platform.startswith("linux"):
        return False
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith(("xcb", "wayland")):
        return False  # the user chose another Qt platform; let Qt judge it
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def cmd_open(args: argparse.Namespace) -> int:
    """Open the desktop app; Qt and vispy are imported only here."""
    path = resolve_scene(args.scene) if args.scene is not None else None
    if _no_display():
        print(
            f"{PROG}: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            f"run it in a desktop session, under 'xvfb-run -a {PROG}', or use "
            f"'{PROG} render SCENE --out picture.png' to draw without a screen",
            file=sys.stderr,
        )
        return EXIT_APP_UNAVAILABLE
    try:
        from wander3d.app import run_app
    except ImportError as e:
        if e.name == "wander3d.app":
            print(
                f"{PROG}: the desktop app is not built yet; use '{PROG} check' or "
                f"'{PROG} run' (see '{PROG} --help')",
                file=sys.stderr,
            )
        else:
            # Qt or OpenGL missing: say what, not a traceback.
            print(f"{PROG}: cannot start the desktop app: {e}", file=sys.stderr)
        return EXIT_APP_UNAVAILABLE
    return int(run_app(path))


# ----------------------------------------------------------------------------- check
def cmd_check(args: argparse.Namespace) -> int:
    """Validate each scene; keep going after a bad one; exit 2 if any was bad."""
    status = EXIT_OK
    for arg in args.scenes:
        try:
            scene = _load(arg)
        except SceneError as e:
            _error_line(str(e))
            status = EXIT_BAD_INPUT
            continue
        print(f"{arg}: {summary(scene)}", flush=True)
        for feel in scene_feel(scene):
            print(f"  {feel.line()}", flush=True)
        for warning in scene_warnings(scene):
            print(f"{PROG}: warning: {warning}", file=sys.stderr, flush=True)
    return status


# ----------------------------------------------------------------------------- run
class Progress:
    """A one-line progress bar on a TTY (redrawn with \\r), else only a final line."""

    WIDTH = 30
    INTERVAL = 0.1  # seconds between redraws: drawing must not slow the run

    def __init__(self, stream: IO[str], total_steps: int, agents: int, dt: float) -> None:
        self.stream = stream
        self.total = total_steps
        self.agents = agents
        self.dt = dt
        try:
            self.live = stream.isatty()
        except (AttributeError, ValueError):
            self.live = False
        self.start = time.perf_counter()
        self._last = -1.0

    def _rate(self, done: int) -> str:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = done * self.agents / elapsed
        for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
            if rate >= scale:
                return f"{rate / scale:.1f}{unit} agent-steps/s"
        return f"{rate:.0f} agent-steps/s"

    def update(self, done: int) -> None:
        if not self.live:
            return
        now = time.perf_counter()
        if now - self._last < self.INTERVAL and done < self.total:
            return
        self._last = now
        frac = done / self.total if self.total else 1.0
        filled = int(frac * self.WIDTH)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(
            f"\r[{bar}] {frac:4.0%}  {done * self.dt:.1f}/{self.total * self.dt:.1f} s"
            f"  {self._rate(done)}   "
        )
        self.stream.flush()

    def finish(self, done: int) -> float:
        """End the bar (or write the only line); return the wall time in seconds."""
        elapsed = time.perf_counter() - self.start
        if self.live:
            self.update(done)
            self.stream.write("\n")
        self.stream.write(
            f"{PROG}: ran {done:,} steps ({done * self.dt:.2f} s simulated) of "
            f"{self.agents:,} agents in {elapsed:.2f} s, {self._rate(done)}\n"
        )
        self.stream.flush()
        return elapsed


def cmd_run(args: argparse.Namespace) -> int:
    """Simulate headless for --seconds, optionally saving sampled states to an .npz file."""
    scene = _load(args.scene)
    steps = max(1, round(args.seconds / scene.dt))
    every: int = args.sample_every
    n = scene.agent_count
    samples = steps // every + 1  # the start, then every `every` steps
    if args.out is None:
        _simulate(scene, steps, every, samples, keep=False)
        return EXIT_OK
    need = samples * n * 3 * 4 * 2  # float32 positions and velocities
    budget, why = memory_budget()
    if need > budget:
        raise CliError(
            f"the trajectory would need {format_bytes(need)} ({samples:,} samples of "
            f"{n:,} agents), more than the {format_bytes(budget)} allowed ({why}); "
            "use a larger --sample-every or fewer --seconds"
        )
    # Entered before the run, so a bad path fails at once; written whole or not at all.
    with output_file(Path(args.out), "--out") as temporary:
        record = _simulate(scene, steps, every, samples, keep=True)
        with open(temporary, "wb") as out:
            _write_npz(out, scene, record)
        size = format_bytes(temporary.stat().st_size)
    print(f"{args.out}: {samples:,} samples of {n:,} agents ({size})")
    return EXIT_OK


def _simulate(
    scene: Scene, steps: int, every: int, samples: int, keep: bool
) -> dict[str, np.ndarray]:
    compile_kernel(on_slow=compiling_notice)
    sim = Simulation(scene)
    n = scene.agent_count
    shape = (samples, n, 3) if keep else (0, n, 3)
    positions = np.empty(shape, dtype=np.float32)
    velocities = np.empty(shape, dtype=np.float32)
    sample_steps = np.arange(samples, dtype=np.int64) * every
    # Many steps per call let the kernel keep each agent in registers (several times faster
    # than one step per call for big scenes); ~5 M agent-steps a chunk still moves the
    # progress bar a few times a second.
    chunk = min(600, max(1, 5_000_000 // max(n, 1)))
    progress = Progress(sys.stderr, steps, n, scene.dt)
    done = 0
    taken = 0
    while True:
        if keep and taken < samples and done == sample_steps[taken]:
            positions[taken] = sim.positions
            velocities[taken] = sim.velocities
            taken += 1
        if done >= steps:
            break
        stop = min(steps, done + chunk)
        if keep and taken < samples:
            stop = min(stop, int(sample_steps[taken]))
        sim.step(stop - done)
        done = stop
        progress.update(done)
    progress.finish(done)
    return {
        "positions": positions,
        "velocities": velocities,
        "steps": sample_steps,
        "times": sample_steps * scene.dt,
        "group_index": np.asarray(sim.group_index, dtype=np.int64),
    }


def _write_npz(out: IO[bytes], scene: Scene, record: dict[str, np.ndarray]) -> None:
    """The trajectory file: arrays only (no pickles), readable with np.load(allow_pickle=False).

    positions, velocities: (T, N, 3) float32, units and units/s; times: (T,) s;
    steps: (T,) step numbers; group_index: (N,); group_names, group_colors: (G,) str;
    bounds: (2, 3) box min and max; dt: s per step; seed; scene_name; scene_text: the TOML.
    """
    text = scene.text if scene.text is not None else scene.to_toml()
    arrays: dict[str, Any] = {
        **record,
        "group_names": np.array([g.name for g in scene.groups], dtype=str),
        "group_colors": np.array([g.color for g in scene.groups], dtype=str),
        "bounds": np.array([scene.enclosure.min, scene.enclosure.max], dtype=np.float64),
        "dt": np.float64(scene.dt),
        "seed": np.int64(scene.seed),
        "scene_name": np.array(scene.name),
        "scene_text": np.array(text),
    }
    np.savez(out, **arrays)


# ----------------------------------------------------------------------------- stats
def cmd_stats(args: argparse.Namespace) -> int:
    """Path statistics per group; the work and the metric definitions are in wander3d.analysis."""
    from wander3d.analysis.command import StatsError, run_stats

    scene = _load(args.scene)
    try:
        return run_stats(args, scene, lambda total, n, dt: Progress(sys.stderr, total, n, dt))
    except StatsError as e:
        raise CliError(str(e)) from None


#: Set in the child process that renders on a virtual display, naming its vispy backend.
GL_BACKEND_VARIABLE = "WANDER3D_GL_BACKEND"


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT, e.g. 1280x720, got {text!r}"
        ) from None
    return width, height


def cmd_render(args: argparse.Namespace) -> int:
    """Render offscreen: EGL first (no display needed), else a virtual X display."""
    from wander3d.render.record import (
        GLUnavailable,
        RecordError,
        check_request,
        egl_problem,
        record,
    )

    scene = _load(args.scene)
    out = Path(args.out)
    try:
        check_request(out, args.size, args.fps)
    except RecordError as e:
        raise CliError(str(e)) from None
    backend = os.environ.get(GL_BACKEND_VARIABLE, "egl")
    problem = egl_problem() if backend == "egl" else None
    if problem is None:
        compile_kernel(on_slow=compiling_notice)
        total = max(1, round(args.seconds / scene.dt))
        progress = Progress(sys.stderr, total, scene.agent_count, scene.dt)
        try:
            with output_file(out, "--out") as temporary:
                recording = record(
                    scene, temporary, args.seconds, args.size, args.fps, args.orbit, backend,
                    on_step=progress.update,
                )  # fmt: skip
        except RecordError as e:
            raise CliError(str(e)) from None
        except GLUnavailable as e:
            problem = " ".join(str(e).split())  # vispy's messages span lines
        else:
            progress.finish(total)
            width, height = recording.size
            print(f"{out}: {recording.frames} frame(s), {width}x{height}")
            return EXIT_OK
    if os.environ.get(GL_BACKEND_VARIABLE):
        raise CliError(f"cannot render offscreen: {problem}")
    return _render_on_virtual_display(args.argv, problem)


def _render_on_virtual_display(argv: list[str], egl_problem: str) -> int:
    """Run this same render command again under a private Xvfb, with Qt's OpenGL."""
    import shutil
    import subprocess

    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise CliError(
            f"cannot render offscreen: EGL failed ({egl_problem}) and there is no virtual "
            "display to fall back on (Debian/Ubuntu: apt-get install xvfb)"
        )
    print(f"{PROG}: EGL unavailable ({egl_problem}); using a virtual display", file=sys.stderr)
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as display:
            number = display.readline().strip()
        if not number:
            raise CliError("cannot render offscreen: Xvfb did not start")
        env = dict(os.environ, DISPLAY=f":{number}", QT_QPA_PLATFORM="xcb")
        env[GL_BACKEND_VARIABLE] = "pyqt6"
        return subprocess.call([sys.executable, "-m", "wander3d", *argv], env=env)
    finally:
        server.terminate()
        server.wait()


def cmd_bench(args: argparse.Namespace) -> int:
    """Engine throughput against a tutorial-style loop, and frame costs; see wander3d.bench."""
    from wander3d.bench.run import format_report, run_benchmark

    if args.json is None:
        results = run_benchmark(quick=args.quick, sizes=args.agents, frames=not args.no_frames)
        print(format_report(results), flush=True)
        return EXIT_OK
    with output_file(Path(args.json), "--json") as temporary:
        results = run_benchmark(quick=args.quick, sizes=args.agents, frames=not args.no_frames)
        print(format_report(results), flush=True)
        temporary.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"{args.json}: results as JSON")
    return EXIT_OK


# ----------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """argparse with the program name fixed (python -m would say __main__.py)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{PROG}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    version = f"{PROG} {__version__}"
    parser = _Parser(
        prog=PROG,
        usage=f"{PROG} [-h] [--version] [SCENE]\n       {PROG} {{{','.join(COMMANDS)}}} ...",
        description="See, tune and measure Craig Reynolds' wander steering behaviour in 3D.",
        epilog=(
            "SCENE is a .toml scene file or the name of a bundled scene ("
            + (", ".join(bundled_scenes()) or "none found")
            + f"). Examples: '{PROG}' opens the default scene; '{PROG} check scenes/*.toml'; "
            f"'{PROG} run swarm --seconds 10 --out swarm.npz'."
        ),
    )
    parser.add_argument("--version", action="version", version=version)
    sub = parser.add_subparsers(
        dest="command", metavar=f"{{{','.join(COMMANDS)}}}", parser_class=_Parser
    )

    p_open = sub.add_parser(
        "open",
        prog=f"{PROG} open",
        help="open the desktop app (the default when the first argument is a scene)",
        description="Open the desktop app on SCENE, or on the bundled default scene.",
    )
    p_open.add_argument("scene", nargs="?", metavar="SCENE", help="scene file or bundled name")
    p_open.set_defaults(func=cmd_open)

    p_check = sub.add_parser(
        "check",
        prog=f"{PROG} check",
        help="validate scene files",
        description="Validate scene files: one summary line per valid scene on stdout, one "
        "error line per invalid scene on stderr. Exit status 2 if any is invalid.",
    )
    p_check.add_argument("scenes", nargs="+", metavar="SCENE", help="scene file or bundled name")
    p_check.set_defaults(func=cmd_check)

    p_run = sub.add_parser(
        "run",
        prog=f"{PROG} run",
        help="simulate without a window and optionally save the trajectory",
        description="Simulate SCENE for --seconds of simulated time without a window, with a "
        "progress bar on stderr. With --out, save sampled positions and velocities to an .npz "
        "file (load it with numpy.load).",
    )
    p_run.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    p_run.add_argument(
        "--seconds",
        type=positive_float,
        required=True,
        metavar="S",
        help="simulated seconds to run (steps = S / dt)",
    )
    p_run.add_argument("--out", metavar="PATH", help="write the trajectory to this .npz file")
    p_run.add_argument(
        "--sample-every",
        type=positive_int,
        default=1,
        metavar="K",
        help="with --out, keep every K-th step (default: 1, every step)",
    )
    p_run.set_defaults(func=cmd_run)

    p_stats = sub.add_parser(
        "stats", prog=f"{PROG} stats", help="measure the wander: path statistics per group"
    )
    configure_stats_parser(p_stats)
    p_stats.set_defaults(func=cmd_stats)

    p_bench = sub.add_parser(
        "bench",
        prog=f"{PROG} bench",
        help="measure engine speed and frame costs",
        description="Measure the engine's agent-steps per second (sphere wander, containment "
        "and 128-point trails) for 1k to 1M agents, against a tutorial-style Python loop run "
        "in the same process, bytes per agent, and per-frame drawing costs offscreen (EGL).",
    )
    p_bench.add_argument("--quick", action="store_true", help="a few seconds' smoke run")
    p_bench.add_argument(
        "--agents", type=positive_int, nargs="+", metavar="N", help="agent counts to measure"
    )
    p_bench.add_argument("--no-frames", action="store_true", help="skip the drawing benchmark")
    p_bench.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p_bench.set_defaults(func=cmd_bench)

    p_render = sub.add_parser(
        "render",
        prog=f"{PROG} render",
        help="draw a scene offscreen to a PNG, MP4 or GIF",
        description="Simulate SCENE for --seconds and draw it with the app's visuals, without "
        "a window: the last frame to a .png, or every frame to an .mp4 or .gif. Uses EGL "
        "(no display needed) and falls back to a virtual X display (Xvfb).",
    )
    p_render.add_argument("scene", metavar="SCENE", help="scene file or bundled name")
    p_render.add_argument("--out", required=True, metavar="FILE", help=".png, .mp4 or .gif")
    p_render.add_argument(
        "--seconds", type=positive_float, default=10.0, metavar="S",
        help="simulated seconds (default: 10)",
    )  # fmt: skip
    p_render.add_argument(
        "--size", type=_size, default=(1280, 720), metavar="WxH",
        help="picture size in pixels (default: 1280x720)",
    )  # fmt: skip
    p_render.add_argument(
        "--fps", type=positive_float, default=30.0, metavar="F",
        help="video frames per simulated second (default: 30)",
    )  # fmt: skip
    p_render.add_argument(
        "--orbit", type=finite_float, default=0.0, metavar="DEG_PER_S",
        help="turn the camera around the box this many degrees per simulated second",
    )  # fmt: skip
    p_render.set_defaults(func=cmd_render)

    for p in (p_open, p_check, p_run, p_stats, p_render, p_bench):
        p.add_argument("--version", action="version", version=version)
    return parser


def _normalise_argv(argv: list[str]) -> list[str]:
    """`wander3d` and `wander3d SCENE` mean `wander3d open [SCENE]`."""
    if not argv or (argv[0] not in COMMANDS and not argv[0].startswith("-")):
        return ["open", *argv]
    return argv


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (argparse exits itself on bad usage)."""
    argv = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return int(args.func(args))
    except (SceneError, CliError, OutputError) as e:
        _error_line(str(e))
        return EXIT_BAD_INPUT
    except MemoryError:
        _error_line("out of memory; try fewer agents or shorter trails")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `wander3d check ... | head`: the reader left. Point stdout at /dev/null so the flush
        # at exit does not raise again (the recipe from Python's signal module docs).
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
