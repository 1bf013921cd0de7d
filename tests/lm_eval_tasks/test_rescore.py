"""Stored per-sample outputs are enough: `harness score` re-scores a predictions table with lm-eval's metrics."""
from __future__ import annotations

import subprocess
import sys

from harness.store import Store
from methods.lm_eval_tasks.data import tiny_task
from methods.lm_eval_tasks.task import LmEvalEvaluation, LmEvalOutput
from tests.lm_eval_tasks.conftest import PLUGIN

SUITE = """\
schema_version: 1
suite: lm_eval_rescore
task: lm_eval_tasks.evaluation
datasets:
  gen: {loader: tiny_task, args: {task: tiny_sst2_gen, filter: verdict}}
metrics: [exact_match, acc]
methods:
  mine: {predictions: "preds/{method}/{dataset}/{seed}.parquet"}
"""


def _sample(doc_id: int, filter_name: str, score: float) -> dict:
    return {"task": "tiny_sst2_gen", "doc_id": doc_id, "filter": filter_name, "target": "great",
            "resps": [["great ."]], "filtered": ["great"], "metrics": {"exact_match": score}}


def test_harness_score_rescores_stored_predictions_on_the_datasets_filter(tmp_path):
    selection = tiny_task("tiny_sst2_gen", filter="verdict")
    task = LmEvalEvaluation()
    instance = task.instance(selection, {}, 0)
    # Another filter's scores in the same table must not enter the chosen filter's mean.
    samples = [_sample(0, "raw", 0.0), _sample(0, "verdict", 1.0), _sample(1, "raw", 0.0), _sample(1, "verdict", 0.0),
               _sample(2, "raw", 0.0), _sample(2, "verdict", 1.0)]
    table = task.predictions(instance, LmEvalOutput(results={}, samples=samples))
    (tmp_path / "preds" / "mine" / "gen").mkdir(parents=True)
    table.to_parquet(tmp_path / "preds" / "mine" / "gen" / "0.parquet")
    (tmp_path / "suite.yaml").write_text(SUITE)
    store = tmp_path / "results.sqlite"
    scored = subprocess.run([sys.executable, "-m", "harness.cli", "score", str(tmp_path / "suite.yaml"), "--store",
                             str(store), "--plugin", PLUGIN], capture_output=True, text=True, timeout=120)
    assert scored.returncode == 0, scored.stderr
    with Store(store) as db:
        (record,) = list(db.records())
    assert record["metrics"]["exact_match"] == 2 / 3
    assert record["metrics"]["acc"] != record["metrics"]["acc"]  # NaN: a generation task computes no acc


def test_a_table_that_scores_a_document_twice_is_refused_and_corpus_metrics_may_be_empty():
    import pandas as pd
    import pytest

    from harness import DataError

    task = LmEvalEvaluation()
    instance = task.instance(tiny_task("tiny_sst2_gen", filter="verdict"), {}, 0)
    samples = [_sample(0, "verdict", 1.0), _sample(1, "verdict", 0.0), {**_sample(0, "verdict", 0.0), "metrics": {
        "bleu": ("great", "great"), "perplexity": float("-inf")}}]
    table = task.predictions(instance, LmEvalOutput(results={}, samples=samples))
    assert task.checked(instance, table)["value"].isna().tolist() == [False, False, True, True]
    twice = pd.concat([table, table.iloc[[1]]])
    with pytest.raises(DataError, match="a second row for task 'tiny_sst2_gen', filter 'verdict', "
                                        "metric 'exact_match', doc_id 1"):
        task.checked(instance, twice)
