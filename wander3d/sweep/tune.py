"""Tuning: find parameter values of one group whose measured metrics match targets.

Coarse to fine. Optuna's TPE sampler (seeded) proposes values over the whole ranges, in
batches that run on the Dask cluster together, for COARSE_SHARE of the trials; then least
squares (`_refine`: scipy's trust-region reflective, the Jacobian measured by a step in each
key, all in one batch) from the best point so far, then from the next best distinct ones
while trials are left. What both minimise is the sum of squared relative errors of the
targets. Every
trial is measured on the same seeds (common random numbers: trials differ by their values,
not their luck), as the mean over `seeds` runs;
the search stops when a trial has every target well within `tolerance` (STOP_SHARE of it, less
its floor, if it has one), or after `trials` trials. Tuning runs only the tuned group (groups
do not interact; its metrics do not depend on the others) with `agents` agents. The same
command finds the same values on any cluster.

The best of many noisy trials flatters itself: so the FINALISTS best distinct points are
measured again on seeds the search never used, and the best there wins, with its mean over
them as `achieved`. Then the winner is measured as it is written: the whole tuned scene at its
own seed and agent count, exactly what `wander3d stats` of it runs (`checked`). A target is met
when its error is within the tolerance, or within what sampling noise explains (`_allowances`:
two standard errors of the difference, from the tracks' own sampling error and the
measurement's).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wander3d.analysis.metric_table import TARGETS
from wander3d.analysis.tracks import FITTED_FROM_POSITIONS, FITTED_MEASURE
from wander3d.engine.methods import METHOD_KEYS
from wander3d.scene import Scene, schema

from . import execute, like
from .keys import KeyPath, KeyPathError, parse_key_path

#: Trials proposed and run together: enough to keep a few workers busy.
BATCH = 8
#: Without bounds, a key is searched from its value / SPAN to its value * SPAN (log scale).
SPAN = 4.0
#: Trial values keep this many significant digits, so the written scene is what was measured.
DIGITS = 4


class TuneError(ValueError):
    """Bad tuning input (an unknown metric or key, bounds out of range); one line."""


@dataclass(frozen=True)
class Knob:
    """A key being tuned: `name` as the user wrote it (group-relative, e.g. "wander.jitter"),
    its path in the scene, the search bounds, where the search starts (within them) and the
    value the scene had (the same unless the bounds exclude it)."""

    name: str
    path: KeyPath
    low: float
    high: float
    start: float
    value: float


@dataclass(frozen=True)
class TuneResult:
    """The winner: values per knob name, the targets, the achieved metric per target (its
    mean over `final_seeds` seeds the search never used) and its relative error, trials run,
    and the full tuned scene (the original scene with only the knobs changed); with a profile
    to match (`tune --like`), the winner's profile (turn counts summed and MSD averaged over
    those seeds)."""

    values: dict[str, float]
    targets: dict[str, float]
    achieved: dict[str, float]
    errors: dict[str, float]
    trials: int
    scene: Scene
    #: The check: metrics and errors of the tuned scene's group at its own seed and agent
    #: count `checked_agents`, as `wander3d stats TUNED` measures them; empty when tune was
    #: not asked to check.
    checked: dict[str, float] = dataclasses.field(default_factory=dict)
    checked_errors: dict[str, float] = dataclasses.field(default_factory=dict)
    checked_agents: int = 0
    profile: like.Profile | None = None
    #: Each target's allowance for sampling noise, relative to it (`_allowances`): a target
    #: is met when its error is within the tolerance or within this (achieved; checked).
    allowances: dict[str, float] = dataclasses.field(default_factory=dict)
    checked_allowances: dict[str, float] = dataclasses.field(default_factory=dict)
    #: The seeds `achieved` is the mean over (none the search used), and how many finalists
    #: were measured on them.
    final_seeds: int = 0
    finalists: int = 0

    def unmet(self, tolerance: float, checked: bool = False) -> list[str]:
        """The targets not met: error beyond the tolerance and beyond the noise allowance
        (in the check's numbers with `checked`)."""
        errors = self.checked_errors if checked else self.errors
        allowed = self.checked_allowances if checked else self.allowances
        return [m for m, e in errors.items() if e > max(tolerance, allowed.get(m, 0.0))]


def metric_names() -> list[str]:
    """The metrics that can be targets: the metric table's rows marked `target`."""
    return list(TARGETS)


def metric_name(name: str) -> str:
    """A target's metric: a GroupStats field (the name `stats --json` and sweep tables use),
    that name without "mean_" (turn_rate), or a name `stats --json` used before (OLD_NAMES)."""
    names = metric_names()
    for candidate in (name, f"mean_{name}", OLD_NAMES.get(name, "")):
        if candidate in names:
            return candidate
    raise TuneError(f"unknown metric {name!r}: one of {', '.join(names)}")


#: The names `stats --json` gave the metrics before they were spelled as GroupStats fields
#: everywhere; still accepted as --target names.
OLD_NAMES = {
    "mean_speed_units_per_s": "mean_speed",
    "mean_turn_rate_deg_per_s": "mean_turn_rate",
    "twitchiness_deg_per_s2": "twitchiness",
    "about_turns_per_agent_per_min": "about_turns",
    "persistence_s": "persistence",
    "coverage_fraction": "coverage",
    "wall_contact_fraction": "wall_contact",
    "mean_step_units": "mean_step",
    "persistence_length": "persistence_length_crw",
    "persistence_length_units": "persistence_length_crw",
    "sinuosity_per_sqrt_unit": "sinuosity_symmetric",
}


def group_index(scene: Scene, name: str) -> int:
    """The index of the group called `name`; TuneError listing the names if none is."""
    for i, g in enumerate(scene.groups):
        if g.name == name:
            return i
    names = ", ".join(repr(g.name) for g in scene.groups)
    raise TuneError(f"the scene has no group {name!r} (groups: {names})")


def default_keys(scene: Scene, index: int) -> list[str]:
    """What to tune when not told: the wander keys the group's method reads."""
    return [f"wander.{k}" for k in METHOD_KEYS[scene.groups[index].wander.method]]


def make_knob(scene: Scene, index: int, spec: str) -> Knob:
    """A knob from "KEY" or "KEY=LO:HI", KEY relative to the group ("wander.jitter").

    TuneError "SPEC: problem" if the key cannot be tuned or the bounds are not LO < HI.
    """
    name, _, bounds = spec.partition("=")
    try:
        path = parse_key_path(f"groups[{index}].{name}")
    except KeyPathError:
        raise TuneError(f"{spec}: no group key {name!r} (e.g. wander.jitter)") from None
    key = path.schema_key
    if key.type != schema.FLOAT:
        raise TuneError(f"{spec}: only decimal keys can be tuned")
    start = path.read(scene.to_dict())
    if start is None:
        raise TuneError(f"{spec}: the group's method does not use {name}")
    if bounds:
        try:
            low, high = (float(b) for b in bounds.split(":"))
        except ValueError:
            raise TuneError(f"{spec}: expected KEY=LO:HI, e.g. wander.jitter=2:40") from None
    else:
        low, high = start / SPAN, start * SPAN
    if key.lo is not None:
        low = max(low, key.lo)
    if key.hi is not None:
        high = min(high, key.hi)
    if not (0 < low < high and math.isfinite(high)):
        raise TuneError(f"{spec}: give positive bounds LO < HI, e.g. {name}=1:50")
    return Knob(name, path, low, high, float(start), float(start))


def _round(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def tuning_scene(scene: Scene, index: int, agents: int | None) -> Scene:
    """The scene tuning measures: only the tuned group, with `agents` agents if given."""
    group = scene.groups[index]
    if agents is not None:
        group = dataclasses.replace(group, count=agents)
    return scene.replace(groups=(group,))


def apply(scene: Scene, knobs: Sequence[Knob], values: Mapping[str, float]) -> Scene:
    """`scene` with each knob set to its value (validated: SceneError if it is invalid).

    A group whose max_speed is tuned and whose initial_speed is not keeps its initial speed
    in the same proportion to its max speed (an initial speed of 20 beside a max speed tuned
    down to 1.5 is not a valid scene)."""
    doc = scene.to_dict()
    tuned = {k.name for k in knobs}
    for knob in knobs:
        doc = knob.path.apply(doc, values[knob.name])
        if knob.name == "max_speed" and "initial_speed" not in tuned:
            old = scene.to_dict()["groups"][knob.path.group]
            group = doc["groups"][knob.path.group]
            if old.get("initial_speed") is not None:
                group["initial_speed"] = _round(
                    old["initial_speed"] * values[knob.name] / old["max_speed"]
                )
    return Scene.from_dict(doc, source=scene.source)


def tune(
    scene: Scene,
    index: int,
    targets: Mapping[str, float],
    knobs: Sequence[Knob],
    client: Any,
    *,
    seconds: float,
    sample_rate: float,
    seeds: int = 2,
    agents: int | None = None,
    trials: int = 320,
    tolerance: float = 0.05,
    seed: int = 0,
    profile: like.Profile | None = None,
    from_positions: bool = False,
    on_batch: Callable[[int, dict[str, float]], None] | None = None,
    check: bool = True,
    timeout: float = execute.CONNECT_TIMEOUT_S,
    floors: Mapping[str, float] | None = None,
    noise: Mapping[str, float] | None = None,
) -> TuneResult:
    """Search the knobs' values of group `index` so its metrics (mean over `seeds` runs of
    `seconds`) meet `targets` (metric -> value); at most `trials` trials, then the best few
    measured again (`FINALISTS`, on seeds the search never used) and the winner checked.

    With a `profile` (recorded tracks'), the target like.TURN_DISTANCE is the distance of the
    group's turn-angle distribution (its seeds' pooled) from the profile's, and the search
    follows `like.turn_residuals`; from_positions: the group's headings are taken from its
    positions, as the tracks' were. on_batch(trials_done, best_errors) is called as trials
    finish. floors: metric -> an error no closer fit can beat (its own sampling noise), taken
    off that metric's error; noise: metric -> the targets' own standard error (tracks'), in
    the metric's units, which whether a target is met allows for (`allowance`). Returns the
    winner, with `check`, measured again as `check_tuned` says. ClusterError as
    `execute.run_tasks` raises it (`timeout`: seconds without workers).
    """
    task: Callable[[Scene, float, float], Any] = execute.measure
    if profile is not None:
        task = functools.partial(like.measure_profile, from_positions=from_positions)
    floors = dict(floors or {})
    search = _Search(
        tuning_scene(scene, index, agents), knobs, targets, profile, task, seeds, scene.seed
    )
    search.floors = floors
    run = functools.partial(
        execute.run_tasks, client, seconds=seconds, sample_rate=sample_rate, task=task,
        timeout=timeout,
    )  # fmt: skip

    def progress() -> None:
        if on_batch is not None:
            on_batch(search.done, search.best_errors())

    # Coarse to fine: TPE over the whole ranges finds the basins, then least squares from the
    # best points finds their floors, which TPE's wide proposals rarely hit.
    coarse = min(trials, max(BATCH, round(trials * COARSE_SHARE)))
    # A trial within the tolerance may owe it to its seeds: the search goes on until one is
    # well within it (the finalists and the check then say how it does on others).
    enough = tolerance * STOP_SHARE
    with _quiet_optuna() as optuna:
        study = optuna.create_study(
            sampler=optuna.samplers.TPESampler(seed=seed, multivariate=True)
        )
        study.enqueue_trial({k.name: k.start for k in knobs})
        while search.done < coarse and not search.met(enough):
            search.run_batch(study, min(BATCH, coarse - search.done), run)
            progress()
    if search.done < trials and not search.met(enough):
        _refine(search, trials, enough, run, progress)
    final = _final(search, run)
    tuned = apply(scene, knobs, final.values)
    checked: dict[str, float] = {}
    checked_noise: dict[str, float] = {}
    if check:
        checker = functools.partial(
            like.measure_checked, index=index, from_positions=from_positions
        )
        check_run = functools.partial(
            execute.run_tasks, client, seconds=seconds, sample_rate=sample_rate, task=checker,
            timeout=timeout,
        )  # fmt: skip
        checked, checked_noise = check_tuned(tuned, targets, profile, check_run)
    noise = dict(noise or {})
    return TuneResult(
        values=final.values,
        targets=dict(targets),
        achieved=final.achieved,
        errors=_errors(final.achieved, targets, floors),
        trials=search.done,
        scene=tuned,
        checked=checked,
        checked_errors=_errors(checked, targets, floors) if checked else {},
        checked_agents=tuned.groups[index].count if check else 0,
        profile=final.profile,
        allowances=_allowances(targets, noise, final.noise),
        checked_allowances=_allowances(targets, noise, checked_noise) if checked else {},
        final_seeds=final.seeds,
        finalists=final.rivals,
    )


#: The share of the trials the coarse TPE search takes; the fine search has the rest.
COARSE_SHARE = 0.5
#: The search stops early when a trial has every error within this share of the tolerance.
STOP_SHARE = 0.25
#: The fine search's step for the Jacobian (log units: about 10% of each value), and how far
#: apart (log units, in some key) the quick trials it starts from are.
FINE_STEP = 0.1
START_APART = 0.5
#: When least squares stops: a step that lowers the loss by less than FINE_FTOL of it, or
#: moves less than about FINE_XTOL of the point (log units); finer than that is noise.
FINE_FTOL = 0.01
FINE_XTOL = 0.03
#: After the search, its best FINALISTS distinct points are measured again on FINAL_SEEDS
#: times --seeds seeds it never used, and the best on those wins: its mean there is `achieved`.
FINALISTS = 3
FINAL_SEEDS = 2
#: The residual of a measure a trial leaves undefined (NaN) or infinite: 1000% off.
_UNDEFINED = 10.0


@contextlib.contextmanager
def _quiet_optuna() -> Iterator[Any]:
    """optuna, its log and its warnings silenced (an experimental-feature warning about the
    multivariate TPE reached the user's terminal)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        warnings.filterwarnings("ignore", module="optuna")
        yield optuna


def _refine(
    search: _Search,
    trials: int,
    enough: float,
    run: Callable[..., None],
    progress: Callable[[], None],
) -> None:
    """The fine search, until `trials` trials in all or a trial within `enough` of every
    target: least squares on the targets' residuals (scipy's trust-region reflective
    `least_squares`, in log space), from the best quick trial; while trials are left, again
    from the best point when that run found a better one, else from the next best quick
    trial at least START_APART from every start before it.
    Its Jacobian is measured by forward steps of FINE_STEP (log units: about 10%) in each key,
    all in one batch; on common seeds the residuals change smoothly with the values at that
    scale, so the steps follow the valleys along which keys trade off (a larger wander
    sphere turning as a nearer, smaller one does), which steps at random rarely do."""
    from scipy.optimize import least_squares

    lows = np.log([k.low for k in search.local])
    highs = np.log([k.high for k in search.local])
    quick = sorted(search.trials, key=lambda t: t.loss)
    started: list[_Trial] = []
    start: _Trial | None = search.best()
    while start is not None and search.done < trials and not search.met(enough):
        started.append(start)
        before = search.best().loss
        centre = np.clip(search.log_values(start.values), lows, highs)
        fit = _LeastSquares(search, centre, lows, highs, run, trials, enough, progress)
        try:
            least_squares(
                fit.residuals,
                np.zeros(len(centre)),
                jac=fit.jacobian,
                bounds=(lows - centre, highs - centre),
                x_scale=1.0,
                method="trf",
                ftol=FINE_FTOL,
                xtol=FINE_XTOL,
            )
        except _OutOfTrials:
            return
        # Again from a better point found (a fresh Jacobian and trust region), else from the
        # best quick trial far enough from every start so far.
        if search.best().loss < before:
            start = search.best()
        else:
            start = next((t for t in quick if _apart(search, t, started, START_APART)), None)


def _apart(search: _Search, trial: _Trial, others: Sequence[_Trial], apart: float) -> bool:
    """Whether `trial` is more than `apart` (log units) from each of `others` in some key."""
    x = search.log_values(trial.values)
    return all(np.max(np.abs(x - search.log_values(o.values))) > apart for o in others)


class _OutOfTrials(Exception):
    """The fine search has used its trials, or met the targets: stop the least squares."""


class _LeastSquares:
    """The residuals and their Jacobian at u (log values less `centre`), measured as trials
    of `search`, each point once."""

    def __init__(
        self,
        search: _Search,
        centre: np.ndarray,
        lows: np.ndarray,
        highs: np.ndarray,
        run: Callable[..., None],
        trials: int,
        enough: float,
        progress: Callable[[], None],
    ) -> None:
        self.search, self.centre, self.lows, self.highs = search, centre, lows, highs
        self.run, self.trials, self.enough, self.progress = run, trials, enough, progress
        self.known: dict[tuple[float, ...], np.ndarray] = {}

    def values(self, u: np.ndarray) -> dict[str, float]:
        x = np.clip(self.centre + u, self.lows, self.highs)
        return {k.name: _round(math.exp(x[j])) for j, k in enumerate(self.search.local)}

    def measure(self, points: list[np.ndarray]) -> list[np.ndarray]:
        """The residuals at each point (those not yet measured in one batch); _OutOfTrials
        when they do not fit in the trials left or the targets are met."""
        values = [self.values(u) for u in points]
        keys = [tuple(v.values()) for v in values]
        new = list(
            {key: v for key, v in zip(keys, values, strict=True) if key not in self.known}.items()
        )
        if new:
            if self.search.done + len(new) > self.trials or self.search.met(self.enough):
                raise _OutOfTrials
            measured = self.search.measure([v for _, v in new], self.run)
            for (key, _), trial in zip(new, measured, strict=True):
                self.known[key] = trial.residuals
            self.progress()
        return [self.known[key] for key in keys]

    def residuals(self, u: np.ndarray) -> np.ndarray:
        return self.measure([u])[0]

    def jacobian(self, u: np.ndarray) -> np.ndarray:
        # Forward steps, inward from an upper bound.
        steps = [
            -FINE_STEP if self.centre[j] + u[j] + FINE_STEP > self.highs[j] else FINE_STEP
            for j in range(len(u))
        ]
        points = [u] + [u + step * unit for unit, step in zip(np.eye(len(u)), steps, strict=True)]
        at, *moved = self.measure(points)
        return np.column_stack([(r - at) / step for r, step in zip(moved, steps, strict=True)])


def _distinct(search: _Search, count: int, apart: float) -> list[_Trial]:
    """The best `count` trials, each more than `apart` (log units, in some key) from every
    better one taken."""
    taken: list[_Trial] = []
    for trial in sorted(search.trials, key=lambda t: t.loss):
        if _apart(search, trial, taken, apart):
            taken.append(trial)
        if len(taken) == count:
            break
    return taken


@dataclass(frozen=True)
class _Final:
    """The winner: its values, its metrics (mean over `seeds` seeds the search never used),
    their standard errors, its pooled profile, and how many finalists it was chosen from."""

    values: dict[str, float]
    achieved: dict[str, float]
    noise: dict[str, float]
    profile: like.Profile | None
    seeds: int
    rivals: int


def _final(search: _Search, run: Callable[..., None]) -> _Final:
    """The search's FINALISTS best distinct points measured again on new seeds (the best of
    many noisy trials flatters itself); the best of them there."""
    finalists = _distinct(search, FINALISTS, 1e-3)
    count = FINAL_SEEDS * search.seeds
    first = search.first_seed + search.seeds
    measured = search.measure([t.values for t in finalists], run, range(first, first + count))
    best = min(measured, key=lambda t: t.loss)
    return _Final(best.values, best.achieved, best.noise, best.profile, count, len(finalists))


@dataclass(frozen=True)
class _Trial:
    """Values measured: the metrics (mean over the seeds), their standard errors (over the
    seeds: NaN with one), the pooled profile, the residuals and the loss (their sum of
    squares)."""

    values: dict[str, float]
    achieved: dict[str, float]
    noise: dict[str, float]
    profile: like.Profile | None
    residuals: np.ndarray
    loss: float


class _Search:
    """The trials run so far and the best of them."""

    def __init__(
        self,
        measured: Scene,
        knobs: Sequence[Knob],
        targets: Mapping[str, float],
        profile: like.Profile | None,
        task: Callable[[Scene, float, float], Any],
        seeds: int,
        base_seed: int,
    ) -> None:
        self.measured = measured  # the tuned group alone: group 0
        self.knobs = list(knobs)
        self.local = [
            dataclasses.replace(k, path=dataclasses.replace(k.path, group=0)) for k in knobs
        ]
        self.targets = dict(targets)
        self.floors: dict[str, float] = {}
        self.profile = profile
        self.seeds = seeds
        # The search's seeds follow the scene's own, which the check measures.
        self.first_seed = base_seed + 1
        self.trials: list[_Trial] = []

    @property
    def done(self) -> int:
        return len(self.trials)

    def best(self) -> _Trial:
        """The best trial so far."""
        return min(self.trials, key=lambda t: t.loss)

    def best_errors(self) -> dict[str, float]:
        return _errors(self.best().achieved, self.targets, self.floors)

    def met(self, tolerance: float) -> bool:
        """Whether a trial met every target within `tolerance`."""
        return bool(self.trials) and max(self.best_errors().values()) <= tolerance

    def log_values(self, values: Mapping[str, float]) -> np.ndarray:
        return np.log([values[k.name] for k in self.local])

    def run_batch(self, study: Any, size: int, run: Callable[..., None]) -> None:
        """Ask `study` for `size` trials, measure them on the cluster, tell their losses."""
        import optuna

        # The whole search space up front, so the sampler models the keys together from
        # a new study's first trial.
        space = {k.name: optuna.distributions.FloatDistribution(k.low, k.high, log=True)
                 for k in self.local}  # fmt: skip
        batch = [study.ask(fixed_distributions=space) for _ in range(size)]
        values = [{k.name: _round(t.params[k.name]) for k in self.local} for t in batch]
        for t, trial in zip(batch, self.measure(values, run), strict=True):
            study.tell(t, trial.loss)

    def measure(
        self,
        values: list[dict[str, float]],
        run: Callable[..., None],
        seeds: Sequence[int] | None = None,
    ) -> list[_Trial]:
        """Measure trials of these values on `seeds` (default: the search's, and they count
        as its trials; the same for every trial, so that trials differ by their values, not
        by their luck)."""
        counted = seeds is None
        if seeds is None:
            seeds = range(self.first_seed, self.first_seed + self.seeds)
        seeds = list(seeds)
        tasks = []
        for i, v in enumerate(values):
            trial_scene = apply(self.measured, self.local, v)
            for s in seeds:
                tasks.append((f"trial{self.done}-{i}-seed{s}", trial_scene.replace(seed=s)))
        results: dict[str, list[Any]] = {}
        run(tasks, on_result=results.__setitem__)
        trials = []
        for i, v in enumerate(values):
            runs = [results[f"trial{self.done}-{i}-seed{s}"][0] for s in seeds]
            achieved, noise, fitted = _achieved(runs, self.targets, self.profile)
            r = _residuals(achieved, self.targets)
            trials.append(_Trial(v, achieved, noise, fitted, r, float(r @ r)))
        if counted:
            self.trials += trials
        return trials


def _residuals(achieved: Mapping[str, float], targets: Mapping[str, float]) -> np.ndarray:
    """What the search minimises the sum of squares of: each target's signed relative error
    (the turn-angle distance's, target 0, is the distance itself: it counts in full, for with
    its floor taken off the search stops looking at the distribution's shape)."""
    errors = [(achieved[m] - goal) / (abs(goal) or 1.0) for m, goal in targets.items()]
    r = np.array(errors, dtype=np.float64)
    r[~np.isfinite(r)] = _UNDEFINED
    return np.clip(r, -_UNDEFINED, _UNDEFINED)


def check_tuned(
    tuned: Scene,
    targets: Mapping[str, float],
    profile: like.Profile | None,
    run: Callable[..., None],
) -> tuple[dict[str, float], dict[str, float]]:
    """The group's metrics in the tuned scene as it is written, every group at its own count,
    at the scene's own seed: exactly what `wander3d stats TUNED` measures (with --headings
    positions for a fit to tracks without velocities), on a seed the search never used; and
    their standard errors (`analysis.stats.sampling_errors` of its agents). `run` runs
    `like.measure_checked` for the tuned group."""
    results: dict[str, Any] = {}
    run([("check", tuned)], on_result=results.__setitem__)
    stats, fitted, errors = results["check"]
    checked = {
        m: like.turn_distance(fitted.turn_counts, profile.turn_counts)
        if m == like.TURN_DISTANCE and profile is not None
        else float(getattr(stats, m))
        for m in targets
    }
    return checked, {m: errors[m] for m in targets if m in errors}


def _achieved(
    runs: Sequence[Any], targets: Mapping[str, float], profile: like.Profile | None
) -> tuple[dict[str, float], dict[str, float], like.Profile | None]:
    """Each target's metric, the mean over the runs of one trial (GroupStats each, or
    (GroupStats, Profile) with a profile), its standard error over them (NaN for one run),
    and the runs' pooled profile."""
    stats = [r[0] if profile is not None else r for r in runs]
    fitted = None
    if profile is not None:
        counts = np.sum([r[1].turn_counts for r in runs], axis=0)
        fitted = like.Profile(counts, runs[0][1].lags, np.mean([r[1].msd for r in runs], axis=0))
    achieved: dict[str, float] = {}
    noise: dict[str, float] = {}
    for m in targets:
        if m == like.TURN_DISTANCE and fitted is not None and profile is not None:
            achieved[m] = like.turn_distance(fitted.turn_counts, profile.turn_counts)
            continue
        values = np.array([float(getattr(s, m)) for s in stats])
        achieved[m] = float(values.mean())
        noise[m] = (
            float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan
        )
    return achieved, noise, fitted


def _errors(
    achieved: Mapping[str, float], targets: Mapping[str, float], floors: Mapping[str, float]
) -> dict[str, float]:
    """Each target's relative error, less its floor (the error two samples of the target
    itself have, like.TrackTargets.floors), never below 0."""
    return {
        m: max(0.0, _relative_error(achieved[m], g) - floors.get(m, 0.0))
        for m, g in targets.items()
    }


#: A difference smaller than this many standard errors of itself cannot be told from
#: sampling noise (about 1 in 20 differences of nothing are larger).
NOISE_SIGMAS = 2.0


def _allowances(
    targets: Mapping[str, float], target_noise: Mapping[str, float], noise: Mapping[str, float]
) -> dict[str, float]:
    """Each target's allowance for sampling noise, relative to it: NOISE_SIGMAS standard
    errors of the difference between a measure and its target, from the target's own
    (`target_noise`: the tracks') and the measure's (`noise`); 0 where neither is known."""
    out = {}
    for m, goal in targets.items():
        parts = [target_noise.get(m, math.nan), noise.get(m, math.nan)]
        known = [p for p in parts if math.isfinite(p)]
        out[m] = NOISE_SIGMAS * math.hypot(*known) / (abs(goal) or 1.0) if known else 0.0
    return out


def _relative_error(achieved: float, target: float) -> float:
    """|achieved - target| / |target| (absolute error for a zero target; infinite for an
    undefined achieved value, so that it never counts as met)."""
    error = abs(achieved - target) / (abs(target) or 1.0)
    return error if math.isfinite(error) else math.inf


def tuned_toml(
    result: TuneResult,
    knobs: Sequence[Knob],
    group: str,
    source: str,
    measured: str | None = None,
    from_positions: bool = False,
    fitted_as: str | None = None,
) -> str:
    """The tuned scene as TOML, opening with comments saying what was tuned and how well;
    `measured`: the command that measures it as the check did; from_positions: the fit
    measured headings from positions (FITTED_FROM_POSITIONS says so to `stats`); fitted_as:
    the `stats` options of that command, which `stats` of the scene then takes as its
    defaults (FITTED_MEASURE)."""
    # A comment is one line: a newline in a path or name would end it and break the TOML.
    source, group = (t.replace("\r", "\\r").replace("\n", "\\n") for t in (source, group))
    lines = [
        f"Tuned by `wander3d tune` from {source}: group {group!r}, {result.trials} trials.",
        "Changed (all other keys as in the original scene):",
    ]
    lines += [
        f"  groups[{k.path.group}].{k.name}: {k.value:g} -> {result.values[k.name]:g}"
        for k in knobs
    ]
    lines.append(
        f"Metrics, achieved (mean over {result.final_seeds} seeds the search never used) vs target:"
    )
    lines += [
        f"  {m}: {result.achieved[m]:.4g} vs {goal:.4g} ({result.errors[m]:.1%} off)"
        for m, goal in result.targets.items()
    ]
    if result.checked:
        lines.append(
            f"Checked at this scene's own seed and the group's {result.checked_agents:,} "
            "agents, as it runs:"
        )
        lines += [
            f"  {m}: {result.checked[m]:.4g} vs {goal:.4g} ({result.checked_errors[m]:.1%} off)"
            for m, goal in result.targets.items()
        ]
    if measured is not None:
        measured = measured.replace("\r", "\\r").replace("\n", "\\n")
        lines.append(f"Measure it as the check did: {measured}")
    if from_positions:
        lines.append(FITTED_FROM_POSITIONS.removeprefix("# ") + " (as the tracks' were).")
    if fitted_as is not None:
        lines.append(f"{FITTED_MEASURE.removeprefix('# ')} {fitted_as}")
    header = "\n".join(f"# {line}" for line in lines)
    return f"{header}\n#\n{result.scene.to_toml()}"
