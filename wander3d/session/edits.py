"""Live parameter edits as commands: what to change, resolved against the live groups.

An edit names a group and the fields to change (`GroupParams` fields such as `max_speed`, or
`WanderParams` fields such as `jitter`), not a whole new `GroupParams`: it is applied on the
engine's thread to the group as it is at that moment, so two edits in quick succession both
land, whatever else changed in between.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from wander3d.engine import FIXED_GROUP_FIELDS, GroupParams, WanderParams

#: GroupParams fields a running simulation cannot change (they size its arrays).
FIXED_FIELDS = frozenset(FIXED_GROUP_FIELDS)
_GROUP_FIELDS = frozenset(f.name for f in dataclasses.fields(GroupParams)) - {"wander"}
_WANDER_FIELDS = frozenset(f.name for f in dataclasses.fields(WanderParams))


@dataclass(frozen=True)
class GroupEdit:
    """Change some fields of group `group`; `changes` maps field names to new values."""

    group: int
    changes: Mapping[str, Any]

    def __post_init__(self) -> None:
        unknown = set(self.changes) - _GROUP_FIELDS - _WANDER_FIELDS
        if unknown:
            raise ValueError(f"not a group or wander parameter: {', '.join(sorted(unknown))}")
        fixed = set(self.changes) & FIXED_FIELDS
        if fixed:
            raise ValueError(f"{', '.join(sorted(fixed))} cannot change in a running simulation")
        object.__setattr__(self, "changes", MappingProxyType(dict(self.changes)))

    def apply(self, params: GroupParams) -> GroupParams:
        """`params` with the changes made. A start speed above a lowered speed limit comes
        down with it (a scene may not start agents faster than they may go)."""
        wander = {k: v for k, v in self.changes.items() if k in _WANDER_FIELDS}
        group = {k: v for k, v in self.changes.items() if k in _GROUP_FIELDS}
        if wander:
            group["wander"] = dataclasses.replace(params.wander, **wander)
        limit = group.get("max_speed")
        start = group.get("initial_speed", params.initial_speed)
        if limit is not None and start is not None and start > limit:
            group["initial_speed"] = limit
        return dataclasses.replace(params, **group)
