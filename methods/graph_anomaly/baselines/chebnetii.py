"""ChebNetII (He et al., "Convolutional Neural Networks on Graphs with Chebyshev Approximation,
Revisited", NeurIPS 2022), trained with GADBench's loop.

As in the authors' `main/models.py`: an MLP (Linear → ReLU → dropout → Linear to the 2
classes) first, then one learnable Chebyshev-interpolation propagation of order K on the
logits, L̂ = −D^{-1/2} A D^{-1/2} without self loops (their `get_laplacian` + fill −1).
γ_j = ReLU(θ_j), θ initialised to 1.0. K = 10 is the paper's default. We leave out their
extra dropout on the input and before the propagation (`dprate`), as GADBench runs dropout 0.
"""
from __future__ import annotations

from torch import Tensor, nn

from methods.graph_anomaly.apf.chebyshev import ChebInterpolationFilter, chebyshev_basis, shifted_laplacian
from methods.graph_anomaly.baselines.mlp import FeedForward
from methods.graph_anomaly.params import ChebNetIIParams
from methods.graph_anomaly.training import NodeClassifierDetector


class ChebNetII(nn.Module):
    def __init__(self, in_features: int, hidden: int, layers: int, dropout: float, order: int) -> None:
        super().__init__()
        self.mlp = FeedForward(in_features, hidden, layers, dropout)
        self.filter = ChebInterpolationFilter(order)
        self.order = order
        self._l_hat: Tensor | None = None  # the graph is fixed during training, like GCNConv(cached=True)

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        if self._l_hat is None:
            edge_index = adj_t.to_sparse_coo().indices().flip(0)
            self._l_hat = shifted_laplacian(edge_index, x.shape[0], self_loops=False)
        return self.filter(chebyshev_basis(self._l_hat, self.mlp(x), self.order))


class ChebNetIIDetector(NodeClassifierDetector[ChebNetIIParams]):
    """ChebNetII, class-weighted, selected on validation AUPRC like the other GADBench baselines."""

    def build_model(self, in_features: int) -> nn.Module:
        p = self.params
        return ChebNetII(in_features, p.hidden, p.layers, p.dropout, p.K)
