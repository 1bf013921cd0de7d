"""Plots from the report model (matplotlib, Agg, no display): bars with intervals,
metric-vs-parameter curves for grid axes, quality-vs-cost Pareto fronts, aggregate interval estimates,
learning curves with seed bands (`curve_plots`) and the critical-difference diagram (`cd_plot`)."""
from __future__ import annotations

import math
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import LogFormatter  # noqa: E402

from harness.aggregates import LOWER_IS_BETTER, TITLES  # noqa: E402
from harness.reporting.colors import method_colors  # noqa: E402
from harness.reporting.model import Cell, ReportData  # noqa: E402


def figures(data: ReportData) -> dict[str, Figure]:
    """Every plot the report has, keyed by its name (which can hold a method's name: `file_safe` it for a file)."""
    out = {f"bars_{data.main_metric}": bar_chart(data, data.main_metric)}
    for entry, axis in grid_axes(data).items():
        out[f"curve_{entry}_{axis}"] = parameter_curve(data, data.main_metric, entry, axis)
    if "wall_s" in data.metrics:
        out[f"pareto_{data.main_metric}_wall_s"] = pareto_front(data, data.main_metric, "wall_s")
    for tradeoff in data.suite.report.tradeoffs:
        if tradeoff.x in data.metrics and tradeoff.y in data.metrics:
            out[f"tradeoff_{tradeoff.y}_vs_{tradeoff.x}"] = tradeoff_curves(data, tradeoff.x, tradeoff.y)
    if data.aggregates is not None:
        out[f"aggregates_{data.aggregates.block.metric}"] = aggregate_intervals(data)
    if data.curves:
        from harness.reporting.curve_plots import curve_figures

        out.update(curve_figures(data))
    if data.ranks is not None and data.ranks.comparison is not None:
        out[data.ranks.figure_name] = rank_diagram(data)
    return out


def _mean_and_error(cell: Cell | None) -> tuple[float, float]:
    if cell is None or cell.stats.n == 0:
        return math.nan, math.nan
    return cell.stats.mean, cell.stats.ci95 if cell.stats.n > 1 else math.nan


def bar_chart(data: ReportData, metric: str) -> Figure:
    """Grouped bars per dataset, one per method, with 95% intervals (none where n < 2; NaN marked)."""
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(data.datasets) * max(1, len(data.methods)) / 3), 3.2))
    width = 0.8 / max(1, len(data.methods))
    colors = method_colors(data.methods)
    for i, method in enumerate(data.methods):
        xs, means, errors = [], [], []
        for j, dataset in enumerate(data.datasets):
            mean, error = _mean_and_error(data.cell(method, dataset, metric))
            x = j + (i - (len(data.methods) - 1) / 2) * width
            if math.isfinite(mean):
                xs.append(x)
                means.append(mean)
                errors.append(error if math.isfinite(error) else 0.0)
            else:
                ax.text(x, 0, "NaN", rotation=90, ha="center", va="bottom", fontsize=7)
        ax.bar(xs, means, width, yerr=errors, capsize=2, label=method, color=colors[method])
    ax.set_xticks(range(len(data.datasets)), data.datasets)
    ax.set_ylabel(data.metrics[metric].label)
    ax.set_title(f"{data.suite.suite}: {metric}, mean ± 95% CI over seeds", fontsize=9)
    ax.legend(fontsize=7, ncols=min(3, max(1, len(data.methods))))
    fig.tight_layout()
    return fig


def grid_axes(data: ReportData) -> dict[str, str]:
    """Suite entries whose variants differ in exactly one numeric parameter: that parameter."""
    by_entry: dict[str, list[dict[str, Any]]] = {}
    for entry, params in data.variants.values():
        by_entry.setdefault(entry, []).append(params)
    axes = {}
    for entry, variants in by_entry.items():
        if len(variants) < 2:
            continue
        varying = [k for k in variants[0] if len({repr(v.get(k)) for v in variants}) > 1]
        if len(varying) == 1 and all(isinstance(v.get(varying[0]), (int, float)) for v in variants):
            axes[entry] = varying[0]
    return axes


def parameter_curve(data: ReportData, metric: str, entry: str, axis: str) -> Figure:
    """The metric against one grid parameter, a line per dataset with its interval band."""
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    labels = sorted((params[axis], label) for label, (e, params) in data.variants.items() if e == entry)
    for dataset in data.datasets:
        points = [(x, *_mean_and_error(data.cell(label, dataset, metric))) for x, label in labels]
        points = [p for p in points if math.isfinite(p[1])]
        if not points:
            continue
        xs, means, errors = zip(*points, strict=True)
        ax.plot(xs, means, marker="o", label=dataset)
        lows = [m - (e if math.isfinite(e) else 0) for m, e in zip(means, errors, strict=True)]
        highs = [m + (e if math.isfinite(e) else 0) for m, e in zip(means, errors, strict=True)]
        ax.fill_between(xs, lows, highs, alpha=0.2)
    ax.set_xlabel(f"{entry}: {axis}")
    ax.set_ylabel(data.metrics[metric].label)
    ax.set_title(f"{metric} vs {axis}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def pareto_front(data: ReportData, metric: str, cost: str) -> Figure:
    """Quality against cost per method, one panel per dataset; the non-dominated methods are joined."""
    fig, axes = plt.subplots(1, len(data.datasets), figsize=(3.6 * len(data.datasets), 3.2), squeeze=False)
    higher = data.metrics[metric].higher_is_better is True  # the front of an undirected metric: lower is better
    colors = method_colors(data.methods)
    for ax, dataset in zip(axes[0], data.datasets, strict=True):
        points = []
        for method in data.methods:
            quality, _ = _mean_and_error(data.cell(method, dataset, metric))
            price, _ = _mean_and_error(data.cell(method, dataset, cost))
            if math.isfinite(quality) and math.isfinite(price):
                points.append((price, quality, method))
                ax.scatter(price, quality, color=colors[method])
                ax.annotate(method, (price, quality), fontsize=7, xytext=(3, 3), textcoords="offset points")
        front = _non_dominated(points, higher)
        if front:
            ax.plot([p[0] for p in front], [p[1] for p in front], linestyle="--", color="grey")
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
        ax.set_xlabel(data.metrics[cost].label)
        ax.set_ylabel(data.metrics[metric].label)
        ax.set_title(dataset, fontsize=9)
    _numeric_panel_margins(fig)
    return fig


def _numeric_panel_margins(fig: Figure) -> None:
    """Fixed margins, in inches, for a row of panels whose tick labels are short numbers: `tight_layout` measures
    every text first, which took 0.2-0.3 s of a 10-panel Pareto plot's 1.0 s."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=0.7 / width, right=1 - 0.15 / width, bottom=0.55 / height, top=1 - 0.3 / height,
                        wspace=0.35)


def _plain_log_ticks(axis: Any) -> None:
    """Tick labels such as 0.002 instead of matplotlib's mathtext 2x10^-3: parsing mathtext took 0.2-0.4 s of
    a 2.5 s report, and the plain form reads as well."""
    axis.set_major_formatter(LogFormatter())
    axis.set_minor_formatter(LogFormatter(labelOnlyBase=False))


def tradeoff_curves(data: ReportData, x: str, y: str) -> Figure:
    """y against x, one panel per dataset, a line per suite method through its variants (sorted by x),
    with 95% intervals over seeds on both axes: e.g. a recall-vs-density front from a threshold sweep."""
    fig, axes = plt.subplots(1, len(data.datasets), figsize=(4.2 * len(data.datasets), 3.4), squeeze=False)
    entries = list(dict.fromkeys(entry for entry, _ in data.variants.values()))
    colors = method_colors(tuple(entries))
    for ax, dataset in zip(axes[0], data.datasets, strict=True):
        for entry in entries:
            points = []
            for label in (m for m in data.methods if data.variants.get(m, (m,))[0] == entry):
                (mx, ex), (my, ey) = (_mean_and_error(data.cell(label, dataset, k)) for k in (x, y))
                if math.isfinite(mx) and math.isfinite(my):
                    points.append((mx, my, 0.0 if math.isnan(ex) else ex, 0.0 if math.isnan(ey) else ey))
            if points:
                xs, ys, exs, eys = zip(*sorted(points), strict=True)
                ax.errorbar(xs, ys, xerr=exs, yerr=eys, marker="o", markersize=3, capsize=2, label=entry,
                            color=colors[entry])
        ax.set_xlabel(data.metrics[x].label)
        ax.set_ylabel(data.metrics[y].label)
        ax.set_title(dataset, fontsize=9)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def aggregate_intervals(data: ReportData) -> Figure:
    """Each aggregate's 95% interval per method as a bar with a tick at the estimate, a panel per statistic
    (rliable's `plot_interval_estimates` layout); methods without runs on every dataset are left out."""
    report = data.aggregates
    assert report is not None  # `figures` draws it for suites with aggregates only
    rows = [row for row in report.rows if row.estimates]
    names = report.block.statistics
    fig, axes = plt.subplots(1, len(names), figsize=(2.6 * len(names) + 1.2, 0.35 * len(rows) + 1.2),
                             squeeze=False, sharey=True)
    colors = method_colors(data.methods)
    for ax, name in zip(axes[0], names, strict=True):
        for y, row in enumerate(rows):
            found = row.estimates[name]
            ax.barh(y, found.high - found.low, left=found.low, height=0.6, color=colors[row.method], alpha=0.75)
            ax.vlines(found.point, y - 0.3, y + 0.3, color="black", linewidth=1.2)
        ax.set_title(TITLES[name] + (" (lower is better)" if name in LOWER_IS_BETTER else ""), fontsize=9)
        ax.set_xlabel(f"normalised {report.block.metric}", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(range(len(rows)), [row.method for row in rows], fontsize=8)
    axes[0][0].invert_yaxis()  # the report's first method on top, as the tables list it
    fig.suptitle(f"{data.suite.suite}: aggregates over {len(report.datasets)} datasets, 95% stratified bootstrap "
                 "intervals", fontsize=9)
    fig.tight_layout()
    return fig


def rank_diagram(data: ReportData) -> Figure:
    """The critical-difference diagram of the report's rank comparison over datasets (`cd_plot`)."""
    from harness.reporting.cd_plot import critical_difference_diagram

    ranks = data.ranks
    assert ranks is not None and ranks.comparison is not None  # `figures` draws it only then
    comparison = ranks.comparison
    verdict = "" if comparison.differ else ": no difference detected, read no bar as one"
    title = (f"{data.suite.suite}: mean rank on {ranks.metric} over {len(ranks.datasets)} datasets (1 = best)",
             f"Nemenyi CD at α = {comparison.alpha:g}; Friedman p = {comparison.friedman.p_value:.2g}{verdict}")
    return critical_difference_diagram(list(ranks.methods), list(comparison.friedman.mean_ranks), comparison.cd,
                                       comparison.groups(), title)


def _non_dominated(points: list[tuple[float, float, str]], higher: bool) -> list[tuple[float, float, str]]:
    """Points no other point beats on both cost (lower) and quality, sorted by cost."""
    sign = 1 if higher else -1
    front, best = [], -math.inf
    for price, quality, method in sorted(points, key=lambda p: (p[0], -sign * p[1])):
        if sign * quality > best:
            front.append((price, quality, method))
            best = sign * quality
    return front
