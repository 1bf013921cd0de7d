"""GCN, Kipf & Welling, ICLR 2017, in GADBench's configuration (Tang et al., NeurIPS 2023).

GADBench's GNNs are `layers` graph convolutions with ReLU (dropout before every one but
the first) and then a linear layer to 2 classes; `ConvClassifier` is that shape for any
PyG convolution, and GraphSAGE reuses it. GCNConv normalises symmetrically with self
loops, D^-1/2 (A + I) D^-1/2, cached because the graph is fixed during training.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import GCNConv

from methods.graph_anomaly.params import LayeredParams
from methods.graph_anomaly.training import NodeClassifierDetector


class ConvClassifier(nn.Module):
    def __init__(self, convs: Sequence[nn.Module], hidden: int, dropout: float) -> None:
        super().__init__()
        self.convs = nn.ModuleList(convs)
        self.head = nn.Linear(hidden, 2)
        self.dropout = dropout

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        h = F.relu(self.convs[0](x, adj_t))
        for conv in self.convs[1:]:
            h = F.relu(conv(F.dropout(h, self.dropout, self.training), adj_t))
        return self.head(h)


def layer_sizes(in_features: int, hidden: int, layers: int) -> list[tuple[int, int]]:
    """(in, out) of each of `layers` convolutions: in_features -> hidden -> ... -> hidden."""
    sizes = [in_features] + [hidden] * layers
    return list(pairwise(sizes))


class GCNDetector(NodeClassifierDetector[LayeredParams]):
    """GCN (Kipf & Welling, ICLR 2017) trained with GADBench's loop, selected on validation AUPRC."""

    def build_model(self, in_features: int) -> nn.Module:
        p = self.params
        convs = [GCNConv(i, o, cached=True) for i, o in layer_sizes(in_features, p.hidden, p.layers)]
        return ConvClassifier(convs, p.hidden, p.dropout)
