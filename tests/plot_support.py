"""Tests of `--plot`: the matplotlib figures a command drew, to look inside them."""

from __future__ import annotations

from typing import Any


def captured_figures(monkeypatch) -> list[Any]:
    """A list that every figure `wander3d.analysis.plot.plot_figure` draws from now on (in
    this test) is appended to, before it is saved and closed."""
    from wander3d.analysis import plot

    figures: list[Any] = []
    draw = plot.plot_figure

    def plot_figure(*args):
        figures.append(draw(*args))
        return figures[-1]

    monkeypatch.setattr(plot, "plot_figure", plot_figure)
    return figures
