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
from methods.graph_anomaly.training import NodeClassifierDetector, check_positive_int


class GATDetector(NodeClassifierDetector):
    """GAT trained with GADBench's loop, selected on validation AUPRC."""

    def __init__(
        self, hidden: int = 32, layers: int = 2, heads: int = 4, dropout: float = 0.0,
        lr: float = 0.01, weight_decay: float = 0.0, epochs: int = 200, patience: int = 50,
    ) -> None:
        check_positive_int("heads", heads)
        super().__init__(hidden, layers, dropout, lr, weight_decay, epochs, patience)
        if hidden % heads:
            raise ValueError(f"heads must divide hidden so concatenated heads are hidden wide, got {heads} and {hidden}")
        self.heads = heads

    def build_model(self, in_features: int) -> nn.Module:
        convs = [
            GATConv(i, o // self.heads, heads=self.heads)
            for i, o in layer_sizes(in_features, self.hidden, self.layers)
        ]
        return ConvClassifier(convs, self.hidden, self.dropout)
