"""The C# port (wander3d/port/csharp): its conformance driver, built with Mono's `mcs` and run
with `mono` exactly as the port's README says, prints what `wander3d run --out .csv` writes,
byte for byte, over 60 simulated seconds of every bundled scene and of the scenes the tests
write (every method x steering mode, level and flattened agents, heavy agents at the walls, dt
1/30 and 1/120)."""

from __future__ import annotations

import pytest
from port_support import (
    BUNDLED,
    SAMPLE_RATE,
    SAMPLE_RATES,
    SECONDS,
    WRITTEN,
    assert_same_csv,
    conformance,
    need,
    reference,
    reflected,
    scene_file,
    write_port_of,
)

TOOLS = ("mcs", "mono")


@pytest.mark.parametrize("name", [*BUNDLED, *WRITTEN])
def test_the_csharp_port_repeats_wander3d_run(tmp_path, name):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, name), "csharp", tmp_path / "port")
    rate = SAMPLE_RATES.get(name, SAMPLE_RATE)
    ours = conformance("csharp", port, SECONDS, rate, tmp_path)
    assert_same_csv(ours, reference(port, SECONDS, rate))


def test_the_csharp_driver_refuses_bad_arguments(tmp_path):
    need(*TOOLS)
    port = write_port_of(scene_file(tmp_path, "default"), "csharp", tmp_path / "port")
    with pytest.raises(AssertionError, match=r"usage: mono conformance\.exe SECONDS SAMPLE_RATE"):
        conformance("csharp", port, "-1", "x", tmp_path)


def test_the_heavy_agents_reach_the_walls(tmp_path):
    # Else the wall-reflection path would go unchecked by the scene named for it.
    assert reflected(scene_file(tmp_path, "heavy-walls"), SECONDS) > 0
