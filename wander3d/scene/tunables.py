"""The parameters people tune live, with their slider ranges: the app's panel and the shared
web page (`wander3d share`) offer the same ones, on the same scales.

Qt-free, so headless layers can describe the controls without drawing them.
"""

from __future__ import annotations

from dataclasses import dataclass

from wander3d.engine import METHOD_KEYS, GroupParams


@dataclass(frozen=True)
class ParamSpec:
    """A tunable parameter: a GroupParams field ("groups") or a WanderParams one.

    lo, hi: the slider's default range (units of the parameter); a scene value beyond it
    stretches it. log: the slider is logarithmic (for a parameter that spans decades; lo > 0).
    """

    key: str
    table: str
    label: str
    lo: float
    hi: float
    log: bool = False


PARAMS = {
    p.key: p
    for p in (
        ParamSpec("distance", "groups.wander", "Distance", 0.0, 120.0),
        ParamSpec("radius", "groups.wander", "Radius", 0.1, 60.0, log=True),
        ParamSpec("jitter", "groups.wander", "Jitter", 0.0, 60.0),
        ParamSpec("rate", "groups.wander", "Rate", 0.0, 5.0),
        ParamSpec("frequency", "groups.wander", "Frequency", 0.01, 3.0, log=True),
        ParamSpec("interval", "groups.wander", "Interval", 0.1, 30.0, log=True),
        ParamSpec("vertical", "groups.wander", "Vertical", 0.0, 1.0),
        ParamSpec("max_speed", "groups", "Max speed", 0.5, 300.0, log=True),
        ParamSpec("max_force", "groups", "Max force", 0.5, 600.0, log=True),
    )
}


def tunable_keys(group: GroupParams) -> tuple[str, ...]:
    """The parameters offered for `group`: its method's wander keys, how much it moves up and
    down, then its limits."""
    return (*METHOD_KEYS[group.wander.method], "vertical", "max_speed", "max_force")


def param_value(group: GroupParams, key: str) -> float:
    spec = PARAMS[key]
    return float(getattr(group.wander if spec.table == "groups.wander" else group, key))
