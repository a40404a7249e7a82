"""The parameter table (`schema.KEYS`): the live sliders, the keys that size a run and the
ports' numbers are its columns, and every list of them elsewhere is read from it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from wander3d.engine import (
    FIXED_GROUP_FIELDS,
    METHODS,
    GroupParams,
    RunSpec,
    Simulation,
    WanderParams,
)
from wander3d.port.plan import GROUP_NUMBERS, camel_case, group_numbers
from wander3d.scene import schema
from wander3d.scene.tunables import PARAMS, param_value, tunable_keys
from wander3d.session.edits import FIXED_FIELDS, GroupEdit

GROUP_TABLES = ("groups", "groups.wander")


def rows(table: str) -> list[schema.Key]:
    return list(schema.keys_of(table).values())


def test_sliders_are_the_rows_with_a_slider():
    expected = {
        k.name: (k.table, k.panel.label, k.panel.lo, k.panel.hi, k.panel.log)
        for table in GROUP_TABLES
        for k in rows(table)
        if isinstance(k.panel, schema.Slider)
    }
    assert {n: (p.table, p.label, p.lo, p.hi, p.log) for n, p in PARAMS.items()} == expected
    assert {k.path for k in schema.KEYS if k.tunable} == {
        f"{p.table}.{n}" for n, p in PARAMS.items()
    }


def test_a_slider_is_a_float_keys_and_stays_within_its_range():
    for k in schema.KEYS:
        if not isinstance(k.panel, schema.Slider):
            continue
        assert k.type == schema.FLOAT and k.table in GROUP_TABLES, k.path
        assert k.panel.lo < k.panel.hi
        assert k.lo is None or k.panel.lo >= k.lo, k.path
        assert k.hi is None or k.panel.hi <= k.hi, k.path
        assert not k.panel.log or k.panel.lo > 0, k.path


def test_spin_boxes_are_whole_number_keys_with_a_range():
    spins = [k for k in schema.KEYS if isinstance(k.panel, schema.SpinBox)]
    assert spins
    for k in spins:
        assert k.type == schema.INTEGER and k.lo is not None and k.hi is not None, k.path


@pytest.mark.parametrize("method", METHODS)
def test_each_method_is_offered_the_sliders_of_the_keys_it_reads(method):
    group = GroupParams(count=3, wander=WanderParams(method=method))
    keys = tunable_keys(group)
    read = {k.name for k in rows("groups.wander") if not k.methods or method in k.methods}
    assert set(keys) == {n for n, p in PARAMS.items() if p.table == "groups" or n in read}
    # Wander keys first, each table in the reference's order.
    order = [k.name for table in ("groups.wander", "groups") for k in rows(table)]
    assert list(keys) == sorted(keys, key=order.index)
    for key in keys:
        owner = group.wander if PARAMS[key].table == "groups.wander" else group
        assert param_value(group, key) == getattr(owner, key)


def test_the_fixed_keys_are_the_engines_and_the_sessions():
    fixed = tuple(k.name for k in schema.KEYS if k.fixed)
    assert fixed == FIXED_GROUP_FIELDS == ("count", "trail_length", "trail_seconds")
    assert FIXED_FIELDS == frozenset(fixed)
    assert all(k.table == "groups" for k in schema.KEYS if k.fixed)
    # The reference says so, and only of them.
    for k in schema.KEYS:
        line = next(r for r in schema.markdown_table().splitlines() if f"`{k.path}`" in r)
        assert (schema.FIXED_NOTE in line) == k.fixed, k.path


def test_a_running_simulation_refuses_exactly_the_fixed_keys():
    group = GroupParams(count=4, trail_length=8, wander=WanderParams(method="sphere"))
    sim = Simulation(RunSpec(seed=1, groups=(group,)), threads=1)
    for k in rows("groups"):
        if k.type not in (schema.INTEGER, schema.FLOAT) or k.name == "initial_speed":
            continue
        changed = dataclasses.replace(group, **{k.name: getattr(group, k.name) + 1})
        if k.fixed:
            with pytest.raises(ValueError, match=f"{k.name} cannot change"):
                sim.update_group(0, changed)
            with pytest.raises(ValueError, match=f"{k.name} cannot change"):
                GroupEdit(0, {k.name: getattr(changed, k.name)})
            with pytest.raises(ValueError, match=f"{k.name} cannot change"):
                sim.adopt_groups((changed,))
        else:
            sim.update_group(0, changed)
            sim.update_group(0, group)
            GroupEdit(0, {k.name: getattr(changed, k.name)})


def test_port_numbers_are_the_rows_with_a_port_number_in_order():
    expected = []
    for table in GROUP_TABLES:
        for k in rows(table):
            if k.port is not None:
                owner = "wander." if table == "groups.wander" else ""
                expected.append(
                    (camel_case(k.name), owner + (k.port.attribute or k.name), k.port.note)
                )
    assert list(GROUP_NUMBERS) == expected
    assert all(k.port is None for k in schema.KEYS if k.table not in GROUP_TABLES)
    assert all(k.port.note.isascii() for k in schema.KEYS if k.port), "port notes are ASCII"


def test_every_wander_number_reaches_the_ports():
    # A port that lacked one would step differently from the engine.
    floats = {k.name for k in rows("groups.wander") if k.type == schema.FLOAT}
    ported = {attribute.removeprefix("wander.") for _, attribute, _ in GROUP_NUMBERS}
    assert floats <= ported


def test_group_numbers_read_each_rows_value():
    params = GroupParams(
        count=2, max_speed=12.5, initial_speed=None,
        wander=WanderParams(method="noise", frequency=0.7, vertical=0.25),
    )  # fmt: skip
    numbers = {name: value for name, value, _ in group_numbers(params)}
    assert numbers["maxSpeed"] == 12.5
    assert numbers["initialSpeed"] == 6.25  # the resolved default, max_speed / 2
    assert numbers["frequency"] == 0.7 and numbers["vertical"] == 0.25
    assert [n for n, _, _ in group_numbers(params)] == [n for n, _, _ in GROUP_NUMBERS]
    assert all(np.isfinite(v) for v in numbers.values())


def test_camel_case():
    assert camel_case("max_speed") == "maxSpeed"
    assert camel_case("initial_speed") == "initialSpeed"
    assert camel_case("mass") == "mass"


def test_the_readmes_example_row_is_the_tables():
    from scene_support import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    k = schema.key("groups.wander", "jitter")
    assert isinstance(k.panel, schema.Slider) and k.port is not None
    default = f'_engine_default(_W, "{k.name}")'
    assert f'Key("{k.table}", "{k.name}", FLOAT, {default}, "{k.unit}",' in text
    assert f'panel=Slider("{k.panel.label}", {k.panel.lo}, {k.panel.hi}),' in text
    assert f'port=PortNumber("{k.port.note}"))' in text
