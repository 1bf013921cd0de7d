"""The analysis figures a suite table cannot hold, from the stored runs of the micro suites: T-MiCRo-2 (the
ablation-drop matrix, mean over seeds, as a heatmap per mixture method; row d: the expert whose routing serves
domain d removed), whether an expert's removal hurts its own domain most (the diagonal against 0, one-sided
Wilcoxon over seeds), T-MiCRo-3 (per layer, each domain's token share per expert and the MI), the
non-inferiority check of "MiCRo matches the baselines" (the paired mean accuracy difference over seeds with its
95% t-interval against the margin DELTA fixed in the suite) and the reasoning table in the paper's layout
(T-MiCRo-1's benchmark columns; the paper's numbers cited beside, not comparable).

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
from methods.modular_lm.metrics import (
    ScoredRun, ablation_diagonal, ablation_drops, ablation_own_most, contingency, mutual_information, own_experts)
from methods.modular_lm.reasoning import KINDS, reasoning_items
from methods.modular_lm.task import scored_run

DELTA = 0.03  # the non-inferiority margin in accuracy, fixed in suites/micro_main.yaml before running
MIXTURES = ("micro", "micro_unsup", "mob")
METHODS = {"dense": "Dense", "mob": "MoB", "micro": "MiCRo", "micro_unsup": "MiCRo, unsupervised stage-1 routing"}
# The spec's only numbers (shared/papers/micro.md: an aggregator's row, "probably the Llama-3.2-1B variant",
# unverified; the paper's own table could not be read here, so no table is named): MiCRo's BBH and Minerva Math.
CITED = {"deduction": 42.0, "arithmetic": 13.0}


def scored_runs(runs_csv: str | Path, store: str | Path) -> dict[str, list[tuple[int, ScoredRun]]]:
    """Per method, (seed, scored run) of every finished run in `runs_csv`."""
    runs = read_harness_csv(runs_csv)
    runs = runs[runs["status"] == "ok"]
    if runs.empty:
        raise ValueError(f"{runs_csv} has no finished run: give the runs.csv of a micro suite's report")
    out: dict[str, list[tuple[int, ScoredRun]]] = {}
    with Store(store, read_only=True) as stored:
        for row in runs.sort_values("seed").itertuples():
            predictions = pd.read_parquet(stored.predictions_path(row.run_id))
            full = predictions[predictions["condition"] == "full"]
            items = int(full["id"].str.startswith("reason-arithmetic-").sum())
            truth = GeneratedSource(CorpusConfig(), {}, reasoning=items).truth()
            out.setdefault(row.method, []).append((int(row.seed), scored_run(truth, predictions)))
    return out


def aligned_drops(run: ScoredRun) -> np.ndarray:
    """The ablation-drop matrix with row d the removal of the expert whose routing serves domain d."""
    return ablation_drops(run)[own_experts(run)]


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
        axis.set_yticks(range(len(DOMAINS)), [f"-{d}'s expert" for d in DOMAINS])
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
    """Per layer, (domains, experts) token shares of each domain pooled over the seeds' runs; column d is the
    expert whose routing serves domain d in that run."""
    tables = None
    for _, run in runs:
        order = own_experts(run)
        layers = [contingency(c, run.routed_domains(), len(DOMAINS))[:, order] for c in run.routing_tables()]
        tables = layers if tables is None else [a + b for a, b in zip(tables, layers, strict=True)]
    return [t / t.sum(axis=1, keepdims=True) for t in tables or []]


def noninferiority(runs: dict[str, list[tuple[int, ScoredRun]]]) -> list[str]:
    """Each MiCRo minus each baseline, paired by seed: mean, 95% t-interval, and the verdict at margin DELTA."""
    lines = [f"Non-inferiority margin fixed before running: delta = {DELTA} accuracy (in-distribution test).", "",
             "| comparison | seeds | mean difference | 95% CI | non-inferior (low > -delta) | superior (low > 0) |",
             "|---|---|---|---|---|---|"]
    for method in ("micro", "micro_unsup"):
        mine = {seed: run.accuracy() for seed, run in runs.get(method, [])}
        for baseline in ("dense", "mob"):
            other = {seed: run.accuracy() for seed, run in runs.get(baseline, [])}
            seeds = sorted(set(mine) & set(other))
            if len(seeds) < 2:
                continue
            diff = np.array([mine[s] - other[s] for s in seeds])
            half = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
            low, high = diff.mean() - half, diff.mean() + half
            lines.append(f"| {method} - {baseline} | {len(seeds)} | {diff.mean():+.4f} | [{low:+.4f}, {high:+.4f}] | "
                         f"{'yes' if low > -DELTA else 'no'} | {'yes' if low > 0 else 'no'} |")
    return lines


def own_domain_most(runs: dict[str, list[tuple[int, ScoredRun]]]) -> list[str]:
    """Per mixture: the mean ablation diagonal, the share of experts hurting their own domain most, and the
    one-sided Wilcoxon p-value of the diagonal above 0 over seeds."""
    lines = ["| method | seeds | ablation diagonal | own domain hurt most | p (diagonal > 0, Wilcoxon) |",
             "|---|---|---|---|---|"]
    for method in MIXTURES:
        diagonals = np.array([ablation_diagonal(r) for _, r in runs.get(method, [])])
        if len(diagonals) < 2:
            continue
        own = np.mean([ablation_own_most(r) for _, r in runs[method]])
        p = stats.wilcoxon(diagonals, alternative="greater").pvalue if np.any(diagonals != 0) else 1.0
        lines.append(f"| {method} | {len(diagonals)} | {diagonals.mean():+.4f} | {own:.2f} | {p:.3f} |")
    return lines


def reasoning_table(runs: dict[str, list[tuple[int, ScoredRun]]]) -> list[str]:
    """T-MiCRo-1's layout: rows the models, columns the benchmarks (here their held-out miniature items), accuracy
    in % as the paper prints it, mean over seeds; the floor and the spec's cited row beside."""
    kinds = list(KINDS)
    header = [f"{KINDS[k][1]}: {k}" for k in kinds]
    lines = ["| model | " + " | ".join(header) + " | mean |", "|---|" + "---|" * (len(kinds) + 1)]
    for method, name in METHODS.items():
        if method not in runs:
            continue
        cells = [100 * np.mean([r.reasoning_accuracy(k) for _, r in runs[method]]) for k in kinds]
        lines.append(f"| {name} (tiny Llama, {len(runs[method])} seeds) | "
                     + " | ".join(f"{c:.1f}" for c in cells) + f" | {np.mean(cells):.1f} |")
    floors = reasoning_floors()
    lines.append("| floor: always the kind's most frequent answer | "
                 + " | ".join(f"{100 * floors[k]:.1f}" for k in kinds) + " | |")
    lines.append("| *cited, not comparable*: MiCRo, Llama-3.2-1B? (spec's aggregator row, unverified; BBH and "
                 "Minerva Math, not these items) | "
                 + " | ".join(f"{CITED[k]:.1f}" if k in CITED else "—" for k in kinds) + " | |")
    return lines


def reasoning_floors() -> dict[str, float]:
    """Per kind, the share of its most frequent answer among the suite's 100 items."""
    from collections import Counter

    floors = {}
    for kind in KINDS:
        answers = Counter(e.answer for k, e in reasoning_items(100) if k == kind)
        floors[kind] = max(answers.values()) / sum(answers.values())
    return floors


def write(runs_csv: str | Path, out_dir: str | Path, store: str | Path = DEFAULT_STORE) -> Path:
    out_dir = Path(out_dir)
    runs = scored_runs(runs_csv, store)
    drops = {m: np.mean([aligned_drops(r) for _, r in runs[m]], axis=0) for m in MIXTURES if m in runs}
    lines = ["# MiCRo analyses (T-MiCRo-2, T-MiCRo-3, non-inferiority)", "",
             f"From {runs_csv}: predictions of the stored runs re-scored; means over seeds "
             f"({', '.join(f'{m}: {len(r)}' for m, r in runs.items())}).", ""]
    for method, matrix in drops.items():
        lines += [f"## T-MiCRo-2: {method}, accuracy drop when the expert serving a domain is removed (rows) per "
                  "domain (columns)", "", *_matrix_md(matrix, [f"-{d}" for d in DOMAINS], list(DOMAINS)), ""]
    lines += ["## Does removing an expert hurt its own domain most?", "", *own_domain_most(runs), ""]
    for method in MIXTURES:
        for layer, share in enumerate(routing_shares(runs.get(method, []))):
            pooled = mutual_information(share)  # rows weighted equally: MI of the pooled domain-balanced table
            lines += [f"## T-MiCRo-3: {method}, layer {layer}: token share per expert (columns) per domain (rows); "
                      f"MI of the row-normalised table {pooled:.3f} bits", "",
                      *_matrix_md(share, list(DOMAINS), [f"{d}'s expert" for d in DOMAINS]), ""]
    lines += ["## MiCRo matches or beats the baselines?", "", *noninferiority(runs), ""]
    lines += ["## T-MiCRo-1 layout: held-out multi-step reasoning items, accuracy (%)", "",
              "Exact match of the final answer (math-verify for the arithmetic), like GSM8K and BBH; each column is "
              "this corpus's held-out stand-in for the paper's benchmark named in its header.", "",
              *reasoning_table(runs), ""]
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
