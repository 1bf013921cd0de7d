"""Node-level graph anomaly detection, the GADBench protocol (Tang et al., NeurIPS 2023).

A method sees the whole graph (transductive) and the labels of the training and
validation nodes, and returns one anomaly score per node; metrics use test nodes only.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.metrics import HomophilyBinMetric, local_homophily
from methods.graph_anomaly.splits import semi_supervised_split, supervised_split


@dataclass(frozen=True)
class NodeScoringInputs:
    """What a detector may see: the graph and the labels of train and validation nodes."""

    x: np.ndarray
    edge_index: np.ndarray
    train_idx: np.ndarray  # int64 node ids
    train_y: np.ndarray    # int64 labels of train_idx
    val_idx: np.ndarray
    val_y: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])


@dataclass(frozen=True)
class NodeScoringTruth:
    test_idx: np.ndarray
    test_y: np.ndarray
    test_homophily: np.ndarray  # float64: local homophily of each test node from all labels, NaN if isolated


_SEMI_DEFAULTS = {"train_pos": 20, "train_neg": 80, "val_pos": 20, "val_neg": 80}
_SUPERVISED_DEFAULTS = {"train": 0.4, "val": 0.2}


def split_params(split: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The split kind and its arguments with defaults filled in; `ValueError` naming a bad key.

    `{}` is GADBench's semi-supervised setting; `{kind: supervised}` its stratified 40/20/40.
    """
    kind = split.get("kind", "semi")
    if kind not in ("semi", "supervised"):
        raise ValueError(f"split kind must be 'semi' or 'supervised', got {kind!r}")
    defaults = _SEMI_DEFAULTS if kind == "semi" else _SUPERVISED_DEFAULTS
    unknown = sorted(str(k) for k in set(split) - set(defaults) - {"kind"})
    if unknown:
        raise ValueError(
            f"unknown split key {unknown[0]!r} for kind {kind!r}; allowed keys: kind, {', '.join(defaults)}"
        )
    params = {**defaults, **{k: v for k, v in split.items() if k != "kind"}}
    if kind == "semi":
        for key, value in params.items():
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"split key {key!r} must be a positive integer (a node count), got {value!r}")
    else:
        for key, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
                raise ValueError(f"split key {key!r} must be a fraction in (0, 1), got {value!r}")
        if params["train"] + params["val"] >= 1:
            raise ValueError(
                f"split fractions train + val must leave nodes for test, got {params['train']} + {params['val']}"
            )
    return kind, params


class NodeScoring(Task):
    """GADBench node scoring: scores for every node in, AUROC/AUPRC/Rec@K on test nodes out."""

    predictions_schema = PredictionsSchema(
        (Column("node", "integer", description="the node's id in the graph"),
         Column("score", "number", description="higher: more anomalous")),
        sample="node", other_samples_ok=True)  # a file may score every node of the graph

    def test_samples(self, instance: Instance) -> list[int]:
        return instance.truth.test_idx.tolist()

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_params(split)

    def instance(self, data: Graph, split: Mapping[str, Any], seed: int) -> Instance:
        kind, params = split_params(split)
        rng = np.random.default_rng(seed)
        y = data.y
        if kind == "semi":
            try:
                train, val, test = semi_supervised_split(y, rng, **params)
            except ValueError as exc:
                raise DataError(
                    f"graph '{data.name}' has {exc}", field="split",
                    hint="Lower train_pos/val_pos or train_neg/val_neg, or use a larger graph.",
                ) from None
        else:
            train, val, test = supervised_split(y, rng, **params)
            for part, idx in (("train", train), ("val", val), ("test", test)):
                if np.unique(y[idx]).size < 2:
                    raise DataError(
                        f"graph '{data.name}' has too few anomalies ({int(y.sum())}) for every part of a "
                        f"{params['train']}/{params['val']} supervised split to hold both classes; "
                        f"its {part} part has one",
                        field="split", hint="Use larger fractions or the semi-supervised split.",
                    )
        inputs = NodeScoringInputs(data.x, data.edge_index, train, y[train], val, y[val])
        homophily = local_homophily(data.edge_index, y)[test]
        return Instance(inputs=inputs, truth=NodeScoringTruth(test, y[test], homophily))

    def tiny_instance(self, seed: int) -> Instance:
        """A 300-node injected SBM (30 outliers), GADBench's supervised 40/20/40 split."""
        from methods.graph_anomaly.data import injected_sbm

        graph = injected_sbm(num_nodes=300, p_in=0.05, p_out=0.005, num_features=8, num_contextual=15,
                             num_structural=15, clique_size=5, candidates=20, seed=seed)
        return self.instance(graph, {"kind": "supervised"}, seed)

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance:
        """Test nodes drawn with replacement: the within-run bootstrap of the test metrics."""
        truth: NodeScoringTruth = instance.truth
        draw = rng.integers(0, truth.test_idx.size, truth.test_idx.size)
        return Instance(
            instance.inputs, NodeScoringTruth(truth.test_idx[draw], truth.test_y[draw], truth.test_homophily[draw]),
        )

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        scores = np.asarray(output, dtype=np.float64)
        num_nodes = instance.inputs.num_nodes
        if scores.shape != (num_nodes,):
            raise ValueError(
                f"a detector must return one anomaly score per node, shape ({num_nodes},), got shape {scores.shape}"
            )
        test = instance.truth.test_idx
        return pd.DataFrame({"node": test.astype(np.int64), "score": scores[test]})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        truth: NodeScoringTruth = instance.truth
        scores = predictions.set_index("node")["score"].loc[truth.test_idx].to_numpy(np.float64)
        return {key: _scored(metric, truth, scores) for key, metric in metrics.items()}


def _scored(metric: Metric, truth: NodeScoringTruth, scores: np.ndarray) -> float:
    if isinstance(metric, HomophilyBinMetric):
        return metric.in_bin(truth.test_y, scores, truth.test_homophily)
    return metric(truth.test_y, scores)

