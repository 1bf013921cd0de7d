"""The harness's stored figures are lm-eval's own: the same numbers `simple_evaluate` gives on the same settings."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import harness
from harness.store import Store
from methods.lm_eval_tasks.data import TINY_TASKS


def _simple_evaluate(model: Path, tasks: list[str], limit: int, seed: int) -> dict:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(TINY_TASKS), include_defaults=False)
    return simple_evaluate(model="hf", model_args=f"pretrained={model},dtype=float32", tasks=tasks,
                           task_manager=manager, limit=limit, batch_size=16, device="cpu", log_samples=True,
                           random_seed=seed, numpy_random_seed=seed, torch_random_seed=seed, fewshot_random_seed=seed)


@pytest.mark.parametrize(("task", "metrics"), [("tiny_sst2", {"acc": "acc,none", "acc_norm": "acc_norm,none"}),
                                               ("tiny_sst2_gen", {"exact_match": "exact_match,verdict"})])
def test_stored_metrics_equal_simple_evaluate(one_task_suite, tiny_llama, tmp_path, task, metrics):
    store = tmp_path / "results.sqlite"
    harness.run(one_task_suite(task=task, limit=16), store=store, executor="inline")
    with Store(store) as db:
        (record,) = list(db.records())
    reference = _simple_evaluate(tiny_llama, [task], limit=16, seed=0)
    results = reference["results"][task]
    for name, key in metrics.items():
        assert record["metrics"][name] == pytest.approx(results[key], abs=1e-12)
        assert record["measurements"][f"{task}/{key}"]["value"] == pytest.approx(results[key], abs=1e-12)
        metric, filter_name = key.split(",")
        stderr = record["measurements"][f"{task}/{metric}_stderr,{filter_name}"]
        assert stderr["value"] == pytest.approx(results[f"{metric}_stderr,{filter_name}"], abs=1e-12)
        assert "higher_is_better" not in stderr  # a within-run figure, never ranked
        assert record["measurements"][f"{task}/{key}"]["higher_is_better"] is True
    # The predictions are lm-eval's per-sample records: one row per document and metric, its responses kept.
    table = pd.read_parquet(store.parent / record["predictions"])
    samples = reference["samples"][task]
    assert len(table) == len(samples) * len(metrics)
    by_doc = {s["doc_id"]: s for s in samples}
    for row in table.itertuples():
        assert row.value == pytest.approx(float(by_doc[row.doc_id][row.metric]))
        assert json.loads(row.response) == json.loads(json.dumps(by_doc[row.doc_id]["resps"]))  # tuples as lists


def test_a_group_scores_lm_evals_size_weighted_mean(one_task_suite, tmp_path):
    store = tmp_path / "results.sqlite"
    harness.run(one_task_suite(task="tiny_reviews", limit=8), store=store, executor="inline")
    with Store(store) as db:
        (record,) = list(db.records())
    figures = {k: v["value"] for k, v in record["measurements"].items()}
    assert record["metrics"]["acc"] == pytest.approx(figures["tiny_reviews/acc,none"])
    assert figures["tiny_reviews/acc,none"] == pytest.approx(
        (figures["tiny_sst2/acc,none"] + figures["tiny_boolq/acc,none"]) / 2)  # 8 documents each
    assert figures["tiny_sst2/n-shot"] == 0 and figures["tiny_sst2/version"] == 1.0
