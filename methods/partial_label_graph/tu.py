"""What the TU loaders share (tu_npz.py, tu_raw.py): the checks a graph set's arrays must
pass, the node features a model sees, and the assembly of a `GraphSet`.

Both formats carry the same content (shared/data/tu/PROVENANCE.md): node features or node
labels, edges within graphs, each graph's node range and class.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import DataError
from methods.common.graphs import simple_undirected
from methods.partial_label_graph.candidates import read_candidate_sets
from methods.partial_label_graph.graphs import GraphSet

FEATURE_CHOICES = ("auto", "attributes", "labels", "both")
SCHEMA_HINT = "See shared/data/tu/PROVENANCE.md: edge_index [2, E], graph_ptr [G + 1], x [N, F], y [G]."


def tu_graph_set(
    path: Path, name: str, x: np.ndarray, node_labels: np.ndarray | None, edge_index: np.ndarray, graph_ptr: np.ndarray,
    y: np.ndarray, *, features: str, standardize: bool, candidates_path: Path | None,
    label_values: np.ndarray | None = None,
) -> GraphSet:
    """A checked `GraphSet`: edges made simple and undirected, features chosen, candidate sets
    read when `candidates_path` is given. `label_values[c]` is class c's label as the
    dataset's own files write it (default: c itself)."""
    check_arrays(path, edge_index, graph_ptr, x, y)
    y = y.astype(np.int64)
    candidates = None
    if candidates_path is not None:
        values = np.arange(int(y.max()) + 1) if label_values is None else label_values
        candidates = read_candidate_sets(Path(candidates_path), y, values)
    return GraphSet(
        name=name,
        x=node_features(x.astype(np.float32), node_labels, features, standardize, path),
        edge_index=simple_undirected(edge_index.astype(np.int64), x.shape[0]),
        graph_ptr=graph_ptr.astype(np.int64), y=y, num_classes=int(y.max()) + 1, candidates=candidates,
    )


def node_features(
    x: np.ndarray, node_labels: np.ndarray | None, features: str, standardize: bool, path: Path,
) -> np.ndarray:
    """The node features a model sees.

    `features`: "attributes" (x as stored), "labels" (one-hot node labels), "both", or
    "auto" = both where node labels exist and x is not already their one-hot encoding
    (ENZYMES: 18 attributes + 3 labels; MUTAG: x is the one-hot already). `standardize`
    z-scores each column over all nodes (population std; no labels are used), since raw TU
    attributes differ in scale by orders of magnitude (PROTEINS: -538 to 798).
    """
    if features not in FEATURE_CHOICES:
        raise ValueError(f"features must be one of {', '.join(map(repr, FEATURE_CHOICES))}, got {features!r}")
    one_hot = None if node_labels is None else np.eye(int(node_labels.max()) + 1, dtype=np.float32)[node_labels]
    if features in ("labels", "both") and one_hot is None:
        raise DataError(f"features '{features}' needs node labels, which this file lacks", file=path,
                        field="node_labels", hint="Use features: attributes.")
    if features == "auto":
        features = "attributes" if one_hot is None or np.array_equal(one_hot, x) else "both"
    chosen = {"attributes": x, "labels": one_hot, "both": None}[features]
    if chosen is None:
        chosen = np.concatenate([x, one_hot], axis=1)
    if standardize:
        std = chosen.std(axis=0)
        chosen = (chosen - chosen.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return chosen.astype(np.float32)


def check_arrays(path: Path, edge_index: np.ndarray, ptr: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    """`DataError` naming the first array that breaks the schema of PROVENANCE.md."""
    def fail(field: str, message: str) -> None:
        raise DataError(message, file=path, field=field, hint=SCHEMA_HINT)

    if x.ndim != 2 or x.shape[0] == 0 or x.dtype.kind not in "biuf" or not np.isfinite(x).all():
        fail("x", f"must be a finite numeric array [N, F] with N > 0, got shape {x.shape} and dtype {x.dtype}")
    n = x.shape[0]
    if ptr.ndim != 1 or ptr.dtype.kind not in "iu" or ptr.size < 2 or ptr[0] != 0 or ptr[-1] != n:
        fail("graph_ptr", f"must be integers [G + 1] running from 0 to N = {n}")
    if (np.diff(ptr) <= 0).any():
        fail("graph_ptr", f"must increase strictly: graph {int(np.flatnonzero(np.diff(ptr) <= 0)[0])} has no node")
    if y.shape != (ptr.size - 1,) or y.dtype.kind not in "iu":
        fail("y", f"must hold one integer class per graph, shape ({ptr.size - 1},), got {y.shape} {y.dtype}")
    if y.min() < 0 or np.setdiff1d(np.arange(y.max() + 1), y).size:
        fail("y", f"classes must be 0 .. C-1 with every class present, got values {np.unique(y)[:10].tolist()}")
    if edge_index.ndim != 2 or edge_index.shape[0] != 2 or edge_index.dtype.kind not in "iu":
        fail("edge_index", f"must be integers of shape [2, E], got {edge_index.shape} {edge_index.dtype}")
    if edge_index.size and (edge_index.min() < 0 or edge_index.max() >= n):
        fail("edge_index", f"node ids must lie in [0, {n})")
    graph_of = np.searchsorted(ptr, edge_index, side="right") - 1
    if (graph_of[0] != graph_of[1]).any():
        k = int(np.flatnonzero(graph_of[0] != graph_of[1])[0])
        fail("edge_index",
             f"edge {k} joins nodes of graphs {graph_of[0, k]} and {graph_of[1, k]}; edges must stay within a graph")
