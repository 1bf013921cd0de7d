"""DGI pre-training plus a probe, the Pretrain-GAD baseline (Cheng et al., arXiv 2410.18487).

Deep Graph Infomax (Veličković et al., ICLR 2019) trains a GCN encoder without labels to tell
node embeddings of the graph from those of a row-permuted copy of the features, scored by a
bilinear discriminator against the sigmoid of the mean embedding (PyG's `DeepGraphInfomax`).
The encoder is DGI's: one GCN layer with PReLU, Adam lr 0.001, early stopping on the DGI loss
with patience 20, the lowest-loss weights kept. Its width is Pretrain-GAD's `hid_dim` default, 32
(DGI used 512), and the epoch cap is Pretrain-GAD's 1000.

The frozen embeddings then feed a probe fitted as Pretrain-GAD's `eval_MLP` does: Adam lr 0.01,
cross-entropy weighted [1, #neg/#pos], at most 200 epochs, the epoch with the best validation
AUPRC, patience 30. `probe="linear"` is logistic regression, `probe="mlp"` Pretrain-GAD's default
2-layer ReLU MLP as wide as the embeddings; both run through GADBench's loop in `training.py`.

Deviation: Pretrain-GAD probes every 20 pre-training epochs and reports the pre-training epoch
whose mean *test* AUPRC is highest; we pre-train once (stopping on the label-free loss) and
select the probe epoch on validation only, so no test label is ever used.
"""
from __future__ import annotations

import copy
import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn
from torch_geometric.nn import DeepGraphInfomax, GCNConv

from harness import Method, RunContext
from methods.graph_anomaly.baselines.mlp import FeedForward
from methods.graph_anomaly.params import DGIProbeParams
from methods.graph_anomaly.task import NodeScoringInputs
from methods.graph_anomaly.training import NodeTensors, TrainConfig, TrainResult, node_tensors, train_node_classifier

PROBES = {"linear": 1, "mlp": 2}  # probe name -> FeedForward layers


class GCNEncoder(nn.Module):
    """DGI's transductive encoder: PReLU(GCN(x))."""

    def __init__(self, in_features: int, hidden: int) -> None:
        super().__init__()
        self.conv = GCNConv(in_features, hidden, cached=True)
        self.act = nn.PReLU(hidden)

    def forward(self, x: Tensor, adj_t: Tensor) -> Tensor:
        return self.act(self.conv(x, adj_t))


def row_permutation(x: Tensor, adj_t: Tensor) -> tuple[Tensor, Tensor]:
    """DGI's corruption: the same graph with its feature rows shuffled."""
    return x[torch.randperm(x.shape[0], device=x.device)], adj_t


def mean_summary(z: Tensor, *args: object, **kwargs: object) -> Tensor:
    """DGI's readout: the sigmoid of the mean node embedding."""
    return torch.sigmoid(z.mean(dim=0))


@dataclass(frozen=True)
class PretrainConfig:
    """DGI's optimiser and stopping rule (lr 0.001, patience 20); Pretrain-GAD's cap of 1000 epochs."""

    hidden: int = 32
    lr: float = 0.001
    epochs: int = 1000
    patience: int = 20


@dataclass(frozen=True)
class PretrainResult:
    embeddings: Tensor  # float32 [N, hidden], from the lowest-loss weights, detached
    losses: list[float]  # DGI loss of each epoch run, before its step
    best_epoch: int      # 1-based epoch of the lowest loss
    seconds: float

    @property
    def epochs_run(self) -> int:
        return len(self.losses)


def pretrain_dgi(x: Tensor, adj_t: Tensor, config: PretrainConfig) -> PretrainResult:
    """Label-free DGI pre-training on the whole graph (it takes no labels by construction)."""
    start = time.perf_counter()
    model = DeepGraphInfomax(
        config.hidden, GCNEncoder(x.shape[1], config.hidden), mean_summary, row_permutation,
    ).to(x.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    losses: list[float] = []
    best_loss, best_epoch, best_state = math.inf, 0, None
    while len(losses) < config.epochs and len(losses) - best_epoch < config.patience:
        model.train()
        loss = model.loss(*model(x, adj_t))
        losses.append(loss.item())
        if losses[-1] < best_loss:
            best_loss, best_epoch, best_state = losses[-1], len(losses), copy.deepcopy(model.state_dict())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if best_state is not None:  # None only if every loss was NaN; keep the last weights then
        model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        embeddings = model.encoder(x, adj_t)
    return PretrainResult(embeddings, losses, best_epoch, time.perf_counter() - start)


def fit_probe(embeddings: Tensor, data: NodeTensors, probe: str, config: TrainConfig) -> TrainResult:
    """A fresh probe on frozen embeddings, selected on validation AUPRC by GADBench's loop."""
    width = embeddings.shape[1]  # Pretrain-GAD's probe is as wide as the encoder (`hid_dim`)
    model = FeedForward(width, width, PROBES[probe], 0.0).to(embeddings.device)
    return train_node_classifier(model, dataclasses.replace(data, x=embeddings), config)


class DGIProbeDetector(Method[DGIProbeParams]):
    """Pretrain-GAD's DGI + probe baseline, with validation-only selection (see the module docstring)."""

    def run(self, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        p = self.params
        data = node_tensors(inputs, ctx.device)
        pretrained = pretrain_dgi(data.x, data.adj_t, PretrainConfig(p.hidden, p.lr, p.epochs, p.patience))
        ctx.record("pretrain_seconds", pretrained.seconds, "s", higher_is_better=False)
        ctx.record("pretrain_epochs_run", pretrained.epochs_run, "epoch")
        ctx.record("pretrain_best_epoch", pretrained.best_epoch, "epoch")
        result = fit_probe(pretrained.embeddings, data, p.probe,
                           TrainConfig(lr=0.01, epochs=p.probe_epochs, patience=p.probe_patience))
        ctx.record("probe_best_epoch", result.best_epoch, "epoch")
        ctx.record("probe_epochs_run", result.epochs_run, "epoch")
        ctx.record("best_val_auprc", result.best_val_auprc, "%", higher_is_better=True)
        ctx.record("probe_seconds", result.seconds, "s", higher_is_better=False)
        return result.scores
