"""Re-run the README's examples and compare what they print with what the README shows.

    python scripts/readme_examples.py             # check: a diff per example that differs
    python scripts/readme_examples.py --update    # rewrite the README from real output
    python scripts/readme_examples.py --pictures  # and draw docs/*.png again from the README's
                                                  # commands (the app's under xvfb-run)
    python scripts/readme_examples.py -k tune     # only the examples whose name has "tune"

Every `wander3d` command line in the README's shell blocks is also read by wander3d's own
parser (nothing runs), so a renamed option or command in an example shows at once. What is run
and compared is marked in README.md by comments a reader does not see:

    <!-- example: NAME -->           on the line before a fenced block: the block is NAME's
                                     output (a block named NAME-script is code it runs)
    <!-- example: NAME/KEY -->1.54<!-- /example -->   a number in the prose

Each example runs the commands the README shows (`wander3d ...` as `python -m wander3d ...`
from this checkout) in a scratch folder where `scenes/` and `docs/` are this repository's, so
paths print as the README writes them. Nothing needs normalising: the examples print no
timings or absolute paths. Exit status 1 when something differs (run with --update after a
change that moves the numbers, and read the diff), 0 when the README is current.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

BLOCK = re.compile(
    r"<!-- example: (?P<name>[\w-]+) -->\n```(?P<lang>\w*)\n(?P<body>.*?)\n```", re.S
)
NUMBER = re.compile(r"<!-- example: (?P<name>[\w-]+/[\w-]+) -->(?P<value>.*?)<!-- /example -->")

#: The commands the README shows, run as shown (a trailing backslash continues a line).
STATS = "wander3d stats scenes/compare.toml"
TUNE = (
    "wander3d tune default --group wanderers --target turn_rate=25 --target persistence=3 \\\n"
    "      --seconds 30 --out tuned.toml"
)
EXPORT = "wander3d run compare --seconds 60 --sample-rate 10 --out compare.parquet"
#: The tracks examples, in the order the README shows them.
TRACKS = (
    "wander3d stats --tracks docs/tracks/movebank.csv --sample-rate 0.0166667",
    "wander3d stats --tracks docs/tracks/trackpy.csv --fps 25",
    "wander3d stats --tracks docs/tracks/tracker_nan.csv --fps 30",
)
#: The fit to hidden tracks: their run, the fit, and `stats` of the fitted scene.
TUNE_LIKE = (
    "wander3d run docs/tracks/hidden.toml --seconds 30 --sample-rate 10 --out hidden.csv",
    "wander3d tune default --group wanderers --like hidden.csv --out fitted.toml --plot fit.png",
    "wander3d stats fitted.toml",
)
PICTURES = (
    "wander3d render default --out docs/default.png --seconds 20 --size 1280x720",
    "wander3d sweep docs/atlas.toml --out atlas.parquet --plot docs/atlas.png",
    TUNE_LIKE[0],
    "wander3d tune default --group wanderers --like hidden.csv --out fitted.toml "
    "--plot docs/tune-like.png",
)
#: The app's pictures: scripts/app_screenshot.py on a 1366x768 virtual screen.
APP_PICTURES = (
    "compare --seconds 8 --out docs/app-compare.png",
    "default --seconds 6 --select 17 --follow --out docs/screenshot.png",
)


class Failed(RuntimeError):
    """An example's command failed; str() says which and what it printed."""


def run(
    command: str, work: Path, allowed: tuple[int, ...] = (0,), merged: bool = False
) -> subprocess.CompletedProcess[str]:
    """`command` as the README writes it (`wander3d ...` or `python ...`), in `work`; Failed
    unless its exit status is `allowed`. merged: stderr into stdout, in the order a terminal
    shows them."""
    args = shlex.split(command.replace("\\\n", " "))
    if args[0] == "wander3d":
        args = [sys.executable, "-m", "wander3d", *args[1:]]
    elif args[0] == "python":
        args = [sys.executable, *args[1:]]
    streams = {
        "stdout": subprocess.PIPE,
        "stderr": subprocess.STDOUT if merged else subprocess.PIPE,
    }
    done = subprocess.run(args, cwd=work, env=_environ(), text=True, timeout=1200, **streams)  # type: ignore[call-overload]
    if done.returncode not in allowed:
        raise Failed(f"{command}\nexit status {done.returncode}\n{done.stdout}{done.stderr}")
    return done


def _environ() -> dict[str, str]:
    """This process's environment with this checkout first on the module path."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path)


def blocks(text: str) -> dict[str, str]:
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def numbers(text: str) -> dict[str, str]:
    return {m["name"]: m["value"] for m in NUMBER.finditer(text)}


# ------------------------------------------------------------------ the examples
def stats_compare(work: Path, readme: str) -> dict[str, str]:
    out = run(STATS, work).stdout
    values = {"stats-compare": f"$ {STATS}\n{out}"}
    # The path-measures block's `seek` row, in the column headed "MSD slope" (right-aligned
    # under it, so found by where the heading ends: the block gains columns now and then).
    second = out.split("\n\n")[1].splitlines()
    end = second[0].index("MSD slope") + len("MSD slope")
    seek = next(line for line in second if line.split()[:1] == ["seek"])
    values["stats-compare/seek-msd-slope"] = seek[:end].split()[-1]
    return values


def tune(work: Path, readme: str) -> dict[str, str]:
    done = run(TUNE, work, allowed=(0, 3))  # 3: a target not met, which it says
    # stderr's progress lines ("8 trials, best is ...") are left out, as the README does.
    tail = [line for line in done.stderr.splitlines() if "trials, best is" not in line]
    return {"tune": f"$ {TUNE}\n{done.stdout}" + "\n".join(tail)}


def trackpy(work: Path, readme: str) -> dict[str, str]:
    if EXPORT not in readme:
        raise Failed(f"the README no longer shows `{EXPORT}`: update scripts/readme_examples.py")
    run(EXPORT, work)
    values = {}
    if importlib.util.find_spec("trackpy") is not None:
        (work / "msd.py").write_text(blocks(readme)["trackpy-script"], encoding="utf-8")
        first = run("python msd.py", work).stdout.splitlines()[0].split()
        values["trackpy/sphere"] = f"{float(first[1]):.2f}"
    else:
        print("readme_examples: trackpy is not installed: its figure is not checked")
    report = json.loads(run("wander3d stats --tracks compare.parquet --json", work).stdout)
    sphere = next(g for g in report["groups"] if g["name"] == "sphere")
    values["trackpy/wander3d"] = f"{sphere['curves']['msd_units2'][10]:.2f}"
    return values


def tracks(work: Path, readme: str) -> dict[str, str]:
    shown = []
    for command in TRACKS:
        done = run(command, work)
        # stderr's notes come first on a terminal: they are printed before the table.
        shown.append(f"$ {command}\n{done.stderr}{done.stdout}")
    return {"tracks": "\n".join(shown)}


#: Lines of a command's output that change from run to run (progress, timings), left out.
VARYING = ("trials, best is", "compiling the simulation kernel", "wander3d: ran ")


def tune_like(work: Path, readme: str) -> dict[str, str]:
    shown = []
    for command in TUNE_LIKE:
        done = run(command, work, allowed=(0, 3), merged=True)  # 3: some target not met
        lines = [line for line in done.stdout.splitlines() if not line.startswith(VARYING)]
        lines = [line for line in lines if not any(v in line for v in VARYING)]
        shown.append("\n".join([f"$ {command}", *lines]))
    return {"tune-like": "\n".join(shown)}


#: How the README's sweep-error example spoils its sweep file.
GOOD_VALUES, BAD_VALUES = "values = [2, 5, 10, 20, 40]", "values = [-1, 5, 10, 20, 40]"


def sweep_error(work: Path, readme: str) -> dict[str, str]:
    """The error line of the README's sweep file with a bad value, saved as atlas.toml."""
    sweep = blocks(readme)["sweep-error-script"]
    if GOOD_VALUES not in sweep:
        raise Failed(f"the README's sweep file no longer has `{GOOD_VALUES}`")
    (work / "atlas.toml").write_text(sweep.replace(GOOD_VALUES, BAD_VALUES), encoding="utf-8")
    args = shlex.split("wander3d sweep atlas.toml --out atlas.parquet")
    done = subprocess.run(
        [sys.executable, "-m", "wander3d", *args[1:]], cwd=work, env=_environ(),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if done.returncode != 2:
        raise Failed(f"the spoilt sweep exited with {done.returncode}, not 2\n{done.stderr}")
    return {"sweep-error": done.stderr}


EXAMPLES: dict[str, Callable[[Path, str], dict[str, str]]] = {
    "stats-compare": stats_compare,
    "tune": tune,
    "trackpy": trackpy,
    "tracks": tracks,
    "tune-like": tune_like,
    "sweep-error": sweep_error,
}


# ------------------------------------------------------------------ the commands shown
#: A fenced block (its language, its text); those of no language or `sh` hold commands.
FENCED = re.compile(r"^```(?P<lang>\w*)\n(?P<body>.*?)\n```$", re.S | re.M)


def commands(readme: str) -> list[str]:
    """Every `wander3d` command line the README's shell blocks show (a `$ ` prompt, a
    trailing comment, a redirection or pipe and what follows it left off; continued lines
    joined)."""
    found = []
    for block in FENCED.finditer(readme):
        if block["lang"] not in ("", "sh"):
            continue
        for line in block["body"].replace("\\\n", " ").splitlines():
            line = line.removeprefix("$ ").strip()
            if line != "wander3d" and not line.startswith("wander3d "):
                continue  # another program, or output ("wander3d: ...")
            words = []
            for word in shlex.split(line, comments=True):
                if word in (">", "|", "&&", ";") or word.startswith(">"):
                    break
                words.append(word)
            found.append(shlex.join(words))
    return found


def command_problems(readme: str) -> list[str]:
    """The README's command lines that wander3d's own parser refuses, each with its error:
    an option renamed or a command gone shows here before a reader meets it."""
    import contextlib
    import io

    sys.path.insert(0, str(REPO))
    from wander3d import cli

    problems = []
    for command in commands(readme):
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
                cli.parse_args(shlex.split(command)[1:])
        except SystemExit as e:
            if e.code:
                problems.append(f"{command}\n  {said.getvalue().strip()}")
        except Exception as e:  # the command line's own errors (an unknown word)
            problems.append(f"{command}\n  {e}")
    return problems


# ------------------------------------------------------------------ checking and updating
def scratch() -> Path:
    """A folder in which `scenes/` and `docs/` are this repository's."""
    work = Path(tempfile.mkdtemp(prefix="readme-examples-"))
    for name in ("scenes", "docs"):
        (work / name).symlink_to(REPO / name)
    return work


def measure(names: list[str], readme: str) -> dict[str, str]:
    """The values of the examples `names`, from real runs."""
    work = scratch()
    try:
        values: dict[str, str] = {}
        for name in names:
            values.update(EXAMPLES[name](work, readme))
        return values
    finally:
        shutil.rmtree(work, ignore_errors=True)


def differences(readme: str, values: dict[str, str]) -> list[str]:
    """A unified diff per value that the README shows otherwise."""
    shown = {**blocks(readme), **numbers(readme)}
    out = []
    for name, value in values.items():
        if name not in shown:
            out.append(f"README.md has no <!-- example: {name} --> marker")
            continue
        want = [line.rstrip() for line in value.rstrip("\n").splitlines()]
        have = [line.rstrip() for line in shown[name].splitlines()]
        if want != have:
            diff = difflib.unified_diff(
                have, want, f"README.md: {name}", "real output", lineterm=""
            )
            out.append("\n".join(diff))
    return out


def updated(readme: str, values: dict[str, str]) -> str:
    """`readme` with every marked block and number set to its value."""

    def block(m: re.Match[str]) -> str:
        if m["name"] not in values:
            return m[0]
        body = "\n".join(line.rstrip() for line in values[m["name"]].rstrip("\n").splitlines())
        return f"<!-- example: {m['name']} -->\n```{m['lang']}\n{body}\n```"

    def number(m: re.Match[str]) -> str:
        value = values.get(m["name"], m["value"])
        return f"<!-- example: {m['name']} -->{value}<!-- /example -->"

    return NUMBER.sub(number, BLOCK.sub(block, readme))


def draw_pictures(readme: str) -> None:
    """Run the README's picture commands again, writing docs/*.png."""
    work = scratch()
    try:
        for command in PICTURES:
            if command not in readme:
                raise Failed(f"the README no longer shows `{command}`")
            print(f"readme_examples: {command}")
            run(command, work)
        xvfb = shutil.which("xvfb-run")
        if xvfb is None:
            raise Failed("the app's pictures need xvfb-run (apt-get install xvfb)")
        for args in APP_PICTURES:
            print(f"readme_examples: app {args}")
            command = [xvfb, "-a", "-s", "-screen 0 1366x768x24", sys.executable,
                       str(REPO / "scripts" / "app_screenshot.py"), *shlex.split(args)]  # fmt: skip
            env = dict(os.environ, PYTHONPATH=str(REPO))
            subprocess.run(command, cwd=work, env=env, check=True, timeout=600)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite README.md's examples")
    parser.add_argument("--pictures", action="store_true", help="draw docs/*.png again")
    parser.add_argument("-k", default="", metavar="TEXT", help="only examples naming TEXT")
    args = parser.parse_args(argv)
    names = [name for name in EXAMPLES if args.k in name]
    readme = README.read_text(encoding="utf-8")
    try:
        values = measure(names, readme)
        if args.pictures:
            draw_pictures(readme)
    except Failed as e:
        print(f"readme_examples: an example failed: {e}", file=sys.stderr)
        return 2
    if args.update:
        README.write_text(updated(readme, values), encoding="utf-8")
        print(f"readme_examples: README.md updated ({', '.join(names)})")
        return 0
    problems = differences(readme, values) + command_problems(readme)
    for problem in problems:
        print(problem, end="\n\n")
    if problems:
        print("readme_examples: the README differs; `--update` rewrites it", file=sys.stderr)
        return 1
    print(f"readme_examples: README.md shows what {', '.join(names)} print")
    return 0


if __name__ == "__main__":
    sys.exit(main())
