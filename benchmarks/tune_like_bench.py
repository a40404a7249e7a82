"""`tune --like` on hidden tracks: how many trials, how long, how close.

    python benchmarks/tune_like_bench.py                     # both sources below
    python benchmarks/tune_like_bench.py --source hidden     # one
    python benchmarks/tune_like_bench.py --trials 128 --seeds 3

Each source is a group of a scene the fit never sees, run for --seconds and written as a
plain CSV of positions (particle, t, x, y, z: no velocities, no run record):

  hidden    docs/tracks/hidden.toml's wanderers (the README's example: the default scene's
            sphere method with other wander keys, speed and force);
  minnows   scenes/fish.toml's minnows (a bundled scene written for the app, not for this:
            another box, speed and force, and flatter), at their own 250 agents;
  gliders   benchmarks/tune_like/gliders.toml: sphere, slow, flat and far-reaching, in a
            wide, low box;
  darters   benchmarks/tune_like/darters.toml: the angle method, fast and quick to turn,
            fitted from benchmarks/tune_like/start-angle.toml (the default scene's group with
            the angle method);
  drifters  benchmarks/tune_like/drifters.toml: the noise method, slow long turns, in a
            wider box, fitted from benchmarks/tune_like/start-noise.toml.

The last three were written for this benchmark; no test reads them. Then, as a user would:
`wander3d tune START --group wanderers --like tracks.csv --out fitted.toml` (two local
workers; for the minnows, which swam in a tank of other proportions than the start's box,
with `--fit-box tracks`, as tune's note on them says), and `wander3d stats fitted.toml
--headings positions --seconds S` of the written scene, on its own seed (what the fit's table
calls "checked") and on a seed neither the search nor the check used. One seed's measures
carry its luck (a persistence of 8.6 s in 30-s runs is known to about 6%), so the fitted
scene is also measured as the mean over --precise seeds, beside the hidden scene's own group
measured the same way: how far the tracks are from what their own scene does on average.
Prints the trials, wall time, the fitted and hidden values, and the error of speed, turn
rate and persistence (and every other target) against the tracks' own. Time it alone (flock
/tmp/wander3d-timing.lock) and note the load average.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: name: (the hidden scene, its group, the scene the fit starts from).
SOURCES = {
    "hidden": ("docs/tracks/hidden.toml", "wanderers", "default"),
    "minnows": ("scenes/fish.toml", "minnows", "default"),
    "gliders": ("benchmarks/tune_like/gliders.toml", "gliders", "default"),
    "darters": (
        "benchmarks/tune_like/darters.toml",
        "darters",
        "benchmarks/tune_like/start-angle.toml",
    ),
    "drifters": (
        "benchmarks/tune_like/drifters.toml",
        "drifters",
        "benchmarks/tune_like/start-noise.toml",
    ),
}
#: What a user passes tune for a source beside the defaults.
SOURCE_ARGS = {"minnows": ("--fit-box", "tracks")}
KEYS = ("mean_speed", "mean_turn_rate", "persistence", "twitchiness", "msd_slope")


def wander3d(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "wander3d", *args], capture_output=True, text=True, env=env,
        timeout=3600, check=False,
    )  # fmt: skip


def write_tracks(scene_file: str, group: str, seconds: float, path: Path) -> None:
    """The group's run as positions only, the scene's own seed and count."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from wander3d.analysis import sample_spec
    from wander3d.scene import load_scene

    scene = load_scene(REPO / scene_file)
    (g,) = [g for g in scene.groups if g.name == group]
    samples = sample_spec(scene.replace(groups=(g,)).run_spec, seconds, 10.0)
    t, n = samples.positions.shape[:2]
    p = samples.positions.astype(np.float64)
    columns = {"particle": np.tile(np.arange(n), t), "t": np.repeat(samples.times, n)}
    columns |= {axis: p[..., i].ravel() for i, axis in enumerate("xyz")}
    pacsv.write_csv(pa.table(columns), path)


def measure(source: str, args: argparse.Namespace, work: Path) -> str:
    """Fit the source's tracks and print what tune and stats say; one summary line."""
    scene_file, group, start = SOURCES[source]
    tracks = work / f"{source}.csv"
    write_tracks(scene_file, group, args.seconds, tracks)
    truth = json.loads(wander3d("stats", "--tracks", str(tracks), "--json").stdout)["groups"][0]
    fitted = work / f"{source}-fitted.toml"
    began = time.perf_counter()
    done = wander3d(
        "tune", start, "--group", "wanderers", "--like", str(tracks), "--out", str(fitted),
        "--workers", "2", "--seeds", str(args.seeds), "--seconds", f"{args.seconds:g}",
        *(["--trials", str(args.trials)] if args.trials else []), *SOURCE_ARGS.get(source, ()),
        *args.tune_args.split(),
    )  # fmt: skip
    wall = time.perf_counter() - began
    if done.returncode not in (0, 3):
        raise SystemExit(f"tune failed:\n{done.stderr}")
    lines = [line for line in done.stderr.splitlines() if "trials, best" not in line]
    trials = next(line for line in reversed(lines) if "trials" in line)
    count = re.search(r"after (\d+) trials", trials)
    print(f"\n== {source}: {scene_file} group {group!r}; exit {done.returncode}, {wall:.0f} s")
    print(done.stdout.rstrip())
    print(trials)
    summary = [f"{source:<9} exit {done.returncode}  {count[1] if count else '?':>4} trials"]
    summary.append(f"{wall:5.0f} s")
    for label, seed in (("stats of the fitted scene", None), ("a seed never used", 4242)):
        fitted_args = [str(fitted), "--headings", "positions", "--seconds", f"{args.seconds:g}"]
        if seed is not None:
            text = fitted.read_text().replace("\nseed = ", "\nseed = 4242 #", 1)
            other = work / f"{source}-seed.toml"
            other.write_text(text)
            fitted_args[0] = str(other)
        doc = json.loads(wander3d("stats", *fitted_args, "--json").stdout)
        got = next(g for g in doc["groups"] if g["name"] == "wanderers")
        off = {k: abs(got[k] - truth[k]) / abs(truth[k]) for k in KEYS}
        print(
            f"{label:<26} "
            + "  ".join(f"{k.replace('mean_', '')} {e:5.1%}" for k, e in off.items())
        )
        summary.append(" ".join(f"{off[k]:5.1%}" for k in KEYS[:3]))
    hidden = _precise(REPO / scene_file, group, args)
    fit = _precise(fitted, "wanderers", args)
    _print_values(REPO / scene_file, group, fitted)
    for label, got in (
        (f"fitted, mean of {args.precise} seeds", fit),
        ("hidden, the same", hidden),
    ):
        off = {k: abs(got[k] - truth[k]) / abs(truth[k]) for k in KEYS}
        print(
            f"{label:<26} "
            + "  ".join(f"{k.replace('mean_', '')} {e:5.1%}" for k, e in off.items())
        )
        summary.append(" ".join(f"{off[k]:5.1%}" for k in KEYS[:3]))
    return "  ".join(summary)


def _precise(path: Path, group: str, args: argparse.Namespace) -> dict[str, float]:
    """The group's measures as `stats --headings positions` takes them, the mean over
    --precise seeds (from 1000) at its scene's count and box."""
    import numpy as np

    from wander3d.scene import load_scene
    from wander3d.sweep import like

    scene = load_scene(path)
    index = [g.name for g in scene.groups].index(group)
    scene = scene.replace(groups=(scene.groups[index],))
    runs = [
        like.measure_checked(scene.replace(seed=1000 + s), args.seconds, 10.0, 0, True)[0]
        for s in range(args.precise)
    ]
    return {k: float(np.mean([getattr(r, k) for r in runs])) for k in KEYS}


def _print_values(hidden: Path, group: str, fitted: Path) -> None:
    """The fitted group's speed, force and wander keys beside the hidden group's."""
    from wander3d.scene import load_scene

    (truth,) = [g for g in load_scene(hidden).to_dict()["groups"] if g["name"] == group]
    (found,) = [g for g in load_scene(fitted).to_dict()["groups"] if g["name"] == "wanderers"]
    pairs = [(k, found[k], truth[k]) for k in ("max_speed", "max_force")]
    pairs += [(f"wander.{k}", v, truth["wander"].get(k, math.nan))
              for k, v in found["wander"].items() if isinstance(v, float)]  # fmt: skip
    print("fitted (hidden): " + ", ".join(f"{k} {a:.4g} ({b:.4g})" for k, a, b in pairs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", choices=sorted(SOURCES), action="append")
    parser.add_argument("--trials", type=int, help="tune's --trials (default: tune's own)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--precise", type=int, default=8, help="seeds of the mean measures")
    parser.add_argument("--tune-args", default="", help="more arguments for tune, quoted")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    summaries = []
    with tempfile.TemporaryDirectory() as folder:
        for source in args.source or list(SOURCES):
            summaries.append(measure(source, args, Path(folder)))
    print(
        "\nsource    exit  trials   wall  stats: speed turn persist; a new seed's; "
        "the fitted scene's mean; the hidden scene's mean"
    )
    print("\n".join(summaries))
    print(f"\nload average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
