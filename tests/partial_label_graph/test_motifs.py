"""The generated motif graphs: balanced classes, and the planted motif the only cycles of a graph."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from methods.partial_label_graph.motifs import MOTIFS, motif_graphs


def _cycle_rank(edges: list[tuple[int, int]]) -> int:
    """Independent cycles of a connected edge list: E - N + 1."""
    nodes = {v for edge in edges for v in edge}
    return len(edges) - len(nodes) + 1


def test_every_graph_is_connected_and_its_only_cycles_are_its_class_motif():
    graphs = motif_graphs(num_graphs=80, num_classes=8, min_nodes=5, max_nodes=12, seed=1)
    ranks = [_cycle_rank(edges) for edges in MOTIFS.values()]
    assert len(set(ranks)) > 1                                   # the check below can tell motifs apart
    ptr, edge_ptr = graphs.graph_ptr, graphs.edge_ptr
    for g in range(graphs.num_graphs):
        n = int(ptr[g + 1] - ptr[g])
        local = graphs.edge_index[:, edge_ptr[g]:edge_ptr[g + 1]] - ptr[g]
        adjacency = coo_matrix((np.ones(local.shape[1]), (local[0], local[1])), shape=(n, n))
        assert connected_components(adjacency, directed=False)[0] == 1
        motif = list(MOTIFS.values())[graphs.y[g]]
        motif_nodes = len({v for edge in motif for v in edge})
        assert 5 + motif_nodes <= n <= 12 + motif_nodes
        assert local.shape[1] // 2 - n + 1 == _cycle_rank(motif)   # a tree adds no cycle


def test_classes_are_balanced_and_features_carry_no_class_signal():
    graphs = motif_graphs(num_graphs=600, num_classes=6, seed=0)
    assert np.array_equal(np.bincount(graphs.y), np.full(6, 100))
    assert (graphs.x[:, 0] == 1).all()
    node_class = np.repeat(graphs.y, graphs.sizes())
    means = np.stack([graphs.x[node_class == c, 1:].mean(axis=0) for c in range(6)])
    assert np.abs(means).max() < 0.1                             # noise: every class's mean is about 0


def test_the_set_is_a_function_of_its_seed():
    a, b, c = motif_graphs(seed=4), motif_graphs(seed=4), motif_graphs(seed=5)
    assert np.array_equal(a.edge_index, b.edge_index) and np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.y, c.y)


@pytest.mark.parametrize("args, message", [
    ({"num_classes": 9}, r"num_classes must lie in \[2, 8\]"),
    ({"num_graphs": 10}, "at least 3 x num_classes"),
    ({"min_nodes": 9, "max_nodes": 4}, "min_nodes <= max_nodes"),
    ({"feature_dim": -1}, "feature_dim must be a non-negative integer"),
])
def test_bad_arguments_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        motif_graphs(**args)
