"""GraphSAGE, Hamilton et al., NeurIPS 2017, in GADBench's configuration (Tang et al., NeurIPS 2023).

GCN's shape (`gcn.ConvClassifier`) with PyG's SAGEConv, which adds a separate linear map
of the node itself to the aggregated neighbours: W_1 x_i + W_2 aggr_j x_j. GADBench's
default aggregator is the mean; "max" is left out because PyG's sparse path lacks it on CUDA.
"""
from __future__ import annotations

from torch import nn
from torch_geometric.nn import SAGEConv

from methods.graph_anomaly.baselines.gcn import ConvClassifier, layer_sizes
from methods.graph_anomaly.params import GraphSAGEParams
from methods.graph_anomaly.training import NodeClassifierDetector


class GraphSAGEDetector(NodeClassifierDetector[GraphSAGEParams]):
    """GraphSAGE trained with GADBench's loop, selected on validation AUPRC."""

    def build_model(self, in_features: int) -> nn.Module:
        p = self.params
        convs = [SAGEConv(i, o, aggr=p.aggr) for i, o in layer_sizes(in_features, p.hidden, p.layers)]
        return ConvClassifier(convs, p.hidden, p.dropout)
