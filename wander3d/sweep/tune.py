"""Tuning: find parameter values of one group whose measured metrics match targets.

Coarse to fine: optuna's TPE sampler (seeded) proposes values over the whole ranges for half
the trials, then a seeded local search steps around the best point so far. Each batch's runs
go to the Dask cluster through `execute.run_tasks`, the same path as a sweep. The loss is the
sum of squared relative errors of the group's metrics (each the mean over seeds). Batches
have a fixed size, not the number of workers, so the same command finds the same values on
any cluster. Tuning runs only the tuned group (groups do not interact; its metrics do not
depend on the others) with `agents` agents, and stops when every metric is within
`tolerance` of its target (less its floor, if it has one).

The best of many noisy trials flatters itself (its seeds happened to suit it), and `agents`
may be fewer than the scene keeps: so the winner is measured once more, the whole tuned
scene at its own seed (what `wander3d stats` of it runs) and further seeds the search never
used, and that check is reported beside what the search saw.
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
from wander3d.analysis.tracks import FITTED_FROM_POSITIONS
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
    """The best trial: values per knob name, the targets, the achieved metric per target and
    its relative error, trials run, and the full tuned scene (the original scene with only the
    knobs changed); with a profile to match (`tune --like`), the best trial's profile (turn
    counts summed and MSD averaged over its seeds)."""

    values: dict[str, float]
    targets: dict[str, float]
    achieved: dict[str, float]
    errors: dict[str, float]
    trials: int
    scene: Scene
    #: The check: metrics (mean over new seeds) and errors of the tuned scene's group at its
    #: own agent count `checked_agents`; empty when tune was not asked to check.
    checked: dict[str, float] = dataclasses.field(default_factory=dict)
    checked_errors: dict[str, float] = dataclasses.field(default_factory=dict)
    checked_agents: int = 0
    profile: like.Profile | None = None


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
    trials: int = 64,
    tolerance: float = 0.05,
    seed: int = 0,
    profile: like.Profile | None = None,
    from_positions: bool = False,
    on_batch: Callable[[int, dict[str, float]], None] | None = None,
    check: bool = True,
    timeout: float = execute.CONNECT_TIMEOUT_S,
    floors: Mapping[str, float] | None = None,
) -> TuneResult:
    """Search the knobs' values of group `index` so its metrics (mean over `seeds` runs of
    `seconds`) meet `targets` (metric -> value); at most `trials` trials.

    With a `profile` (recorded tracks'), the target like.TURN_DISTANCE is the distance of the
    group's turn-angle distribution (its seeds' pooled) from the profile's; from_positions:
    the group's headings are taken from its positions, as the tracks' were. on_batch(
    trials_done, best_errors) is called after each batch. floors: metric -> an error no
    closer fit can beat (its own sampling noise), taken off that metric's error. Returns the
    best trial, with
    `check`, measured again as `check_tuned` says. ClusterError as `execute.run_tasks`
    raises it (`timeout`: seconds without workers).
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
    with _quiet_optuna() as optuna:
        # Coarse to fine: TPE over the whole ranges finds the basin, then a local search
        # around the best point so far (steps shrinking when a batch finds nothing better)
        # finds its floor, which TPE's wide proposals rarely hit.
        coarse = max(BATCH, round(trials * COARSE_SHARE))
        study = optuna.create_study(
            sampler=optuna.samplers.TPESampler(seed=seed, multivariate=True)
        )
        study.enqueue_trial({k.name: k.start for k in knobs})
        local = _LocalSteps(seed)
        while search.done < trials and not search.met(tolerance):
            batch = min(BATCH, trials - search.done)
            if search.done < coarse:
                search.run_batch(study, batch, run)
            else:
                local.run_batch(search, batch, run)
            if on_batch is not None:
                on_batch(search.done, search.best_errors())
    tuned = apply(scene, knobs, search.best_values)
    checked = check_tuned(tuned, index, seeds, targets, profile, run) if check else {}
    achieved = search.best_achieved
    return TuneResult(
        values=search.best_values,
        targets=dict(targets),
        achieved=achieved,
        errors=_errors(achieved, targets, floors),
        trials=search.done,
        scene=tuned,
        checked=checked,
        checked_errors=_errors(checked, targets, floors) if checked else {},
        checked_agents=tuned.groups[index].count if check else 0,
        profile=search.best_profile,
    )


#: The share of the trials the coarse TPE search takes; the local search has the rest.
COARSE_SHARE = 0.5


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


#: The local search's first step (log scale: about 15% of each value), and how it shrinks
#: after a batch that found nothing better.
LOCAL_STEP = 0.15
LOCAL_SHRINK = 0.6


class _LocalSteps:
    """A seeded (1 + batch) evolution strategy in log space around the best values: each
    batch tries random steps of `step` from the best point, and shrinks the step when none
    of them is better."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.step = LOCAL_STEP

    def run_batch(self, search: _Search, size: int, run: Callable[..., None]) -> None:
        centre = search.best_values
        values = [
            {
                k.name: _round(
                    min(
                        max(centre[k.name] * math.exp(self.step * self.rng.normal()), k.low), k.high
                    )
                )
                for k in search.local
            }
            for _ in range(size)
        ]
        if not search.run_values(values, run):
            self.step *= LOCAL_SHRINK


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
        # The search's seeds follow the scene's own, which the check measures first.
        self.first_seed = base_seed + 1
        self.done = 0
        self.best_loss = math.inf
        self.best_values = {k.name: k.start for k in knobs}
        self.best_achieved = {m: math.nan for m in targets}
        self.best_profile: like.Profile | None = None

    def best_errors(self) -> dict[str, float]:
        return _errors(self.best_achieved, self.targets, self.floors)

    def met(self, tolerance: float) -> bool:
        return self.done > 0 and max(self.best_errors().values()) <= tolerance

    def run_batch(self, study: Any, size: int, run: Callable[..., None]) -> None:
        """Ask `study` for `size` trials, measure them on the cluster, tell their losses."""
        import optuna

        # The whole search space up front: a sampler that models the knobs together (CMA-ES)
        # samples them so from a new study's first trial, not at random.
        space = {k.name: optuna.distributions.FloatDistribution(k.low, k.high, log=True)
                 for k in self.local}  # fmt: skip
        batch = [study.ask(fixed_distributions=space) for _ in range(size)]
        values = [{k.name: _round(t.params[k.name]) for k in self.local} for t in batch]
        losses = self._measure(values, run)
        for t, loss in zip(batch, losses, strict=True):
            study.tell(t, loss)

    def run_values(self, values: list[dict[str, float]], run: Callable[..., None]) -> bool:
        """Measure trials of these values; whether one of them is the best so far."""
        best = self.best_loss
        self._measure(values, run)
        return self.best_loss < best

    def _measure(self, values: list[dict[str, float]], run: Callable[..., None]) -> list[float]:
        """Each trial's loss (the sum of squared relative errors), keeping the best."""
        tasks = []
        for i, v in enumerate(values):
            trial_scene = apply(self.measured, self.local, v)
            for s in range(self.seeds):
                key = f"trial{self.done + i}-seed{s}"
                tasks.append((key, trial_scene.replace(seed=self.first_seed + s)))
        results: dict[str, list[Any]] = {}
        run(tasks, on_result=results.__setitem__)
        losses = []
        for i, v in enumerate(values):
            runs = [results[f"trial{self.done + i}-seed{s}"][0] for s in range(self.seeds)]
            achieved, fitted = _achieved(runs, self.targets, self.profile)
            # The loss counts every error in full (a floor would hide the turn angles'
            # shape from the search); whether a target is met allows for its floor.
            errors = _errors(achieved, self.targets, {})
            loss = sum(e * e for e in errors.values())
            loss = loss if math.isfinite(loss) else 1e12
            losses.append(loss)
            if loss < self.best_loss:
                self.best_loss, self.best_values = loss, v
                self.best_achieved, self.best_profile = achieved, fitted
        self.done += len(values)
        return losses


def check_seeds(scene: Scene, seeds: int) -> list[int]:
    """The seeds the check measures: the scene's own (what `wander3d stats` of the tuned
    scene runs), then seeds after the search's (`_Search` uses seed + 1 .. seed + seeds)."""
    return [scene.seed] + [scene.seed + seeds + k for k in range(1, seeds)]


def check_tuned(
    tuned: Scene,
    index: int,
    seeds: int,
    targets: Mapping[str, float],
    profile: like.Profile | None,
    run: Callable[..., None],
) -> dict[str, float]:
    """The group's metrics in the tuned scene as it is written, every group at its own count,
    mean over `check_seeds`: the first is exactly what `wander3d stats TUNED` measures (with
    --headings positions for a fit to tracks without velocities), and none was searched."""
    tasks = [(f"check-seed{s}", tuned.replace(seed=s)) for s in check_seeds(tuned, seeds)]
    stats: dict[str, list[Any]] = {}
    run(tasks, on_result=stats.__setitem__)
    runs = [stats[key][index] for key, _ in tasks]
    checked, _ = _achieved(runs, targets, profile)
    return checked


def _achieved(
    runs: Sequence[Any], targets: Mapping[str, float], profile: like.Profile | None
) -> tuple[dict[str, float], like.Profile | None]:
    """Each target's metric, the mean over the runs of one trial (GroupStats each, or
    (GroupStats, Profile) with a profile), and the runs' pooled profile."""
    if profile is None:
        return {m: sum(getattr(r, m) for r in runs) / len(runs) for m in targets}, None
    stats = [r[0] for r in runs]
    counts = np.sum([r[1].turn_counts for r in runs], axis=0)
    fitted = like.Profile(counts, runs[0][1].lags, np.mean([r[1].msd for r in runs], axis=0))
    achieved = {
        m: like.turn_distance(counts, profile.turn_counts)
        if m == like.TURN_DISTANCE
        else sum(getattr(s, m) for s in stats) / len(stats)
        for m in targets
    }
    return achieved, fitted


def _errors(
    achieved: Mapping[str, float], targets: Mapping[str, float], floors: Mapping[str, float]
) -> dict[str, float]:
    """Each target's relative error, less its floor (the error two samples of the target
    itself have, like.TrackTargets.floors), never below 0."""
    return {
        m: max(0.0, _relative_error(achieved[m], g) - floors.get(m, 0.0))
        for m, g in targets.items()
    }


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
) -> str:
    """The tuned scene as TOML, opening with comments saying what was tuned and how well;
    `measured`: the command that measures it as the check did; from_positions: the fit
    measured headings from positions (FITTED_FROM_POSITIONS says so to `stats`)."""
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
    lines.append("Metrics (mean over the seeds tuned with), achieved vs target:")
    lines += [
        f"  {m}: {result.achieved[m]:.4g} vs {goal:.4g} ({result.errors[m]:.1%} off)"
        for m, goal in result.targets.items()
    ]
    if result.checked:
        lines.append(
            f"Checked with new seeds at the group's {result.checked_agents:,} agents, "
            "as this scene runs it:"
        )
        lines += [
            f"  {m}: {result.checked[m]:.4g} vs {goal:.4g} ({result.checked_errors[m]:.1%} off)"
            for m, goal in result.targets.items()
        ]
    if measured is not None:
        measured = measured.replace("\r", "\\r").replace("\n", "\\n")
        lines.append(f"Measure it as the check's first seed: {measured}")
    if from_positions:
        lines.append(FITTED_FROM_POSITIONS.removeprefix("# ") + " (as the tracks' were).")
    header = "\n".join(f"# {line}" for line in lines)
    return f"{header}\n#\n{result.scene.to_toml()}"
