"""The lm-eval layout: lm-eval's columns, the mean over seeds, lm-eval's stderr beside the seed spread."""
from __future__ import annotations

from methods.lm_eval_tasks.lm_eval_table import HEADER, layout


def _record(seed: int, acc: float, stderr: float) -> dict:
    return {"method": "llama", "dataset": "reviews", "seed": seed, "status": "ok", "measurements": {
        "tiny_sst2/acc,none": {"value": acc, "higher_is_better": True},
        "tiny_sst2/acc_stderr,none": {"value": stderr},
        "tiny_sst2/n-shot": {"value": 0.0}, "tiny_sst2/version": {"value": 1.0},
        "wall_s": {"value": 3.0, "higher_is_better": False}}}


def test_a_row_per_task_metric_and_filter_with_lm_evals_stderr_and_the_seed_spread():
    text = layout([_record(0, 0.5, 0.1), _record(1, 0.7, 0.3), {"status": "failed", "method": "x", "dataset": "y"}],
                  "suite")
    assert HEADER in text and "## llama on reviews" in text and "x on y" not in text
    assert "| tiny_sst2 | 1 | none | 0 | acc | ↑ | 0.6000 | ± | 0.2000 | 0.1414 | 2 |" in text
    assert "wall_s" not in text and "acc_stderr" not in text.split(HEADER)[1]
