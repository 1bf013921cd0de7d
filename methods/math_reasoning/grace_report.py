"""GRACE's per-teacher table and temperature sweep, from the stored runs of the math_grace suite.

The table has the paper's columns (teacher, temperature, teacher acc, G-Norm, G-Vendi, GRACE, GRACE-Bias,
GRACE-Var, student acc), each score the mean over the seeds' runs, in its natural sign (teacher accuracy in
%, G-Vendi as the entropy; the methods store them negated so that every score is lower-is-better). The sweep
plots, per LM teacher, student accuracy and each score against the sampling temperature.

Usage: `python -m methods.math_reasoning.grace_report reports/math_grace/runs.csv reports/math_grace
[--store .harness/results.sqlite]`; runs.csv is what `harness report --format csv` writes, and the per-teacher
student accuracies come from the runs' predictions tables in the store's run folder.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from harness.spreadsheet_cells import read_harness_csv
from harness.store import DEFAULT_STORE, Store

# suite method -> (column, sign that turns the stored lower-is-better score into the reported quantity)
COLUMNS = {"teacher_accuracy": ("teacher acc", -1.0), "g_norm": ("G-Norm", 1.0), "g_vendi": ("G-Vendi", -1.0),
           "grace": ("GRACE", 1.0), "grace_bias": ("GRACE-Bias", 1.0), "grace_variance": ("GRACE-Var", 1.0),
           "initial_loss": ("initial loss", 1.0)}


def teacher_table(runs_csv: str | Path, store: str | Path = DEFAULT_STORE) -> pd.DataFrame:
    """One row per teacher (pool order): scores averaged over seeds, student accuracy, and the run ids used."""
    runs = read_harness_csv(runs_csv)
    runs = runs[(runs["status"] == "ok") & runs["method"].isin(COLUMNS)]
    if runs.empty:
        raise ValueError(f"{runs_csv} has no finished run of {', '.join(COLUMNS)}: "
                         "give the runs.csv of the math_grace suite's report")
    table, run_ids = None, {}
    with Store(store, read_only=True) as stored:
        paths = {row.run_id: stored.predictions_path(row.run_id) for row in runs.itertuples()}
    for method, group in runs.groupby("method", sort=False):
        column, sign = COLUMNS[method]
        frames = [pd.read_parquet(paths[row.run_id]) for row in group.itertuples()]
        scores = np.mean([sign * f["score"].to_numpy(float) for f in frames], axis=0)
        if table is None:
            table = frames[0][["teacher", "temperature", "student_accuracy"]].copy()
        table[column] = scores
        run_ids[column] = " ".join(group.sort_values("seed")["run_id"].astype(str))
    if table is None:  # unreachable: `runs` is not empty
        raise ValueError(f"{runs_csv} has no run to tabulate")
    columns = ["teacher", "temperature"] + [c for c, _ in COLUMNS.values() if c in table] + ["student_accuracy"]
    table = table[columns].rename(columns={"student_accuracy": "student acc"})
    table.attrs["run_ids"] = run_ids
    return table


def markdown(table: pd.DataFrame) -> str:
    """The table as Markdown, then which runs each column averages."""
    shown = table.copy()
    shown["temperature"] = shown["temperature"].map(lambda t: "—" if pd.isna(t) else f"{t:g}")
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    for row in shown.itertuples(index=False):
        lines.append("| " + " | ".join(v if isinstance(v, str) else f"{v:.4g}" for v in row) + " |")
    lines += ["", "Scores are means over the seeds' runs; run ids per column:", ""]
    lines += [f"- {column}: {ids}" for column, ids in table.attrs.get("run_ids", {}).items()]
    return "\n".join(lines) + "\n"


def temperature_plot(table: pd.DataFrame, out: str | Path) -> Path:
    """Student accuracy and each score against temperature, one line per LM teacher (name before `_t`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lm = table[table["temperature"].notna()].copy()
    if lm.empty:
        raise ValueError("no LM teacher in the table: the temperature sweep needs teachers sampled at a temperature")
    lm["family"] = lm["teacher"].str.rsplit("_t", n=1).str[0]
    panels = ["student acc"] + [c for c in table.columns if c not in ("teacher", "temperature", "student acc")]
    figure, axes = plt.subplots(2, (len(panels) + 1) // 2, figsize=(3.0 * ((len(panels) + 1) // 2), 5.6))
    for axis, panel in zip(axes.flat, panels, strict=False):
        for family, rows in lm.groupby("family"):
            rows = rows.sort_values("temperature")
            axis.plot(rows["temperature"], rows[panel], marker="o", label=family)
        axis.set_title(panel, fontsize=9)
        axis.set_xlabel("temperature", fontsize=8)
    for axis in list(axes.flat)[len(panels):]:
        axis.axis("off")
    axes.flat[0].legend(fontsize=7)
    figure.tight_layout()
    out = Path(out)
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs_csv", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE)
    args = parser.parse_args(argv)
    table = teacher_table(args.runs_csv, args.store)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "teachers.md").write_text(markdown(table))
    print(args.out_dir / "teachers.md")
    print(temperature_plot(table, args.out_dir / "temperature_sweep.png"))


if __name__ == "__main__":
    main()
