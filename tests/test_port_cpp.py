"""The C++ port (wander3d/port/cpp): its conformance driver, built with `g++ -std=c++17 -O2
-ffp-contract=off` and run exactly as the port's README says, prints what `wander3d run --out
.csv` writes, byte for byte, over 60 simulated seconds of every bundled scene and of the
scenes the tests write (every method x steering mode, level and flattened agents, heavy agents
at the walls, dt 1/30 and 1/120)."""

from __future__ import annotations

import pytest
from port_support import (
    BUNDLED,
    SAMPLE_RATE,
    SAMPLE_RATES,
    SECONDS,
    WRITTEN,
    assert_same_csv,
    build_probe,
    check_checked_in_core,
    check_crlf_start,
    check_edit,
    check_formatting,
    check_frame_rate,
    check_group_subset,
    check_set_method,
    check_spawn,
    check_spawned_as_documented,
    conformance,
    need,
    reference,
    scene_file,
    write_port_of,
)

TOOLS = ("g++",)


@pytest.mark.parametrize("name", [*BUNDLED, *WRITTEN])
def test_the_cpp_port_repeats_wander3d_run(tmp_path, name):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, name), "cpp", tmp_path / "port")
    rate = SAMPLE_RATES.get(name, SAMPLE_RATE)
    ours = conformance("cpp", port, SECONDS, rate, tmp_path)
    assert_same_csv(ours, reference(port, SECONDS, rate))


def test_the_cpp_driver_refuses_bad_arguments(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "cpp", tmp_path / "port")
    with pytest.raises(AssertionError, match=r"usage: conformance SECONDS SAMPLE_RATE"):
        conformance("cpp", port, "-1", "x", tmp_path)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    need(*TOOLS)
    folder = tmp_path_factory.mktemp("probe")
    build = ["g++", "-std=c++17", "-O2", "-ffp-contract=off", "-o", "probe", "probe.cpp"]
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
    check_edit(probe)


def test_a_start_with_windows_line_ends_is_read_alike(probe, tmp_path):
    check_crlf_start(probe, tmp_path)


def test_the_checked_in_core_is_the_default_scenes_port():
    check_checked_in_core("cpp")


def test_a_group_subset_ports_the_smaller_scene(tmp_path):
    need(*TOOLS)
    check_group_subset("cpp", tmp_path)
