"""RULER's summary figures as registered metrics: pure functions of one scored predictions table.

The table has a row per sample with `task`, `context_length` (the requested length, RULER's column),
`score` (`ruler.score_sample`, string_match_all, in [0, 1]) and `density` (mean prefill density over
layers). Accuracies are percentages, as RULER and ProxyAttn's tables print them. A figure whose samples
are absent (a length or task the dataset does not have) is NaN, never 0.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from harness import Metric
from methods.sparse_attention import ruler

LENGTH_LABELS = {512: "512", 768: "768", 1024: "1k", 2048: "2k", 4096: "4k", 8192: "8k"}


def accuracy_by_length(table: pd.DataFrame) -> dict[int, float]:
    """Mean string_match x 100 per context length, over every sample (so every task) of that length."""
    means = table.groupby("context_length")["score"].mean() * 100.0
    return {int(length): float(value) for length, value in means.items()}


def ruler_avg(table: pd.DataFrame) -> float:
    by_length = accuracy_by_length(table)
    return ruler.average(by_length) if by_length else math.nan


def ruler_wavg(table: pd.DataFrame) -> float:
    by_length = accuracy_by_length(table)
    return ruler.weighted_average_increasing(by_length) if by_length else math.nan


def prefill_density(table: pd.DataFrame) -> float:
    return float(table["density"].mean()) if len(table) else math.nan


def accuracy_at(length: int) -> Callable[[pd.DataFrame], float]:
    def accuracy(table: pd.DataFrame) -> float:
        rows = table[table["context_length"] == length]
        return float(rows["score"].mean() * 100.0) if len(rows) else math.nan

    return accuracy


def task_accuracy(task: str) -> Callable[[pd.DataFrame], float]:
    """A task's mean over its context lengths (RULER's per-task Avg); NaN when the task is absent."""
    def accuracy(table: pd.DataFrame) -> float:
        rows = table[table["task"] == task]
        return ruler_avg(rows) if len(rows) else math.nan

    return accuracy


def _accuracy_metric(length: int) -> Metric:
    label = LENGTH_LABELS[length]
    return Metric(f"ruler_acc_{label}", accuracy_at(length), higher_is_better=True, unit="%",
                  description=f"string_match_all x 100 at context length {length} (NaN when absent)")


def _task_metric(task: str) -> Metric:
    return Metric(f"ruler_{task}", task_accuracy(task), higher_is_better=True, unit="%",
                  description=f"{task}: string_match_all x 100, mean over its context lengths")


RULER_AVG = Metric("ruler_avg", ruler_avg, higher_is_better=True, unit="%",
                   description="RULER's Avg: mean over context lengths of the per-length accuracy")
RULER_WAVG = Metric("ruler_wavg", ruler_wavg, higher_is_better=True, unit="%",
                    description="RULER's wAvg (inc.): weights 1..L over the L lengths present, shortest first")
PREFILL_DENSITY = Metric("prefill_density", prefill_density, higher_is_better=False,
                         description="fraction of causal (query, key) pairs the prefill computed, mean over samples "
                                     "and layers")
PREFILL_SPARSITY = Metric("prefill_sparsity", lambda table: 1.0 - prefill_density(table), higher_is_better=True,
                          description="1 - prefill_density: the sparsity column of ProxyAttn's RULER table")
RULER_ACC_512 = _accuracy_metric(512)
RULER_ACC_768 = _accuracy_metric(768)
RULER_ACC_1K = _accuracy_metric(1024)
RULER_ACC_2K = _accuracy_metric(2048)
RULER_ACC_4K = _accuracy_metric(4096)
RULER_ACC_8K = _accuracy_metric(8192)
RULER_NIAH_SINGLE = _task_metric("niah_single")
RULER_NIAH_MULTIKEY = _task_metric("niah_multikey")
RULER_KV_RETRIEVAL = _task_metric("kv_retrieval")
RULER_VARIABLE_TRACKING = _task_metric("variable_tracking")
