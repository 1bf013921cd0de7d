"""The training loop every method of the family shares.

Minibatch Adam over the training graphs; after every epoch the model scores every graph
in eval mode and the epoch with the best validation accuracy (true labels of the
validation graphs, never test) is kept. Every method records two learning curves per epoch: its mean
training loss over the epoch's minibatches (`train_loss`, each method's own loss, so not comparable across
methods) and its validation accuracy (`val_accuracy`, %). A method subclasses `PartialLabelMethod` and
writes its loss; methods with state (confidences, prototypes, a pre-trained encoder)
override the hooks.
"""
from __future__ import annotations

import math
import time
from abc import abstractmethod
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch
from torch import Tensor, nn

from harness import Method, RunContext
from methods.partial_label_graph.batching import GraphBatch, GraphTensors
from methods.partial_label_graph.encoder import GINClassifier
from methods.partial_label_graph.params import GINParams
from methods.partial_label_graph.task import PartialLabelInputs


@dataclass(frozen=True)
class TrainingData:
    """A `PartialLabelInputs` as tensors; positions index the training graphs 0 .. n_train - 1."""

    graphs: GraphTensors
    train_idx: Tensor    # int64 [n_train] graph ids
    candidates: Tensor   # float32 [n_train, C], 1 on candidate labels
    val_idx: Tensor
    val_y: Tensor
    num_classes: int

    @property
    def num_train(self) -> int:
        return int(self.train_idx.numel())

    def train_batches(self, batch_size: int, generator: torch.Generator) -> list[tuple[GraphBatch, Tensor]]:
        """Shuffled minibatches of training graphs, each with its graphs' positions."""
        order = torch.randperm(self.num_train, generator=generator).to(self.train_idx.device)
        return [(self.graphs.batch(self.train_idx[p]), p) for p in torch.split(order, batch_size)]


def training_data(inputs: PartialLabelInputs, device: str | torch.device) -> TrainingData:
    def tensor(array: np.ndarray) -> Tensor:
        return torch.as_tensor(array, device=device)

    return TrainingData(
        graphs=GraphTensors(inputs.graphs, device),
        train_idx=tensor(inputs.train_idx).long(),
        candidates=tensor(inputs.train_candidates).float(),
        val_idx=tensor(inputs.val_idx).long(),
        val_y=tensor(inputs.val_y).long(),
        num_classes=inputs.num_classes,
    )


def normalised(mask: Tensor) -> Tensor:
    """Each row divided by its sum: the uniform distribution over a candidate mask."""
    return mask / mask.sum(dim=1, keepdim=True).clamp_min(1e-12)


GP = TypeVar("GP", bound=GINParams)
Net = TypeVar("Net", bound=nn.Module)


def built(model: nn.Module, kind: type[Net]) -> Net:
    """`model` as the `kind` its method's `build_model` makes: the shared loop hands it on as a plain module."""
    if not isinstance(model, kind):
        raise TypeError(f"expected the {kind.__name__} that build_model makes, got {type(model).__name__}")
    return model


class PartialLabelMethod(Method[GP]):
    """A GIN classifier trained from candidate sets; subclasses define `batch_loss`.

    Defaults sit in PRISM's suggested grid (shared/papers/prism.md): GIN, 3 layers, hidden
    64, Adam lr 0.01, batch 64; 100 epochs.
    """

    def build_model(self, in_features: int, num_classes: int) -> nn.Module:
        """A fresh model; the default maps a `GraphBatch` to logits [B, C]."""
        return GINClassifier(in_features, num_classes, self.params.hidden, self.params.layers, self.params.dropout)

    def setup(self, model: nn.Module, data: TrainingData, inputs: PartialLabelInputs, ctx: RunContext) -> None:
        """Before the first epoch: initialise state, pre-train. Default: nothing."""

    @abstractmethod
    def batch_loss(self, model: nn.Module, batch: GraphBatch, positions: Tensor, data: TrainingData,
                   epoch: int) -> Tensor:
        """The loss of one minibatch; `positions` index `data.candidates` (epoch counts from 0)."""

    def end_epoch(self, model: nn.Module, data: TrainingData, epoch: int) -> None:
        """After each epoch's steps (e.g. an epoch-level confidence update). Default: nothing."""

    def logits(self, model: nn.Module, batch: GraphBatch) -> Tensor:
        """Class logits [B, C] at evaluation."""
        return model(batch)

    def run(self, inputs: PartialLabelInputs, ctx: RunContext) -> np.ndarray:
        torch.manual_seed(ctx.seed)
        generator = torch.Generator().manual_seed(ctx.seed)
        data = training_data(inputs, ctx.device)
        model = self.build_model(inputs.graphs.num_features, data.num_classes).to(ctx.device)
        self.setup(model, data, inputs, ctx)
        optimizer = torch.optim.Adam(model.parameters(), lr=self.params.lr, weight_decay=self.params.weight_decay)
        every_graph = torch.arange(data.graphs.num_graphs, device=data.train_idx.device)
        best_accuracy, best_epoch, best_scores = -math.inf, 0, None
        epoch_losses: list[float] = []
        val_accuracies: list[float] = []
        start = time.perf_counter()
        for epoch in range(self.params.epochs):
            model.train()
            batch_losses = []
            for batch, positions in data.train_batches(self.params.batch_size, generator):
                loss = self.batch_loss(model, batch, positions, data, epoch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                batch_losses.append(float(loss))
            self.end_epoch(model, data, epoch)
            val_scores = self.class_scores(model, data, data.val_idx)
            accuracy = 100.0 * float((val_scores.argmax(1) == data.val_y).float().mean())
            epoch_losses.append(sum(batch_losses) / len(batch_losses))
            val_accuracies.append(accuracy)
            if accuracy > best_accuracy:  # every graph is scored only when validation improves
                best_accuracy, best_epoch = accuracy, epoch + 1
                best_scores = self.class_scores(model, data, every_graph)
        seconds = time.perf_counter() - start
        if best_scores is None:
            raise ValueError(f"no epoch was trained (epochs={self.params.epochs})")
        epochs = range(1, self.params.epochs + 1)
        ctx.record_curve("train_loss", epochs, epoch_losses, higher_is_better=False)
        ctx.record_curve("val_accuracy", epochs, val_accuracies, "%", higher_is_better=True)
        ctx.record("best_epoch", best_epoch, "epoch")
        ctx.record("best_val_accuracy", best_accuracy, "%", higher_is_better=True)
        ctx.record("train_seconds", seconds, "s", higher_is_better=False)
        ctx.record("epoch_seconds", seconds / self.params.epochs, "s", higher_is_better=False)
        return best_scores.cpu().numpy().astype(np.float64)

    @torch.no_grad()
    def class_scores(self, model: nn.Module, data: TrainingData, graph_ids: Tensor) -> Tensor:
        """Softmax class probabilities [len(graph_ids), C] in eval mode."""
        model.eval()
        parts = [torch.softmax(self.logits(model, b), dim=1) for b in data.graphs.batches(graph_ids, 512)]
        return torch.cat(parts)
