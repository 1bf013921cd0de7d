"""APF's dual-filter encoder: Z_L = f(g_L(L̂)X), Z_H = f(g_H(L̂)X) (spec Step 3, PolyGCL's shape).

f = dropout → optional BatchNorm → Linear(d→e) → activation, as in PolyGCL (Chen et al.,
ICLR 2024). PolyGCL shares f between the branches; whether APF does is unknown, so
`share_linear=True` is [inferred] from PolyGCL (sharing f means sharing its BatchNorm too).
"""
from __future__ import annotations

from typing import get_args

from torch import Tensor, nn

from methods.graph_anomaly.apf.chebyshev import MonotoneChebFilter
from methods.graph_anomaly.params import Activation

ACTIVATIONS: tuple[str, ...] = get_args(Activation)


class FeatureMap(nn.Module):
    """PolyGCL's f: dropout → BatchNorm (optional) → Linear → ELU or PReLU."""

    def __init__(self, in_features: int, hidden: int, batchnorm: bool, dropout: float, activation: str) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Dropout(dropout),
            nn.BatchNorm1d(in_features) if batchnorm else nn.Identity(),
            nn.Linear(in_features, hidden),
            nn.ELU() if activation == "elu" else nn.PReLU(hidden),
        )

    def forward(self, h: Tensor) -> Tensor:
        return self.layers(h)


class DualFilterEncoder(nn.Module):
    """Low- and high-pass Chebyshev filters of order K, each followed by f, on a precomputed basis."""

    def __init__(
        self, in_features: int, hidden: int, order: int, batchnorm: bool = True, dropout: float = 0.0,
        activation: str = "elu", share_linear: bool = True,
    ) -> None:
        super().__init__()
        self.hidden = hidden  # the embedding width e
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}; got {activation!r}")
        self.low_filter = MonotoneChebFilter(order, "low")
        self.high_filter = MonotoneChebFilter(order, "high")
        self.low_map = FeatureMap(in_features, hidden, batchnorm, dropout, activation)
        self.high_map = (self.low_map if share_linear
                         else FeatureMap(in_features, hidden, batchnorm, dropout, activation))

    def forward(self, basis: Tensor, lowpass: bool) -> Tensor:
        """Z_L (lowpass=True) or Z_H from `chebyshev_basis(l_hat, x, K)`, shape [N, e]."""
        if lowpass:
            return self.low_map(self.low_filter(basis))
        return self.high_map(self.high_filter(basis))
