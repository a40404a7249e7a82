"""The parameter table: one row per scene-file key, read by every layer that needs to know.

Each `Key` names its table, type, default, unit, allowed range and meaning, how the app's panel
and the shared page offer it live (`panel`: a slider, or a spin box for a key that sizes the
run), and the number a port's scene block sets for it (`port`). Whether a running simulation
can change it (`fixed`) and its default are the engine's, read rather than repeated
(`wander3d.engine.params`).

Readers: validation (`wander3d.scene.validate`: ranges, choices, the words of `wander3d check`'s
errors), the `Scene` dataclasses' defaults, the README's reference (`markdown_table()`), the
panel's and the shared page's controls (`wander3d.scene.tunables`), sweep and tune key paths
(`wander3d.sweep.keys`) and the ports' scene blocks (`wander3d.port.plan.GROUP_NUMBERS`).
Adding a parameter is one row here (plus, for an engine parameter, its field in
`wander3d.engine.params` and its use in the kernel).

Run `python -m wander3d.scene README.md` to refresh the README's table in place.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wander3d.engine.methods import METHOD_KEYS, METHOD_TABLE, METHODS
from wander3d.engine.params import (
    FIXED_GROUP_FIELDS,
    SHARED_WANDER_KEYS,
    STEERING_MODES,
    Enclosure,
    GroupParams,
    RunSpec,
    WanderParams,
)

#: Value types a key can have; the strings are also what the docs show.
INTEGER = "integer"
FLOAT = "float"
STRING = "string"
BOOLEAN = "boolean"
CHOICE = "choice"
COLOR = "colour"
VEC3 = "[x, y, z]"

CAMERA_MODES = ("turntable", "arcball", "fly")

#: Sensible upper bounds: beyond these a scene is a typo, not a wish (and float32 trails and
#: the GPU lose precision long before).
MAX_COUNT = 10_000_000
MAX_GROUPS = 256
MAX_TRAIL_LENGTH = 100_000
MAX_TRAIL_SECONDS = 3600.0
MAX_MAGNITUDE = 1e6
MAX_NAME_LENGTH = 100
#: The smallest time step (s): 100,000 steps per simulated second.
MIN_DT = 1e-5

#: Colours given to groups that do not set one, by position (the first is the engine's).
GROUP_PALETTE = (
    "#ffb000",
    "#4cc9f0",
    "#f72585",
    "#80ed99",
    "#b388ff",
    "#ff6b35",
    "#e9ff70",
    "#00f5d4",
)


@dataclass(frozen=True)
class Slider:
    """A float key the app's panel and the shared page let people tune while the run goes.

    label:   what the control says ("Max speed");
    lo, hi:  the slider's default range (the key's unit); a scene value beyond it stretches it;
    log:     a logarithmic slider, for a key that spans decades (lo > 0).
    """

    label: str
    lo: float
    hi: float
    log: bool = False


@dataclass(frozen=True)
class SpinBox:
    """A whole-number key the app's panel offers in a spin box (its range: the key's).

    label:       what the panel says beside it ("Agents");
    shows_unit:  the number is followed by the key's unit (not where the label says it).
    """

    label: str
    shows_unit: bool = True


@dataclass(frozen=True)
class PortNumber:
    """A group key as a number of every port's scene block (`wander3d.port.plan`).

    note:       the comment beside it in the generated code (ASCII: unit, and what it does);
    attribute:  the GroupParams attribute the port takes its value from, where it is not the
                key itself (initial_speed: `start_speed`, the default resolved).
    The port's name for it is the key in camelCase (max_speed: maxSpeed).
    """

    note: str
    attribute: str | None = None


@dataclass(frozen=True)
class Key:
    """One key of a scene file.

    table:    where it lives: "scene", "enclosure", "camera", "view", "groups" (each
              `[[groups]]` table) or "groups.wander".
    name:     the key as written in the file.
    type:     one of INTEGER, FLOAT, STRING, BOOLEAN, CHOICE, COLOR, VEC3.
    default:  the value used when the key is absent; None means "computed" (see default_doc)
              or "absent" for optional keys.
    unit:     the unit, "" for none.
    doc:      what it means, one or two sentences.
    lo, hi:   allowed range (None: unbounded on that side); lo_open/hi_open make it strict.
    choices:  allowed strings for CHOICE keys.
    required: the key has no default and must be given.
    default_doc: how the docs show a computed default.
    methods:  for wander keys only: the methods that read it; empty means every method.
    panel:    how the app's panel offers it: a Slider (tuned live; the shared page offers it
              too), a SpinBox (whole numbers), or None (not in the panel).
    port:     for group keys: the number a port's scene block sets for it, or None.
    """

    table: str
    name: str
    type: str
    default: Any
    unit: str
    doc: str
    lo: float | None = None
    lo_open: bool = False
    hi: float | None = None
    hi_open: bool = False
    choices: tuple[str, ...] = ()
    required: bool = False
    default_doc: str | None = None
    methods: tuple[str, ...] = ()
    panel: Slider | SpinBox | None = None
    port: PortNumber | None = None

    @property
    def tunable(self) -> bool:
        """Whether people tune it live (a slider in the panel and on the shared page)."""
        return isinstance(self.panel, Slider)

    @property
    def fixed(self) -> bool:
        """Whether it sizes the simulation, so a running one cannot change it (the engine's
        FIXED_GROUP_FIELDS): the app restarts the run to change it."""
        return self.table == "groups" and self.name in FIXED_GROUP_FIELDS

    @property
    def path(self) -> str:
        """The dotted name used in the docs, e.g. "groups.wander.jitter"."""
        return f"{self.table}.{self.name}"

    def range_text(self) -> str:
        """The allowed values in words, e.g. "> 0 and <= 0.1", or "" for any."""
        if self.choices:
            return ", ".join(f'"{c}"' for c in self.choices)
        parts = []
        if self.lo is not None:
            parts.append(f"{'>' if self.lo_open else '>='} {_num(self.lo)}")
        if self.hi is not None:
            parts.append(f"{'<' if self.hi_open else '<='} {_num(self.hi)}")
        return " and ".join(parts)


def _num(x: float) -> str:
    """A number as people write it: 0, 0.1, 1,000,000 (never 1e+06)."""
    if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e16):
        return f"{int(x):,}"
    return repr(float(x))


def _engine_default(cls: type, name: str) -> Any:
    """The default of a field of an engine dataclass (so defaults are written once)."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            if f.default is dataclasses.MISSING:
                raise LookupError(f"{cls.__name__}.{name} has no plain default")
            return f.default
    raise LookupError(f"{cls.__name__} has no field {name!r}")


def _wander_methods(key: str) -> tuple[str, ...]:
    """The methods that read a method-specific wander key, from the engine's method table."""
    return tuple(m for m in METHODS if key in METHOD_KEYS[m])


_W = WanderParams
_G = GroupParams
_M = MAX_MAGNITUDE

KEYS: tuple[Key, ...] = (
    # [scene]
    Key("scene", "name", STRING, None, "", "Shown in the window title and by `wander3d check`.",
        default_doc="the file name without .toml"),
    Key("scene", "seed", INTEGER, _engine_default(RunSpec, "seed"), "",
        "Seeds the one random generator: the same scene and seed give a bit-identical run.",
        lo=0, hi=2**32 - 1),
    Key("scene", "dt", FLOAT, _engine_default(RunSpec, "dt"), "s",
        "Simulated seconds per fixed step. Parameters are per second, so a scene looks the "
        "same at any dt; smaller is smoother and costs more.",
        # Below 10 µs a step is no smoother, only slower; far below, the engine's step
        # counts overflow (dt = 1e-320 once reached it).
        lo=MIN_DT, hi=0.1, default_doc="1/60"),
    # [enclosure]
    Key("enclosure", "min", VEC3, _engine_default(Enclosure, "min"), "units",
        "The box's lowest corner; +y is up.", lo=-_M, hi=_M),
    Key("enclosure", "max", VEC3, _engine_default(Enclosure, "max"), "units",
        "The box's highest corner; greater than `min` on every axis.", lo=-_M, hi=_M),
    Key("enclosure", "margin", FLOAT, _engine_default(Enclosure, "margin"), "units",
        "Width of the band inside each wall where agents start turning back; less than half "
        "the box's smallest extent. Agents never leave the box whatever the margin.",
        lo=0, hi=_M),
    # [camera]
    Key("camera", "mode", CHOICE, "turntable", "",
        "How dragging moves the view: turntable (orbit, +y stays up), arcball (free "
        "rotation) or fly (first person).", choices=CAMERA_MODES),
    Key("camera", "azimuth", FLOAT, 30.0, "degrees",
        "Initial angle around the vertical axis.", lo=-360, hi=360),
    Key("camera", "elevation", FLOAT, 25.0, "degrees",
        "Initial angle above the horizontal plane.", lo=-90, hi=90),
    Key("camera", "distance", FLOAT, None, "units",
        "Initial distance from the box's centre.", lo=0, lo_open=True, hi=_M,
        default_doc="fit the box"),
    Key("camera", "fov", FLOAT, 45.0, "degrees", "Vertical field of view.",
        lo=0, lo_open=True, hi=180, hi_open=True),
    # [view]
    Key("view", "background", COLOR, "#101418", "",
        'Canvas colour: "#rrggbb", "#rgb" or a CSS name such as "black".'),
    Key("view", "show_enclosure", BOOLEAN, True, "", "Draw the box as a wireframe."),
    Key("view", "show_trails", BOOLEAN, True, "", "Draw each agent's recent path."),
    # [[groups]]
    Key("groups", "name", STRING, None, "", "Shown in the side panel; unique within the scene.",
        default_doc='"group N" (N: its position, from 1)'),
    Key("groups", "count", INTEGER, None, "agents", "Number of agents in the group.",
        lo=1, hi=MAX_COUNT, required=True, default_doc="required",
        panel=SpinBox("Agents", shows_unit=False)),
    Key("groups", "color", COLOR, None, "",
        'Agent and trail colour: "#rrggbb", "#rgb" or a CSS name such as "orange".',
        default_doc="a palette colour by position"),
    Key("groups", "max_speed", FLOAT, _engine_default(_G, "max_speed"), "units/s",
        "Speed limit.", lo=0, lo_open=True, hi=_M,
        panel=Slider("Max speed", 0.5, 300.0, log=True), port=PortNumber("units/s")),
    Key("groups", "max_force", FLOAT, _engine_default(_G, "max_force"), "mass·units/s²",
        "Limit on the total steering force; with `mass` it sets how fast agents can turn.",
        lo=0, lo_open=True, hi=_M, panel=Slider("Max force", 0.5, 600.0, log=True),
        port=PortNumber("mass*units/s^2: limit on the steering force")),
    Key("groups", "mass", FLOAT, _engine_default(_G, "mass"), "",
        "Acceleration = force / mass: heavier agents turn more slowly.",
        lo=1e-6, hi=_M, port=PortNumber("acceleration = force / mass")),
    Key("groups", "initial_speed", FLOAT, None, "units/s",
        "Starting speed along a random heading; 0 starts agents at rest. At most `max_speed`.",
        lo=0, hi=_M, default_doc="max_speed / 2",
        port=PortNumber("units/s, for agents spawned by the port", attribute="start_speed")),
    Key("groups", "trail_length", INTEGER, _engine_default(_G, "trail_length"), "points",
        "Trail points kept per agent (at most; fewer when `trail_seconds` is shorter than one "
        "point a step); 0 draws no trail. Memory is at most count * trail_length * 13 bytes.",
        lo=0, hi=MAX_TRAIL_LENGTH, panel=SpinBox("Trail")),
    Key("groups", "trail_seconds", FLOAT, _engine_default(_G, "trail_seconds"), "s",
        "How much of each agent's path its trail shows, the same at any `dt` (it replaces "
        "`trail_every`, which counted steps).", lo=0, lo_open=True, hi=MAX_TRAIL_SECONDS),
    # [groups.wander]
    Key("groups.wander", "method", CHOICE, _engine_default(_W, "method"), "",
        "; ".join(f"{m.name}: {m.summary}" for m in METHOD_TABLE) + ".", choices=METHODS),
    Key("groups.wander", "distance", FLOAT, _engine_default(_W, "distance"), "units",
        "How far ahead of the agent the wander sphere's centre sits.",
        lo=0, hi=_M, methods=_wander_methods("distance"), panel=Slider("Distance", 0.0, 120.0),
        port=PortNumber("units: the wander sphere's centre ahead of the agent")),
    Key("groups.wander", "radius", FLOAT, _engine_default(_W, "radius"), "units",
        "Radius of the wander sphere; with `distance` it sets how hard an agent can turn.",
        lo=0, lo_open=True, hi=_M, methods=_wander_methods("radius"),
        panel=Slider("Radius", 0.1, 60.0, log=True),
        port=PortNumber("units: the wander sphere's radius")),
    Key("groups.wander", "jitter", FLOAT, _engine_default(_W, "jitter"), "units/√s",
        "Size of the random displacement added to the target; the target's direction "
        "decorrelates (to 1/e) in 5·(radius/jitter)² s.",
        lo=0, hi=_M, methods=_wander_methods("jitter"), panel=Slider("Jitter", 0.0, 60.0),
        port=PortNumber("units/sqrt(s): sphere's random displacement")),
    Key("groups.wander", "rate", FLOAT, _engine_default(_W, "rate"), "rad/√s",
        "How fast the target's two angles relative to the heading random-walk; its yaw "
        "decorrelates (to 1/e) in 6/rate² s, and its pitch reverts to level.",
        lo=0, hi=_M, methods=_wander_methods("rate"), panel=Slider("Rate", 0.0, 5.0),
        port=PortNumber("rad/sqrt(s): angle's random walk of yaw and pitch")),
    Key("groups.wander", "frequency", FLOAT, _engine_default(_W, "frequency"), "1/s",
        "How fast the noise driving the target changes; lower is lazier.",
        lo=0, lo_open=True, hi=_M, methods=_wander_methods("frequency"),
        panel=Slider("Frequency", 0.01, 3.0, log=True), port=PortNumber("1/s: noise's pace")),
    Key("groups.wander", "interval", FLOAT, _engine_default(_W, "interval"), "s",
        "Seconds between picks of a new random point of the box to seek.",
        lo=0, lo_open=True, hi=_M, methods=_wander_methods("interval"),
        panel=Slider("Interval", 0.1, 30.0, log=True),
        port=PortNumber("s: seek's time between new points")),
    Key("groups.wander", "vertical", FLOAT, _engine_default(_W, "vertical"), "",
        "Scales up/down motion: 1 turns equally in every direction, 0.2 swims like a fish, "
        "0 stays level. It keeps its meaning however long a run lasts, and agents start as "
        "level as they will stay.", lo=0, hi=1, panel=Slider("Vertical", 0.0, 1.0),
        port=PortNumber("0..1: up/down freedom (1 isotropic, 0 level)")),
    Key("groups.wander", "steering", CHOICE, _engine_default(_W, "steering"), "",
        "force: the vector to the target is the steering force (Reynolds); desired: a desired "
        "velocity towards the target at max_speed, steering = desired - velocity.",
        choices=STEERING_MODES),
)  # fmt: skip

#: What each table is, for messages and docs.
TABLES: dict[str, str] = {
    "scene": "[scene]",
    "enclosure": "[enclosure]",
    "camera": "[camera]",
    "view": "[view]",
    "groups": "[[groups]]",
    "groups.wander": "[groups.wander]",
}

_BY_TABLE: dict[str, dict[str, Key]] = {}
for _k in KEYS:
    _BY_TABLE.setdefault(_k.table, {})[_k.name] = _k
del _k


def keys_of(table: str) -> dict[str, Key]:
    """The keys of one table, by name, in the order of the docs."""
    return _BY_TABLE[table]


def key(table: str, name: str) -> Key:
    """One key, e.g. key("groups.wander", "jitter")."""
    return _BY_TABLE[table][name]


def default(table: str, name: str) -> Any:
    """The default of one key (None for computed or optional ones)."""
    return _BY_TABLE[table][name].default


def _check_against_engine() -> None:
    """Fail at import if the engine's wander keys and this table disagree (a coding error)."""
    engine_keys = set(SHARED_WANDER_KEYS).union(*METHOD_KEYS.values())
    table_keys = set(keys_of("groups.wander"))
    if engine_keys != table_keys:
        raise RuntimeError(
            f"scene schema and engine disagree on wander keys: {sorted(engine_keys ^ table_keys)}"
        )


_check_against_engine()


def _default_text(k: Key) -> str:
    if k.default_doc is not None:
        return k.default_doc
    d = k.default
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, str):
        return f'"{d}"'
    if isinstance(d, tuple):
        return "[" + ", ".join(_num(x) for x in d) + "]"
    return _num(d) if isinstance(d, float) else str(d)


#: What the reference says of a key that sizes the simulation (`Key.fixed`).
FIXED_NOTE = "It sizes the simulation, so changing it starts the run again."


def _cell(text: str) -> str:
    """Escape a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table() -> str:
    """The README's scene-file reference: one row per key, generated from KEYS."""
    rows = [
        "| Key | Type | Default | Unit | Allowed | Meaning |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for k in KEYS:
        meaning = k.doc
        if k.methods:
            meaning += " Used by method " + ", ".join(f'"{m}"' for m in k.methods) + "."
        if k.fixed:
            meaning += " " + FIXED_NOTE
        cells = (
            f"`{k.path}`",
            k.type,
            _default_text(k),
            k.unit,
            k.range_text(),
            meaning,
        )
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"


README_START = "<!-- scene-keys:start (generated by `python -m wander3d.scene README.md`) -->"
README_END = "<!-- scene-keys:end -->"


def readme_block() -> str:
    """The generated block as it appears in the README, markers included."""
    return f"{README_START}\n{markdown_table()}{README_END}"


def update_readme(path: Path) -> bool:
    """Replace the generated block in a README; return True if the file changed."""
    text = path.read_text(encoding="utf-8")
    start = text.find(README_START)
    end = text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"{path}: no {README_START!r} ... {README_END!r} block")
    new = text[:start] + readme_block() + text[end + len(README_END) :]
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    """Print the table, or refresh it in the README files given as arguments."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        sys.stdout.write(markdown_table())
        return 0
    for name in args:
        changed = update_readme(Path(name))
        print(f"{name}: {'updated' if changed else 'up to date'}")
    return 0
