"""Tuning: find parameter values of one group whose measured metrics match targets.

Optuna's TPE sampler (seeded) proposes values in batches; each batch's runs go to the Dask
cluster through `execute.run_tasks`, the same path as a sweep. The loss is the sum of squared
relative errors of the group's metrics (each the mean over seeds). Batches have a fixed size,
not the number of workers, so the same command finds the same values on any cluster. Tuning
runs only the tuned group (groups do not interact; its metrics do not depend on the others)
with `agents` agents, and stops when every metric is within `tolerance` of its target.

The best of many noisy trials flatters itself (its seeds happened to suit it), and `agents`
may be fewer than the scene keeps: so the winner is measured once more, with seeds the
search never used and at the group's own size in the scene, and that check is reported
beside what the search saw.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wander3d.analysis.metric_table import TARGETS
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
    its path in the scene, the search bounds and the value it had."""

    name: str
    path: KeyPath
    low: float
    high: float
    start: float


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
    return Knob(name, path, low, high, float(start))


def _round(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def tuning_scene(scene: Scene, index: int, agents: int | None) -> Scene:
    """The scene tuning measures: only the tuned group, with `agents` agents if given."""
    group = scene.groups[index]
    if agents is not None:
        group = dataclasses.replace(group, count=agents)
    return scene.replace(groups=(group,))


def apply(scene: Scene, knobs: Sequence[Knob], values: Mapping[str, float]) -> Scene:
    """`scene` with each knob set to its value (validated: SceneError if it is invalid)."""
    doc = scene.to_dict()
    for knob in knobs:
        doc = knob.path.apply(doc, values[knob.name])
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
) -> TuneResult:
    """Search the knobs' values of group `index` so its metrics (mean over `seeds` runs of
    `seconds`) meet `targets` (metric -> value); at most `trials` trials.

    With a `profile` (recorded tracks'), the target like.TURN_DISTANCE is the distance of the
    group's turn-angle distribution (its seeds' pooled) from the profile's; from_positions:
    the group's headings are taken from its positions, as the tracks' were. on_batch(
    trials_done, best_errors) is called after each batch. Returns the best trial, with
    `check`, measured again with `seeds` new seeds at the group's own agent count.
    ClusterError as `execute.run_tasks` raises it (`timeout`: seconds without workers).
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # The tuned group is group 0 of the measured scene: point the knobs there.
    measured = tuning_scene(scene, index, agents)
    local = [dataclasses.replace(k, path=dataclasses.replace(k.path, group=0)) for k in knobs]
    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial({k.name: k.start for k in knobs})
    best: tuple[float, dict[str, float], dict[str, float], like.Profile | None] = (
        math.inf,
        {k.name: k.start for k in knobs},
        {m: math.nan for m in targets},
        None,
    )
    task: Callable[[Scene, float, float], Any] = execute.measure
    if profile is not None:
        task = functools.partial(like.measure_profile, from_positions=from_positions)
    done = 0
    while done < trials:
        batch = [study.ask() for _ in range(min(BATCH, trials - done))]
        values = [
            {k.name: _round(t.suggest_float(k.name, k.low, k.high, log=True)) for k in local}
            for t in batch
        ]
        tasks = []
        for t, v in zip(batch, values, strict=True):
            trial_scene = apply(measured, local, v)
            for s in range(seeds):
                tasks.append((f"trial{t.number}-seed{s}", trial_scene.replace(seed=scene.seed + s)))
        results: dict[str, list[Any]] = {}
        execute.run_tasks(
            client, tasks, seconds, sample_rate, results.__setitem__, task, timeout=timeout
        )
        for t, v in zip(batch, values, strict=True):
            runs = [results[f"trial{t.number}-seed{s}"][0] for s in range(seeds)]
            achieved, fitted = _achieved(runs, targets, profile)
            errors = {m: _relative_error(achieved[m], goal) for m, goal in targets.items()}
            loss = sum(e * e for e in errors.values())
            loss = loss if math.isfinite(loss) else 1e12
            study.tell(t, loss)
            if loss < best[0]:
                best = (loss, v, achieved, fitted)
        done += len(batch)
        best_errors = {m: _relative_error(best[2][m], g) for m, g in targets.items()}
        if on_batch is not None:
            on_batch(done, best_errors)
        if max(best_errors.values()) <= tolerance:
            break
    _, values_best, achieved, fitted = best
    tuned = apply(scene, knobs, values_best)
    checked: dict[str, float] = {}
    if check:
        # New seeds (after the search's), the group's own count: what the scene will show.
        own = tuning_scene(tuned, index, None)
        tasks = [(f"check-seed{s}", own.replace(seed=scene.seed + seeds + s)) for s in range(seeds)]
        stats: dict[str, list[Any]] = {}
        execute.run_tasks(
            client, tasks, seconds, sample_rate, stats.__setitem__, task, timeout=timeout
        )
        checked, _ = _achieved([stats[f"check-seed{s}"][0] for s in range(seeds)], targets, profile)
    return TuneResult(
        values=values_best,
        targets=dict(targets),
        achieved=achieved,
        errors={m: _relative_error(achieved[m], g) for m, g in targets.items()},
        trials=done,
        scene=tuned,
        checked=checked,
        checked_errors={m: _relative_error(checked[m], g) for m, g in targets.items() if checked},
        checked_agents=tuned.groups[index].count if check else 0,
        profile=fitted,
    )


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


def _relative_error(achieved: float, target: float) -> float:
    """|achieved - target| / |target| (absolute error for a zero target; infinite for an
    undefined achieved value, so that it never counts as met)."""
    error = abs(achieved - target) / (abs(target) or 1.0)
    return error if math.isfinite(error) else math.inf


def tuned_toml(result: TuneResult, knobs: Sequence[Knob], group: str, source: str) -> str:
    """The tuned scene as TOML, opening with comments saying what was tuned and how well."""
    # A comment is one line: a newline in a path or name would end it and break the TOML.
    source, group = (t.replace("\r", "\\r").replace("\n", "\\n") for t in (source, group))
    lines = [
        f"Tuned by `wander3d tune` from {source}: group {group!r}, {result.trials} trials.",
        "Changed (all other keys as in the original scene):",
    ]
    lines += [
        f"  groups[{k.path.group}].{k.name}: {k.start:g} -> {result.values[k.name]:g}"
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
    header = "\n".join(f"# {line}" for line in lines)
    return f"{header}\n#\n{result.scene.to_toml()}"
