"""GraphSAGE, Hamilton et al., NeurIPS 2017, in GADBench's configuration (Tang et al., NeurIPS 2023).

GCN's shape (`gcn.ConvClassifier`) with PyG's SAGEConv, which adds a separate linear map
of the node itself to the aggregated neighbours: W_1 x_i + W_2 aggr_j x_j. GADBench's
default aggregator is the mean; "max" is left out because PyG's sparse path lacks it on CUDA.
"""
from __future__ import annotations

from typing import ClassVar

from torch import nn
from torch_geometric.nn import SAGEConv

from methods.graph_anomaly.baselines.gcn import ConvClassifier, layer_sizes
from methods.graph_anomaly.training import NodeClassifierDetector


class GraphSAGEDetector(NodeClassifierDetector):
    """GraphSAGE trained with GADBench's loop, selected on validation AUPRC."""

    AGGREGATORS: ClassVar[tuple[str, ...]] = ("mean", "sum")

    def __init__(
        self, hidden: int = 32, layers: int = 2, aggr: str = "mean", dropout: float = 0.0,
        lr: float = 0.01, weight_decay: float = 0.0, epochs: int = 200, patience: int = 50,
    ) -> None:
        if aggr not in self.AGGREGATORS:
            raise ValueError(f"aggr must be one of {', '.join(self.AGGREGATORS)}; got {aggr!r}")
        super().__init__(hidden, layers, dropout, lr, weight_decay, epochs, patience)
        self.aggr = aggr

    def build_model(self, in_features: int) -> nn.Module:
        convs = [SAGEConv(i, o, aggr=self.aggr) for i, o in layer_sizes(in_features, self.hidden, self.layers)]
        return ConvClassifier(convs, self.hidden, self.dropout)
