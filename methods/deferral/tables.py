"""The paper's table layouts from a report's `table.csv` (the measured cells): T-L2D-1, one table per dataset
with a row per method and a column per figure, and T-L2D-3, the allocation shares and the k(x) histogram.
The harness's own report has one table per metric; these put a dataset's figures side by side.

    python -m methods.deferral.tables reports/defer_topk/table.csv reports/defer_topk/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

from harness.reporting.paper_tables import tables_per_dataset
from harness.spreadsheet_cells import read_harness_csv

T_L2D_1 = ("accuracy", "mse", "consult_cost", "total_cost", "regret", "cost_auc")
T_L2D_3 = ("share_model", "share_expert1", "share_expert2", "share_expert3", "share_expert4", "share_expert5",
           "share_expert6", "mean_k", "k_share_1", "k_share_2", "k_share_3", "k_share_4", "k_share_5")


def main(argv: list[str]) -> None:
    cells = read_harness_csv(argv[0])
    first = tables_per_dataset(cells, T_L2D_1,
                               "T-L2D-1: accuracy (MSE), consultation cost, total cost, regret, curve area")
    third = tables_per_dataset(cells, T_L2D_3,
                               "T-L2D-3: share of queries per entity (%), mean k and the k(x) histogram (%)")
    Path(argv[1]).write_text(first + "\n" + third, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
