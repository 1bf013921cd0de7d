"""Bring your own expert answers (CSV and Parquet, experts in a second file) or your own predictions table (a
suite's `predictions:` file, checked by the engine against the task's schema), every mistake named."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError
from harness.registry import metrics
from harness.store import Store
from methods.deferral.baselines.random_k import RandomK
from methods.deferral.byo import load_expert_table
from methods.deferral.topk import TopKL2D
from tests.deferral.conftest import TASK
from tests.method_runs import context

COSTS = {"alice": 0.1, "bob": 0.05}


def _samples(n: int = 80, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3 + 1  # labels 1..3, as a user's file may hold them
    frame = pd.DataFrame({"id": [f"img{i:03d}" for i in range(n)], "label": y})
    for j in range(3):
        frame[f"feature_{j}"] = y + rng.normal(size=n)
    frame["expert_alice"] = np.where(rng.random(n) < 0.8, y, 1)
    frame["expert_bob"] = np.where(rng.random(n) < 0.6, y, 3)
    return frame


def test_csv_with_experts_loads_with_labels_recoded(tmp_path):
    _samples().to_csv(tmp_path / "cifar10h.csv", index=False)
    problem = load_expert_table(tmp_path / "cifar10h.csv", costs=COSTS)
    assert problem.kind == "classification" and problem.num_classes == 3 and problem.panel.names == ("alice", "bob")
    assert set(np.unique(problem.y)) == {0, 1, 2} and problem.ids[0] == "img000"
    np.testing.assert_allclose(problem.panel.costs, [0.1, 0.05])


def test_experts_in_a_second_parquet_file_are_joined_on_the_id(tmp_path):
    frame = _samples()
    frame.drop(columns=["expert_alice", "expert_bob"]).to_parquet(tmp_path / "samples.parquet")
    frame[["id", "expert_bob", "expert_alice"]].iloc[::-1].to_parquet(tmp_path / "experts.parquet")
    problem = load_expert_table(tmp_path / "samples.parquet", tmp_path / "experts.parquet", costs=COSTS)
    assert problem.panel.names == ("bob", "alice")
    np.testing.assert_array_equal(problem.panel.predictions[:, 0] + 1, frame["expert_bob"])
    np.testing.assert_array_equal(problem.panel.predictions[:, 1] + 1, frame["expert_alice"])


def test_a_bring_your_own_problem_runs_end_to_end_with_hindsight_expected_costs(tmp_path):
    _samples(n=200).to_csv(tmp_path / "mine.csv", index=False)
    instance = TASK.instance(load_expert_table(tmp_path / "mine.csv", costs=COSTS), {}, 0)
    truth = instance.truth
    np.testing.assert_array_equal(truth.expert_expected_loss, truth.answers[:, 1:] != truth.y[:, None])
    table = TASK.predictions(instance, TopKL2D(k=2, epochs=20).run(instance.inputs, context()))
    assert set(table["sample"]) == set(truth.sample)


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f.drop(columns="label"), "no column 'label'"),
    (lambda f: f.drop(columns=[c for c in f.columns if c.startswith("feature_")]), "no feature columns"),
    (lambda f: f.drop(columns=["expert_alice", "expert_bob"]), "no expert columns"),
    (lambda f: f.assign(feature_1=f["feature_1"].astype(object).where(f.index != 5, "high")),
     r"mine.csv:7: feature_1: 'high' in column 'feature_1' is not a number"),
    (lambda f: f.assign(label=f["label"].where(f.index != 2)), r"mine.csv:4: label: a missing value in column 'label'"),
    (lambda f: f.assign(expert_bob=f["expert_bob"].where(f.index != 3, 7)),
     r"mine.csv:5: expert_bob: answer '7' in column 'expert_bob' is not one of the labels"),
    (lambda f: f.assign(id=f["id"].where(f.index != 9, "img000")), r"mine.csv:11: id: id 'img000' appears more"),
])
def test_mistakes_in_the_file_name_it_the_line_and_the_column(tmp_path, change, message):
    change(_samples()).to_csv(tmp_path / "mine.csv", index=False)
    with pytest.raises(DataError, match=message):
        load_expert_table(tmp_path / "mine.csv", costs=COSTS)


def test_mismatched_ids_name_both_files(tmp_path):
    frame = _samples()
    frame.drop(columns=["expert_alice", "expert_bob"]).to_csv(tmp_path / "samples.csv", index=False)
    frame[["id", "expert_alice", "expert_bob"]].iloc[1:].to_csv(tmp_path / "experts.csv", index=False)
    with pytest.raises(DataError) as caught:
        load_expert_table(tmp_path / "samples.csv", tmp_path / "experts.csv", costs=COSTS)
    assert str(caught.value).startswith(f"{tmp_path / 'experts.csv'}: id: 1 id(s) of samples.csv are missing here")
    assert "'img000'" in str(caught.value)


@pytest.mark.parametrize(("costs", "message"), [
    ({"alice": 0.1}, "no cost for expert 'bob'"),
    ({**COSTS, "carol": 0.2}, "a cost for unknown expert 'carol'"),
    ({"alice": -1.0, "bob": 0.0}, "non-negative"),
])
def test_costs_must_name_each_expert_once(tmp_path, costs, message):
    _samples().to_csv(tmp_path / "mine.csv", index=False)
    with pytest.raises(DataError, match=message):
        load_expert_table(tmp_path / "mine.csv", costs=costs)


def test_an_unknown_file_type_is_named(tmp_path):
    (tmp_path / "mine.json").write_text("{}")
    with pytest.raises(DataError, match="unknown file type '.json'"):
        load_expert_table(tmp_path / "mine.json", costs=COSTS)


SUITE = """\
schema_version: 1
suite: own_experts
task: deferral.allocation
defaults: {seeds: [0], timeout: 5m, threads: 1}
datasets:
  mine: {loader: expert_table, args: {path: mine.csv, costs: {alice: 0.1, bob: 0.05}}}
metrics: [accuracy, total_cost, regret]
methods:
  topk: {impl: topk, params: {k: 2, epochs: 20}}
"""


def test_a_suite_on_the_users_file_runs_and_a_broken_file_exits_3(cli, write_suite, tmp_path):
    _samples(n=120).to_csv(tmp_path / "mine.csv", index=False)
    suite = str(write_suite(SUITE))
    code, _, err = cli("run", suite, "--store", str(tmp_path / "a.sqlite"), "--data-root", str(tmp_path),
                       "--executor", "inline", plugin=False)
    assert code == 0, err
    _samples(n=120).drop(columns="label").to_csv(tmp_path / "mine.csv", index=False)
    code, _, err = cli("run", suite, "--store", str(tmp_path / "b.sqlite"), "--data-root", str(tmp_path),
                       plugin=False)
    assert code == 3 and f"{tmp_path / 'mine.csv'}: label: no column 'label'" in err and "Traceback" not in err


# The user's experts of SUITE, and their own allocations of its test samples (named by the file's ids).
THEIR_PREDICTIONS = SUITE.replace("topk: {impl: topk, params: {k: 2, epochs: 20}}",
                                  'theirs: {predictions: "preds/{method}/{dataset}/{seed}.csv"}')


def _their_table(tmp_path):  # noqa: ANN001, ANN202
    """RandomK's predictions on the suite's instance, where the suite looks for them, and their own metrics."""
    _samples(n=120).to_csv(tmp_path / "mine.csv", index=False)
    instance = TASK.instance(load_expert_table(tmp_path / "mine.csv", costs=COSTS), {}, 0)
    table = TASK.predictions(instance, RandomK(k=2).run(instance.inputs, context()))
    chosen = {name: metrics.get(f"deferral.{name}") for name in ("accuracy", "total_cost", "regret")}
    path = tmp_path / "preds" / "theirs" / "mine" / "0.csv"
    path.parent.mkdir(parents=True)
    return table, TASK.score(instance, TASK.checked(instance, table), chosen), path


def _score(cli, write_suite, store, tmp_path) -> dict:  # noqa: ANN001
    cli("score", str(write_suite(THEIR_PREDICTIONS)), "--store", str(store), "--data-root", str(tmp_path),
        plugin=False)
    [record] = Store(store).records()
    return record


def test_a_predictions_file_in_the_tasks_table_scores_as_the_method_that_made_it(cli, write_suite, store, tmp_path):
    table, own, path = _their_table(tmp_path)
    assert table["sample"].str.startswith("img").all()
    table.to_csv(path, index=False)
    record = _score(cli, write_suite, store, tmp_path)
    assert record["status"] == "ok" and record["metrics"] == pytest.approx(own)


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.assign(decision=t["decision"].astype(object).where(t.index != 4, "cat")),
     ":6: decision: 'cat' is not a number"),
    (lambda t: t.drop(index=7), ": sample: 1 test sample(s) have no row for point 0, e.g. 'img"),
    (lambda t: t.drop(columns="consult_bob"), ": consult_bob: predictions lack column 'consult_bob'"),
])
def test_a_broken_predictions_file_is_named_with_its_line_and_column(cli, write_suite, store, tmp_path, change,
                                                                      message):
    table, _, path = _their_table(tmp_path)
    change(table).to_csv(path, index=False)
    record = _score(cli, write_suite, store, tmp_path)
    assert record["status"] != "ok" and f"{path}{message}" in record["error"]
