"""GHRN, Gao et al., WWW 2023 ("Addressing Heterophily in Graph Anomaly Detection: A Perspective of Graph Spectrum").

Heterophilous (normal-anomaly) edges carry the graph's high-frequency label signal, so
GHRN scores each edge (i, j) by <(L y)_i, (L y)_j> for predicted class probabilities y,
deletes the lowest-scoring `del_ratio` of edges and trains BWGNN on the pruned graph.
As in GHRN's code (`dataset.py::random_walk_update`) y comes from a first BWGNN run and
L = I - D~^-1/2 (A + I) D~^-1/2 uses self loops; here both runs are GADBench-trained
BWGNNs (validation-AUPRC selection), and we delete undirected edges, both directions at
once. del_ratio = 0.015 is GADBench's default (`models/detector.py::GHRNDetector`), which
scores L x with the raw features instead of predictions; we follow the paper's predictions.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import torch
from torch import Tensor
from torch_geometric.utils import to_torch_csr_tensor

from harness import RunContext
from methods.graph_anomaly.baselines.bwgnn import BWGNNDetector
from methods.graph_anomaly.params import GHRNParams
from methods.graph_anomaly.task import NodeScoringInputs
from methods.graph_anomaly.training import node_tensors, train_node_classifier


def heterophily_scores(adj_t: Tensor, y: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(row, col, score) for every stored edge: score = <(L y)_row, (L y)_col>, L with self loops."""
    crow, col = adj_t.crow_indices(), adj_t.col_indices()
    degree = crow[1:] - crow[:-1]
    row = torch.repeat_interleave(torch.arange(adj_t.shape[0], device=y.device), degree)
    inv_sqrt = (degree + 1).to(y.dtype).pow(-0.5).unsqueeze(1)
    smoothed = inv_sqrt * (adj_t.to(y.dtype) @ (inv_sqrt * y)) + inv_sqrt**2 * y
    high = y - smoothed
    return row, col, (high[row] * high[col]).sum(1)


def prune_heterophilous_edges(adj_t: Tensor, y: Tensor, del_ratio: float) -> Tensor:
    """`adj_t` without the floor(del_ratio * #undirected edges) lowest-scoring undirected edges."""
    row, col, score = heterophily_scores(adj_t, y)
    n = adj_t.shape[0]
    upper = row < col
    count = int(del_ratio * int(upper.sum()))
    lowest = torch.argsort(score[upper], stable=True)[:count]
    deleted = (row[upper] * n + col[upper])[lowest]
    key = torch.minimum(row, col) * n + torch.maximum(row, col)
    keep = ~torch.isin(key, deleted)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant checks)")
        return to_torch_csr_tensor(torch.stack([row[keep], col[keep]]), size=(n, n))


class GHRNDetector(BWGNNDetector[GHRNParams]):
    """BWGNN on the graph pruned of its most heterophilous edges, as predicted by a first BWGNN."""

    def run(self, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        data = node_tensors(inputs, ctx.device)
        first = train_node_classifier(self.build_model(data.x.shape[1]).to(ctx.device), data, self.config)
        anomaly = torch.as_tensor(first.scores, dtype=torch.float32, device=ctx.device)
        pruned = prune_heterophilous_edges(data.adj_t, torch.stack([1 - anomaly, anomaly], 1),
                                           self.params.del_ratio)
        model = self.build_model(data.x.shape[1]).to(ctx.device)
        result = train_node_classifier(model, dataclasses.replace(data, adj_t=pruned), self.config)
        result.record(ctx)
        ctx.record("prediction_train_seconds", first.seconds, "s", higher_is_better=False)
        ctx.record("edges_deleted", (data.adj_t.values().numel() - pruned.values().numel()) // 2, "edge")
        return result.scores
