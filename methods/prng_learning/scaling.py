"""T-PCG-1, the scaling table, and the √m verdict from a scaling report's `runs.csv`: per modulus the decoder's
mean accuracy, final accuracy and first positions reaching 0.9 / 0.99; per seed the least-squares slope of
log2(position to 0.9) against log2(m) across the moduli; the slopes' mean with a seed-bootstrap 95% interval
(and Student's t); the verdict says whether the interval contains the paper's 1/2. A position that never
reached the threshold is the sequence length (censored), and the table flags it: a censored point flattens the
slope. Each decoder run records its sequence length (it may differ per modulus); SEQ_LEN is the censoring level
of runs that do not.

    python -m methods.prng_learning.scaling reports/pcg_scaling/runs.csv reports/pcg_scaling/scaling.md SEQ_LEN
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from harness.spreadsheet_cells import read_harness_csv
from harness.stats import bootstrap_interval, summarize

PAPER_SLOPE = 0.5  # the paper's sqrt(m) law (abstract; a figure, no table)


def decoder_runs(runs: pd.DataFrame, dataset_k: dict[str, int] | None = None) -> pd.DataFrame:
    """One row per ok decoder run: its modulus bits (from the dataset name 'k<bits>...' or `dataset_k`), seed and
    metrics."""
    ok = runs[(runs["status"] == "ok") & (runs["method"].str.startswith("decoder"))].copy()
    names = ok["dataset"].astype(str)
    ok["k"] = names.map(dataset_k) if dataset_k else names.str.extract(r"^m(\d+)")[0].astype(int)
    keep = ["k", "seed", "metric.accuracy", "metric.final_accuracy", "metric.pos_90", "metric.pos_99"]
    extra = [c for c in ("measure.train_seconds", "measure.parameters", "measure.sequence_length") if c in ok.columns]
    return ok[keep + extra].rename(columns=lambda c: c.split(".", 1)[-1])


def seed_slopes(data: pd.DataFrame, column: str = "pos_90") -> pd.Series:
    """Per seed: the slope of log2(column) against k (= log2 m), over the moduli that seed ran."""
    slopes = {}
    for seed, block in data.groupby("seed"):
        if block["k"].nunique() >= 2:
            slopes[seed] = float(np.polyfit(block["k"].to_numpy(float), np.log2(block[column].to_numpy(float)), 1)[0])
    return pd.Series(slopes, name=f"slope_{column}")


def report(runs: pd.DataFrame, seq_len: int | None = None) -> str:
    data = decoder_runs(runs)
    if data.empty:
        return "# T-PCG-1\n\nNo decoder runs.\n"
    fallback = seq_len or int(data["pos_90"].max())
    recorded = data["sequence_length"] if "sequence_length" in data else pd.Series(np.nan, index=data.index)
    data["censor"] = recorded.fillna(fallback).astype(int)
    lines = ["# T-PCG-1: in-context length against m (decoder, held-out pairs)", "",
             "Mean ± 95% CI half-width over seeds (Student t). A position equal to the sequence length L means the "
             "threshold was never reached (censored).", "",
             "| m | L | seeds | parameters | train s | accuracy | final accuracy | pos to 0.9 | pos to 0.99 "
             "| censored 0.9 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def cell(values: pd.Series, digits: int = 3) -> str:
        stats = summarize(values.to_numpy(float))
        return f"{stats.mean:.{digits}f} ± {stats.ci95:.{digits}f}" if len(values) > 1 else f"{stats.mean:.{digits}f}"

    for k, block in data.groupby("k"):
        params = f"{int(block['parameters'].iloc[0]):,}" if "parameters" in block else "—"
        seconds = f"{block['train_seconds'].mean():.0f}" if "train_seconds" in block else "—"
        lengths = "/".join(str(n) for n in sorted(block["censor"].unique()))
        lines.append(f"| 2^{k} | {lengths} | {len(block)} | {params} | {seconds} | {cell(block['accuracy'])} | "
                     f"{cell(block['final_accuracy'])} | {cell(block['pos_90'], 1)} | {cell(block['pos_99'], 1)} | "
                     f"{int((block['pos_90'] >= block['censor']).sum())} |")
    lines += ["", "## Slope of log2(position) against log2(m), per seed (the paper: about 0.5, the √m law)", "",
              "| threshold | moduli | seeds | mean slope | bootstrap 95% CI | t 95% CI | CI contains 0.5 |",
              "|---|---|---:|---:|---|---|---|"]
    verdicts = []
    for column, name in (("pos_90", "0.9"), ("pos_99", "0.99")):
        censored = data[data[column] >= data["censor"]]
        open_ks = sorted(set(data["k"]) - set(censored["k"]))
        for label, subset in (("all", data), ("uncensored", data[data["k"].isin(open_ks)])):
            if label == "uncensored" and len(open_ks) == data["k"].nunique():
                continue  # nothing censored: the same fit
            moduli = ", ".join(f"2^{k}" for k in sorted(subset["k"].unique()))
            slopes = seed_slopes(subset, column).dropna()
            if len(slopes) < 2:
                lines.append(f"| {name} | {moduli or '—'} | {len(slopes)} | — | — | — | too few moduli or seeds |")
                continue
            low, high = bootstrap_interval(slopes.to_numpy())
            stats = summarize(slopes.to_numpy())
            holds = low <= PAPER_SLOPE <= high
            if label == "all":
                verdicts.append((name, holds, low, high, float(slopes.mean()), len(censored), len(data)))
            t_interval = f"[{stats.mean - stats.ci95:.3f}, {stats.mean + stats.ci95:.3f}]"
            lines.append(f"| {name} | {moduli} | {len(slopes)} | {slopes.mean():.3f} | [{low:.3f}, {high:.3f}] | "
                         f"{t_interval} | {'yes' if holds else 'no'} |")
    lines += ["", "## Verdict", ""]
    for name, holds, low, high, mean, n_censored, n_runs in verdicts:
        if n_censored:
            lines.append(f"- \"The in-context length to {name} grows as √m\": **not determined**: {n_censored} of "
                         f"{n_runs} decoder runs never reached {name} within their sequence (censored), which "
                         f"biases the fit over all moduli (slope {mean:.3f}, 95% CI [{low:.3f}, {high:.3f}]); see the "
                         "uncensored row.")
            continue
        word = "supported" if holds else "not supported"
        lines.append(f"- \"The in-context length to {name} grows as √m\": **{word}** (slope {mean:.3f}, seed-bootstrap "
                     f"95% CI [{low:.3f}, {high:.3f}] {'contains' if holds else 'excludes'} 0.5).")
    per_seed = pd.concat([seed_slopes(data, "pos_90"), seed_slopes(data, "pos_99")], axis=1)
    lines += ["", "## Per-seed slopes", "", "| seed | slope (0.9) | slope (0.99) |", "|---:|---:|---:|"]
    lines += [f"| {seed} | {row.iloc[0]:.3f} | {row.iloc[1]:.3f} |" for seed, row in per_seed.iterrows()]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    runs = read_harness_csv(argv[0])
    Path(argv[1]).write_text(report(runs, int(argv[2]) if len(argv) > 2 else None), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
