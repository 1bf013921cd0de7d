"""GAT, Veličković et al., ICLR 2018, in GADBench's shape (Tang et al., NeurIPS 2023).

`gcn.ConvClassifier` with PyG's GATConv: `heads` attention heads of width hidden / heads,
concatenated, so every layer stays `hidden` wide. GADBench's GAT (`models/attention.py`,
a residual variant from Platonov et al., ICLR 2023) uses 4 heads with h_feats = 32; we
keep its head count and width but use the original GAT layer (self loops added, LeakyReLU
0.2 attention), as GCN and GraphSAGE here use PyG's original layers.
"""
from __future__ import annotations

from torch import nn
from torch_geometric.nn import GATConv

from methods.graph_anomaly.baselines.gcn import ConvClassifier, layer_sizes
from methods.graph_anomaly.params import GATParams
from methods.graph_anomaly.training import NodeClassifierDetector


class GATDetector(NodeClassifierDetector[GATParams]):
    """GAT trained with GADBench's loop, selected on validation AUPRC."""

    def build_model(self, in_features: int) -> nn.Module:
        p = self.params
        convs = [GATConv(i, o // p.heads, heads=p.heads) for i, o in layer_sizes(in_features, p.hidden, p.layers)]
        return ConvClassifier(convs, p.hidden, p.dropout)
