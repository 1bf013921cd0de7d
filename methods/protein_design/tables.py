"""The paper's layouts from a report's files: T-PA-1 (methods as rows, the metrics as columns, per dataset) and
T-PA-3 (the HP-lattice toy) from `table.csv`, and T-PA-2 (the two training objectives per round, one path per
alignment method, seeds averaged) from `curves.csv` and `runs.csv`.

    python -m methods.protein_design.tables reports/protein_mompnn reports/protein_mompnn/tables.md
    python -m methods.protein_design.tables reports/protein_mompnn_v2 reports/protein_mompnn_v2/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.reporting.paper_tables import tables_per_dataset
from harness.spreadsheet_cells import read_harness_csv

T_PA_1 = ("recovery", "designability", "solubility", "developability", "instability", "pi", "aromaticity",
          "hypervolume", "win_rate", "kl_reference", "kl_full", "sp_z", "sp_z_real", "shuffle_z", "contact_energy",
          "diversity")  # the first pass's report has no kl_full or threading judges; absent metrics are left out
T_PA_3 = ("fold_probability", "log_fold_probability", "designs_target", "polar_fraction", "target_designability")
ROUND_AXES = ("train_designability", "train_developability")


def round_paths(curves: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per method and round, the mean over seeds of the training samples' designability and developability."""
    named = curves.merge(runs[["run_id", "method"]], on="run_id")
    named = named[named["curve"].isin(ROUND_AXES)]
    return named.pivot_table(index=["method", "step"], columns="curve", values="value", aggfunc="mean").reset_index()


def plot_round_paths(paths: pd.DataFrame, out: Path) -> None:
    """T-PA-2: each alignment method's path over rounds in the (designability, developability) plane."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 4), dpi=80)
    for method, path in paths.groupby("method", sort=False):
        axes.plot(path[ROUND_AXES[0]], path[ROUND_AXES[1]], marker="o", label=method)
        for _, row in path.iterrows():
            axes.annotate(f"{int(row['step'])}", (row[ROUND_AXES[0]], row[ROUND_AXES[1]]), fontsize=7)
    axes.set_xlabel("designability of the round's samples (nats/res)")
    axes.set_ylabel("developability, -GRAVY")
    axes.set_title("T-PA-2: training objectives per round")
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def main(argv: list[str]) -> None:
    report, out = Path(argv[0]), Path(argv[1])
    cells = read_harness_csv(report / "table.csv")
    if cells["metric"].isin(T_PA_3).any():
        out.write_text(tables_per_dataset(cells, T_PA_3, "T-PA-3: HP-lattice inverse folding, exact designability"),
                       encoding="utf-8")
        return
    text = tables_per_dataset(cells, T_PA_1,
                              "T-PA-1: recovery, designability, developability, hypervolume, win rate, KL")
    paths = round_paths(read_harness_csv(report / "curves.csv"), read_harness_csv(report / "runs.csv"))
    rounds = paths.round(3).to_csv(index=False)
    out.write_text(f"{text}\n# T-PA-2: mean training objectives per round (pareto_rounds.png)\n\n```\n{rounds}```\n",
                   encoding="utf-8")
    plot_round_paths(paths, report / "pareto_rounds.png")


if __name__ == "__main__":
    main(sys.argv[1:])
