"""lm-eval's mean-aggregated per-sample metrics as harness metrics, read from the stored predictions.

Each value is the mean of lm-eval's own per-sample scores over every document of the selection's tasks, so
for one task it is lm-eval's reported value and for a group it is lm-eval's size-weighted group mean. The
directions are lm-eval's (`lm_eval.api.registry` marks all three higher-is-better; a test checks it). Metrics
lm-eval aggregates otherwise (perplexity, BLEU, F1 over a corpus) are stored as each run's lm-eval figures.
"""
from __future__ import annotations

import pandas as pd

from harness import Metric
from methods.lm_eval_tasks.data import TaskSelection


def lm_eval_mean(metric: str) -> "Metric":
    """The harness metric for lm-eval's per-sample `metric`, on the selection's filter (else the first one)."""

    def value(predictions: pd.DataFrame, selection: TaskSelection) -> float:
        rows = predictions[predictions["metric"] == metric]
        if rows.empty:
            return float("nan")  # the selection's tasks do not compute this metric
        chosen = selection.filter or str(rows["filter"].iloc[0])
        return float(rows.loc[rows["filter"] == chosen, "value"].mean())

    # Not deterministic: a sampled or few-shot run draws with lm-eval's seed, so claims test its seeds (a greedy
    # zero-shot run repeats exactly over seeds, and the test then sees equal pairs: nothing is claimed by accident).
    return Metric(metric, value, higher_is_better=True, deterministic=False,
                  description=f"lm-eval's {metric}: the mean of its per-sample scores")


ACC = lm_eval_mean("acc")
ACC_NORM = lm_eval_mean("acc_norm")
EXACT_MATCH = lm_eval_mean("exact_match")
