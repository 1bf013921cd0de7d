"""USplat4D's toy-table layout T-US-2 (spec shared/papers/usplat4d.md) from a report's `table.csv`: one table per
scene kind, a row per method, columns extreme-view PSNR / SSIM (whole and co-visible), occluded-interval EPE,
EPE, PCK and Spearman(u, error). The harness's own report has one table per metric. T-US-1 (DyCheck: SoM and
MoSca with and without USplat4D) has no numbers to fill: the spec retrieved none and its pipeline is not run.

    python -m methods.dynamic_splatting.tables reports/usplat4d_views/table.csv reports/usplat4d_views/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.reporting.paper_tables import mean_with_interval
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


def main(argv: list[str]) -> None:
    Path(argv[1]).write_text(toy_table(read_harness_csv(argv[0])), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
