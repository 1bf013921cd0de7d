"""The paper's Fig. 1 as stacked bars: each method's memory split into weights, gradients, optimizer states
and extra (scales, zero-points, adapters), per model, from the stored runs of the zo_memory suite.

Usage: `python -m methods.zo_finetune.figures reports/zo_memory/runs.csv reports/zo_memory/memory_breakdown.png`
(the runs.csv a `harness report` writes; every bar is a stored run's analytic figure).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from harness.spreadsheet_cells import read_harness_csv

MODELS = {"opt_6_7b": "OPT-6.7B", "llama_2_7b": "Llama-2-7B", "llama_3_1_8b": "Llama-3.1-8B",
          "llama_2_13b": "Llama-2-13B"}
METHODS = ("ft_adamw", "ft_sgd", "lora", "mezo", "qlora", "qzo")
PARTS = (("weights", "analytic_weights_gb"), ("gradients", "analytic_gradients_gb"),
         ("optimizer states", "analytic_optimizer_gb"), ("scales, zeros, adapters", "analytic_extra_gb"))


def memory_breakdown_plot(runs_csv: str | Path, out: str | Path) -> Path:
    """Write the stacked-bar figure; `ValueError` if the runs lack the analytic columns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = read_harness_csv(runs_csv)
    missing = [f"metric.{c}" for _, c in PARTS if f"metric.{c}" not in runs.columns]
    if missing:
        raise ValueError(f"{runs_csv} lacks {missing[0]}: give the runs.csv of the zo_memory suite's report")
    runs = runs[runs["status"] == "ok"].set_index(["dataset", "method"])
    models = [m for m in MODELS if m in runs.index.get_level_values(0)]
    figure, axes = plt.subplots(1, len(models), figsize=(3.2 * len(models), 3.6), sharey=True)
    for axis, model in zip(axes if len(models) > 1 else [axes], models, strict=True):
        bottom = pd.Series(0.0, index=list(METHODS))
        for label, column in PARTS:
            values = pd.Series([float(runs.loc[(model, m), f"metric.{column}"]) for m in METHODS], index=list(METHODS))
            axis.bar(range(len(METHODS)), values, bottom=bottom, label=label)
            bottom += values
        axis.set_xticks(range(len(METHODS)), METHODS, rotation=45, ha="right")
        axis.set_title(MODELS[model])
    (axes[0] if len(models) > 1 else axes).set_ylabel("GB (analytic, activations excluded)")
    (axes[-1] if len(models) > 1 else axes).legend(fontsize=7)
    figure.tight_layout()
    out = Path(out)
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m methods.zo_finetune.figures RUNS_CSV OUT_PNG")
    print(memory_breakdown_plot(sys.argv[1], sys.argv[2]))
