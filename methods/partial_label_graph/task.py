"""Partial-label graph classification: train on candidate sets, score on true labels.

Each seed draws a new stratified split and new candidate sets for its training graphs
(unless the dataset ships its own). A method sees every graph's structure and features
(no labels), the training graphs' candidate sets and the validation graphs' true labels
(for model selection, never test); it returns class scores for every graph. Test accuracy
is the metric (PRISM, ICLR 2026, Table 1).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.partial_label_graph.candidates import uniform_candidates
from methods.partial_label_graph.graphs import GraphSet


@dataclass(frozen=True)
class PartialLabelInputs:
    """What a method may see. `train_true_y` is read by the supervised reference alone;
    every partial-label method is tested to be blind to it."""

    graphs: GraphSet            # labels hidden (y = -1)
    train_idx: np.ndarray       # int64 graph ids
    train_candidates: np.ndarray  # bool [len(train_idx), C]
    val_idx: np.ndarray
    val_y: np.ndarray
    test_idx: np.ndarray
    train_true_y: np.ndarray    # the oracle's labels of train_idx; partial-label methods must not read it

    @property
    def num_classes(self) -> int:
        return self.graphs.num_classes


@dataclass(frozen=True)
class PartialLabelTruth:
    test_idx: np.ndarray
    test_y: np.ndarray
    train_idx: np.ndarray
    train_y: np.ndarray


_SPLIT_DEFAULTS: dict[str, Any] = {"q": None, "train": 0.8, "val": 0.1, "resample_singletons": False}


def split_params(split: Mapping[str, Any]) -> dict[str, Any]:
    """The split block with defaults filled in; `ValueError` naming the bad key.

    q is the candidate noise (each wrong label's inclusion probability); train and val are
    fractions of each class (stratified), the rest is test.
    """
    unknown = sorted(str(k) for k in set(split) - set(_SPLIT_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; allowed keys: {', '.join(_SPLIT_DEFAULTS)}")
    params = {**_SPLIT_DEFAULTS, **split}
    q = params["q"]
    if q is not None and (isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1):
        raise ValueError(f"split key 'q' is a probability in [0, 1], got {q!r}")
    for key in ("train", "val"):
        value = params[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise ValueError(f"split key {key!r} must be a fraction in (0, 1), got {value!r}")
    if params["train"] + params["val"] >= 1:
        raise ValueError("split fractions train + val must leave graphs for test, "
                         f"got {params['train']} + {params['val']}")
    if not isinstance(params["resample_singletons"], bool):
        raise ValueError("split key 'resample_singletons' must be true or false, "
                         f"got {params['resample_singletons']!r}")
    return params


def stratified_split(
    y: np.ndarray, train: float, val: float, rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted graph ids of train, validation and test, the same fractions of every class.

    Each part gets at least one graph of every class that has three or more.
    """
    parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        n = members.size
        n_val = max(1, round(val * n)) if n >= 3 else 0
        n_train = max(1, min(n - n_val - (n >= 3), round(train * n)))
        splits = (members[:n_train], members[n_train:n_train + n_val], members[n_train + n_val:])
        for part, ids in zip(parts, splits, strict=True):
            part.append(ids)
    train_ids, val_ids, test_ids = (np.sort(np.concatenate(p)).astype(np.int64) for p in parts)
    return train_ids, val_ids, test_ids


class PartialLabelClassification(Task):
    """Graph classification from candidate label sets; accuracy on the test graphs."""

    # One row per (part, graph): the test graphs (accuracy) and the training graphs (train accuracy). The parts
    # hold different graphs, so the engine checks each graph is one of them and `score` that each part is whole.
    predictions_schema = PredictionsSchema(
        (Column("part", "text", description="test or train"),
         Column("graph", "integer", description="the graph's id in the dataset"),
         Column("predicted", "integer", description="the predicted class")),
        sample="graph", per=("part",), every_sample=False)

    def test_samples(self, instance: Instance) -> list[int]:
        truth: PartialLabelTruth = instance.truth
        return np.union1d(truth.test_idx, truth.train_idx).tolist()

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_params(split)

    def instance(self, data: GraphSet, split: Mapping[str, Any], seed: int) -> Instance:
        params = split_params(split)
        rng = np.random.default_rng(seed)
        train, val, test = stratified_split(data.y, params["train"], params["val"], rng)
        if data.candidates is not None:
            candidates = data.candidates[train]
        elif params["q"] is None:
            raise DataError(
                f"dataset '{data.name}' ships no candidate sets and the split gives no q", field="split.q",
                hint="Add q (the probability that each wrong label is a candidate) to the split, e.g. {q: 0.3}, "
                     "or give the loader a candidates_path.",
            )
        else:
            candidates = uniform_candidates(
                data.y[train], data.num_classes, float(params["q"]), rng, params["resample_singletons"],
            )
        inputs = PartialLabelInputs(
            graphs=data.without_labels(), train_idx=train, train_candidates=candidates,
            val_idx=val, val_y=data.y[val], test_idx=test, train_true_y=data.y[train],
        )
        return Instance(inputs=inputs, truth=PartialLabelTruth(test, data.y[test], train, data.y[train]))

    def tiny_instance(self, seed: int) -> Instance:
        """60 generated graphs of 3 classes (one planted motif each), candidate noise q = 0.3."""
        from methods.partial_label_graph.motifs import motif_graphs

        graphs = motif_graphs(num_graphs=60, num_classes=3, min_nodes=6, max_nodes=10, feature_dim=4, seed=seed)
        return self.instance(graphs, {"q": 0.3}, seed)

    def hide_test_labels(self, inputs: PartialLabelInputs, rng: np.random.Generator) -> PartialLabelInputs:
        """The training graphs' true labels randomised: only the supervised reference may read them."""
        return dataclasses.replace(inputs, train_true_y=rng.permutation(inputs.train_true_y))

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance:
        """Test graphs drawn with replacement: the within-run bootstrap of test accuracy."""
        truth: PartialLabelTruth = instance.truth
        draw = rng.integers(0, truth.test_idx.size, truth.test_idx.size)
        return Instance(
            instance.inputs,
            PartialLabelTruth(truth.test_idx[draw], truth.test_y[draw], truth.train_idx, truth.train_y),
        )

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        """One row per test and training graph: its predicted class (argmax of the method's scores)."""
        inputs: PartialLabelInputs = instance.inputs
        scores = np.asarray(output, dtype=np.float64)
        expected = (inputs.graphs.num_graphs, inputs.num_classes)
        if scores.shape != expected:
            raise ValueError(f"a method must return class scores for every graph, shape {expected}, got {scores.shape}")
        rows = np.r_[inputs.test_idx, inputs.train_idx]
        part = np.r_[np.full(inputs.test_idx.size, "test"), np.full(inputs.train_idx.size, "train")]
        return pd.DataFrame({"graph": rows, "part": part, "predicted": scores[rows].argmax(axis=1)})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        truth: PartialLabelTruth = instance.truth
        test = _predicted(predictions, "test", truth.test_idx)
        train = _predicted(predictions, "train", truth.train_idx)
        return {
            key: metric(truth.train_y, train) if metric.name == "train_accuracy" else metric(truth.test_y, test)
            for key, metric in metrics.items()
        }


def _predicted(predictions: pd.DataFrame, part: str, graph_ids: np.ndarray) -> np.ndarray:
    """The predicted classes of `graph_ids` in their order, from the rows of `part` of a checked table; a
    `DataError` when a graph of the part has none (the engine cannot tell, each part holding its own graphs)."""
    by_graph = predictions[predictions["part"] == part].set_index("graph")["predicted"]
    missing = graph_ids[~np.isin(graph_ids, by_graph.index)]
    if missing.size:
        raise DataError(
            f"{missing.size} of {graph_ids.size} {part} graphs have no prediction, e.g. graph {missing[0]}",
            field="graph", hint="Predict every graph of the part.",
        )
    return by_graph.loc[graph_ids].to_numpy()
