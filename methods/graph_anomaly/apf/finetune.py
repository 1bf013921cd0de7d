"""APF's granularity-adaptive fine-tuning on frozen embeddings (spec Step 5).

The fusion menu is SAGAD's (`Cloudy1225/SAGAD`, `model.py`), minus its AMNet-style
attention: low, high, mean, concat, scalar (one α = σ(a)), vector (α = σ(a) ∈ (0,1)^e) and
gated, C = σ(gate(X)) per node and dimension, Z = C ⊙ Z_L + (1 − C) ⊙ Z_H. The gated
fusion adds L_reg = BCE(c_i, t_i), c_i = mean_j C_ij, t_i = p^a for anomalies and p^n for
normals. The model is selected on validation AUROC by default, as in SAGAD and the bridge;
GADBench's own baselines select on AUPRC (`select_on` switches).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import get_args

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import MLP

from methods.graph_anomaly.metrics import auprc, auroc
from methods.graph_anomaly.params import FusionKind, check_gate_targets
from methods.graph_anomaly.training import class_weights

FUSIONS: tuple[str, ...] = get_args(FusionKind)
SELECTION_METRICS = {"auroc": auroc, "auprc": auprc}


def gate_regulariser(c: Tensor, y: Tensor, p_a: float, p_n: float, class_weighted: bool = True) -> Tensor:
    """BCE(c_i, t_i) over labelled nodes, t_i = p_a if y_i = 1 else p_n.

    SAGAD's code weights anomalies by #normal/#anomalous (`class_weighted=True`, then the
    weighted terms are averaged over all nodes); the paper averages unweighted.
    """
    check_gate_targets(p_a, p_n)
    anomalous = y == 1
    target = torch.where(anomalous, torch.full_like(c, p_a), torch.full_like(c, p_n))
    weight = None
    if class_weighted:
        weight = torch.where(anomalous, class_weights(y)[1], torch.ones_like(c))
    return F.binary_cross_entropy(c, target, weight=weight)


class Fusion(nn.Module):
    """Combines Z_L and Z_H [N, e] into Z; `forward` also returns the gate C (gated only)."""

    def __init__(self, kind: str, hidden: int, in_features: int, gate_layers: int = 1) -> None:
        super().__init__()
        if kind not in FUSIONS:
            raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}; got {kind!r}")
        if gate_layers not in (1, 2):
            raise ValueError(f"gate_layers must be 1 or 2, got {gate_layers!r}")
        self.kind = kind
        self.out_features = 2 * hidden if kind == "concat" else hidden
        if kind in ("scalar", "vector"):
            self.alpha_logit = nn.Parameter(torch.zeros(1 if kind == "scalar" else hidden))  # α = 0.5 at start
        if kind == "gated":
            self.gate = (nn.Linear(in_features, hidden) if gate_layers == 1 else nn.Sequential(
                nn.Linear(in_features, 2 * in_features), nn.ReLU(), nn.Linear(2 * in_features, hidden)))

    def forward(self, z_low: Tensor, z_high: Tensor, x: Tensor) -> tuple[Tensor, Tensor | None]:
        if self.kind == "low":
            return z_low, None
        if self.kind == "high":
            return z_high, None
        if self.kind == "mean":
            return (z_low + z_high) / 2, None
        if self.kind == "concat":
            return torch.cat([z_low, z_high], dim=1), None
        mix = torch.sigmoid(self.gate(x)) if self.kind == "gated" else torch.sigmoid(self.alpha_logit)
        return mix * z_low + (1 - mix) * z_high, (mix if self.kind == "gated" else None)


@dataclass(frozen=True)
class FinetuneConfig:
    """SAGAD's Reddit row: lr 0.01, weight decay 1e-4, head [32, 32]; 500 epochs, patience 50."""

    lr: float = 1e-2
    weight_decay: float = 1e-4
    epochs: int = 500
    patience: int = 50
    head_hidden: tuple[int, ...] = (32, 32)
    dropout: float = 0.0
    p_a: float = 0.8
    p_n: float = 1.0
    reg_weight: float = 1.0
    regularise: bool = True
    reg_class_weighted: bool = True
    select_on: str = "auroc"


@dataclass(frozen=True)
class FinetuneResult:
    scores: np.ndarray  # float64 [N], softmax[:, 1] at the best validation epoch
    best_epoch: int
    best_val: float
    epochs_run: int
    seconds: float
    gate_means: tuple[float, float] | None  # mean c_i over (anomalous, normal) training nodes, gated only
    gate_spread: float | None  # std of c_i over all nodes, gated only: ≈ 0 when the gate cannot tell nodes apart


def finetune(
    z_low: Tensor, z_high: Tensor, x: Tensor, train_idx: Tensor, train_y: Tensor,
    val_idx: Tensor, val_y: np.ndarray, fusion: Fusion, config: FinetuneConfig,
) -> FinetuneResult:
    """Train fusion + MLP head with weighted CE (+ L_reg), keep the best-validation epoch's scores."""
    start = time.perf_counter()
    head = MLP([fusion.out_features, *config.head_hidden, 2], dropout=config.dropout, norm=None).to(x.device)
    model = nn.ModuleList([fusion, head])
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    weight = class_weights(train_y)
    metric = SELECTION_METRICS[config.select_on]
    best_val, best_epoch, best_scores, gate_means, gate_spread = -math.inf, 0, None, None, None
    epoch = 0
    while epoch < config.epochs and epoch - best_epoch < config.patience:
        epoch += 1
        model.train()
        z, gate = fusion(z_low, z_high, x)
        loss = F.cross_entropy(head(z)[train_idx], train_y, weight=weight)
        if gate is not None and config.regularise:
            c = gate[train_idx].mean(dim=1)
            loss = loss + config.reg_weight * gate_regulariser(
                c, train_y, config.p_a, config.p_n, config.reg_class_weighted)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        model.eval()
        with torch.no_grad():
            z, gate = fusion(z_low, z_high, x)
            scores = torch.softmax(head(z), dim=1)[:, 1]
        val = metric(val_y, scores[val_idx].cpu().numpy())
        if best_scores is None or val > best_val:
            best_val, best_epoch, best_scores = val, epoch, scores
            if gate is not None:
                c = gate.mean(dim=1)
                c_train = c[train_idx]
                gate_means = (float(c_train[train_y == 1].mean()), float(c_train[train_y == 0].mean()))
                gate_spread = float(c.std())
    if best_scores is None:
        raise ValueError(f"no epoch was trained (epochs={config.epochs})")
    return FinetuneResult(
        scores=best_scores.cpu().numpy().astype(np.float64), best_epoch=best_epoch, best_val=best_val,
        epochs_run=epoch, seconds=time.perf_counter() - start, gate_means=gate_means, gate_spread=gate_spread,
    )
