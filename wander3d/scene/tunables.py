"""The parameters people tune live, with their slider ranges: the app's panel and the shared
web page (`wander3d share`) offer the same ones, on the same scales.

A view of the parameter table (`schema.KEYS`, the rows with a `Slider`): which keys, their
labels and ranges are declared there. Qt-free, so headless layers can describe the controls
without drawing them.
"""

from __future__ import annotations

from dataclasses import dataclass

from wander3d.engine import GroupParams

from . import schema


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


def _spec(k: schema.Key, slider: schema.Slider) -> ParamSpec:
    return ParamSpec(k.name, k.table, slider.label, slider.lo, slider.hi, slider.log)


#: The tunable keys by name, wander keys first, each table in the schema's order.
PARAMS = {
    k.name: _spec(k, k.panel)
    for table in ("groups.wander", "groups")
    for k in schema.keys_of(table).values()
    if isinstance(k.panel, schema.Slider)
}


def tunable_keys(group: GroupParams) -> tuple[str, ...]:
    """The parameters offered for `group`: the wander keys its method reads and the ones every
    method reads (how much it moves up and down), then its limits."""
    method = group.wander.method
    wander = schema.keys_of("groups.wander")
    return tuple(
        name
        for name, spec in PARAMS.items()
        if spec.table == "groups" or not wander[name].methods or method in wander[name].methods
    )


def param_value(group: GroupParams, key: str) -> float:
    spec = PARAMS[key]
    return float(getattr(group.wander if spec.table == "groups.wander" else group, key))
