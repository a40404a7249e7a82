"""The C++ port (wander3d/port/cpp): `bash DIR/conformance.sh [--compose] SECONDS SAMPLE_RATE`
prints what `wander3d run --out .csv` writes, byte for byte, for the hosted flock and for the
composable call, over 60 simulated seconds of every bundled scene, of the scenes the tests
write (every method x steering mode, level and flattened agents, heavy agents at the walls,
no margin, dt 1/30, 1/120 and 1/20) and of a scene written only here; also when built with
-march=native and -ffp-contract=fast by GCC and clang, which the header's own pragmas survive
without leaking into the including code. The header takes no name an Unreal macro expands,
and the Unreal component compiles and runs against stand-in headers (tests/unreal_standin/)
that declare UE 5's signatures and macros.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from port_support import (
    BUNDLED,
    FULL_SIZE_RUN,
    SAMPLE_RATE,
    SAMPLE_RATES,
    SECONDS,
    WRITTEN,
    build_probe,
    check_both_modes,
    check_checked_in_core,
    check_crlf_start,
    check_edits_repeat_the_engines,
    check_formatting,
    check_frame_rate,
    check_group_subset,
    check_set_method,
    check_spawn,
    check_spawned_as_documented,
    conformance_sh,
    need,
    reference,
    scene_file,
    write_port_of,
)

from wander3d.port import language, plan_port
from wander3d.scene import load_scene
from wander3d.scene.bundled import bundled_scenes

TOOLS = ("g++",)
#: How the tests compile what a game's build includes: warnings (shadowing too, as Unreal's
#: builds treat it) are errors.
STRICT = ("-std=c++17", "-O1", "-Wall", "-Wextra", "-Wshadow", "-Werror")
HERE = Path(__file__).resolve().parent
STANDIN = HERE / "unreal_standin"
PORT_SOURCES = HERE.parent / "wander3d" / "port" / "cpp"

#: A scene no other test writes: the largest seed, an odd dt, a tall thin box away from the
#: origin with a thin margin, a sphere whose jitter reaches its centre, a fast and flat angle
#: walk, fast noise, impatient seek, level random, a heavy slow group; names with quotes.
UNUSUAL = """
[scene]
seed = 4294967295
dt = 0.0123
[enclosure]
min = [5.0, -300.0, 40.0]
max = [47.0, 900.0, 61.5]
margin = 3.3
[[groups]]
name = 'sphere "jittery"'
count = 5
max_speed = 17.5
[groups.wander]
method = "sphere"
steering = "desired"
radius = 0.7
jitter = 300.0
distance = 0.0
vertical = 0.9
[[groups]]
name = "angle, flat"
count = 5
max_force = 400.0
[groups.wander]
method = "angle"
rate = 9.0
vertical = 0.05
[[groups]]
name = "noise fast"
count = 5
[groups.wander]
method = "noise"
steering = "desired"
frequency = 7.3
vertical = 0.93
[[groups]]
name = "seek impatient"
count = 5
mass = 0.05
[groups.wander]
method = "seek"
interval = 0.11
[[groups]]
name = "random, level: ≠"
count = 5
mass = 40.0
max_speed = 3.0
initial_speed = 3.0
[groups.wander]
method = "random"
vertical = 0.0
"""

#: Agents per group of swarm in the everyday run (its 30,000 run behind the slow mark).
SWARM_AGENTS = 800


def port_of(tmp: Path, name: str, agents: int | None = None) -> Path:
    """Write the C++ port of a bundled scene, a port_support.WRITTEN one or UNUSUAL."""
    if name == "unusual":
        scene = tmp / "unusual.toml"
        scene.write_text(UNUSUAL)
    else:
        scene = scene_file(tmp, name)
    if agents is not None:
        smaller = load_scene(scene)
        groups = tuple(dataclasses.replace(g, count=agents) for g in smaller.groups)
        scene = tmp / f"{name}-smaller.toml"
        scene.write_text(smaller.replace(groups=groups).to_toml())
    return write_port_of(scene, "cpp", tmp / "port")


#: Build flags a game's build may use: FMA available (-march=native) and contraction allowed
#: (GCC's default for C++, clang's -ffp-contract=fast, which disregards every pragma).
FLAG_SETS = {
    "g++ -march=native": ("g++", "-std=c++17 -O2 -march=native"),
    "g++ -ffp-contract=fast": ("g++", "-std=c++17 -O2 -march=native -ffp-contract=fast"),
    "clang++ -O2": ("clang++", "-std=c++17 -O2"),
    "clang++ -march=native": ("clang++", "-std=c++17 -O2 -march=native"),
    "clang++ -ffp-contract=fast": ("clang++", "-std=c++17 -O2 -march=native -ffp-contract=fast"),
}

#: The build each scene's check uses: conformance.sh's default (g++ -std=c++17 -O2) for the
#: bundled scenes, UNUSUAL and two written ones, and each of a game's FLAG_SETS for one
#: written scene, so that every flag set is checked on a scene of every method and steering
#: mode (heavy-walls: the walls too) and no scene's port is built twice.
BUILDS = {
    "methods": "clang++ -ffp-contract=fast",
    "level": "g++ -march=native",
    "heavy-walls": "g++ -ffp-contract=fast",
    "no-margin": "clang++ -march=native",
    "dt-30": "clang++ -O2",
}
DEFAULT_BUILD = "g++ -O2"
assert set(BUILDS.values()) == set(FLAG_SETS)


def build_env(build: str) -> dict[str, str] | None:
    """conformance.sh's CXX and CXXFLAGS for `build` (none: its own default)."""
    if build == DEFAULT_BUILD:
        need(*TOOLS)
        return None
    cxx, cxxflags = FLAG_SETS[build]
    need(cxx)
    return {"CXX": cxx, "CXXFLAGS": cxxflags}


@pytest.mark.parametrize(
    ("name", "build"),
    [(name, BUILDS.get(name, DEFAULT_BUILD)) for name in [*BUNDLED, *WRITTEN, "unusual"]],
)
def test_both_drivers_repeat_wander3d_run(tmp_path, name, build):
    env = build_env(build)
    agents = SWARM_AGENTS if name == "swarm" else None
    port = port_of(tmp_path, name, agents)
    check_both_modes(port, SECONDS, SAMPLE_RATES.get(name, SAMPLE_RATE), env)


@pytest.mark.slow
def test_the_whole_swarm_is_identical(tmp_path):
    """Its 30,000 agents' start read whole and every agent stepped (the minute of identity is
    the run above, with fewer agents)."""
    need(*TOOLS)
    check_both_modes(port_of(tmp_path, "swarm"), *FULL_SIZE_RUN)


def cpu_has_fma() -> bool:
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return re.search(r"^flags\s*:.*\bfma\b", flags, re.MULTILINE) is not None


def without_protection(port: Path) -> None:
    """Strip wander.hpp's floating-point pragmas (the pushed and the popped blocks)."""
    core = port / "wander.hpp"
    text = core.read_text()
    head = text.rindex("\n", 0, text.index("floating point (pushed)")) + 1
    body = text.index("namespace wander3d {")
    tail = text.rindex("\n", 0, text.index("floating point (popped)")) + 1
    core.write_text(
        text[:head] + "#define WANDER3D_ENTRY\n#define WANDER3D_INLINE inline\n" + text[body:tail]
    )


@pytest.mark.parametrize(
    ("name", "flags"),
    [(name, BUILDS[name]) for name in ("level", "methods")],
)
def test_without_its_pragmas_the_header_drifts_under_those_flags(tmp_path, name, flags):
    """The checks above under a game's flags can fail: the same header without its
    floating-point block, built with FMA available, no longer repeats wander3d's run."""
    cxx, cxxflags = FLAG_SETS[flags]
    need(cxx)
    if not cpu_has_fma():
        pytest.skip("this CPU has no FMA instructions: nothing can contract")
    port = port_of(tmp_path, name)
    without_protection(port)
    done = conformance_sh(port, SECONDS, 5.0, env={"CXX": cxx, "CXXFLAGS": cxxflags})
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout != reference(port, SECONDS, 5.0)


#: A user's translation unit: a multiply-add before and after the include, and a call into
#: the header so that its functions are compiled here.
USER_UNIT = """
double before(double a, double b, double c) { return a * b + c; }
#include "wander.hpp"
double after(double a, double b, double c) { return a * b + c; }
int run() {
    wander3d::Flock flock(wander3d::scene());
    flock.advance(3);
    return static_cast<int>(flock.position[0].x);
}
"""


def functions(assembly: str) -> dict[str, str]:
    """Each function's instructions in an assembly listing, by (mangled) name."""
    found: dict[str, str] = {}
    name = None
    for line in assembly.splitlines():
        label = re.match(r"^([_A-Za-z][\w.$]*):", line)
        if label and not label.group(1).startswith("."):
            name = label.group(1)
            found[name] = ""
        elif name is not None:
            found[name] += line + "\n"
    return found


@pytest.mark.parametrize(
    ("cxx", "flags"),
    [
        ("g++", ""),
        ("g++", "-ffp-contract=fast"),
        ("clang++", ""),
        ("clang++", "-ffp-contract=fast"),
    ],
)
def test_the_pragmas_do_not_leak_into_the_users_code(tmp_path, cxx, flags):
    """With FMA instructions available (-mfma), the user's own multiply-add after the include
    still contracts as its flags allow (GCC: by default; clang: within an expression by
    default), exactly as the one before it; none of wander3d's functions contracts."""
    need(cxx)
    (tmp_path / "wander.hpp").write_text(language("cpp").source("wander.hpp"))
    (tmp_path / "user.cpp").write_text(USER_UNIT)
    command = [cxx, "-std=c++17", "-O2", "-mfma", *flags.split(), "-S", "-o", "-", "user.cpp"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    listing = functions(done.stdout)
    fused = {name for name, body in listing.items() if "vfmadd" in body or "vfmsub" in body}
    ours = {name for name in listing if "wander3d" in name}
    assert ours, "the header's functions were not compiled into the unit"
    assert {"_Z6beforeddd", "_Z5afterddd"} <= fused, sorted(fused)
    assert not fused & ours, sorted(fused & ours)


#: The macros of Unreal Engine 5 that an identifier in the header must not be: the legacy
#: math constants (UnrealMathUtility.h), the assertion macros (AssertionMacros.h) and others
#: every module sees (the stand-in CoreMinimal.h defines them all as UE does).
def unreal_macros() -> set[str]:
    text = (STANDIN / "CoreMinimal.h").read_text()
    return set(re.findall(r"^#define\s+(\w+)", text, re.MULTILINE))


def identifiers(source: str) -> set[str]:
    """The identifiers of C++ source, without comments and string literals."""
    source = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.DOTALL)
    source = re.sub(r'"(\\.|[^"\\])*"', '""', source)
    return set(re.findall(r"\b[A-Za-z_]\w*\b", source))


def test_no_name_of_the_header_is_an_unreal_macro(tmp_path):
    """Not one identifier of the header (the checked-in one, and a port of five groups) is
    a macro Unreal defines: none can expand inside it, silently or not."""
    macros = unreal_macros()
    assert {
        "PI",
        "HALF_PI",
        "SMALL_NUMBER",
        "KINDA_SMALL_NUMBER",
        "check",
        "verify",
        "TEXT",
    } <= macros
    scene = load_scene(bundled_scenes()["compare"])
    written = language("cpp").files(plan_port(scene))["wander.hpp"]
    for text in (language("cpp").source("wander.hpp"), written):
        own = {name for name in identifiers(text) if not name.startswith("__")}
        assert not own & macros, sorted(own & macros)


@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_the_core_compiles_under_unreals_macros(tmp_path, cxx):
    """Both drivers compile with UE 5's CoreMinimal.h (the stand-in) included first, as an
    Unreal module's PCH does, warnings as errors."""
    need(cxx)
    port = write_port_of(bundled_scenes()["compare"], "cpp", tmp_path / "port")
    for driver in ("conformance.cpp", "compose.cpp"):
        command = [cxx, *STRICT, "-I", str(STANDIN), "-include", "CoreMinimal.h",
                   "-fsyntax-only", str(port / driver)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ conformance.sh itself


def test_conformance_sh_refuses_bad_arguments(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "cpp", tmp_path / "port")
    for args in (["-1", "10"], ["60"], ["60", "x"], ["--compose", "60"], ["60", "10", "3"]):
        done = subprocess.run(
            ["bash", str(port / "conformance.sh"), *args], capture_output=True, check=False
        )
        assert done.returncode == 2, args
        assert done.stdout == b""
        assert b"usage: bash " in done.stderr and b"[--compose] SECONDS SAMPLE_RATE" in done.stderr
    assert not (port / "build").exists()  # nothing built for a bad call


def test_conformance_sh_builds_once_into_its_own_folder_and_prints_only_the_csv(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "cpp", tmp_path / "port")
    first = conformance_sh(port, 1, 2)
    assert first.returncode == 0 and first.stdout.startswith(b'"particle","group"')
    assert sorted(p.name for p in (port / "build").iterdir()) == [
        "conformance",
        "conformance.flags",
    ]
    built = (port / "build" / "conformance").stat().st_mtime_ns
    again = conformance_sh(port, 1, 2)
    assert (
        again.stdout == first.stdout
        and (port / "build" / "conformance").stat().st_mtime_ns == built
    )
    # Other flags rebuild: and a compiler's complaint goes to stderr, never into the CSV.
    broken = conformance_sh(port, 1, 2, env={"CXXFLAGS": "-std=c++17 -include no-such-header.h"})
    assert broken.returncode != 0 and broken.stdout == b"" and broken.stderr


# ------------------------------------------------------------------ the core's API


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    need(*TOOLS)
    folder = tmp_path_factory.mktemp("probe")
    build = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", "probe", "probe.cpp"]
    return build_probe("cpp", folder, "probe.cpp", build, ["./probe"])


def test_numbers_are_formatted_as_arrow_writes_them(probe, tmp_path):
    check_formatting(probe, tmp_path)


def test_the_run_does_not_depend_on_the_frame_rate(probe):
    check_frame_rate(probe)


def test_spawned_agents_start_inside_the_margin_and_stay_in_the_box(probe):
    check_spawn(probe)


def test_the_spawn_is_the_one_every_port_shares(probe):
    check_spawned_as_documented(probe)


def test_switching_method_keeps_each_target_where_it_is(probe):
    check_set_method(probe)


def test_edited_parameters_act_from_the_next_step(probe):
    """maxSpeed 40 -> 5 between two steps: the hosted flock's and hand-composed agents'."""
    flock, composed = (float(x) for x in probe("edit").split())
    assert flock <= 5.0 + 1e-9 and composed <= 5.0 + 1e-9


def test_run_time_edits_repeat_the_engines(tmp_path):
    need(*TOOLS)
    build = ["g++", *STRICT, "-o", "probe", "probe.cpp"]
    check_edits_repeat_the_engines("cpp", tmp_path, "probe.cpp", build, ["./probe"])


def test_a_start_with_windows_line_ends_is_read_alike(probe, tmp_path):
    check_crlf_start(probe, tmp_path)


def test_agents_come_and_go_at_run_time(probe):
    """Removing an agent leaves the others' runs unchanged; added agents get new ids and
    wander in the box; an id dropped and spawned again repeats its stream."""
    assert probe("comings").split() == ["others-unchanged", "new-ids", "placed-moves", "id-repeats"]


def test_agents_the_game_places_face_their_velocity_and_are_unpushed_without_a_box(probe):
    assert probe("placed").split() == ["faces", "seeks", "unpushed"]


def test_the_checked_in_core_is_the_default_scenes_port():
    check_checked_in_core("cpp")


def test_a_group_subset_ports_the_smaller_scene(tmp_path):
    """The port README's command line (Language.conformance) on a port of two groups."""
    need(*TOOLS)
    check_group_subset("cpp", tmp_path)


# ------------------------------------------------------------------ the Unreal component


def generated_header(header: str) -> str:
    """WanderComponent.generated.h as Unreal Header Tool writes it, in what matters to the
    compiler: per GENERATED_BODY line, the macro GENERATED_BODY expands to (a UCLASS gets its
    Super and ThisClass typedefs and is private afterwards, as in UE; a USTRUCT its
    StaticStruct)."""
    lines = ["#pragma once", "#undef CURRENT_FILE_ID", "#define CURRENT_FILE_ID WanderComponent_h"]
    owner: tuple[str, str, str | None] | None = None
    for number, line in enumerate(header.splitlines(), 1):
        declared = re.match(
            r"\s*(class|struct)\s+(?:\w+_API\s+)?(\w+)(?:\s*:\s*public\s+(\w+))?\s*$", line
        )
        if declared:
            owner = (declared.group(1), declared.group(2), declared.group(3))
        if "GENERATED_BODY()" in line:
            assert owner is not None, f"GENERATED_BODY outside a class at line {number}"
            kind, name, base = owner
            body = (
                f"public: typedef {base} Super; typedef {name} ThisClass; "
                "static UClass* StaticClass(); private:"
                if kind == "class"
                else "public: static UScriptStruct* StaticStruct();"
            )
            lines.append(f"#define WanderComponent_h_{number}_GENERATED_BODY {body}")
    return "\n".join(lines) + "\n"


#: Types Blueprints can hold (UE 5): what a BlueprintReadWrite property or a Blueprint
#: function's parameter may be, besides the header's own BlueprintType enums and structs.
BLUEPRINT_TYPES = {"bool", "uint8", "int32", "int64", "float", "double", "FString", "FName",
                   "FText", "FVector", "FRotator", "FTransform", "FColor"}  # fmt: skip


def test_the_components_reflection_follows_unreal_header_tools_rules():
    """Every property and function exposed to the editor or Blueprints names a Category;
    Blueprint-exposed ones use types Blueprints hold; every UCLASS and USTRUCT has its
    GENERATED_BODY; enums and structs Blueprints see are BlueprintType."""
    header = language("cpp").source("adapter/WanderComponent.h")
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", header, flags=re.DOTALL)
    own = set(
        re.findall(r"U(?:ENUM|STRUCT)\(BlueprintType\)\s*(?:enum class|struct)\s+(\w+)", code)
    )
    assert own == {"EWanderMethod", "EWanderSteering", "FWanderGroup"}
    allowed = BLUEPRINT_TYPES | own

    def blueprint_type(text: str) -> bool:
        text = text.replace("const", "").replace("&", "").strip()
        inner = re.fullmatch(r"(TArray|TObjectPtr)<\s*(\w+)\s*>", text)
        return text in allowed or (
            inner is not None and (inner.group(1) == "TObjectPtr" or inner.group(2) in allowed)
        )

    properties = re.findall(
        r"UPROPERTY\(([^)]*(?:\([^)]*\))?[^)]*)\)\s*([\w<>: ]+?)\s+(\w+)\s*(?:=[^;]*)?;", code
    )
    assert len(properties) > 20
    for specifiers, kind, name in properties:
        if "Edit" in specifiers or "Blueprint" in specifiers:
            assert "Category" in specifiers, name
        if "Blueprint" in specifiers:
            assert blueprint_type(kind), (name, kind)
    functions_ = re.findall(r"UFUNCTION\(([^)]*)\)\s*([\w<>: ]+?)\s+(\w+)\(([^)]*)\)", code)
    assert len(functions_) >= 9
    for specifiers, returned, name, parameters in functions_:
        assert "Category" in specifiers and "Blueprint" in specifiers, name
        assert returned == "void" or blueprint_type(returned), (name, returned)
        for parameter in filter(None, (p.strip() for p in parameters.split(","))):
            assert blueprint_type(parameter.rsplit(" ", 1)[0]), (name, parameter)
    assert code.count("GENERATED_BODY()") == code.count("UCLASS(") + code.count("USTRUCT(")


@pytest.fixture(scope="module")
def component(tmp_path_factory) -> Callable[[str], Path]:
    """The component built by a compiler (build_component), once per compiler."""
    built: dict[str, Path] = {}

    def program(cxx: str) -> Path:
        need(cxx)
        if cxx not in built:
            built[cxx] = build_component(tmp_path_factory.mktemp(f"component-{cxx}"), cxx)
        return built[cxx]

    return program


def build_component(tmp: Path, cxx: str) -> Path:
    """Compile the component of a five-group port with its probe against the stand-ins."""
    port = write_port_of(bundled_scenes()["compare"], "cpp", tmp / "port")
    header = (port / "adapter" / "WanderComponent.h").read_text()
    generated = tmp / "generated"
    generated.mkdir()
    (generated / "WanderComponent.generated.h").write_text(generated_header(header))
    content = tmp / "Content" / "Wander"
    content.mkdir(parents=True)
    shutil.copy(port / "start.txt", content / "start.txt")
    program = tmp / "component"
    command = [cxx, *STRICT, "-DWITH_EDITOR=1", "-I", str(STANDIN), "-I", str(generated),
               "-I", str(port / "adapter"), "-I", str(port),
               "-o", str(program), str(port / "adapter" / "WanderComponent.cpp"),
               str(STANDIN / "component_probe.cpp")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return program


@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_the_unreal_component_compiles_and_plays(component, tmp_path, cxx):
    """Against the stand-in UE 5 headers the component compiles (warnings as errors) and,
    played for 120 frames: starts from Content/Wander/start.txt, draws one instance per
    agent where the core puts it, moves instances without teleporting, allocates nothing per
    tick, applies group edits from Blueprints live, adds and removes agents, and without a
    start file logs a warning and spawns."""
    program = component(cxx)
    done = subprocess.run(
        [str(program), str(program.parent / "Content")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert found["started-from"] == "start.txt", found
    assert found["instances"] == "300 300", found  # agents, instances
    assert found["updates"] == "120 teleporting 0", found
    assert found["allocations-after-first-tick"] == "0", found
    assert found["drawn-where-the-core-is"] == "yes", found
    assert found["blueprint-getters"] == "yes", found
    assert found["edit-acts"] == "yes", found
    assert found["method-switch"] == "noise", found
    assert found["add-remove"] == "301 301 300 300", found
    assert found["without-start"] == "spawned 300 warnings 1", found
    assert found["debug-shapes"] != "0" and found["checks-failed"] == "0", found


#: The README examples, compiled as written: the port README's composable example (a pawn
#: of the game's) and hosted example, and the repository README's composable lines.
README_UNIT = """
#include <cmath>
#include "CoreMinimal.h"
#include "WanderComponent.h"
struct AMyPawn {{
    void FixedTick(double Dt);
    void SetActorLocation(const FVector&) {{}}
}};
wander3d::Vec3 Goal;
{composable}
void Hosted(double deltaSeconds, int i, const wander3d::Vec3& position,
            const wander3d::Vec3& velocity) {{
{hosted}
    (void)drawn;
    (void)added;
}}
void Repository(const wander3d::WanderParams& params, std::uint32_t seed,
                const wander3d::WanderBox& box, std::int64_t id, wander3d::Vec3 position,
                wander3d::Vec3 velocity, double dt,
                const wander3d::Vec3& toGoal, double goalDistance) {{
{repository}
}}
"""


def cpp_blocks(markdown: str) -> list[str]:
    return re.findall(r"```cpp\n(.*?)```", markdown, re.DOTALL)


def test_the_readme_examples_compile(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "cpp", tmp_path / "port")
    composable, hosted = cpp_blocks((port / "README.md").read_text())
    readme = (HERE.parent / "README.md").read_text()
    section = readme[readme.index("### C++ (Unreal)") : readme.index("### Godot")]
    (repository,) = cpp_blocks(section)
    unit = README_UNIT.format(composable=composable, hosted=hosted, repository=repository)
    (tmp_path / "readme.cpp").write_text(unit)
    header = (port / "adapter" / "WanderComponent.h").read_text()
    (tmp_path / "WanderComponent.generated.h").write_text(generated_header(header))
    command = ["g++", "-std=c++17", "-Wall", "-Werror", "-Wno-unused-variable", "-I", str(STANDIN),
               "-I", str(tmp_path), "-I", str(port / "adapter"), "-I", str(port), "-fsyntax-only",
               "readme.cpp"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_unreal_and_wander3d_axes(component):
    """wander3d's (x, y, z) is Unreal's (x, z, y): +y up is +Z up, and the swap (determinant
    -1) takes the right-handed frame to Unreal's left-handed one without mirroring: a left
    turn in wander3d (heading rotated towards -z about +y) is a left turn in Unreal (yaw
    decreasing, towards -Y)."""
    program = component("g++")
    done = subprocess.run([str(program), "--axes"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert found["x"] == "1 0 0" and found["y"] == "0 0 1" and found["z"] == "0 1 0", found
    assert found["determinant"] == "-1", found
    assert float(found["left-turn-yaw"]) < 0, found
    assert found["round-trip"] == "yes", found
