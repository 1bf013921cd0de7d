"""Cora with PyGOD's injected outliers: the inj_cora counts, the outliers' shape, seeding, bad input."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.graph_anomaly.data import load_injected, load_npz
from methods.graph_anomaly.injection import inject_outliers
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.task import NodeScoring


def _classes_npz(tmp_path: Path, num_nodes: int = 300, **extra: np.ndarray) -> Path:
    """A ring with 7-class labels and one-hot-ish features, like a small Cora."""
    rng = np.random.default_rng(1)
    ring = np.arange(num_nodes)
    arrays = {
        "x": (rng.random((num_nodes, 20)) < 0.1).astype(np.float32),
        "edge_index": np.stack([np.r_[ring, (ring + 1) % num_nodes], np.r_[(ring + 1) % num_nodes, ring]]),
        "y": rng.integers(0, 7, num_nodes),
        **extra,
    }
    path = tmp_path / "classes.npz"
    np.savez(path, **arrays)
    return path


def _cliques(graph: Graph, nodes: np.ndarray) -> set[frozenset[int]]:
    """Closed neighbourhoods restricted to `nodes`: each holds its node's whole clique."""
    src, dst = graph.edge_index
    inside = np.isin(dst, nodes)
    return {frozenset(dst[(src == v) & inside].tolist()) | {int(v)} for v in nodes}


def test_load_injected_labels_exactly_the_injected_nodes_and_ignores_the_classes(tmp_path):
    graph = load_injected(_classes_npz(tmp_path), num_contextual=12, num_structural=15, clique_size=5, candidates=20)
    assert graph.name == "inj_classes" and graph.y.dtype == np.int64
    assert set(np.unique(graph.y)) == {0, 1} and int(graph.y.sum()) == 27


def test_load_injected_outliers_are_far_features_and_cliques(tmp_path):
    path = _classes_npz(tmp_path)
    base = np.load(path)
    graph = load_injected(path, num_contextual=10, num_structural=15, clique_size=5, candidates=20, seed=3)
    changed = np.flatnonzero((graph.x != base["x"]).any(axis=1))
    added = set(map(tuple, graph.edge_index.T.tolist())) - set(map(tuple, base["edge_index"].T.tolist()))
    structural = np.unique([v for e in added for v in e])
    assert set(changed) | set(structural) == set(np.flatnonzero(graph.y))
    assert not set(changed) & set(structural) and changed.size <= 10 and structural.size == 15
    for node in changed:  # a copy of another node's original row
        assert any((base["x"][other] == graph.x[node]).all() for other in range(300) if other != node)
    cliques = {frozenset(b for a, b in added if a == v) | {v} for v in structural.tolist()}
    assert len(cliques) == 3 and all(len(c) == 5 for c in cliques)  # (no ring edge falls inside a clique here)


def test_load_injected_is_deterministic_per_seed(tmp_path):
    path = _classes_npz(tmp_path)
    first, again, other = (load_injected(path, seed=s, num_contextual=5, num_structural=10, clique_size=5)
                           for s in (0, 0, 1))
    assert all(np.array_equal(getattr(first, f), getattr(again, f)) for f in ("x", "edge_index", "y"))
    assert not np.array_equal(first.y, other.y)


def test_load_injected_needs_no_labels_in_the_file(tmp_path):
    path = _classes_npz(tmp_path)
    arrays = dict(np.load(path))
    del arrays["y"]
    np.savez(path, **arrays)
    assert int(load_injected(path, num_contextual=4, num_structural=4, clique_size=2).y.sum()) == 8


def test_load_injected_rejects_more_outliers_than_nodes(tmp_path):
    with pytest.raises(ValueError, match="301 outliers asked for but only 300 nodes"):
        load_injected(_classes_npz(tmp_path), num_contextual=201, num_structural=100)


def test_load_injected_rejects_nan_features_naming_the_field(tmp_path):
    x = np.zeros((300, 20), dtype=np.float32)
    x[7, 3] = np.nan
    with pytest.raises(DataError, match="1 of 300 rows") as caught:
        load_injected(_classes_npz(tmp_path, x=x))
    assert caught.value.field == "x" and caught.value.hint


def test_load_npz_points_a_multi_class_graph_to_the_injecting_loader(tmp_path):
    with pytest.raises(DataError, match="labels must be 0") as caught:
        load_npz(_classes_npz(tmp_path))
    assert caught.value.field == "y" and "injected_npz" in caught.value.hint


def test_inject_outliers_keeps_the_input_arrays_untouched():
    x, edges = np.arange(40.0).reshape(20, 2), np.array([[0, 1], [1, 0]])
    x_copy = x.copy()
    new_x, new_edges, y = inject_outliers(x, edges, 3, 4, 2, 5, np.random.default_rng(0))
    assert np.array_equal(x, x_copy) and y.sum() == 7 and new_edges.shape[1] == 2 + 2 * 4


@pytest.mark.real_data
def test_injected_cora_has_the_inj_cora_size_and_seven_cliques_of_ten(real_graph_path):
    path = real_graph_path("cora")
    with pytest.warns(UserWarning, match=r"1 constant feature column \(444\)"):
        graph = load_injected(path)
    cora = np.load(path)
    assert graph.name == "inj_cora" and graph.x.shape == (2708, 1433) and int(graph.y.sum()) == 140
    keys = graph.edge_index[0] * 2708 + graph.edge_index[1]
    assert np.all(np.diff(keys) > 0) and np.array_equal(np.sort(graph.edge_index[1] * 2708 + graph.edge_index[0]), keys)
    assert np.isin(cora["edge_index"][0] * 2708 + cora["edge_index"][1], keys).all()  # Cora's edges all kept
    contextual = np.flatnonzero((graph.x != cora["x"]).any(axis=1))
    structural = np.setdiff1d(np.flatnonzero(graph.y), contextual)
    assert contextual.size == 70 and structural.size == 70
    added = graph.edge_index[:, ~np.isin(keys, cora["edge_index"][0] * 2708 + cora["edge_index"][1])]
    assert np.isin(added, structural).all()  # injection adds clique edges only
    assert 7 * 90 - 20 <= added.shape[1] <= 7 * 90  # 7 cliques of 10, less pairs Cora already links
    assert all(len(c) >= 10 for c in _cliques(graph, structural))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        instance = NodeScoring().instance(graph, {}, seed=0)
    assert instance.inputs.train_y.sum() == 20 and instance.inputs.val_y.sum() == 20
