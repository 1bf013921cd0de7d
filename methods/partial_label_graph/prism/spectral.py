"""The spectral input of PRISM's spectral view: each graph's T smallest eigenpairs of its
normalised Laplacian, computed once per dataset.

Eigenvectors are defined up to sign; the paper does not say how it handles this [inferred]:
each is made canonical (its largest-magnitude entry positive, the first such on ties), and
training may flip signs at random on top (`random_sign_flips`) so the view cannot rely on
the arbitrary choice.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from methods.partial_label_graph.graphs import GraphSet


@dataclass(frozen=True)
class Eigenpairs:
    """Per graph the T smallest eigenpairs, padded where a graph has fewer than T nodes."""

    values: np.ndarray   # float32 [G, T], eigenvalues in [0, 2]; 0 where padded
    vectors: np.ndarray  # float32 [N, T]: row v holds u_1(v) .. u_T(v) of v's graph; 0 where padded
    valid: np.ndarray    # bool [G, T]: band p exists for graph g (p < n_g)


def normalised_laplacian(num_nodes: int, edges: np.ndarray) -> np.ndarray:
    """Dense I - D^-1/2 A D^-1/2 of one graph (`edges` local, both directions); an isolated
    node keeps L_vv = 1, as if D^-1/2 were 0 there."""
    adjacency = np.zeros((num_nodes, num_nodes))
    adjacency[edges[0], edges[1]] = 1.0
    degree = adjacency.sum(axis=1)
    inv_sqrt = np.divide(1.0, np.sqrt(degree), out=np.zeros_like(degree), where=degree > 0)
    return np.eye(num_nodes) - inv_sqrt[:, None] * adjacency * inv_sqrt[None, :]


def canonical_signs(vectors: np.ndarray) -> np.ndarray:
    """Each column multiplied by the sign of its largest-magnitude entry (the first on ties)."""
    if vectors.size == 0:
        return vectors
    peak = np.abs(vectors).argmax(axis=0)
    signs = np.sign(vectors[peak, np.arange(vectors.shape[1])])
    return vectors * np.where(signs == 0, 1.0, signs)


def smallest_eigenpairs(graphs: GraphSet, count: int) -> Eigenpairs:
    """The `count` smallest normalised-Laplacian eigenpairs of every graph (dense `eigh`: the
    TU graphs have at most a few hundred nodes)."""
    ptr, edge_ptr = graphs.graph_ptr, graphs.edge_ptr
    values = np.zeros((graphs.num_graphs, count), dtype=np.float32)
    vectors = np.zeros((graphs.x.shape[0], count), dtype=np.float32)
    valid = np.zeros((graphs.num_graphs, count), dtype=bool)
    for g in range(graphs.num_graphs):
        n = int(ptr[g + 1] - ptr[g])
        edges = graphs.edge_index[:, edge_ptr[g]:edge_ptr[g + 1]] - ptr[g]
        t = min(count, n)
        eigenvalues, eigenvectors = scipy.linalg.eigh(normalised_laplacian(n, edges), subset_by_index=(0, t - 1))
        values[g, :t] = np.clip(eigenvalues, 0.0, 2.0)
        vectors[ptr[g]:ptr[g + 1], :t] = canonical_signs(eigenvectors)
        valid[g, :t] = True
    return Eigenpairs(values, vectors, valid)
