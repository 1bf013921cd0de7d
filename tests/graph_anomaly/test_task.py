"""NodeScoring: split validation, instances per seed, the predictions table and scoring from it."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from harness import DataError, registry
from methods.graph_anomaly.data import injected_sbm
from methods.graph_anomaly.metrics import AUPRC, AUROC, REC_AT_K
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.task import NodeScoring, NodeScoringInputs, split_params

METRICS = {"auroc": AUROC, "auprc": AUPRC, "rec_at_k": REC_AT_K}


@pytest.fixture(scope="module")
def graph() -> Graph:
    return injected_sbm(num_nodes=600, num_contextual=30, num_structural=30, clique_size=10)


@pytest.mark.parametrize("split", [
    {}, {"kind": "semi"}, {"kind": "semi", "train_pos": 5, "train_neg": 10, "val_pos": 5, "val_neg": 10},
    {"kind": "supervised"}, {"kind": "supervised", "train": 0.5, "val": 0.25},
])
def test_check_split_accepts_the_gadbench_settings(split):
    NodeScoring().check_split(split)
    kind, params = split_params(split)
    assert kind == split.get("kind", "semi")
    assert {k: v for k, v in split.items() if k != "kind"}.items() <= params.items()
    assert set(params) == ({"train_pos", "train_neg", "val_pos", "val_neg"} if kind == "semi" else {"train", "val"})


BAD_SPLITS = {
    "unknown kind": ({"kind": "transductive"}, "'semi' or 'supervised'"),
    "typo in a semi key": ({"kind": "semi", "trian_pos": 20}, "'trian_pos'.*allowed keys: kind, train_pos"),
    "fraction key in a semi split": ({"train": 0.4}, "'train'.*allowed keys"),
    "count key in a supervised split": (
        {"kind": "supervised", "train_pos": 20}, "'train_pos'.*allowed keys: kind, train, val",
    ),
    "zero count": ({"val_pos": 0}, "'val_pos' must be a positive integer"),
    "float count": ({"train_neg": 80.0}, "'train_neg' must be a positive integer"),
    "boolean count": ({"train_pos": True}, "'train_pos' must be a positive integer"),
    "fraction out of range": ({"kind": "supervised", "train": 1.2}, "'train' must be a fraction"),
    "string fraction": ({"kind": "supervised", "val": "0.2"}, "'val' must be a fraction"),
    "no test nodes left": ({"kind": "supervised", "train": 0.7, "val": 0.3}, "leave nodes for test"),
}


@pytest.mark.parametrize("split, message", BAD_SPLITS.values(), ids=BAD_SPLITS.keys())
def test_check_split_rejects_a_bad_block_naming_the_key(split, message):
    with pytest.raises(ValueError, match=message):
        NodeScoring().check_split(split)


def test_instance_gives_the_method_train_and_val_labels_only(graph):
    instance = NodeScoring().instance(graph, {}, seed=0)
    inputs, truth = instance.inputs, instance.truth
    assert isinstance(inputs, NodeScoringInputs) and inputs.num_nodes == 600
    assert (inputs.train_idx.size, int(inputs.train_y.sum())) == (100, 20)
    assert (inputs.val_idx.size, int(inputs.val_y.sum())) == (100, 20)
    assert np.array_equal(inputs.train_y, graph.y[inputs.train_idx])
    assert np.array_equal(truth.test_y, graph.y[truth.test_idx]) and truth.test_idx.size == 400
    assert not hasattr(inputs, "y")


def test_instance_draws_a_new_split_per_seed(graph):
    task = NodeScoring()
    first, again, other = (task.instance(graph, {}, seed=s).inputs.train_idx for s in (7, 7, 8))
    assert np.array_equal(first, again) and not np.array_equal(first, other)


def test_instance_supports_the_supervised_split(graph):
    instance = NodeScoring().instance(graph, {"kind": "supervised"}, seed=0)
    sizes = instance.inputs.train_idx.size, instance.inputs.val_idx.size, instance.truth.test_idx.size
    assert sizes == (240, 120, 240)


def test_instance_raises_data_error_when_anomalies_are_too_few():
    small = injected_sbm(num_nodes=300, num_contextual=10, num_structural=20)
    with pytest.raises(DataError, match="has 30 anomalies and 270 normals.*needs at least 41 anomalies"):
        NodeScoring().instance(small, {}, seed=0)


def test_semi_split_leaves_at_least_one_test_anomaly():
    exactly_forty = injected_sbm(num_nodes=600, num_contextual=0, num_structural=40, clique_size=10)
    with pytest.raises(DataError, match="one of each left for test"):
        NodeScoring().instance(exactly_forty, {}, seed=0)


def test_instance_raises_data_error_when_a_supervised_part_lacks_anomalies():
    tiny = injected_sbm(num_nodes=300, num_contextual=2, num_structural=0)
    with pytest.raises(DataError, match="too few anomalies"):
        NodeScoring().instance(tiny, {"kind": "supervised"}, seed=0)


def test_predictions_keep_only_the_test_nodes(graph):
    task = NodeScoring()
    instance = task.instance(graph, {}, seed=0)
    output = np.arange(600, dtype=np.float32)
    table = task.predictions(instance, output)
    assert list(table.columns) == ["node", "score"]
    assert table["node"].dtype == np.int64 and table["score"].dtype == np.float64
    assert np.array_equal(table["node"], instance.truth.test_idx)
    assert np.array_equal(table["score"], output[instance.truth.test_idx])


@pytest.mark.parametrize("shape", [(599,), (600, 1), ()])
def test_predictions_reject_an_output_of_the_wrong_shape(graph, shape):
    task = NodeScoring()
    with pytest.raises(ValueError, match=r"one anomaly score per node, shape \(600,\)"):
        task.predictions(task.instance(graph, {}, seed=0), np.zeros(shape))


def test_score_uses_test_nodes_and_matches_the_metrics(graph):
    task = NodeScoring()
    instance = task.instance(graph, {}, seed=0)
    scores = np.random.default_rng(0).random(600) + graph.y
    values = task.score(instance, task.predictions(instance, scores), METRICS)
    test = instance.truth.test_idx
    assert values == {key: m(graph.y[test], scores[test]) for key, m in METRICS.items()}


def test_score_ignores_extra_nodes_and_row_order(graph):
    task = NodeScoring()
    instance = task.instance(graph, {}, seed=0)
    scores = np.random.default_rng(1).random(600)
    all_nodes = pd.DataFrame({"node": np.arange(600), "score": scores}).sample(frac=1.0, random_state=0)
    assert len(task.checked(instance, all_nodes)) == 400
    assert (task.score(instance, task.checked(instance, all_nodes), METRICS)
            == task.score(instance, task.predictions(instance, scores), METRICS))


def _first_rows_again(table: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([table, table.iloc[:2]], ignore_index=True)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.iloc[3:], "node: the predictions table: 3 test sample(s) have no row, e.g. "),
    (_first_rows_again, "node: the predictions table: row 400 (counting from 0): a second row for node "),
    (lambda t: t.rename(columns={"node": "id"}), "node: the predictions table: no column 'node' (found: id, score)"),
    (lambda t: t.assign(node=t["node"].where(t.index != 0, 0.5)), "node: the predictions table: row 0 (counting from "
                                                                  "0): 0.5 is not an integer"),
    (lambda t: t.assign(score="high"), "score: the predictions table: row 0 (counting from 0): 'high' is not a "
                                       "number"),
    (lambda t: t.assign(score=np.where(t.index == 7, np.nan, t["score"])), "score: the predictions table: row 7 "
                                                                           "(counting from 0): holds an empty value"),
])
def test_malformed_tables_are_refused_naming_the_row_and_column(graph, change, message):
    task = NodeScoring()
    instance = task.instance(graph, {}, seed=0)
    with pytest.raises(DataError, match=re.escape(message)):
        task.checked(instance, change(task.predictions(instance, np.zeros(600))))


def test_family_registers_its_task_datasets_and_metrics():
    assert isinstance(registry.tasks.get("graph_anomaly.node_scoring")(), NodeScoring)
    assert registry.datasets.get("graph_anomaly.injected_sbm") is injected_sbm
    assert registry.datasets.get("npz", family="graph_anomaly").__name__ == "load_npz"
    assert registry.metrics.get("graph_anomaly.auprc") is AUPRC
    methods = [e for e in registry.methods.entries() if e.name.startswith("graph_anomaly.")]
    assert methods and all(e.meta["task"] == "graph_anomaly.node_scoring" for e in methods)


def test_importing_the_family_loads_neither_torch_nor_sklearn_nor_pandas():
    code = "import sys, methods.graph_anomaly; print(sorted({'torch', 'sklearn', 'pandas'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
