"""Chebyshev-interpolation spectral filters (ChebNetII, He et al., NeurIPS 2022), shared by APF and ChebNetII.

A filter is given by its values γ_j at the K+1 Chebyshev nodes x_j = cos((K − j + 0.5)π/(K+1))
of L̂ = L − I; the coefficients w_k = 2/(K+1) Σ_j γ_j T_k(x_j) make the polynomial
(w_0/2) T_0 + Σ_{k≥1} w_k T_k interpolate them (spec Step 3). x_j rises with j from ≈ −1 to
≈ 1, i.e. the eigenvalue λ = x + 1 of L goes from ≈ 0 (low frequency) to ≈ 2 (high).

PolyGCL's (Chen et al., ICLR 2024, `ChebnetII_pro.py`) monotone values make a low-pass filter
non-increasing and a high-pass one non-decreasing *at the nodes*. Between nodes the
interpolating polynomial can overshoot (a step-shaped γ rings), so the response is only
approximately monotone there; `tests/graph_anomaly/test_apf_filters.py` pins both facts.
The propagation is plain torch sparse CSR (no PyG layer implements Chebyshev interpolation).
"""
from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def shifted_laplacian(edge_index: Tensor, num_nodes: int, self_loops: bool = True) -> Tensor:
    """L̂ = L − I = −D^{-1/2} A D^{-1/2} as sparse CSR; spectrum in [−1, 1].

    APF (spec Step 0) adds self loops to A; ChebNetII's own code does not, hence the flag.
    An isolated node (degree 0) gets an all-zero row.
    """
    src, dst = edge_index[0], edge_index[1]
    if self_loops:
        loops = torch.arange(num_nodes, device=edge_index.device)
        src, dst = torch.cat([src, loops]), torch.cat([dst, loops])
    weight = torch.ones(src.numel(), device=edge_index.device)
    degree = torch.zeros(num_nodes, device=edge_index.device).index_add_(0, src, weight)
    inv_sqrt = degree.pow(-0.5).masked_fill(degree == 0, 0.0)
    values = -inv_sqrt[src] * inv_sqrt[dst]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant checks)")
        coo = torch.sparse_coo_tensor(torch.stack([dst, src]), values, (num_nodes, num_nodes)).coalesce()
        return coo.to_sparse_csr()


class _SymmetricSparseProduct(torch.autograd.Function):
    """L̂ X with the backward L̂ G: L̂ is symmetric, so no transpose is needed. torch's CSR
    backward transposes (sorts) L̂ on every call, 30x the forward's cost on Tolokers.
    The graph is fixed, so L̂ gets no gradient."""

    @staticmethod
    def forward(ctx, l_hat: Tensor, x: Tensor) -> Tensor:
        ctx.l_hat = l_hat
        return l_hat @ x

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[None, Tensor]:
        return None, ctx.l_hat @ grad


def chebyshev_basis(l_hat: Tensor, x: Tensor, order: int) -> Tensor:
    """[T_0(L̂)X, ..., T_K(L̂)X] stacked to [K+1, N, F] by T_k = 2 L̂ T_{k−1} − T_{k−2}; L̂ symmetric."""
    terms = [x]
    if order >= 1:
        terms.append(_SymmetricSparseProduct.apply(l_hat, x))
    for _ in range(2, order + 1):
        terms.append(2 * _SymmetricSparseProduct.apply(l_hat, terms[-1]) - terms[-2])
    return torch.stack(terms)


def chebyshev_nodes(order: int) -> Tensor:
    """x_j = cos((K − j + 0.5)π/(K+1)), j = 0..K, ascending: from low to high frequency."""
    j = torch.arange(order + 1, dtype=torch.float64)
    return torch.cos((order - j + 0.5) * math.pi / (order + 1))


def chebyshev_polynomials(x: Tensor, order: int) -> Tensor:
    """T_k(x) for k = 0..K, shape [K+1, *x.shape]."""
    values = [torch.ones_like(x), x]
    for _ in range(2, order + 1):
        values.append(2 * x * values[-1] - values[-2])
    return torch.stack(values[: order + 1])


def interpolation_coefficients(gammas: Tensor) -> Tensor:
    """w_k = 2/(K+1) Σ_j γ_j T_k(x_j), the Chebyshev coefficients that interpolate γ at the nodes."""
    order = gammas.numel() - 1
    t_at_nodes = chebyshev_polynomials(chebyshev_nodes(order), order).to(gammas)  # [k, j]
    return 2.0 / (order + 1) * (t_at_nodes @ gammas)


def apply_filter(basis: Tensor, gammas: Tensor) -> Tensor:
    """(w_0/2) T_0 X + Σ_{k≥1} w_k T_k X from a precomputed `chebyshev_basis`."""
    w = interpolation_coefficients(gammas)
    w = torch.cat([w[:1] / 2, w[1:]])
    return torch.einsum("k,knf->nf", w, basis)


def frequency_response(gammas: Tensor, lam: Tensor) -> Tensor:
    """g(λ) for eigenvalues λ of L (in [0, 2]): the filter polynomial evaluated at x = λ − 1."""
    w = interpolation_coefficients(gammas.to(torch.float64))
    w = torch.cat([w[:1] / 2, w[1:]])
    return w @ chebyshev_polynomials(lam.to(torch.float64) - 1.0, gammas.numel() - 1)


def low_pass_values(t: Tensor) -> Tensor:
    """γ_0 = 2, γ_j = γ_{j−1} − ReLU(t_j): non-increasing from low to high frequency (PolyGCL)."""
    return torch.cat([t.new_full((1,), 2.0), 2.0 - torch.cumsum(F.relu(t), 0)])


def high_pass_values(t: Tensor) -> Tensor:
    """γ_0 = 0, γ_j = γ_{j−1} + ReLU(t_j): non-decreasing from low to high frequency (PolyGCL)."""
    return torch.cat([t.new_zeros(1), torch.cumsum(F.relu(t), 0)])


class MonotoneChebFilter(nn.Module):
    """A learnable low- or high-pass filter; its K increments t_j start at 2/K as in PolyGCL,
    so γ starts evenly spaced from 2 down to 0 (low) or from 0 up to 2 (high) over the nodes."""

    def __init__(self, order: int, kind: str) -> None:
        super().__init__()
        if kind not in ("low", "high"):
            raise ValueError(f"kind must be 'low' or 'high', got {kind!r}")
        self.kind = kind
        self.t = nn.Parameter(torch.full((order,), 2.0 / order))

    def gammas(self) -> Tensor:
        return low_pass_values(self.t) if self.kind == "low" else high_pass_values(self.t)

    def forward(self, basis: Tensor) -> Tensor:
        return apply_filter(basis, self.gammas())


class ChebInterpolationFilter(nn.Module):
    """ChebNetII's free filter: γ_j = ReLU(θ_j), θ_j initialised to 1.0 (an all-pass start).

    Source: `ivam-he/ChebNetII`, `main/ChebnetII_pro.py` (`temp.data.fill_(1.0)`, `F.relu(self.temp)`).
    """

    def __init__(self, order: int) -> None:
        super().__init__()
        self.theta = nn.Parameter(torch.ones(order + 1))

    def gammas(self) -> Tensor:
        return F.relu(self.theta)

    def forward(self, basis: Tensor) -> Tensor:
        return apply_filter(basis, self.gammas())
