"""The optimised trail drawing against the original, full-detail drawing of the same frame
(`wander3d.bench.reference_drawing`; real OpenGL: PyQt6 on the test's virtual display, Mesa
llvmpipe)."""

from __future__ import annotations

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("vispy", reason=skip_reason("app"))

from gl_support import advance, close_view, draw_states

from wander3d.bench.reference_drawing import ReferenceDrawing
from wander3d.engine import Enclosure, GroupParams, Simulation, WanderParams
from wander3d.render import SimulationView, trails
from wander3d.scene import Scene
from wander3d.session import Session

pytestmark = [pytest.mark.gl, pytest.mark.app]


def trail_scene(count: int, seed: int, margin: float, size: float = 40.0) -> Scene:
    """One group of fast, sharply turning wanderers in a box of half-width `size`; a thin
    margin lets them reach the walls and reflect."""
    group = GroupParams(
        count=count,
        max_speed=40.0,
        max_force=40.0,
        trail_length=200,
        trail_seconds=200 / 60,  # one sample a step
        wander=WanderParams(method="sphere", jitter=20.0),
    )
    low, high = (-size, -size * 0.625, -size), (size, size * 0.625, size)
    box = Enclosure(min=low, max=high, margin=margin)
    return Scene(name="trails", seed=seed, dt=1 / 60, enclosure=box, groups=(group,))


def draw(view: SimulationView, original: ReferenceDrawing | None = None) -> np.ndarray:
    """The view's frame: as today, or as originally drawn with `original` given."""
    if original is not None:
        original.use(True)
    try:
        return view.render().astype(int)
    finally:
        if original is not None:
            original.use(False)


def lit(image: np.ndarray) -> np.ndarray:
    """Pixels the trails touched: clearly off the background (the top-left pixel)."""
    return np.abs(image[..., :3] - image[0, 0, :3]).max(axis=-1) > 6


def blur(image: np.ndarray) -> np.ndarray:
    """RGB averaged over each pixel's 3 x 3 neighbourhood."""
    rgb = np.pad(image[..., :3].astype(float), ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = image.shape[:2]
    return np.asarray(sum(rgb[dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3))) / 9


def pieces(mask: np.ndarray) -> int:
    """Connected pieces of a mask (8-neighbourhood: a one-pixel line steps diagonally)."""
    label = np.zeros(mask.shape, int)
    count = 0
    for y, x in zip(*np.nonzero(mask), strict=True):
        if label[y, x]:
            continue
        count += 1
        label[y, x] = count
        stack = [(y, x)]
        while stack:
            cy, cx = stack.pop()
            for yy in range(max(cy - 1, 0), min(cy + 2, mask.shape[0])):
                for xx in range(max(cx - 1, 0), min(cx + 2, mask.shape[1])):
                    if mask[yy, xx] and not label[yy, xx]:
                        label[yy, xx] = count
                        stack.append((yy, xx))
    return count


def trails_after(scene: Scene, steps: int):
    """Group 0's trails (engine.TrailView) after `steps` steps of `scene`, as the engine
    records them."""
    sim = Simulation(scene.run_spec)
    sim.step(steps)
    return sim.trails(0)


def shown_after(scene: Scene, steps: int, **view) -> tuple[Session, SimulationView]:
    """A session of `scene` stepped `steps` times and a view of it drawing its state."""
    session = Session(scene)
    advance(session, steps)
    shown = SimulationView(scene, session.layout, app="pyqt6", **view)
    draw_states(shown, session)
    return session, shown


@pytest.fixture
def make_view(qtbot):
    made = []

    def make(scene: Scene, steps: int, trails_only: bool) -> SimulationView:
        session, view = shown_after(scene, steps, size=(320, 240))
        if trails_only:
            view.set_enclosure_visible(False)
            for node in view.agents.nodes:
                node.visible = False
        made.append((session, view))
        return view

    yield make
    for session, view in made:
        close_view(view)
        session.close()


def test_the_optimised_frame_looks_like_the_full_detail_one(make_view, monkeypatch):
    view = make_view(trail_scene(count=150, seed=2, margin=6.0), steps=400, trails_only=False)
    original = ReferenceDrawing(view)
    reference = draw(view, original)
    everything = original.last_segments
    optimised = draw(view)
    # Level of detail is at work: far fewer segments than the original drew...
    assert view.trails.last_segments < 0.3 * everything
    # ...for a picture that differs in scattered pixels where a one-pixel line steps a pixel
    # aside, not in any trail's course: smoothed as an eye would, the difference is smaller.
    diff = np.abs(optimised[..., :3] - reference[..., :3]).max(axis=-1)
    assert diff.mean() < 2.0
    assert np.mean(diff > 32) < 0.02
    smoothed = np.abs(blur(optimised) - blur(reference)).max(axis=-1)
    assert smoothed.mean() < 1.2
    assert np.mean(smoothed > 16) < 0.015
    # Fading unchanged: as much trail light overall, old and new alike.
    background = reference[0, 0, :3]
    light = [np.abs(img[..., :3] - background).sum() for img in (reference, optimised)]
    assert light[1] == pytest.approx(light[0], rel=0.03)
    # Without level of detail only the chord across the ring's wrap and the faded tail go.
    monkeypatch.setattr(trails, "choose_level", lambda *_: 0)
    view.canvas.update()
    full = draw(view)
    assert np.mean(np.abs(full[..., :3] - reference[..., :3]).max(axis=-1) > 32) < 0.006


def test_no_gaps_where_a_trail_turns(make_view):
    """One agent turning hard, no wall in reach: one unbroken line, as in the original."""
    scene = trail_scene(count=1, seed=1, margin=12.0)
    view = make_view(scene, steps=400, trails_only=True)
    trail = trails_after(scene, 400)
    drawn = trail.connected[0, -190:]
    assert drawn.all()  # no reflection in the drawn part
    heading = np.diff(trail.points[0, -190:], axis=0)
    turn = np.degrees(np.arccos(np.clip(np.dot(heading[0], heading[-1]) / (
        np.linalg.norm(heading[0]) * np.linalg.norm(heading[-1])), -1, 1)))  # fmt: skip
    assert turn > 60.0
    original = ReferenceDrawing(view)
    reference = lit(draw(view, original))
    everything = original.last_segments
    optimised = lit(draw(view))
    assert view.trails.last_segments < 0.25 * everything
    assert pieces(reference) == pieces(optimised) == 1
    assert optimised.sum() >= 0.95 * reference.sum()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_reflection_at_a_wall_still_breaks_the_trail(make_view, seed):
    # No margin: containment would turn the agent before the wall (it does, with any margin
    # it can turn within), and this test needs it to reach the wall and be reflected.
    scene = trail_scene(count=1, seed=seed, margin=0.0)
    view = make_view(scene, steps=400, trails_only=True)
    assert not trails_after(scene, 400).connected[0, -190:].all()  # a reflection drawn
    reference = lit(draw(view, ReferenceDrawing(view)))
    optimised = lit(draw(view))
    # The full-detail drawing is broken at the reflections (two close together, or one near
    # an end, can look like one break), and the optimised one is broken just the same.
    assert pieces(reference) >= 2
    assert pieces(optimised) == pieces(reference)
    # ...with the gap no longer than one joined segment.
    assert optimised.sum() >= 0.85 * reference.sum()


def test_trails_draw_in_a_multisampled_canvas(qtbot):
    """As the app's canvas on a GPU: the trails switch multisampling off around themselves."""
    scene = trail_scene(count=20, seed=3, margin=6.0)
    session, view = shown_after(scene, 300, size=(160, 120), samples=4)
    try:
        assert all(t.node.single_sample for t in view.trails.groups.values())
        widget = view.canvas.native
        widget.show()
        qtbot.waitExposed(widget)
        view.canvas.update()
        qtbot.waitUntil(lambda: view.trails.last_segments > 0)
        assert lit(view.render().astype(int)).mean() > 0.01
    finally:
        close_view(view)
        session.close()


def test_a_stride_draws_the_trails_of_the_agents_it_draws(make_view):
    view = make_view(trail_scene(count=90, seed=3, margin=6.0), steps=300, trails_only=True)
    view.select(7)  # the selected agent keeps its trail
    whole = draw(view)
    segments = view.trails.last_segments
    view.set_agent_stride(3)
    strided = draw(view)
    node = view.trails.groups[0].node
    assert node.drawn_agents == 31  # rows 0, 3, ... 87 and 7
    assert view.trails.last_segments == segments // 90 * 31
    # Fewer trails (a third, crossing each other less), each where it was: the strided
    # picture's lines are the whole one's.
    assert 0.2 < lit(strided).sum() / lit(whole).sum() < 0.7
    assert np.mean(lit(strided) & ~lit(whole)) < 0.001
    view.set_agent_stride(1)
    np.testing.assert_array_equal(draw(view), whole)
