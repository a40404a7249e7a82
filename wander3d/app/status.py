"""The status bar's figures: agents, frame rate, costs and speed, in one line."""

from __future__ import annotations

from wander3d.drawing.pacing import FrameStats, SpeedMeter
from wander3d.session import Session

#: The status bar names the speed reached when it is below this fraction of the one asked.
SLOW_FRACTION = 0.9
#: The figures' tooltip.
STATUS_TIP = (
    "fps: frames drawn per second (while running). sim: milliseconds the engine spent per "
    "frame; draw: milliseconds drawing it. Speed: simulated seconds per real second, with the "
    "speed reached when the machine cannot keep up. 'Drawing 1 in k agents': a huge scene "
    "draws an evenly strided subset of each group to stay responsive, and every agent again "
    "once frames are fast (screenshots always show every agent)."
)


def status_line(session: Session, stats: FrameStats, meter: SpeedMeter, stride: int) -> str:
    """E.g. "300 agents  ·  62 fps  ·  sim 0.4 ms  ·  draw 11.9 ms  ·  speed x1", with the
    speed reached when the machine cannot keep up and the subset drawn (1 agent in `stride`)
    for huge scenes. Short, so a note keeps room beside it: STATUS_TIP says what each means.

    No step or time: the timeline bar shows the one clock, so two figures refreshed at
    different moments never disagree on screen. Paused, no frame rate: frames are drawn only
    when something changes, and "0 fps" would read as a fault.
    """
    speed = f"speed x{session.speed:g}"
    reached = meter.speed
    if session.running and reached is not None and reached < SLOW_FRACTION * session.speed:
        speed = f"x{reached:.2g} of real time (asked x{session.speed:g})"
    rate = f"{stats.fps:.0f} fps  ·  " if session.running else ""
    state = "" if session.running else "  ·  paused"
    subset = f"  ·  drawing 1 in {stride} agents" if stride > 1 else ""
    return (
        f"{session.agent_count:,} agents  ·  {rate}sim {stats.sim_ms:.1f} ms  ·  "
        f"draw {stats.draw_ms:.1f} ms  ·  {speed}{state}{subset}"
    )
