"""PyGOD's synthetic outliers: contextual (far-away features) and structural (dense cliques).

Follows BOND (Liu et al., NeurIPS 2022) and PyGOD's `gen_contextual_outlier` /
`gen_structural_outlier`, with two choices of ours: contextual and structural outliers are
disjoint (so exactly `num_contextual + num_structural` nodes get y = 1; PyGOD draws them
independently, which is why its inj_cora has 138 outliers rather than 140), and a contextual
outlier copies another node's *original* features rather than a possibly replaced row.
"""
from __future__ import annotations

import numpy as np


def check_injection_args(
    num_nodes: int, num_contextual: int, num_structural: int, clique_size: int, candidates: int,
) -> None:
    """`ValueError` naming the first argument that cannot be injected into `num_nodes` nodes."""
    counts = {"num_contextual": num_contextual, "num_structural": num_structural,
              "clique_size": clique_size, "candidates": candidates}
    for key, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{key} must be an integer, got {value!r}")
        if value < 0:
            raise ValueError(f"{key} must be non-negative, got {value}")
    if clique_size < 2 or num_structural % clique_size:
        raise ValueError(
            f"num_structural ({num_structural}) must be a multiple of clique_size ({clique_size}), and clique_size >= 2"
        )
    if num_contextual + num_structural > num_nodes:
        raise ValueError(f"{num_contextual + num_structural} outliers asked for but only {num_nodes} nodes")
    if num_contextual and not 1 <= candidates <= num_nodes - 1:
        raise ValueError(f"candidates must lie in [1, num_nodes - 1 = {num_nodes - 1}], got {candidates}")


def inject_outliers(
    x: np.ndarray, edge_index: np.ndarray, num_contextual: int, num_structural: int, clique_size: int,
    candidates: int, rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, edges with the cliques appended, y = 1 on injected nodes); edges still need cleaning."""
    num_nodes = x.shape[0]
    outliers = rng.permutation(num_nodes)[:num_contextual + num_structural]
    contextual, structural = outliers[:num_contextual], outliers[num_contextual:]
    x = contextual_outliers(x, contextual, candidates, rng)
    cliques = structural.reshape(-1, clique_size)
    clique_edges = [np.stack(np.meshgrid(c, c)).reshape(2, -1) for c in cliques]
    y = np.zeros(num_nodes, dtype=np.int64)
    y[outliers] = 1
    return x, np.concatenate([edge_index, *clique_edges], axis=1), y


def contextual_outliers(
    x: np.ndarray, outliers: np.ndarray, candidates: int, rng: np.random.Generator,
) -> np.ndarray:
    """Each outlier takes the features of the farthest (Euclidean) of `candidates` other random nodes."""
    replaced = x.copy()
    for node in outliers:
        others = rng.choice(x.shape[0] - 1, size=candidates, replace=False)
        others += others >= node  # skip the node itself
        farthest = others[np.argmax(np.linalg.norm(x[others] - x[node], axis=1))]
        replaced[node] = x[farthest]
    return replaced
