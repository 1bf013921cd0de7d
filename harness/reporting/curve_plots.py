"""A plot per learning curve and dataset: one line per method, the mean over seeds, with its 95% seed band."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from harness.curves import Curve  # noqa: E402
from harness.reporting.colors import method_colors  # noqa: E402
from harness.reporting.curve_bands import curve_panels, seed_band  # noqa: E402
from harness.reporting.model import MetricInfo, ReportData  # noqa: E402


def curve_figure_name(curve: str, dataset: str) -> str:
    """The plot's name, and (`file_safe`) its file's: what the Markdown report links."""
    return f"learning_{curve}_{dataset}"


def curve_figures(data: ReportData) -> dict[str, Figure]:
    """Every recorded curve's plot, per dataset, methods in the report's order and colours."""
    colors = method_colors(data.methods)
    panels = curve_panels(data.records, data.curves)
    return {curve_figure_name(curve, dataset): _figure(curve, dataset, by_method, data, colors)
            for (curve, dataset), by_method in sorted(panels.items())}


def _figure(curve: str, dataset: str, by_method: dict[str, list[Curve]], data: ReportData,
            colors: dict[str, object]) -> Figure:
    fig, ax = plt.subplots(figsize=(4.6, 3.0))
    interpolated = False
    for method in (m for m in data.methods if m in by_method):
        band = seed_band(method, by_method[method], data.interval)
        interpolated |= band.interpolated
        ax.plot(band.steps, band.mean, color=colors[method], linewidth=1.2, label=f"{method} (n={band.seeds})")
        ax.fill_between(band.steps, band.low, band.high, color=colors[method], alpha=0.2, linewidth=0)
    first = next(iter(by_method.values()))[0]
    ax.set_xlabel("step")
    ax.set_ylabel(MetricInfo(curve, first.higher_is_better, "quality", first.unit).label)
    note = "; seeds interpolated onto their union of steps" if interpolated else ""
    ax.set_title(f"{curve} on {dataset}: mean, 95% CI over seeds{note}", fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
