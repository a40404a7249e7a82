"""Key paths into a scene document: what a sweep varies and `tune` tunes.

    scene.dt                  a key of a top-level table (scene, enclosure)
    groups.max_speed          a group key, in every group
    groups.wander.jitter      a wander key, in every group
    groups[0].wander.jitter   ... in the first group only

Names are checked against the scene schema (`wander3d.scene.schema`); values are checked later,
by the scene layer, when each cell's scene is built.
"""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass
from typing import Any

from wander3d.scene import schema

#: Tables whose keys change what is simulated (camera and view change only the picture).
TABLES = ("scene", "enclosure", "groups", "groups.wander")
#: Keys that only name or draw things: varying them would change nothing measured.
_NOT_MEASURED = {("scene", "name"), ("groups", "name"), ("groups", "color")}

_PATH = re.compile(
    r"(?P<table>scene|enclosure)\.(?P<key>\w+)"
    r"|groups(?:\[(?P<index>\d+)\])?\.(?P<wander>wander\.)?(?P<gkey>\w+)"
)


class KeyPathError(ValueError):
    """A key path that names no sweepable scene key; str() is the problem, one line."""


@dataclass(frozen=True)
class KeyPath:
    """A parsed key path.

    table:  "scene", "enclosure", "groups" or "groups.wander";
    name:   the key within the table;
    group:  the group index for `groups[i]...`, None for every group (or a non-group table).
    """

    text: str
    table: str
    name: str
    group: int | None = None

    @property
    def schema_key(self) -> schema.Key:
        return schema.key(self.table, self.name)

    @property
    def is_integer(self) -> bool:
        return self.schema_key.type == schema.INTEGER

    def overlaps(self, other: KeyPath) -> bool:
        """Both set the same key of some group (or the same scene key)."""
        if (self.table, self.name) != (other.table, other.name):
            return False
        return self.group is None or other.group is None or self.group == other.group

    def check_groups(self, groups: int) -> None:
        """Raise KeyPathError if the path names a group the scene does not have."""
        if self.group is not None and self.group >= groups:
            raise KeyPathError(
                f"the scene has {groups} group{'s' if groups != 1 else ''} "
                f"(groups[0] to groups[{groups - 1}])"
            )

    def apply(self, doc: dict[str, Any], value: Any) -> dict[str, Any]:
        """A deep copy of scene document `doc` (as Scene.to_dict gives) with the key set."""
        out = copy.deepcopy(doc)
        if self.table in ("scene", "enclosure"):
            out[self.table][self.name] = value
            return out
        indices = range(len(out["groups"])) if self.group is None else [self.group]
        for i in indices:
            table = out["groups"][i]
            if self.table == "groups.wander":
                table = table["wander"]
            table[self.name] = value
        return out

    def read(self, doc: dict[str, Any]) -> Any:
        """The key's value in `doc` (the first group's for an every-group path), or None."""
        if self.table in ("scene", "enclosure"):
            return doc[self.table].get(self.name)
        table = doc["groups"][self.group or 0]
        if self.table == "groups.wander":
            table = table["wander"]
        return table.get(self.name)


def parse_key_path(text: Any) -> KeyPath:
    """Parse and check a key path; KeyPathError (one line) if it names no sweepable key."""
    if not isinstance(text, str):
        raise KeyPathError(
            f"expected a key path string such as 'groups.wander.jitter', got {text!r}"
        )
    m = _PATH.fullmatch(text)
    if m is None:
        raise KeyPathError(
            f"'{text}' is not a key path: expected TABLE.KEY (scene, enclosure), groups.KEY, "
            "groups.wander.KEY, or groups[i]... for group i only"
        )
    if m["table"]:
        table, name, group = m["table"], m["key"], None
    else:
        table = "groups.wander" if m["wander"] else "groups"
        name, group = m["gkey"], None if m["index"] is None else int(m["index"])
    known = [k for k in schema.keys_of(table) if (table, k) not in _NOT_MEASURED]
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f", did you mean '{close[0]}'?" if close else f" (one of: {', '.join(known)})"
        raise KeyPathError(f"'{text}': {table} has no key '{name}' to vary{hint}")
    return KeyPath(text=text, table=table, name=name, group=group)
