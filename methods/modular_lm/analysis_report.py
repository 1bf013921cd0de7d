"""The analysis figures a suite table cannot hold, from the stored runs of the micro suites: T-MiCRo-2 (the
ablation-drop matrix, mean over seeds, as a heatmap per mixture method), T-MiCRo-3 (per layer, each domain's
token share per expert and the MI) and the non-inferiority check of "MiCRo matches the baselines" (the paired
mean accuracy difference over seeds with its 95% t-interval against the margin DELTA fixed in the suite).

Usage: `python -m methods.modular_lm.analysis_report reports/micro_analysis/runs.csv reports/micro_analysis
[--store .harness/results.sqlite]`; the runs' predictions are re-scored against the default corpus's test split.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from harness.spreadsheet_cells import read_harness_csv
from harness.store import DEFAULT_STORE, Store
from methods.common.corpus import DOMAINS, CorpusConfig
from methods.modular_lm.data import GeneratedSource
from methods.modular_lm.metrics import ScoredRun, ablation_drops, contingency, mutual_information
from methods.modular_lm.task import scored_run

DELTA = 0.03  # the non-inferiority margin in accuracy, fixed in suites/micro_main.yaml before running
MIXTURES = ("micro", "mob")


def scored_runs(runs_csv: str | Path, store: str | Path) -> dict[str, list[tuple[int, ScoredRun]]]:
    """Per method, (seed, scored run) of every finished run in `runs_csv`."""
    runs = read_harness_csv(runs_csv)
    runs = runs[runs["status"] == "ok"]
    if runs.empty:
        raise ValueError(f"{runs_csv} has no finished run: give the runs.csv of a micro suite's report")
    truth = GeneratedSource(CorpusConfig(), {}).truth()
    out: dict[str, list[tuple[int, ScoredRun]]] = {}
    with Store(store, read_only=True) as stored:
        for row in runs.sort_values("seed").itertuples():
            predictions = pd.read_parquet(stored.predictions_path(row.run_id))
            out.setdefault(row.method, []).append((int(row.seed), scored_run(truth, predictions)))
    return out


def heatmap(drops: dict[str, np.ndarray], out: Path) -> Path:
    """One panel per method: rows the removed expert, columns the domain, cells the mean accuracy drop."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    limit = max(float(np.abs(m).max()) for m in drops.values()) or 1.0
    figure, axes = plt.subplots(1, len(drops), figsize=(3.6 * len(drops), 3.4))
    for axis, (method, matrix) in zip(np.atleast_1d(axes), drops.items(), strict=True):
        image = axis.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
        for (i, j), value in np.ndenumerate(matrix):
            axis.text(j, i, f"{value:+.2f}", ha="center", va="center", fontsize=8)
        axis.set_xticks(range(len(DOMAINS)), DOMAINS, rotation=30)
        axis.set_yticks(range(len(DOMAINS)), [f"-{d}" for d in DOMAINS])
        axis.set_title(f"{method}: accuracy drop")
        axis.set_xlabel("domain")
    np.atleast_1d(axes)[0].set_ylabel("expert removed")
    figure.colorbar(image, ax=list(np.atleast_1d(axes)), shrink=0.8)
    figure.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return out


def _matrix_md(matrix: np.ndarray, rows: list[str], columns: list[str]) -> list[str]:
    lines = ["| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    lines += [f"| {name} | " + " | ".join(f"{v:+.3f}" for v in row) + " |" for name, row in zip(rows, matrix,
                                                                                                  strict=True)]
    return lines


def routing_shares(runs: list[tuple[int, ScoredRun]]) -> list[np.ndarray]:
    """Per layer, (domains, experts) token shares of each domain pooled over the seeds' runs."""
    tables = None
    for _, run in runs:
        layers = [contingency(c, run.routed_domains(), len(DOMAINS)) for c in run.routing_tables()]
        tables = layers if tables is None else [a + b for a, b in zip(tables, layers, strict=True)]
    return [t / t.sum(axis=1, keepdims=True) for t in tables or []]


def noninferiority(runs: dict[str, list[tuple[int, ScoredRun]]]) -> list[str]:
    """MiCRo minus each baseline, paired by seed: mean, 95% t-interval, and the verdict at margin DELTA."""
    lines = [f"Non-inferiority margin fixed before running: delta = {DELTA} accuracy (in-distribution test).", "",
             "| comparison | seeds | mean difference | 95% CI | non-inferior (low > -delta) | superior (low > 0) |",
             "|---|---|---|---|---|---|"]
    micro = {seed: run.accuracy() for seed, run in runs.get("micro", [])}
    for baseline in ("dense", "mob"):
        other = {seed: run.accuracy() for seed, run in runs.get(baseline, [])}
        seeds = sorted(set(micro) & set(other))
        if len(seeds) < 2:
            continue
        diff = np.array([micro[s] - other[s] for s in seeds])
        half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
        low, high = diff.mean() - half, diff.mean() + half
        lines.append(f"| micro - {baseline} | {len(seeds)} | {diff.mean():+.4f} | [{low:+.4f}, {high:+.4f}] | "
                     f"{'yes' if low > -DELTA else 'no'} | {'yes' if low > 0 else 'no'} |")
    return lines


def write(runs_csv: str | Path, out_dir: str | Path, store: str | Path = DEFAULT_STORE) -> Path:
    out_dir = Path(out_dir)
    runs = scored_runs(runs_csv, store)
    drops = {m: np.mean([ablation_drops(r) for _, r in runs[m]], axis=0) for m in MIXTURES if m in runs}
    lines = ["# MiCRo analyses (T-MiCRo-2, T-MiCRo-3, non-inferiority)", "",
             f"From {runs_csv}: predictions of the stored runs re-scored; means over seeds "
             f"({', '.join(f'{m}: {len(r)}' for m, r in runs.items())}).", ""]
    for method, matrix in drops.items():
        lines += [f"## T-MiCRo-2: {method}, accuracy drop when an expert is removed (rows) per domain (columns)",
                  "", *_matrix_md(matrix, [f"-{d}" for d in DOMAINS], list(DOMAINS)), ""]
    for method in MIXTURES:
        for layer, share in enumerate(routing_shares(runs.get(method, []))):
            pooled = mutual_information(share)  # rows weighted equally: MI of the pooled domain-balanced table
            lines += [f"## T-MiCRo-3: {method}, layer {layer}: token share per expert (columns) per domain (rows); "
                      f"MI of the row-normalised table {pooled:.3f} bits", "",
                      *_matrix_md(share, list(DOMAINS), [f"expert {e} ({d})" for e, d in enumerate(DOMAINS)]), ""]
    lines += ["## MiCRo matches or beats the baselines?", "", *noninferiority(runs), ""]
    if drops:
        heatmap(drops, out_dir / "ablation_heatmap.png")
        lines += ["![ablation-drop matrices](ablation_heatmap.png)", ""]
    target = out_dir / "analyses.md"
    target.write_text("\n".join(lines))
    return target


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs_csv")
    parser.add_argument("out_dir")
    parser.add_argument("--store", default=DEFAULT_STORE)
    arguments = parser.parse_args()
    print(write(arguments.runs_csv, arguments.out_dir, arguments.store))
