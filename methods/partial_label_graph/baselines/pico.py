"""PiCO, contrastive label disambiguation (Wang et al., "PiCO: Contrastive Label Disambiguation
for Partial Label Learning", ICLR 2022), on the family's GIN.

A query network (GIN + linear classifier + MLP projection to an L2-normalised embedding) sees
one augmented view of each graph; a momentum copy of it (the key network, MoCo's EMA) sees
another. Each step:
1. the pseudo-label of a graph is the argmax of the classifier's output over its candidates;
2. class prototypes follow the query embeddings of their pseudo-labelled graphs by a moving
   average, then are L2-normalised;
3. from `prototype_start` on, the pseudo-target s_i moves toward the one-hot of the candidate
   c maximising q_i . mu_c: s_i <- phi s_i + (1 - phi) onehot, with phi decayed linearly over
   the epochs from `confidence_ema_start` toward `confidence_ema_end`, and the contrastive loss is
   the supervised-contrastive loss over query, key and queued embeddings whose positives share
   the pseudo-label; before it, the unsupervised MoCo loss warms the embedding up;
4. loss = CE(logits, s) + contrastive_weight * contrastive, and the keys with their
   pseudo-labels enter a FIFO queue.

Defaults and their sources in github.com/hbzju/PiCO (train.py arguments, utils/utils_loss.py,
model.py, resnet.py, run.sh):
- temperature 0.07: SupConLoss(temperature=0.07, base_temperature=0.07);
- contrastive_weight 0.5: --loss_weight (and every run.sh line);
- key_momentum 0.999: --moco_m;
- prototype_momentum 0.99: --proto_m;
- confidence_ema_start 0.95, confidence_ema_end 0.8: --conf_ema_range 0.95,0.8 with
  phi = start + (end - start) * epoch / epochs (partial_loss.set_conf_ema_m);
- prototype_start 1: run.sh's CIFAR runs (--prot_start 1; the argparse default is 80 of 500);
- embedding_dim 128: --low-dim; the projection is SupConResNet's MLP head (Linear, ReLU, Linear).
- queue_size 512, scaled down from --moco_queue 8192 (CIFAR's 50,000 images): the training sets here
  hold ~500-3,000 graphs and the queue is further capped at the training set's size, so it never
  holds one graph twice from the same epoch. Unlike the official buffer (random vectors with
  labels that match nothing), our queue starts empty and only filled slots are contrasted.

The two views are graph augmentations (augment.py) instead of the weak and strong image
augmentations: the query, which the classifier also reads, gets light attribute masking; the key
draws from all four of GraphCL's augmentations ("random4"), each at ratio 0.2. Optimiser, epochs and
model selection are the family's (training.py), not PiCO's SGD with a cosine schedule, so that every
baseline trains the same GIN the same way.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from harness import RunContext
from methods.partial_label_graph.augment import augment
from methods.partial_label_graph.baselines.proden import weighted_cross_entropy
from methods.partial_label_graph.batching import GraphBatch
from methods.partial_label_graph.encoder import GINEncoder
from methods.partial_label_graph.params import PiCOParams
from methods.partial_label_graph.task import PartialLabelInputs
from methods.partial_label_graph.training import PartialLabelMethod, TrainingData, built, normalised


class PiCONetwork(nn.Module):
    """GIN encoder, linear classifier and projection head (PiCO's SupConResNet on a GIN)."""

    def __init__(self, in_features: int, num_classes: int, hidden: int, layers: int, dropout: float,
                 embedding_dim: int):
        super().__init__()
        self.encoder = GINEncoder(in_features, hidden, layers, dropout)
        self.head = nn.Linear(hidden, num_classes)
        self.projection = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, embedding_dim))

    def embed(self, batch: GraphBatch) -> tuple[Tensor, Tensor]:
        """(logits [B, C], L2-normalised embeddings [B, embedding_dim])."""
        g = self.encoder(batch)[1]
        return self.head(g), F.normalize(self.projection(g), dim=1)

    def forward(self, batch: GraphBatch) -> Tensor:
        return self.head(self.encoder(batch)[1])


class LabelledQueue:
    """The last `size` key embeddings with their pseudo-labels, oldest overwritten first (MoCo's queue)."""

    def __init__(self, size: int, dim: int, device: torch.device) -> None:
        self.size = size
        self.keys = torch.zeros(size, dim, device=device)
        self.labels = torch.full((size,), -1, dtype=torch.long, device=device)
        self.count = 0
        self._next = 0

    def contents(self) -> tuple[Tensor, Tensor]:
        """Copies of the filled slots (the first `count`, since slots fill in order before wrapping)."""
        return self.keys[:self.count].clone(), self.labels[:self.count].clone()

    def push(self, keys: Tensor, labels: Tensor) -> None:
        keys, labels = keys[-self.size:], labels[-self.size:]
        slots = (self._next + torch.arange(keys.shape[0], device=keys.device)) % self.size
        self.keys[slots], self.labels[slots] = keys.detach(), labels
        self._next = (self._next + keys.shape[0]) % self.size
        self.count = min(self.count + keys.shape[0], self.size)


def momentum_prototypes(prototypes: Tensor, embeddings: Tensor, labels: Tensor, momentum: float) -> Tensor:
    """PiCO's per-sample prototype EMA (mu_y <- m mu_y + (1 - m) q, one sample after another), in
    closed form, then L2-normalised: the k-th of a class's n samples in the batch weighs
    (1 - m) m^(n - k) and the old prototype m^n."""
    onehot = F.one_hot(labels, prototypes.shape[0]).to(embeddings.dtype)
    counts = onehot.sum(dim=0)
    rank = (torch.cumsum(onehot, dim=0) * onehot).sum(dim=1)          # 1-based rank within its class
    weight = (1 - momentum) * momentum ** (counts[labels] - rank)
    moved = prototypes * (momentum ** counts).unsqueeze(1) + (onehot * weight.unsqueeze(1)).T @ embeddings
    return F.normalize(moved, dim=1)


def pseudo_label_contrastive_loss(features: Tensor, labels: Tensor, num_anchors: int, temperature: float) -> Tensor:
    """Supervised-contrastive loss (Khosla et al., 2020) of the first `num_anchors` rows against all
    rows but themselves, positives sharing the pseudo-label (PiCO's SupConLoss with a mask; the
    temperature / base_temperature factor is 1 at PiCO's defaults)."""
    logits = features[:num_anchors] @ features.T / temperature
    logits = logits - logits.max(dim=1, keepdim=True).values.detach()
    not_self = torch.ones_like(logits)
    not_self[torch.arange(num_anchors), torch.arange(num_anchors)] = 0
    positive = (labels[:num_anchors].unsqueeze(1) == labels.unsqueeze(0)).to(logits.dtype) * not_self
    log_prob = logits - torch.log((torch.exp(logits) * not_self).sum(dim=1, keepdim=True) + 1e-12)
    return -((positive * log_prob).sum(dim=1) / positive.sum(dim=1).clamp_min(1)).mean()


def moco_loss(queries: Tensor, keys: Tensor, queue: Tensor, temperature: float) -> Tensor:
    """InfoNCE of each query against its own key, the queue as negatives (PiCO's warm-up)."""
    logits = torch.cat([(queries * keys).sum(dim=1, keepdim=True), queries @ queue.T], dim=1) / temperature
    return F.cross_entropy(logits, torch.zeros(queries.shape[0], dtype=torch.long, device=queries.device))


def masked_argmax(scores: Tensor, candidates: Tensor) -> Tensor:
    """The candidate with the highest score in each row."""
    return scores.masked_fill(candidates <= 0, float("-inf")).argmax(dim=1)


class PiCO(PartialLabelMethod[PiCOParams]):
    def build_model(self, in_features: int, num_classes: int) -> nn.Module:
        p = self.params
        return PiCONetwork(in_features, num_classes, p.hidden, p.layers, p.dropout, p.embedding_dim)

    def setup(self, model: nn.Module, data: TrainingData, inputs: PartialLabelInputs, ctx: RunContext) -> None:
        device = data.train_idx.device
        self.confidence = normalised(data.candidates)
        self.key_network = copy.deepcopy(built(model, PiCONetwork)).requires_grad_(False)
        self.prototypes = torch.zeros(data.num_classes, self.params.embedding_dim, device=device)
        self.queue = LabelledQueue(min(self.params.queue_size, data.num_train), self.params.embedding_dim, device)
        self.views = torch.Generator().manual_seed(ctx.seed + 1)   # augmentations: a stream apart from the batch order

    def confidence_ema(self, epoch: int) -> float:
        """phi at `epoch`, linear from `confidence_ema_start` (epoch 0) toward `confidence_ema_end`
        (PiCO's set_conf_ema_m)."""
        start, end = self.params.confidence_ema_start, self.params.confidence_ema_end
        return start + (end - start) * epoch / self.params.epochs

    def batch_loss(self, model: nn.Module, batch: GraphBatch, positions: Tensor, data: TrainingData,
                   epoch: int) -> Tensor:
        query_view = augment(batch, self.params.query_augmentation, self.views, self.params.augmentation_ratio)
        key_view = augment(batch, self.params.key_augmentation, self.views, self.params.augmentation_ratio)
        logits, queries = built(model, PiCONetwork).embed(query_view)
        candidates = data.candidates[positions]
        with torch.no_grad():
            pseudo_labels = masked_argmax(logits, candidates)
            prototype_scores = queries @ self.prototypes.T
            self.prototypes = momentum_prototypes(self.prototypes, queries, pseudo_labels,
                                                  self.params.prototype_momentum)
            for key_param, query_param in zip(self.key_network.parameters(), model.parameters(), strict=True):
                key_param.mul_(self.params.key_momentum).add_(query_param.detach(), alpha=1 - self.params.key_momentum)
            self.key_network.train()
            keys = self.key_network.embed(key_view)[1]
            queued_keys, queued_labels = self.queue.contents()
        if epoch >= self.params.prototype_start:
            with torch.no_grad():
                phi = self.confidence_ema(epoch)
                target = F.one_hot(masked_argmax(prototype_scores, candidates), data.num_classes)
                target = target.to(self.confidence.dtype)
                self.confidence[positions] = phi * self.confidence[positions] + (1 - phi) * target
            contrastive = pseudo_label_contrastive_loss(
                torch.cat([queries, keys, queued_keys]), torch.cat([pseudo_labels, pseudo_labels, queued_labels]),
                queries.shape[0], self.params.temperature,
            )
        else:
            contrastive = moco_loss(queries, keys, queued_keys, self.params.temperature)
        self.queue.push(keys, pseudo_labels)
        return weighted_cross_entropy(logits, self.confidence[positions]) + self.params.contrastive_weight * contrastive
