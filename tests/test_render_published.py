"""Every frame drawn is the engine's published state, while the user toggles what is shown and
the engine steps flat out on its own thread (real OpenGL: PyQt6 on the test's virtual
display, Mesa llvmpipe).

The view used to keep the live simulation and re-read its trail rings on every toggle while
the engine thread could be stepping it: a frame then mixed two moments of the run. Here what
reaches the GPU is watched at the visuals' doors (agents, trail rings, overlay lines, the
selection ring), and at every draw it is compared with a second simulation of the same scene,
stepped on this thread to the step of the state the view shows: runs are bit-for-bit
deterministic, so any sample taken from a later moment shows.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from gl_support import close_view

from wander3d.app.view_binding import ViewBinding
from wander3d.engine import Simulation
from wander3d.render import SimulationView
from wander3d.render.debug import debug_geometry
from wander3d.session import Overlay, Session, overlay_agents

pytestmark = [pytest.mark.gl, pytest.mark.app]

#: Frames drawn per run, and the canvas they are drawn on (small: llvmpipe draws it fast).
FRAMES = 80
SIZE = (96, 72)


class Uploads:
    """What each visual of `view` was given, as vispy sends it: the arrays are read when the
    frame is drawn (vispy queues them without a copy), so `drawn()` reads them then."""

    def __init__(self, view: SimulationView) -> None:
        self._agents: dict[int, np.ndarray] = {}
        self._writes: dict[int, list[tuple[int, np.ndarray]]] = {}
        self.rings: dict[int, np.ndarray] = {}
        self.ring_state: dict[int, tuple[int, int]] = {}
        self._lines: np.ndarray | None = None
        self._ring: np.ndarray | None = None
        for g, node in enumerate(view.agents.nodes):
            self._watch_agents(g, node)
        for g, trail in view.trails.groups.items():
            self._watch_trail(g, trail.node)
        self._watch_overlay(view.debug)

    def drawn(self) -> None:
        """Read what the frame about to be drawn sends: `agents`, `rings`, `lines`, `ring`."""
        self.agents = {g: np.array(a, np.float32) for g, a in self._agents.items()}
        for g, writes in self._writes.items():
            for first, points in writes:
                self.rings[g][first : first + len(points)] = points
            writes.clear()
        self.lines = None if self._lines is None else np.array(self._lines)
        self.ring = None if self._ring is None else np.array(self._ring)

    def _watch_agents(self, group, node) -> None:
        upload = node.set_data

        def set_data(positions, velocities):
            self._agents[group] = positions
            return upload(positions, velocities)

        node.set_data = set_data

    def _watch_trail(self, group, node) -> None:
        self.rings[group] = np.full((node.capacity, node.n_agents, 3), np.nan, np.float32)
        self._writes[group] = []
        write, set_state = node.write, node.set_ring_state

        def write_ring(first_slot, points, flags):
            self._writes[group].append((first_slot, points))
            return write(first_slot, points, flags)

        def set_ring_state(head, size):
            self.ring_state[group] = (head, size)
            set_state(head, size)

        node.write, node.set_ring_state = write_ring, set_ring_state

    def _watch_overlay(self, debug) -> None:
        lines, highlight = debug.lines.set_data, debug.highlight.set_data

        def set_lines(*args, **kwargs):
            self._lines = kwargs["pos"]
            return lines(*args, **kwargs)

        def set_ring(points, **kwargs):
            self._ring = points
            return highlight(points, **kwargs)

        debug.lines.set_data, debug.highlight.set_data = set_lines, set_ring


class Truth:
    """The run as the engine has it at any step: a simulation of the same scene, stepped
    forward on demand."""

    def __init__(self, scene) -> None:
        self.sim = Simulation(scene.run_spec)

    def at(self, step: int) -> Simulation:
        assert step >= self.sim.step_count, "the states shown went back in time"
        self.sim.step(step - self.sim.step_count)
        return self.sim


def check_frame(view: SimulationView, session: Session, seen: Uploads, truth: Truth) -> None:
    """What `view` is about to draw is the state it shows, as the engine had it."""
    seen.drawn()
    state, layout, display = view.state, view.layout, session.display
    assert state is not None, "a frame drawn before any state was shown"
    sim = truth.at(state.step)
    assert state.groups == sim.groups
    positions = sim.positions.astype(np.float32)
    for g, node in enumerate(view.agents.nodes):
        assert node.visible == (g not in display.hidden_groups)
        if node.visible:
            np.testing.assert_array_equal(seen.agents[g], positions[layout.group_slices[g]])
    assert view.enclosure.node.visible == display.enclosure
    for g, trail in view.trails.groups.items():
        published = state.trails[g] is not None
        assert trail.node.visible == (display.trails_shown(g) and published), g
        if trail.node.visible:
            buffer = sim.trail_buffers[g]
            assert seen.ring_state[g] == (buffer.head, buffer.size)
            filled = buffer.ordered_slots()
            np.testing.assert_array_equal(seen.rings[g][filled], buffer.slots[filled])
    # The overlay of the agents it covers now that the state holds (a toggle or a selection
    # made while a job ran reaches the state of the job after).
    covers = overlay_agents(layout, display, session.selected)
    agents = np.intersect1d(covers, state.overlay.agents)
    assert view.debug.lines.visible == (len(agents) > 0)
    if len(agents):
        expected, _, _ = debug_geometry(Overlay.of(sim, agents), sim.groups, layout)
        np.testing.assert_array_equal(seen.lines, expected)
    selected = session.selected
    ringed = selected is not None and int(layout.group_index[selected]) not in display.hidden_groups
    assert view.debug.highlight.visible == ringed
    if ringed and selected is not None:  # ringed: something is selected
        np.testing.assert_array_equal(seen.ring, positions[selected : selected + 1])


def toggles(session: Session, rng: np.random.Generator):
    """Every display option and the selection, one random change at a time."""
    display = session.display
    choices = [
        lambda: session.set_display(trails=not display.trails),
        lambda: session.set_display(enclosure=not display.enclosure),
        lambda: session.set_display(overlay=not display.overlay),
        lambda: session.set_display(overlay_all=not display.overlay_all),
        lambda: session.set_group_visible(0, 0 in display.hidden_groups),
        lambda: session.set_group_visible(1, 1 in display.hidden_groups),
        lambda: session.select(int(rng.integers(session.agent_count))),
        lambda: session.select(None),
    ]
    choices[int(rng.integers(len(choices)))]()


@pytest.fixture
def scene(small_scene):
    """The small scene with trails of a sample every step (a new sample every frame)."""
    groups = tuple(
        dataclasses.replace(g, trail_seconds=g.trail_length * small_scene.dt)
        for g in small_scene.groups
    )
    return small_scene.replace(groups=groups)


def test_every_drawn_frame_is_the_published_state_while_toggles_race_the_engine(
    qtbot, monkeypatch, scene
):
    rng = np.random.default_rng()  # a new pattern of toggles every run
    with Session(scene) as session:
        view = SimulationView(scene, session.layout, size=SIZE, app="pyqt6")
        binding = ViewBinding(session, view)  # the app's: toggles and selection reach the view
        seen = Uploads(view)
        view.show_state(session.state)

        def show() -> None:
            view.show_state(session.state)
            assert not view.trails_behind  # every state is shown, in order

        session.events.state_changed.connect(show)
        truth = Truth(scene)
        drawn, racing = [], []
        start = view.canvas.frame_start

        def frame_start() -> None:  # every frame, on screen or rendered, before drawing
            check_frame(view, session, seen, truth)  # a state is shown
            assert view.state is not None
            drawn.append(view.state.step)
            racing.append(session.busy)  # a job handed to the engine and not yet collected
            start()

        monkeypatch.setattr(view.canvas, "frame_start", frame_start)
        # Flat out: the engine gets its next job as soon as the last one is collected, so it
        # is stepping (ahead of the state shown) while the toggles and the frames happen.
        for _ in range(FRAMES):
            session.collect()
            session.dispatch(steps=int(rng.integers(1, 4)))
            toggles(session, rng)
            view.render(SIZE)
        session.settle()
        view.render(SIZE)
        # Every frame was checked, most while the engine had a job, and the run went on (how
        # far depends on how busy the machine is).
        assert len(drawn) == FRAMES + 1 and sum(racing) >= FRAMES // 2 and session.step > 0
        # Once the engine caught up, the overlay covers everything asked for.
        covers = overlay_agents(session.layout, session.display, session.selected)
        assert view.state is not None
        np.testing.assert_array_equal(view.state.overlay.agents, covers)
        binding.deleteLater()
        close_view(view)
