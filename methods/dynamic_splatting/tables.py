"""USplat4D's toy-table layout T-US-2 (spec shared/papers/usplat4d.md) from a report's `table.csv`: one table per
scene kind, a row per method, columns extreme-view PSNR / SSIM (whole and co-visible), occluded-interval EPE,
EPE, PCK and Spearman(u, error); then issue 61's breakdowns: calibration beside the visibility baseline, the
extreme views' PSNR per region and frame group, each method's paired difference from the reference (uniform,
or segment-blind USplat4D where uniform is not in the suite) per seed from `runs.csv` beside `table.csv`, the
skinning weight across segments and the scene's own figures. The harness's own report has one table per metric.
T-US-1 (DyCheck: SoM and MoSca with and without USplat4D) has no numbers to fill: the spec retrieved none and
its pipeline is not run.

    python -m methods.dynamic_splatting.tables reports/usplat4d_views/table.csv reports/usplat4d_views/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from harness.reporting.paper_tables import mean_with_interval, tables_per_dataset
from harness.spreadsheet_cells import read_harness_csv

T_US_2 = (("psnr_extreme", "PSNR", 2), ("ssim_extreme", "SSIM", 3), ("mpsnr_extreme", "mPSNR", 2),
          ("mssim_extreme", "mSSIM", 3), ("epe_occluded", "occluded EPE", 3), ("epe", "EPE", 3),
          ("pck", "PCK (%)", 1), ("uncertainty_spearman", "Spearman(u, err)", 2))


def toy_table(cells: pd.DataFrame) -> str:
    """Markdown T-US-2: per scene kind, methods as rows (the report's order), mean ± 95% CI over seeds."""
    measured = cells[cells["source"] == "measured"]
    columns = [(m, label, d) for m, label, d in T_US_2 if m in set(measured["metric"])]
    lines = ["# T-US-2: extreme views, trajectories and calibration on generated scenes", "",
             "Mean ± 95% CI half-width over seeds (Student t), from the report's table.csv; EPE in world units "
             "(the scene spans 2.8).", ""]
    for dataset, block in measured.groupby("dataset", sort=False):
        lines += [f"## {dataset}", "", "| method | " + " | ".join(label for _, label, _ in columns) + " |",
                  "|---|" + "---:|" * len(columns)]
        for method in dict.fromkeys(block["method"]):
            row = []
            for metric, _, digits in columns:
                found = block[(block["method"] == method) & (block["metric"] == metric)]
                row.append(mean_with_interval(found.iloc[0], digits) if len(found) else "—")
            lines.append(f"| {method} | " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


CALIBRATION = ("uncertainty_spearman", "visibility_spearman", "uncertainty_partial_spearman",
               "uncertainty_spearman_visible")
BREAKDOWN = ("psnr_extreme", "psnr_moving", "psnr_static", "psnr_background", "psnr_unseen_footprint",
             "psnr_segment_0", "psnr_segment_1", "psnr_segment_2", "psnr_occluded_frames", "psnr_clear_frames",
             "frame_psnr_occlusion_spearman")
SEGMENTS = ("cross_segment_weight", "cross_segment_over_quarter", "epe", "epe_occluded", "pck")
SCENE = ("occluded_pair_share", "prior_epe_seen", "prior_epe_unseen")


def paired_differences(runs: pd.DataFrame, metrics: tuple[str, ...]) -> str:
    """Markdown: per dataset, each method's mean paired difference (same seed) from the reference, ± the 95% t
    half-width, for `metrics`: where a method gains or loses against the reference, region by region."""
    methods = list(dict.fromkeys(runs["method"]))
    reference = "uniform" if "uniform" in methods else "usplat4d"
    columns = [m for m in metrics if f"metric.{m}" in runs.columns]
    lines = [f"# Paired differences from {reference} (same seed), mean ± 95% CI half-width (Student t)", ""]
    for dataset, block in runs[runs["status"] == "ok"].groupby("dataset", sort=False):
        base = block[block["method"] == reference].set_index("seed")
        lines += [f"## {dataset}", "", "| method | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
        for method in (m for m in methods if m != reference):
            own = block[block["method"] == method].set_index("seed")
            row = [_difference(own[f"metric.{m}"] - base[f"metric.{m}"]) for m in columns]
            lines.append(f"| {method} − {reference} | " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


def _difference(values: pd.Series) -> str:
    finite = values[np.isfinite(values.astype(float))].astype(float)
    if len(finite) < 2:
        return "—"
    half = student_t.ppf(0.975, len(finite) - 1) * finite.std(ddof=1) / np.sqrt(len(finite))
    return f"{finite.mean():+.2f} ± {half:.2f}"


def _completed(cells: pd.DataFrame, metrics: tuple[str, ...]) -> pd.DataFrame:
    """`cells` with an unmeasured row (n 0: written "—") for each (dataset, method, metric) it lacks, e.g. a
    figure only graph runs record; `tables_per_dataset` needs every cell of its grid."""
    measured = cells[cells["source"] == "measured"]
    have = set(zip(measured["dataset"], measured["method"], measured["metric"], strict=True))
    pairs = dict.fromkeys(zip(measured["dataset"], measured["method"], strict=True))
    missing = [{"source": "measured", "dataset": d, "method": m, "metric": metric, "n": 0, "mean": float("nan")}
               for d, m in pairs for metric in metrics
               if (d, m, metric) not in have and metric in set(measured["metric"])]
    return pd.concat([cells, pd.DataFrame(missing)], ignore_index=True) if missing else cells


def breakdown_tables(cells: pd.DataFrame, runs: pd.DataFrame | None) -> str:
    """Issue 61's tables: calibration beside the visibility baseline, PSNR per region and frame group (and the
    paired differences when `runs` is given), the segment figures and the scene's own figures."""
    parts = [tables_per_dataset(cells, CALIBRATION, "Calibration: uncertainty beside the visibility baseline"),
             tables_per_dataset(cells, BREAKDOWN, "Extreme-view PSNR (dB) per region and frame group"),
             tables_per_dataset(_completed(cells, SEGMENTS), SEGMENTS,
                                "Skinning across segments (recorded, %) and trajectories"),
             tables_per_dataset(cells[cells["method"] == cells["method"].iloc[0]], SCENE,
                                "The scene and its prior (the same for every method)")]
    if runs is not None:
        parts.insert(2, paired_differences(runs, BREAKDOWN + ("mpsnr_extreme", "epe_occluded")))
    return "\n".join(parts)


def main(argv: list[str]) -> None:
    cells = read_harness_csv(argv[0])
    runs_file = Path(argv[0]).with_name("runs.csv")
    runs = read_harness_csv(runs_file) if runs_file.exists() else None
    Path(argv[1]).write_text(toy_table(cells) + "\n" + breakdown_tables(cells, runs), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
