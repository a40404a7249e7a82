"""Every value-level rule of the scene format: each bad input names the file, the key path and
the problem; valid inputs are read as documented."""

from __future__ import annotations

import dataclasses

import pytest
from scene_support import MINIMAL, assert_rejected, write

from wander3d import Scene, SceneError, load_scene
from wander3d.engine.methods import METHOD_KEYS, METHODS
from wander3d.engine.params import WanderParams
from wander3d.scene import MemoryFitError, check_fits, schema

G = "[[groups]]\ncount = 10\n"


def wander(method: str, extra: str = "") -> str:
    return f'{G}[groups.wander]\nmethod = "{method}"\n{extra}'


# (id, TOML text, key path the message must name, phrases it must contain)
REJECTED = [
    # unknown keys, with a suggestion
    ("typo-wander", wander("sphere", "radious = 3\n"), "groups[0].wander.radious",
     ["unknown key, did you mean 'radius'?"]),
    ("typo-scene", "[scene]\nseeed = 1\n" + G, "scene.seeed", ["did you mean 'seed'?"]),
    ("typo-group", G + "max_sped = 3\n", "groups[0].max_sped",
     ["did you mean 'max_speed'?"]),
    ("typo-table", "[group]\ncount = 3\n" + G, "group", ["did you mean 'groups'?"]),
    ("key-in-wrong-table", G + 'method = "angle"\n', "groups[0].method",
     ["'method' belongs in [groups.wander]"]),
    ("top-level-key", "dt = 0.01\n" + G, "dt", ["'dt' belongs in [scene]"]),
    ("unknown-no-match", "[camera]\nzoomzoom = 2\n" + G, "camera.zoomzoom",
     ["unknown key; known keys: mode, azimuth"]),
    # wrong types (bool is never a number)
    ("seed-string", '[scene]\nseed = "7"\n' + G, "scene.seed",
     ['expected an integer, got a string ("7")']),
    ("dt-bool", "[scene]\ndt = true\n" + G, "scene.dt", ["expected a number, got a boolean"]),
    ("count-float", "[[groups]]\ncount = 2.5\n", "groups[0].count",
     ["expected an integer, got a float (2.5)"]),
    ("count-bool", "[[groups]]\ncount = true\n", "groups[0].count",
     ["expected an integer, got a boolean"]),
    ("speed-bool", G + "max_speed = false\n", "groups[0].max_speed", ["expected a number"]),
    ("flag-int", "[view]\nshow_trails = 1\n" + G, "view.show_trails",
     ["expected true or false, got an integer (1)"]),
    ("name-int", G + "name = 5\n", "groups[0].name", ["expected a string"]),
    ("method-int", wander("sphere").replace('"sphere"', "3"), "groups[0].wander.method",
     ["expected a string"]),
    ("date", "[scene]\nseed = 1979-05-27\n" + G, "scene.seed",
     ["expected an integer, got a date (1979-05-27)"]),
    ("vector-string", '[enclosure]\nmin = "0, 0, 0"\n' + G, "enclosure.min",
     ["expected an array of 3 numbers"]),
    ("vector-short", "[enclosure]\nmin = [0, 0]\n" + G, "enclosure.min",
     ["expected 3 numbers [x, y, z], got 2"]),
    ("vector-long", "[enclosure]\nmax = [1, 2, 3, 4]\n" + G, "enclosure.max",
     ["expected 3 numbers [x, y, z], got 4"]),
    ("vector-element", '[enclosure]\nmin = [0, "a", 0]\n' + G, "enclosure.min[1]",
     ["expected a number, got a string"]),
    ("vector-bool", "[enclosure]\nmin = [0, true, 0]\n" + G, "enclosure.min[1]",
     ["expected a number, got a boolean"]),
    ("table-not-table", "scene = 5\n" + G, "scene", ["expected a table [scene], got an integer"]),
    ("wander-not-table", G + "wander = 3\n", "groups[0].wander", ["expected a table"]),
    ("groups-table", "[groups]\ncount = 3\n", "groups", ["array of tables written [[groups]]"]),
    ("groups-empty", "groups = []\n", "groups", ["at least one [[groups]]"]),
    ("groups-scalars", "groups = [1, 2]\n", "groups[0]", ["expected a table [[groups]]"]),
    ("groups-missing", "[scene]\nseed = 1\n", "groups", ["missing"]),
    ("count-missing", "[[groups]]\nname = \"a\"\n", "groups[0].count", ["missing"]),
    ("count-missing-second", G + "[[groups]]\nname = \"b\"\n", "groups[1].count", ["missing"]),
    # NaN and infinities
    ("dt-nan", "[scene]\ndt = nan\n" + G, "scene.dt", ["expected a finite number, got nan"]),
    ("force-inf", G + "max_force = inf\n", "groups[0].max_force", ["finite", "inf"]),
    ("vector-inf", "[enclosure]\nmax = [-inf, 1, 1]\n" + G, "enclosure.max[0]", ["finite"]),
    ("jitter-nan", wander("sphere", "jitter = -nan\n"), "groups[0].wander.jitter", ["finite"]),
    # out of range
    ("seed-negative", "[scene]\nseed = -1\n" + G, "scene.seed",
     ["-1 is out of range: must be >= 0"]),
    ("dt-zero", "[scene]\ndt = 0\n" + G, "scene.dt", ["must be >= 1e-05 and <= 0.1"]),
    ("dt-subnormal", "[scene]\ndt = 1e-320\n" + G, "scene.dt", ["must be >= 1e-05 and <= 0.1"]),
    ("dt-tiny", "[scene]\ndt = 1e-9\n" + G, "scene.dt", ["must be >= 1e-05 and <= 0.1"]),
    ("dt-large", "[scene]\ndt = 0.2\n" + G, "scene.dt", ["0.2 is out of range"]),
    ("count-zero", "[[groups]]\ncount = 0\n", "groups[0].count", ["must be >= 1"]),
    ("count-huge", "[[groups]]\ncount = 10_000_001\n", "groups[0].count",
     ["<= 10,000,000"]),
    ("count-astronomic", "[[groups]]\ncount = 9223372036854775807\n", "groups[0].count",
     ["out of range"]),
    ("mass-zero", G + "mass = 0\n", "groups[0].mass", ["must be >= 1e-06"]),
    ("mass-tiny", G + "mass = 1e-320\n", "groups[0].mass", ["1e-320 is out of range"]),
    ("mass-negative", G + "mass = -1.5\n", "groups[0].mass", ["-1.5 is out of range"]),
    ("speed-zero", G + "max_speed = 0.0\n", "groups[0].max_speed", ["must be > 0"]),
    ("force-zero", G + "max_force = 0\n", "groups[0].max_force", ["must be > 0"]),
    ("force-huge", G + "max_force = 1e300\n", "groups[0].max_force", ["out of range"]),
    ("initial-negative", G + "initial_speed = -1\n", "groups[0].initial_speed", ["must be >= 0"]),
    ("initial-above-max", G + "max_speed = 30\ninitial_speed = 31\n", "groups[0].initial_speed",
     ["more than max_speed (30.0)"]),
    ("trail-length-negative", G + "trail_length = -1\n", "groups[0].trail_length",
     ["must be >= 0"]),
    ("trail-every-zero", G + "trail_every = 0\n", "groups[0].trail_every", ["must be >= 1"]),
    ("trail-every-and-seconds", G + "trail_every = 2\ntrail_seconds = 5.0\n",
     "groups[0].trail_every", ["replaced by trail_seconds; give only trail_seconds"]),
    ("trail-seconds-zero", G + "trail_seconds = 0\n", "groups[0].trail_seconds", ["must be > 0"]),
    ("distance-negative", wander("sphere", "distance = -1\n"), "groups[0].wander.distance",
     ["must be >= 0"]),
    ("radius-zero", wander("sphere", "radius = 0\n"), "groups[0].wander.radius", ["must be > 0"]),
    ("jitter-negative", wander("sphere", "jitter = -0.5\n"), "groups[0].wander.jitter",
     ["must be >= 0"]),
    ("rate-negative", wander("angle", "rate = -1\n"), "groups[0].wander.rate", ["must be >= 0"]),
    ("frequency-zero", wander("noise", "frequency = 0\n"), "groups[0].wander.frequency",
     ["must be > 0"]),
    ("interval-zero", wander("seek", "interval = 0\n"), "groups[0].wander.interval",
     ["must be > 0"]),
    ("vertical-high", wander("sphere", "vertical = 1.5\n"), "groups[0].wander.vertical",
     ["must be >= 0 and <= 1"]),
    ("vertical-negative", wander("sphere", "vertical = -0.1\n"), "groups[0].wander.vertical",
     ["out of range"]),
    ("fov-zero", "[camera]\nfov = 0\n" + G, "camera.fov", ["must be > 0 and < 180"]),
    ("fov-180", "[camera]\nfov = 180\n" + G, "camera.fov", ["must be > 0 and < 180"]),
    ("elevation-high", "[camera]\nelevation = 90.5\n" + G, "camera.elevation",
     ["must be >= -90 and <= 90"]),
    ("elevation-low", "[camera]\nelevation = -91\n" + G, "camera.elevation", ["out of range"]),
    ("azimuth-large", "[camera]\nazimuth = 400\n" + G, "camera.azimuth", ["<= 360"]),
    ("camera-distance-zero", "[camera]\ndistance = 0\n" + G, "camera.distance", ["must be > 0"]),
    ("margin-negative", "[enclosure]\nmargin = -1\n" + G, "enclosure.margin", ["must be >= 0"]),
    ("coordinate-huge", "[enclosure]\nmax = [1e7, 1, 1]\n" + G, "enclosure.max[0]",
     ["out of range"]),
    # the box
    ("min-equals-max", "[enclosure]\nmin = [0, 0, 0]\nmax = [10, 0, 10]\n" + G, "enclosure.max",
     ["on y min = 0.0 and max = 0.0"]),
    ("min-above-max", "[enclosure]\nmin = [150, -60, -100]\n" + G, "enclosure.min",
     ["on x min = 150.0 and max = 100.0"]),
    ("margin-too-large",
     "[enclosure]\nmin = [-100, -10, -100]\nmax = [100, 10, 100]\nmargin = 10\n" + G,
     "enclosure.margin", ["less than half the box's smallest extent (10.0)"]),
    # choices
    ("method-unknown", wander("sphre"), "groups[0].wander.method",
     ["unknown method \"sphre\", did you mean 'sphere'?", "'angle'"]),
    ("steering-unknown", wander("sphere", 'steering = "seek"\n'), "groups[0].wander.steering",
     ["unknown steering \"seek\"", "'force', 'desired'"]),
    ("camera-mode-unknown", '[camera]\nmode = "orbit"\n' + G, "camera.mode",
     ["unknown mode \"orbit\""]),
    # colours
    ("colour-typo", G + 'color = "ornge"\n', "groups[0].color",
     ['"ornge" is not a colour, did you mean \'orange\'?']),
    ("colour-hex-length", G + 'color = "#12345"\n', "groups[0].color", ["is not a colour"]),
    ("colour-hex-digits", '[view]\nbackground = "#ggg"\n' + G, "view.background",
     ["is not a colour"]),
    ("colour-number", G + "color = 0xffb000\n", "groups[0].color",
     ["expected a colour string"]),
    # wander keys that the method does not read
    ("jitter-for-angle", wander("angle", "jitter = 3\n"), "groups[0].wander.jitter",
     ["not used by method 'angle'", "jitter is for method 'sphere'", "'angle' uses 'rate'"]),
    ("rate-for-sphere", wander("sphere", "rate = 3\n"), "groups[0].wander.rate",
     ["not used by method 'sphere'", "'sphere' uses 'jitter'"]),
    ("frequency-for-seek", wander("seek", "frequency = 3\n"), "groups[0].wander.frequency",
     ["for method 'noise'", "'seek' uses 'interval'"]),
    ("distance-for-seek", wander("seek", "distance = 3\n"), "groups[0].wander.distance",
     ["distance is for methods 'sphere', 'angle', 'noise', 'random'"]),
    ("jitter-default-method", G + "[groups.wander]\nrate = 1\n", "groups[0].wander.rate",
     ["not used by method 'sphere'"]),
    # names
    ("duplicate-group-name", G + 'name = "fish"\n' + G + 'name = "fish"\n', "groups[1].name",
     ["duplicate group name \"fish\" (also groups[0].name)"]),
    ("empty-name", '[scene]\nname = " "\n' + G, "scene.name", ["must not be empty"]),
    ("control-char-name", '[scene]\nname = "a\\u0007b"\n' + G, "scene.name",
     ["without control characters"]),
    ("long-name", f'[scene]\nname = "{"x" * 101}"\n' + G, "scene.name", ["too long (101"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "key", "phrases"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED]
)
def test_rejected(tmp_path, text, key, phrases):
    assert_rejected(tmp_path, text, key, *phrases)


def test_every_key_has_a_rejection_or_is_free_text():
    """Each numeric or choice key of the schema has at least one range/choice case above."""
    covered = {c[2].split("[")[0] if c[2].endswith("]") else c[2] for c in REJECTED}
    covered = {k.replace("groups[0]", "groups").replace("groups[1]", "groups") for k in covered}
    bounded = {k.path for k in schema.KEYS if k.lo is not None or k.hi is not None or k.choices}
    assert bounded - covered == set()


def test_a_scene_too_big_for_any_machine_is_invalid(tmp_path):
    text = "[[groups]]\ncount = 1_000_000\ntrail_length = 100_000\n"
    message = assert_rejected(
        tmp_path, text, "groups", "need about", "more than the 256.0 GiB a scene may use"
    )
    assert "1,000,000 agents" in message
    assert "100,000,000,000 trail points" in message


def test_validity_does_not_depend_on_the_machines_memory(tmp_path, monkeypatch):
    """A scene valid on a small machine is valid on every machine: only `check_fits`, asked
    where the simulation will run, compares it with the memory there."""
    import wander3d.scene.memory as memory

    path = write(tmp_path, "[[groups]]\ncount = 2000\ntrail_length = 100\n[[groups]]\ncount = 10\n")
    monkeypatch.setattr(memory, "memory_budget", lambda: (1024**2, "a test budget"))
    small = load_scene(path)
    with pytest.raises(MemoryFitError) as info:
        check_fits(small)
    assert str(info.value) == (
        f"{path}: 2,010 agents with 201,500 trail points need about 3.5 MiB, more than the "
        "1.0 MiB this machine allows (a test budget); lower count or trail_length"
    )
    assert info.value.need > info.value.budget == 1024**2
    monkeypatch.setattr(memory, "memory_budget", lambda: (1024**4, "a big machine"))
    assert load_scene(path) == small
    check_fits(small)
    # The same scene without trails fits the small machine too.
    monkeypatch.setattr(memory, "memory_budget", lambda: (1024**2, "a test budget"))
    check_fits(load_scene(write(tmp_path, "[[groups]]\ncount = 1000\ntrail_length = 0\n")))


# ----------------------------------------------------------------------------- accepted input
def test_minimal_scene_gets_documented_defaults(tmp_path):
    scene = load_scene(write(tmp_path, MINIMAL, "my-scene.toml"))
    assert scene.name == "my-scene"
    assert scene.seed == schema.default("scene", "seed")
    assert scene.dt == pytest.approx(1 / 60)
    g = scene.groups[0]
    assert (g.count, g.name, g.color) == (10, "group 1", schema.GROUP_PALETTE[0])
    assert g.initial_speed is None and g.start_speed == g.max_speed / 2
    assert g.wander == WanderParams()
    assert scene.camera.distance is None
    assert scene.view.background == "#101418"


def test_defaults_come_from_the_schema(tmp_path):
    scene = Scene.from_dict({"groups": [{"count": 1}]})
    for k in schema.keys_of("groups"):
        if schema.default("groups", k) is not None:
            assert getattr(scene.groups[0], k) == schema.default("groups", k)
    for k in schema.keys_of("groups.wander"):
        assert getattr(scene.groups[0].wander, k) == schema.default("groups.wander", k)
    assert scene.enclosure.min == tuple(schema.default("enclosure", "min"))


def test_default_names_and_colours_by_position():
    scene = Scene.from_dict({"groups": [{"count": 1}, {"count": 2}, {"count": 3, "name": "c"}]})
    assert [g.name for g in scene.groups] == ["group 1", "group 2", "c"]
    assert [g.color for g in scene.groups] == list(schema.GROUP_PALETTE[:3])
    assert scene.name == "untitled"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("#ffb000", "#ffb000"),
        ("#FFB000", "#ffb000"),
        ("#abc", "#aabbcc"),
        ("orange", "#ffa500"),
        ("Orange", "#ffa500"),
        ("steelblue", "#4682b4"),
    ],
)
def test_colours_are_normalised(given, expected):
    scene = Scene.from_dict(
        {"view": {"background": given}, "groups": [{"count": 1, "color": given}]}
    )
    assert scene.groups[0].color == expected
    assert scene.view.background == expected


def test_integers_are_accepted_for_floats():
    scene = Scene.from_dict(
        {"enclosure": {"min": [-5, -5, -5], "max": [5, 5, 5], "margin": 1},
         "groups": [{"count": 1, "max_speed": 3, "wander": {"vertical": 0}}]}
    )  # fmt: skip
    assert scene.enclosure.min == (-5.0, -5.0, -5.0)
    assert all(isinstance(v, float) for v in scene.enclosure.max)
    assert isinstance(scene.groups[0].max_speed, float) and scene.groups[0].max_speed == 3.0
    assert scene.groups[0].wander.vertical == 0.0


@pytest.mark.parametrize("method", METHODS)
def test_each_method_accepts_its_own_keys(method):
    own = {k: 2 for k in ("distance", "radius", "jitter", "rate", "frequency", "interval")
           if method in schema.key("groups.wander", k).methods}  # fmt: skip
    scene = Scene.from_dict({"groups": [{"count": 1, "wander": {"method": method, **own}}]})
    w = scene.groups[0].wander
    assert w.method == method
    assert all(getattr(w, k) == 2.0 for k in own)


def test_initial_speed_may_equal_max_speed_or_zero():
    scene = Scene.from_dict(
        {"groups": [{"count": 1, "max_speed": 30, "initial_speed": 30},
                    {"count": 1, "initial_speed": 0}]}
    )  # fmt: skip
    assert scene.groups[0].initial_speed == 30.0
    assert scene.groups[1].start_speed == 0.0


def test_margin_just_below_half_the_smallest_extent_is_fine():
    scene = Scene.from_dict(
        {"enclosure": {"min": [0, 0, 0], "max": [100, 20, 100], "margin": 9.999},
         "groups": [{"count": 1}]}
    )  # fmt: skip
    assert scene.enclosure.margin == 9.999


def test_from_dict_errors_name_the_source_or_a_placeholder(tmp_path):
    with pytest.raises(SceneError) as info:
        Scene.from_dict({"groups": [{"count": 0}]})
    assert str(info.value).startswith("<scene>: groups[0].count: ")
    with pytest.raises(SceneError) as info:
        Scene.from_dict({"groups": [{"count": 0}]}, source=tmp_path / "x.toml")
    assert str(info.value).startswith(f"{tmp_path / 'x.toml'}: groups[0].count: ")


@pytest.mark.parametrize("doc", [None, 3, "text", [1, 2]])
def test_from_dict_rejects_non_tables(doc):
    with pytest.raises(SceneError, match="expected a table of scene keys"):
        Scene.from_dict(doc)


def test_scene_error_is_a_value_error_and_pickles():
    import pickle

    error = SceneError("a.toml", "groups[0].count", "bad\nthing")
    assert isinstance(error, ValueError)
    assert str(error) == "a.toml: groups[0].count: bad thing"
    again = pickle.loads(pickle.dumps(error))
    assert (again.file, again.key, again.problem) == (error.file, error.key, error.problem)


# ----------------------------------------------------------------------------- Scene methods
def test_replace_validates_and_drops_the_stale_text(tmp_path):
    path = write(tmp_path, MINIMAL, "orig.toml")
    scene = load_scene(path)
    faster = dataclasses.replace(scene.groups[0], max_speed=80.0)
    changed = scene.replace(groups=(faster,))
    assert changed.groups[0].max_speed == 80.0
    assert changed.source == path and changed.text is None
    with pytest.raises(SceneError, match=r"orig.toml: groups\[0\].initial_speed: "):
        scene.replace(groups=(dataclasses.replace(faster, initial_speed=100.0),))
    with pytest.raises(SceneError, match=r"scene\.dt: "):
        scene.replace(dt=0.5)


def test_to_dict_writes_only_the_wander_keys_of_each_method():
    scene = Scene.from_dict({"groups": [{"count": 1, "wander": {"method": m}} for m in METHODS]})
    for g in scene.to_dict()["groups"]:
        method = g["wander"]["method"]
        wanted = {"method", "vertical", "steering", *METHOD_KEYS[method]}
        assert set(g["wander"]) == wanted


def test_to_toml_escapes_names_and_reads_back(tmp_path):
    name = 'a "quoted" \\ name ☕'
    scene = Scene.from_dict({"scene": {"name": name}, "groups": [{"count": 1, "name": name}]})
    path = write(tmp_path, scene.to_toml(), "escaped.toml")
    again = load_scene(path)
    assert again == scene and again.name == name
    assert again.text is not None and "# s" in again.text  # units are written as comments
