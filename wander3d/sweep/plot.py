"""The parameter atlas: how the main metrics change over one or two varied keys.

Two keys: one heatmap per metric (mean over seeds), one row of heatmaps per group. One key:
one line per group with the seeds' spread (min to max) shaded. matplotlib is imported here
only, with the Agg backend (no display).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from wander3d.analysis.metric_table import metric as metric_row
from wander3d.scene import schema

from .keys import KeyPathError, parse_key_path

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: A sweep table as columns (Table.to_pydict): column name -> one value per row.
Columns = dict[str, list[Any]]

#: (column, title) of the metrics the atlas shows; titles from the metric table.
METRICS = tuple(
    (name, metric_row(name).title)
    for name in ("mean_turn_rate", "twitchiness", "persistence", "about_turns", "wall_contact")
)


#: Tick labels and axis titles (points): readable at the atlas's size, not footnotes.
TICK_SIZE = 9
AXIS_SIZE = 10
#: Marks a heatmap cell whose persistence is a lower bound for some seed (see `stats`).
CENSORED_MARK = "≥"


def _label(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def axis_title(key: str) -> str:
    """A varied key as an axis says it: its name and unit, e.g. "groups.wander.jitter" ->
    "wander jitter (units/√s)", "groups[1].max_speed" -> "group 1 max speed (units/s)"."""
    try:
        path = parse_key_path(key)
    except KeyPathError:
        return key
    unit = schema.key(path.table, path.name).unit
    words = path.name.replace("_", " ")
    if path.table == "groups.wander":
        words = f"wander {words}"
    if path.group is not None:
        words = f"group {path.group} {words}"
    return f"{words} ({unit})" if unit else words


def _levels(column: Sequence[Any]) -> list[Any]:
    """The distinct values of a column in the order they first appear (the sweep's order)."""
    seen: list[Any] = []
    for v in column:
        if v not in seen:
            seen.append(v)
    return seen


def _grid(
    rows: Columns, keys: Sequence[str], group: str, metric: str
) -> tuple[list[list[Any]], dict[tuple[int, ...], list[float]]]:
    """`group`'s `metric` over the levels of `keys`: (per key, its levels in sweep order;
    per cell, (level index per key) -> the metric of each seed run there)."""
    levels = [_levels(rows[k]) for k in keys]
    cells: dict[tuple[int, ...], list[float]] = {}
    for i, name in enumerate(rows["group"]):
        if name != group:
            continue
        index = tuple(levels[j].index(rows[k][i]) for j, k in enumerate(keys))
        cells.setdefault(index, []).append(float(rows[metric][i]))
    return levels, cells


def write_atlas(
    out: IO[bytes], table: pa.Table, keys: Sequence[str], file_format: str = "png"
) -> None:
    """Draw the atlas of a sweep `table` varied over `keys` (one or two) into `out`, in
    `file_format` (a value of analysis.plot.PLOT_FORMATS: png, svg or pdf)."""
    import matplotlib.pyplot as plt

    fig = atlas_figure(table, keys)
    try:
        fig.savefig(out, format=file_format, dpi=100)
    finally:
        plt.close(fig)


def atlas_figure(table: pa.Table, keys: Sequence[str]) -> Figure:
    """The atlas of `table` over `keys` as a matplotlib Figure (Agg; the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not 1 <= len(keys) <= 2:
        raise ValueError("the atlas draws one or two varied keys")
    rows = table.to_pydict()
    groups = _levels(rows["group"])
    if len(keys) == 2:
        fig, axes = plt.subplots(
            len(groups),
            len(METRICS),
            figsize=(3.6 * len(METRICS), 3.2 * len(groups)),
            squeeze=False,
            layout="constrained",
        )
        for g, group in enumerate(groups):
            for m, (metric, title) in enumerate(METRICS):
                _heatmap(axes[g][m], rows, keys, group, metric, title, fig)
    else:
        fig, axes = plt.subplots(
            1,
            len(METRICS),
            figsize=(3.6 * len(METRICS), 3.4),
            squeeze=False,
            layout="constrained",
        )
        for m, (metric, title) in enumerate(METRICS):
            ax = axes[0][m]
            for group in groups:
                _lines(ax, rows, keys[0], group, metric)
            ax.set_title(title, fontsize=AXIS_SIZE)
            ax.set_xlabel(axis_title(keys[0]), fontsize=AXIS_SIZE)
            ax.tick_params(labelsize=TICK_SIZE)
        axes[0][0].legend(fontsize=8)
    return fig


def _heatmap(
    ax: Axes,
    rows: Columns,
    keys: Sequence[str],
    group: str,
    metric: str,
    title: str,
    fig: Figure,
) -> None:
    """`group`'s `metric` (mean over seeds) over two keys as a heatmap in `ax`, its colour
    bar beside it in `fig`."""
    from matplotlib import patheffects

    (xs, ys), cells = _grid(rows, keys, group, metric)
    grid = np.full((len(ys), len(xs)), np.nan)
    for (i, j), values in cells.items():
        grid[j, i] = np.mean(values)
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    bar = fig.colorbar(image, ax=ax, shrink=0.85)
    bar.ax.tick_params(labelsize=TICK_SIZE)
    ax.set_xticks(range(len(xs)), [_label(v) for v in xs], fontsize=TICK_SIZE, rotation=45)
    ax.set_yticks(range(len(ys)), [_label(v) for v in ys], fontsize=TICK_SIZE)
    ax.set_xlabel(axis_title(keys[0]), fontsize=AXIS_SIZE)
    ax.set_ylabel(axis_title(keys[1]), fontsize=AXIS_SIZE)
    flag = metric_row(metric).bound
    if flag is not None and flag in rows:
        # A lower bound is no value: the mean of the seeds is at least what the cell shows.
        _, censored = _grid(rows, keys, group, flag)
        for (i, j), flags in censored.items():
            if any(flags):
                mark = ax.text(i, j, CENSORED_MARK, ha="center", va="center", color="black",
                               fontsize=AXIS_SIZE + 2, fontweight="bold")  # fmt: skip
                mark.set_path_effects([patheffects.withStroke(linewidth=3, foreground="white")])
        if any(any(f) for f in censored.values()):
            title = f"{title}; {CENSORED_MARK}: lower bound"
    ax.set_title(f"{group}: {title}", fontsize=AXIS_SIZE)


def _lines(ax: Axes, rows: Columns, key: str, group: str, metric: str) -> None:
    """`group`'s `metric` over one key as a line (mean over seeds), the seeds' spread shaded."""
    (xs,), cells = _grid(rows, [key], group, metric)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in xs)
    positions = np.array(xs, dtype=float) if numeric else np.arange(len(xs), dtype=float)
    order = np.argsort(positions)
    values = [cells.get((i,), [np.nan]) for i in range(len(xs))]
    mean = np.array([np.mean(v) for v in values])[order]
    low = np.array([np.min(v) for v in values])[order]
    high = np.array([np.max(v) for v in values])[order]
    (line,) = ax.plot(positions[order], mean, marker="o", markersize=3, label=group)
    ax.fill_between(positions[order], low, high, color=line.get_color(), alpha=0.25, linewidth=0)
    flag = metric_row(metric).bound
    if flag is not None and flag in rows:
        # Lower bounds are drawn as what they are: an upward arrow from the value.
        _, censored = _grid(rows, [key], group, flag)
        bound = np.array([any(censored.get((i,), [False])) for i in range(len(xs))])[order]
        if bound.any():
            ax.plot(positions[order][bound], mean[bound], linestyle="none", marker="^",
                    markersize=8, color=line.get_color(), label=f"{group}: at least")  # fmt: skip
    if not numeric:
        ax.set_xticks(positions, [_label(v) for v in xs], fontsize=7)
    elif len(xs) > 2 and positions.min() > 0 and positions.max() / positions.min() > 20:
        ax.set_xscale("log")
