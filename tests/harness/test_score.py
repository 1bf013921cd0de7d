"""`harness score`: bring-your-own predictions, and re-scoring stored runs under a new metric."""
from __future__ import annotations

import numpy as np
import pandas as pd

from harness.store import Store

BYO_SUITE = """\
schema_version: 1
suite: byo
task: toy.sign
defaults: {seeds: [0, 1]}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods:
  theirs: {predictions: "preds/{method}/{dataset}/{seed}.parquet"}
"""


def test_byo_predictions_are_scored_without_running_anything(cli, write_suite, store, tmp_path):
    values = np.random.default_rng(0).normal(0, 1, 200)  # toy.numbers(seed=0): the data itself is a perfect score
    for seed in (0, 1):
        folder = tmp_path / "preds" / "theirs" / "easy"
        folder.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"sample": np.arange(200), "score": values}).to_parquet(folder / f"{seed}.parquet")
    code, out, _ = cli("score", str(write_suite(BYO_SUITE)), "--store", str(store))
    assert code == 0, out
    assert "2 runs scored" in out
    records = list(Store(store).records())
    assert [r["metrics"]["accuracy"] for r in records] == [100.0, 100.0]
    assert all(r["measurements"] == {} and r["predictions"] is None for r in records)


def test_missing_byo_file_is_a_user_error(cli, write_suite, store):
    code, _, err = cli("score", str(write_suite(BYO_SUITE)), "--store", str(store))
    assert code == 3 and "predictions file" in err and "does not exist" in err


def test_adding_a_metric_rescores_stored_predictions_without_rerunning(cli, write_suite, store):
    from tests.conftest import TOY_SUITE

    cli("run", str(write_suite()), "--store", str(store))
    original = {r["run_key"]: r for r in Store(store).records()}
    two_metrics = TOY_SUITE.replace("metrics: [accuracy]", "metrics: [accuracy, accuracy_again]")
    from harness.registry import metrics

    if "toy.accuracy_again" not in metrics.names():
        metrics.add("toy.accuracy_again", metrics.get("toy.accuracy"), "the same metric under a second name")
    code, out, _ = cli("score", str(write_suite(two_metrics, "two.yaml")), "--store", str(store))
    assert code == 0 and "4 runs scored" in out
    rescored = [r for r in Store(store).records() if r["run_key"] not in original]
    assert len(rescored) == 4
    for record in rescored:
        source = next(o for o in original.values() if o["run_id"] == record["rescored_from"])
        assert record["metrics"]["accuracy_again"] == record["metrics"]["accuracy"] == source["metrics"]["accuracy"]
        assert record["measurements"] == source["measurements"]
