"""`wander3d stats --plot`: per group, turn-rate distributions, autocorrelations, mean squared
displacement and turn and lift angle distributions, as PNG, SVG or PDF.

matplotlib is imported here only, with the Agg backend (no display), when a plot is asked for.
`plot_format` (no matplotlib) says which format a file name asks for, so a command can refuse
a bad name before a long run; the atlas (sweep/plot.py) uses it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from wander3d.files import unknown_format

from .metric_table import metric, unit_text
from .report import StatsReport, title
from .stats import GroupCurves

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Plot file extensions and the matplotlib format each writes.
PLOT_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def plot_format(path: Path | str) -> str:
    """The matplotlib format `path`'s extension asks for ("png", "svg" or "pdf");
    ValueError("PATH: unknown format ...") for any other extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise ValueError(unknown_format(path, tuple(PLOT_FORMATS)))
    return PLOT_FORMATS[suffix]


#: Dark, like the app, so the scenes' colours (chosen for a dark background) read well.
BACKGROUND = _BACKGROUND = "#101418"
_PANEL = "#161b22"
_FOREGROUND = "#d8dee9"
_GRID = "#2e3440"


def write_plot(
    out: IO[bytes],
    report: StatsReport,
    curves: Sequence[GroupCurves],
    colors: Sequence[str],
    file_format: str = "png",
) -> None:
    """Draw the six panels for every group and write them to `out` in `file_format` (a value
    of PLOT_FORMATS).

    Top left: the distribution of per-sample turn rates (deg/s). Top middle: heading
    autocorrelation mean h_k . h_{k+l} against lag (s). Top right: turning-axis autocorrelation
    mean u_k . u_{k+l} with the 1/e line; where each curve crosses it is that group's
    persistence. Bottom: mean squared displacement against lag on log-log axes with the
    correlated random walk's prediction dashed; the turn and lift angle distributions.
    colors: one "#rrggbb" per group.
    """
    import matplotlib.pyplot as plt

    fig = plot_figure(report, curves, colors)
    try:
        fig.savefig(out, format=file_format, facecolor=_BACKGROUND)
    finally:
        plt.close(fig)


def plot_figure(
    report: StatsReport, curves: Sequence[GroupCurves], colors: Sequence[str]
) -> Figure:
    """The six panels (see write_plot) as a matplotlib Figure (Agg; the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(16, 10.4), dpi=110, facecolor=_BACKGROUND)
    try:
        _draw(axes[0], report, curves, colors)
        _draw_path(axes[1], report, curves, colors)
        fig.suptitle(title(report), color=_FOREGROUND, fontsize=12)
        fig.tight_layout(rect=(0, 0, 1, 0.97))
    except BaseException:
        plt.close(fig)
        raise
    return fig


def style_axes(ax: Axes, xlabel: str, ylabel: str, heading: str) -> None:
    """Dress a matplotlib Axes as every wander3d plot is: dark panel, light text and grid."""
    _style(ax, xlabel, ylabel, heading)


#: The most entries a legend lists; beyond, its last line says how many more were drawn.
LEGEND_ENTRIES = 12


def style_legend(ax: Axes) -> None:
    """The Axes' legend in the dark style, of at most LEGEND_ENTRIES lines: with more curves
    (`stats --per-track` on hundreds of tracks) the first ones and "and N more", so that it
    neither covers the panel nor outgrows the figure."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if len(handles) > LEGEND_ENTRIES:
        shown = LEGEND_ENTRIES - 1
        more = Line2D([], [], linestyle="none")
        handles = [*handles[:shown], more]
        labels = [*labels[:shown], f"and {len(labels) - shown:,} more"]
    legend = ax.legend(handles, labels, fontsize=8.5, facecolor=_BACKGROUND, edgecolor=_GRID,
                       labelcolor=_FOREGROUND, loc="best")  # fmt: skip
    legend.get_frame().set_alpha(0.85)


def _style(ax: Axes, xlabel: str, ylabel: str, heading: str) -> None:
    ax.set_facecolor(_PANEL)
    ax.set_title(heading, color=_FOREGROUND, fontsize=11, loc="left")
    ax.set_xlabel(xlabel, color=_FOREGROUND)
    ax.set_ylabel(ylabel, color=_FOREGROUND)
    ax.tick_params(colors=_FOREGROUND)
    ax.grid(True, color=_GRID, linewidth=0.8)
    for spine in ax.spines.values():
        spine.set_color(_GRID)


def _label(g_name: str, method: str) -> str:
    return g_name if g_name == method else f"{g_name} ({method})"


def _draw(
    axes: Sequence[Axes],
    report: StatsReport,
    curves: Sequence[GroupCurves],
    colors: Sequence[str],
) -> None:
    """The top row: turn-rate distributions, heading and turning-axis autocorrelations."""
    rates_ax, heading_ax, axis_ax = axes
    groups = report.groups

    # Turn rates span decades (a random force barely turns the heading per sample, a wall
    # bounce turns it by 90 degrees or more), so the bins are logarithmic and each curve shows
    # the share of a group's samples per bin: equal areas on the log axis, equal shares.
    pooled = np.concatenate([c.turn_rates for c in curves]) if curves else np.zeros(0)
    positive = pooled[pooled > 0]
    low, high = (
        (float(np.percentile(positive, 0.5)), float(positive.max()))
        if positive.size
        else (0.1, 1.0)
    )
    high = max(high, low * 10.0)
    edges = np.geomspace(low, high, 61)
    for g, c, color in zip(groups, curves, colors, strict=True):
        rates = np.clip(c.turn_rates, low, high)
        counts, _ = np.histogram(rates, bins=edges)
        share = counts / max(len(rates), 1)
        label = f"{_label(g.name, g.method)}: mean {metric('mean_turn_rate').cell(g)} deg/s"
        rates_ax.stairs(share, edges, color=color, linewidth=1.8, label=label)
        rates_ax.stairs(share, edges, color=color, alpha=0.10, fill=True)
    _style(rates_ax, "turn rate (deg/s, log scale)", "share of samples per bin",
           "Turn rate over each sample interval")  # fmt: skip
    rates_ax.set_xscale("log")
    rates_ax.set_xlim(low, high)
    rates_ax.set_ylim(bottom=0.0)

    for g, c, color in zip(groups, curves, colors, strict=True):
        heading_ax.plot(c.lags, c.heading_acf, color=color, linewidth=1.8,
                        label=_label(g.name, g.method))  # fmt: skip
    _style(heading_ax, "lag (s)", "mean  h(t) . h(t + lag)",
           "Heading autocorrelation: how long a direction lasts")  # fmt: skip
    heading_ax.axhline(0.0, color=_FOREGROUND, linewidth=0.8, alpha=0.5)
    heading_ax.set_ylim(-1.02, 1.02)

    threshold = np.exp(-1.0)
    for g, c, color in zip(groups, curves, colors, strict=True):
        label = f"{_label(g.name, g.method)}: {metric('persistence').cell(g)} s"
        axis_ax.plot(c.lags, c.axis_acf, color=color, linewidth=1.8, label=label)
        if not g.persistence_censored and np.isfinite(g.persistence):
            axis_ax.plot([g.persistence], [threshold], "o", color=color, markersize=6)
    axis_ax.axhline(threshold, color=_FOREGROUND, linewidth=1.0, linestyle="--", alpha=0.8)
    axis_ax.text(axes_limit(curves), threshold + 0.02, "1/e", color=_FOREGROUND, ha="right",
                 va="bottom", fontsize=9)  # fmt: skip
    axis_ax.axhline(0.0, color=_FOREGROUND, linewidth=0.8, alpha=0.5)
    _style(axis_ax, "lag (s)", "mean  u(t) . u(t + lag)",
           "Turning-axis autocorrelation (persistence: 1/e)")  # fmt: skip
    axis_ax.set_ylim(-0.5, 1.02)

    for ax in axes:
        style_legend(ax)
    for ax in (heading_ax, axis_ax):
        ax.set_xlim(0.0, axes_limit(curves))


def _draw_path(
    axes: Sequence[Axes],
    report: StatsReport,
    curves: Sequence[GroupCurves],
    colors: Sequence[str],
) -> None:
    """The bottom row: mean squared displacements, turn and lift angle distributions."""
    from matplotlib.ticker import NullLocator

    msd_ax, turn_ax, lift_ax = axes
    groups = report.groups
    for g, c, color in zip(groups, curves, colors, strict=True):
        slopes = metric("msd_slope").cell(g), metric("crw_msd_slope").cell(g)
        label = f"{_label(g.name, g.method)}: slope {slopes[0]} (CRW {slopes[1]})"
        msd_ax.plot(c.lags[1:], c.msd[1:], color=color, linewidth=1.8, label=label)
        msd_ax.plot(c.lags[1:], c.crw_msd[1:], color=color, linewidth=1.2, linestyle="--")
    msd_unit = unit_text("units^2", report.length_unit)
    _style(msd_ax, "lag (s, log scale)", f"MSD ({msd_unit}, log scale)",
           "Mean squared displacement (dashed: CRW prediction)")  # fmt: skip
    msd_ax.set_xscale("log")
    msd_ax.set_yscale("log")
    plain_log_ticks(msd_ax)

    for ax, name, heading in (
        (turn_ax, "turn_counts", "Horizontal turn angle between steps"),
        (lift_ax, "lift_counts", "Lift angle (change of elevation) between steps"),
    ):
        for g, c, color in zip(groups, curves, colors, strict=True):
            counts = getattr(c, name)
            share = counts / max(int(counts.sum()), 1)
            ax.stairs(share, c.angle_edges, color=color, linewidth=1.8,
                      label=_label(g.name, g.method))  # fmt: skip
        # Most turns between samples are a few degrees, wall bounces up to 180: an asinh
        # scale, linear near 0 and logarithmic beyond without symlog's kink (which drew the
        # central bins as one block), shows both, with plain tick labels; a log share shows
        # the rare large turns beside the common small ones.
        _style(ax, "angle (deg, asinh scale: linear near 0, log beyond)",
               "share of step pairs per 1 deg bin", heading)  # fmt: skip
        ax.set_xscale("asinh", linear_width=ANGLE_LINEAR_WIDTH)
        ax.set_xlim(-180.0, 180.0)
        ax.set_xticks(ANGLE_TICKS, [_angle_tick(t) for t in ANGLE_TICKS])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yscale("log")
        plain_log_ticks(ax)
    for ax in axes:
        style_legend(ax)


def plain_log_ticks(ax: Axes) -> None:
    """On each log axis of `ax` spanning less than two decades, a few plain labels (1, 2, 5
    times powers of ten) and no minor ones: matplotlib labels minor ticks of so short an
    axis (2, 3, 4, 6 x 10^-3), and their labels overlap."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        low, high = sorted(limits)
        if axis.get_scale() != "log" or not (low > 0 and high / low < 100.0):
            continue
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:g}"))
        axis.set_minor_formatter(NullFormatter())


#: The angle axes: degrees over which the asinh scale is about linear, and the ticks.
ANGLE_LINEAR_WIDTH = 2.0
ANGLE_TICKS = (-180, -30, -10, -3, 0, 3, 10, 30, 180)


def _angle_tick(degrees: int) -> str:
    """A plain tick label with a true minus sign (U+2212), not a symlog axis's "-10^0"."""
    return f"{degrees}".replace("-", "\u2212")


def axes_limit(curves: Sequence[GroupCurves]) -> float:
    """The longest lag any group's autocorrelation was computed to (s)."""
    return max((float(c.lags[-1]) for c in curves if len(c.lags)), default=1.0)
