"""The status bar's figures: step, time, agents, frame rate, costs and speed, in one line."""

from __future__ import annotations

from wander3d.session import Session

from .loop import FrameStats, SpeedMeter

#: The status bar names the speed reached when it is below this fraction of the one asked.
SLOW_FRACTION = 0.9


def status_line(session: Session, stats: FrameStats, meter: SpeedMeter, stride: int) -> str:
    """E.g. "step 1,200 · t 20.00 s · 300 agents · 62 fps · sim 0.4 ms · draw 11.9 ms ·
    speed x1", with the speed reached when the machine cannot keep up and the subset drawn
    (1 agent in `stride`) for huge scenes."""
    speed = f"speed x{session.speed:g}"
    reached = meter.speed
    if session.running and reached is not None and reached < SLOW_FRACTION * session.speed:
        speed = f"x{reached:.2g} of real time (asked x{session.speed:g})"
    state = "" if session.running else "  ·  paused"
    subset = f"  ·  drawing 1 in {stride} agents to stay responsive" if stride > 1 else ""
    step = session.step
    return (
        f"step {step:,}  ·  t {step * session.dt:.2f} s  ·  {session.agent_count:,} agents  ·  "
        f"{stats.fps:.0f} fps  ·  sim {stats.sim_ms:.1f} ms  ·  draw {stats.draw_ms:.1f} ms  ·  "
        f"{speed}{state}{subset}"
    )
