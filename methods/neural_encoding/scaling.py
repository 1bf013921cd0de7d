"""T-OM-2, the scaling grid, from a scaling report's `runs.csv`: mean r per (training sessions, width), power-law
fits in data (r against sessions at each width) and in parameters (r against shared parameters at each session
count) as least-squares lines in log-log space with 95% intervals on the exponent, and a saturation test (is
the largest width's gain over the next one positive? one-sided paired Wilcoxon over seeds).

    python -m methods.neural_encoding.scaling reports/omnimouse_scaling/runs.csv reports/omnimouse_scaling/scaling.md
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from harness.spreadsheet_cells import read_harness_csv

METRIC = "pop_stim_r"


@dataclass(frozen=True)
class PowerLaw:
    """log y = log a + exponent * log x, fitted over every (x, y) point; `ci95` bounds the exponent."""

    exponent: float
    ci95: tuple[float, float]
    prefactor: float
    points: int


def power_law_fit(x: np.ndarray, y: np.ndarray) -> PowerLaw:
    """Ordinary least squares of log y on log x (`scipy.stats.linregress`), the exponent's interval from
    Student's t with n - 2 degrees of freedom; needs positive values at two or more distinct x."""
    from scipy import stats

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if (x <= 0).any() or (y <= 0).any() or np.unique(x).size < 2 or x.size < 3:
        raise ValueError("a power-law fit needs positive values at two or more distinct x, three points at least")
    fit = stats.linregress(np.log(x), np.log(y))
    half = float(stats.t.ppf(0.975, x.size - 2) * fit.stderr)
    return PowerLaw(float(fit.slope), (float(fit.slope) - half, float(fit.slope) + half), float(np.exp(fit.intercept)),
                    int(x.size))


def saturation_p(smaller: np.ndarray, larger: np.ndarray) -> float:
    """One-sided paired Wilcoxon p that `larger` beats `smaller` (seeds paired); a large p: saturated."""
    from scipy import stats

    differences = np.asarray(larger) - np.asarray(smaller)
    if np.allclose(differences, 0):
        return 1.0
    return float(stats.wilcoxon(differences, alternative="greater").pvalue)


def scaling_runs(runs: pd.DataFrame, metric: str = METRIC) -> pd.DataFrame:
    """One row per run: sessions, width, shared parameters, seed and the metric (OmniMouse runs only)."""
    ok = runs[(runs["status"] == "ok") & runs["params"].str.contains('"width"')]
    params = ok["params"].map(json.loads)
    return pd.DataFrame({"sessions": params.map(lambda p: p["train_sessions"]).to_numpy(),
                         "width": params.map(lambda p: p["width"]).to_numpy(),
                         "parameters": ok["measure.shared_parameters"].to_numpy(),
                         "seed": ok["seed"].to_numpy(), "r": ok[f"metric.{metric}"].to_numpy()})


def _fit_cell(x: pd.Series, y: pd.Series) -> str:
    try:
        fit = power_law_fit(x.to_numpy(), y.to_numpy())
    except ValueError as exc:
        return f"— ({exc})"
    return f"{fit.exponent:.3f} [{fit.ci95[0]:.3f}, {fit.ci95[1]:.3f}]"


def report(runs: pd.DataFrame, metric: str = METRIC) -> str:
    data = scaling_runs(runs, metric)
    grid = data.groupby(["sessions", "width"])["r"].mean().unstack("width")
    lines = [f"# T-OM-2: scaling grid ({metric}, mean over seeds)", "",
             "A simulated cortex tests the protocol of a data-versus-parameter scaling study, not the biology.", "",
             "| sessions | " + " | ".join(f"width {w}" for w in grid.columns) + " |",
             "|---|" + "---:|" * len(grid.columns)]
    lines += [f"| {s} | " + " | ".join(f"{v:.3f}" for v in row) + " |" for s, row in grid.iterrows()]
    lines += ["", "## Power law in data: r ∝ sessions^b at each width (log-log OLS over runs, 95% CI)", "",
              "| width | b | runs |", "|---|---|---:|"]
    lines += [f"| {w} | {_fit_cell(block['sessions'], block['r'])} | {len(block)} |"
              for w, block in data.groupby("width")]
    lines += ["", "## Power law in parameters: r ∝ shared_parameters^b at each session count", "",
              "| sessions | b | runs |", "|---|---|---:|"]
    lines += [f"| {s} | {_fit_cell(block['parameters'], block['r'])} | {len(block)} |"
              for s, block in data.groupby("sessions")]
    widths = sorted(data["width"].unique())
    if len(widths) >= 2:
        lines += ["", f"## Saturation: does width {widths[-1]} beat width {widths[-2]}? (one-sided paired Wilcoxon)",
                  "", "| sessions | gain | p | verdict |", "|---|---:|---:|---|"]
        for s, block in data.groupby("sessions"):
            pivot = block.pivot(index="seed", columns="width", values="r")[[widths[-2], widths[-1]]].dropna()
            p = saturation_p(pivot[widths[-2]].to_numpy(), pivot[widths[-1]].to_numpy())
            gain = float((pivot[widths[-1]] - pivot[widths[-2]]).mean())
            verdict = "still improving" if p < 0.05 else "saturated (no significant gain)"
            lines.append(f"| {s} | {gain:+.3f} | {p:.3f} | {verdict} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    Path(argv[1]).write_text(report(read_harness_csv(argv[0])), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
