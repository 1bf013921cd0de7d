"""Generated graph-classification sets whose classes differ by a planted motif: data the
project makes, for tests and quick runs (the synthetic set of shared/papers/prism.md's
small-scale plan: "classes differ by planted motifs (the spatial cue)").

Each graph is a random recursive tree (node i joins a uniformly drawn earlier node) with
one copy of its class's motif attached by a single edge. A tree has no cycle, so the
motif's cycles are the only ones in the graph: the class is in the structure alone. Node
features are Gaussian noise beside a constant column, independent of the class, so a
model must read the structure; with random features a GIN is also not bounded by the
1-WL test that cannot tell some of these cycles apart (Sato et al., SDM 2021).
"""
from __future__ import annotations

import numpy as np

from methods.common.graphs import simple_undirected
from methods.partial_label_graph.graphs import GraphSet


def _cycle(n: int) -> list[tuple[int, int]]:
    return [(i, (i + 1) % n) for i in range(n)]


def _complete(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


# Motifs in class order; each is an edge list on nodes 0 .. k-1.
MOTIFS: dict[str, list[tuple[int, int]]] = {
    "triangle": _cycle(3),
    "square": _cycle(4),
    "house": _cycle(4) + [(0, 4), (1, 4)],
    "k4": _complete(4),
    "wheel": [(0, i) for i in range(1, 6)] + [(1 + a, 1 + b) for a, b in _cycle(5)],
    "ladder": [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)],
    "k23": [(a, b) for a in (0, 1) for b in (2, 3, 4)],
    "pentagon": _cycle(5),
}


def motif_graphs(
    num_graphs: int = 600, num_classes: int = 6, min_nodes: int = 15, max_nodes: int = 35,
    feature_dim: int = 8, seed: int = 0,
) -> GraphSet:
    """`num_graphs` graphs, classes balanced and shuffled; class c plants `list(MOTIFS)[c]`.

    The tree part has `min_nodes` .. `max_nodes` nodes (uniform), about ENZYMES' 33 nodes on
    average with the motif; ENZYMES' size (600 graphs, 6 classes) is the default.
    """
    _check_args(num_graphs, num_classes, min_nodes, max_nodes, feature_dim)
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(num_graphs) % num_classes).astype(np.int64)
    motifs = [np.array(edges, dtype=np.int64).T for edges in MOTIFS.values()]
    edges, sizes = [], []
    start = 0
    for label in y:
        tree_size = int(rng.integers(min_nodes, max_nodes + 1))
        parents = np.array([rng.integers(0, i) for i in range(1, tree_size)], dtype=np.int64)
        tree = np.stack([np.arange(1, tree_size), parents])
        motif = motifs[label] + tree_size
        motif_size = int(motif.max()) + 1 - tree_size
        link = np.array([[tree_size + rng.integers(0, motif_size)], [rng.integers(0, tree_size)]])
        edges.append(np.concatenate([tree, motif, link], axis=1) + start)
        sizes.append(tree_size + motif_size)
        start += sizes[-1]
    x = np.concatenate([np.ones((start, 1)), rng.normal(size=(start, feature_dim))], axis=1)
    return GraphSet(
        name=f"motifs{num_classes}", x=x.astype(np.float32),
        edge_index=simple_undirected(np.concatenate(edges, axis=1), start),
        graph_ptr=np.r_[0, np.cumsum(sizes)].astype(np.int64), y=y, num_classes=num_classes,
    )


def _check_args(num_graphs: int, num_classes: int, min_nodes: int, max_nodes: int, feature_dim: int) -> None:
    for key, value in {"num_graphs": num_graphs, "num_classes": num_classes, "min_nodes": min_nodes,
                       "max_nodes": max_nodes, "feature_dim": feature_dim}.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{key} must be a non-negative integer, got {value!r}")
    if not 2 <= num_classes <= len(MOTIFS):
        raise ValueError(f"num_classes must lie in [2, {len(MOTIFS)}] (one motif per class: "
                         f"{', '.join(MOTIFS)}), got {num_classes}")
    if num_graphs < 3 * num_classes:
        raise ValueError(f"num_graphs must be at least 3 x num_classes = {3 * num_classes}, so that every class "
                         f"can appear in train, validation and test; got {num_graphs}")
    if not 1 <= min_nodes <= max_nodes:
        raise ValueError(f"the tree sizes need 1 <= min_nodes <= max_nodes, got {min_nodes} and {max_nodes}")
