"""Fuzz what wander3d reads: N damaged cases per kind (tracks, sweep, replay, scene).

    PYTHONPATH=. python benchmarks/fuzz.py [--cases 1000] [--kinds tracks,sweep]

Prints, per kind, how many cases were accepted and sane, clean errors, hangs (over
--limit seconds), tracebacks and wrong results, then each bad case (kind, number, what
happened): reproduce one with `--kinds KIND --first I --cases 1`. Exit status 1 if any case
hung, raised or came out wrong. The cases are tests/fuzz_inputs.py's, seeded by number.
"""

from __future__ import annotations

import argparse
import collections
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz_inputs import KINDS, Outcome, make_case, make_runs, run_case


class Hang(BaseException):  # not an Exception: run_case must not catch it
    pass


def _alarm(signum, frame):
    raise Hang


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--limit", type=float, default=20.0, help="seconds before a hang")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    bad: list[tuple[str, int, Outcome]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = make_runs(folder)
        for kind in args.kinds.split(","):
            counts: collections.Counter[str] = collections.Counter()
            start = time.perf_counter()
            for i in range(args.first, args.first + args.cases):
                case_folder = folder / f"{kind}{i}"
                case_folder.mkdir()
                signal.setitimer(signal.ITIMER_REAL, args.limit)
                try:
                    outcome = run_case(kind, make_case(kind, i, case_folder, runs))
                except Hang:
                    outcome = Outcome("hang", f"over {args.limit:g} s")
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                counts[outcome.kind] += 1
                if outcome.kind not in ("sane", "error"):
                    bad.append((kind, i, outcome))
            seconds = time.perf_counter() - start
            print(
                f"{kind:7} {args.cases} cases in {seconds:.0f} s: {counts['sane']} sane, "
                f"{counts['error']} clean errors, {counts['hang']} hangs, "
                f"{counts['traceback']} tracebacks, {counts['wrong']} wrong",
                flush=True,
            )
    for kind, i, outcome in bad:
        print(f"  {kind} #{i}: {outcome.kind}: {outcome.detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
