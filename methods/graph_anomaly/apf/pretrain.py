"""APF's label-free, anomaly-aware DGI pre-training (spec Step 4).

The low-pass branch is DGI (Veličković et al., ICLR 2019) against the global summary
s^L = σ(mean_i Z_L,i). The high-pass branch contrasts each node with its own summary
s^H_i = σ(mean of Z_H over {i} ∪ S_i), S_i the neighbours of i's maximal-Rayleigh-quotient
star (`rayleigh.mrq_subgraph`). The readout being a mean is [inferred]. The corruption is a
row permutation of X; T_k(L̂)(PX) ≠ P T_k(L̂)X, so the corrupted basis is recomputed every
epoch (K sparse products). The discriminator D(z, s) = σ(zᵀWs) has one W for both
branches by default: [inferred] from the bridge's `dual_disc=False`.

Nothing here takes labels: pre-training sees x and the graph only.
"""
from __future__ import annotations

import copy
import math
import time
import warnings
from dataclasses import dataclass
from typing import get_args

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from methods.graph_anomaly.apf.chebyshev import chebyshev_basis
from methods.graph_anomaly.apf.encoder import DualFilterEncoder
from methods.graph_anomaly.baselines.rayleigh import mrq_subgraph
from methods.graph_anomaly.params import Summary

SUMMARIES: tuple[str, ...] = get_args(Summary)


@dataclass(frozen=True)
class SummaryOperator:
    """Row-normalised sparse [N, N] mean over {i} ∪ S_i, or None for the global summary."""

    mean: Tensor | None
    neighbours_kept: float  # mean |S_i| (0 for the global summary)


def summary_operator(x: np.ndarray, edge_index: np.ndarray, summary: str,
                     device: str | torch.device) -> SummaryOperator:
    """The high-pass branch's readout for the ablation `summary` ∈ {mrq, global, random}.

    "global" is PolyGCL's summary for both branches; "random" keeps, for each node, |S_i|
    neighbours drawn uniformly (a control with the MRQ subgraph's sizes but not its choice).
    """
    if summary not in SUMMARIES:
        raise ValueError(f"summary must be one of {', '.join(SUMMARIES)}; got {summary!r}")
    if summary == "global":
        return SummaryOperator(mean=None, neighbours_kept=0.0)
    subgraph = mrq_subgraph(x, edge_index)
    centre = torch.as_tensor(edge_index[0], dtype=torch.long)
    neighbour = torch.as_tensor(edge_index[1], dtype=torch.long)
    kept = torch.as_tensor(subgraph.kept)
    sizes = torch.as_tensor(subgraph.neighbours_kept, dtype=torch.long)
    if summary == "random":
        kept = _random_subsets(centre, sizes)
    n = x.shape[0]
    loops = torch.arange(n)
    rows = torch.cat([centre[kept], loops])
    cols = torch.cat([neighbour[kept], loops])
    values = 1.0 / (1.0 + sizes[rows].to(torch.float32))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant checks)")
        mean = torch.sparse_coo_tensor(torch.stack([rows, cols]), values, (n, n)).coalesce().to_sparse_csr()
    return SummaryOperator(mean=mean.to(device), neighbours_kept=float(sizes.float().mean()))


def _random_subsets(centre: Tensor, sizes: Tensor) -> Tensor:
    """Edge mask keeping `sizes[i]` uniformly random out-edges of each node i (torch's RNG)."""
    keys = centre.to(torch.float64) + torch.rand(centre.numel(), dtype=torch.float64)
    order = torch.argsort(keys)
    sorted_centre = centre[order]
    counts = torch.bincount(centre, minlength=sizes.numel())
    first = torch.cumsum(counts, 0) - counts  # position of each node's first edge in the sorted order
    rank = torch.arange(centre.numel()) - first[sorted_centre]
    kept = torch.empty(centre.numel(), dtype=torch.bool)
    kept[order] = rank < sizes[sorted_centre]
    return kept


@dataclass(frozen=True)
class PretrainConfig:
    """Bridge defaults [secondary]: 300 epochs, patience 20, Adam lr 1e-3, weight decay 1e-4."""

    epochs: int = 300
    patience: int = 20
    lr: float = 1e-3
    weight_decay: float = 1e-4
    shared_discriminator: bool = True


@dataclass(frozen=True)
class PretrainResult:
    low_losses: list[float]
    high_losses: list[float]
    best_epoch: int  # 1-based; the encoder holds this epoch's weights
    seconds: float

    @property
    def epochs_run(self) -> int:
        return len(self.low_losses)

    @property
    def best_loss(self) -> float:
        """L_low + L_high of the kept epoch. Chance is 4 ln 2 ≈ 2.77 (each branch's discriminator
        outputs 1/2); on Reddit it stays there, so the frozen encoder is effectively untrained."""
        return self.low_losses[self.best_epoch - 1] + self.high_losses[self.best_epoch - 1]


class BilinearDiscriminator(nn.Module):
    """D(z, s) = σ(zᵀWs + b) as logits, computed as ((zW) ⊙ s).sum: `nn.Bilinear` builds an
    [N, e, e] intermediate and made pre-training 3x slower on Reddit. Xavier init as in DGI."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(nn.init.xavier_uniform_(torch.empty(hidden, hidden)))
        self.bias = nn.Parameter(torch.zeros(()))

    def forward(self, z: Tensor, summary: Tensor) -> Tensor:
        return ((z @ self.weight) * summary).sum(dim=-1) + self.bias


def dgi_loss(discriminator: BilinearDiscriminator, z: Tensor, z_corrupt: Tensor, summary: Tensor) -> Tensor:
    """−mean[log D(z_i, s_i)] − mean[log(1 − D(z̃_i, s_i))]; `summary` is [e] (global) or [N, e] (per node)."""
    positive, negative = discriminator(z, summary), discriminator(z_corrupt, summary)
    return (F.binary_cross_entropy_with_logits(positive, torch.ones_like(positive))
            + F.binary_cross_entropy_with_logits(negative, torch.zeros_like(negative)))


def pretrain(
    encoder: DualFilterEncoder, x: Tensor, l_hat: Tensor, order: int, readout: SummaryOperator,
    config: PretrainConfig,
) -> PretrainResult:
    """Alternate one Adam step on L_low and one on L_high per epoch; keep the encoder of the
    epoch with the lowest L_low + L_high and stop `patience` epochs after it."""
    start = time.perf_counter()
    low_disc = BilinearDiscriminator(encoder.hidden).to(x.device)
    high_disc = low_disc if config.shared_discriminator else BilinearDiscriminator(encoder.hidden).to(x.device)
    params = nn.ModuleList([encoder, low_disc, high_disc]).parameters()  # a shared W is listed once
    optimizer = torch.optim.Adam(params, lr=config.lr, weight_decay=config.weight_decay)
    basis = chebyshev_basis(l_hat, x, order)
    low_losses: list[float] = []
    high_losses: list[float] = []
    best_loss, best_epoch, best_state = math.inf, 0, None
    encoder.train()
    while len(low_losses) < config.epochs and len(low_losses) - best_epoch < config.patience:
        corrupt = chebyshev_basis(l_hat, x[torch.randperm(x.shape[0], device=x.device)], order)
        losses = []
        for lowpass in (True, False):
            z, z_corrupt = encoder(basis, lowpass), encoder(corrupt, lowpass)
            if lowpass or readout.mean is None:
                summary = torch.sigmoid(z.mean(dim=0))
            else:
                summary = torch.sigmoid(readout.mean @ z)
            loss = dgi_loss(low_disc if lowpass else high_disc, z, z_corrupt, summary)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        low_losses.append(losses[0])
        high_losses.append(losses[1])
        if sum(losses) < best_loss:
            best_loss, best_epoch = sum(losses), len(low_losses)
            best_state = copy.deepcopy(encoder.state_dict())
    if best_state is None:
        raise ValueError(f"no pretraining epoch gave a finite loss (epochs={config.epochs})")
    encoder.load_state_dict(best_state)
    return PretrainResult(low_losses, high_losses, best_epoch, time.perf_counter() - start)
