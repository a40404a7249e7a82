"""What drawing a run involves that needs neither Qt nor vispy, so a core install imports and
tests it: which of a trail ring's samples a frame draws and how coarsely (`trail_plan`: the
levels of detail, whose figures the shared page is given too), and the pacing of frames in
real time (`pacing`: the display clock, the engine's work per frame, the speed reached, the
status figures, the stride of agents a huge scene draws).

Depends on numpy alone; the renderer, the app's frame loop and the shared page use it.
"""
