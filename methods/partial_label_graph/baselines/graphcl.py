"""GraphCL pre-training, then PRODEN fine-tuning (You et al., "Graph Contrastive Learning with
Augmentations", NeurIPS 2020; the "graph SSL + PLL" row group of PRISM's Table 1).

The GIN encoder is first trained without labels to tell each graph's two views apart from the other
graphs' (NT-Xent through a projection head); the whole network (encoder and a fresh linear head) is
then fine-tuned with the PRODEN partial-label loss (baselines/proden.py) by the family's loop.

Pre-training follows GraphCL's unsupervised TU setting (github.com/Shen-Lab/GraphCL,
unsupervised_TU/gsimclr.py, go.sh, README.md):
- the two views are the graph itself and one augmented copy, as gsimclr.py pairs `data` with
  `data_aug`; the copy draws node dropping or subgraph per graph ("random2", the first pool the
  README lists; the paper finds these two the generally helpful ones), ratio 0.2 (the paper's strength);
- NT-Xent with temperature 0.2 (`simclr.loss_cal`: T = 0.2, cosine similarities, each graph's
  negatives the other graphs' augmented views);
- projection head Linear(d, d), ReLU, Linear(d, d) on the graph embedding (`simclr.proj_head`);
- 20 epochs, batch 128 (gsimclr.py), Adam lr 0.01 (go.sh).
`pretrain_on` chooses the graphs pre-training sees: "all" (default) is every graph of the data
set, structure and features only, as GraphCL pre-trains on the whole data set without labels;
"train" restricts it to the training graphs. Labels and candidate sets are never read.
"""
from __future__ import annotations

import time

import torch
from torch import Tensor, nn

from harness import RunContext
from methods.partial_label_graph.augment import augment
from methods.partial_label_graph.baselines.proden import PRODEN
from methods.partial_label_graph.batching import GraphTensors
from methods.partial_label_graph.encoder import GINClassifier, GINEncoder
from methods.partial_label_graph.params import GraphCLParams
from methods.partial_label_graph.task import PartialLabelInputs
from methods.partial_label_graph.training import TrainingData, built


def nt_xent(views: Tensor, other_views: Tensor, temperature: float) -> Tensor:
    """GraphCL's NT-Xent: -log of exp(cos(z_i, z'_i) / T) over sum_{j != i} exp(cos(z_i, z'_j) / T),
    averaged over i (gsimclr.py's `loss_cal`, computed in log space)."""
    similarity = nn.functional.normalize(views, dim=1) @ nn.functional.normalize(other_views, dim=1).T / temperature
    positive = similarity.diagonal()
    self_pairs = torch.eye(similarity.shape[0], dtype=torch.bool, device=similarity.device)
    others = similarity.masked_fill(self_pairs, float("-inf"))
    return (torch.logsumexp(others, dim=1) - positive).mean()


def pretrain_encoder(
    encoder: GINEncoder, graphs: GraphTensors, graph_ids: Tensor, *, epochs: int, batch_size: int, lr: float,
    temperature: float, augmentation: str, ratio: float, generator: torch.Generator,
) -> list[float]:
    """Train `encoder` in place by NT-Xent between each graph and its augmented view; the mean loss
    of each epoch. A batch of one graph has no negatives and is skipped."""
    hidden = encoder.hidden
    projection = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden)).to(graphs.device)
    optimizer = torch.optim.Adam([*encoder.parameters(), *projection.parameters()], lr=lr)
    encoder.train()
    losses = []
    for _ in range(epochs):
        total, count = 0.0, 0
        for batch in graphs.batches(graph_ids, batch_size, generator):
            if batch.num_graphs < 2:
                continue
            view = augment(batch, augmentation, generator, ratio)
            loss = nt_xent(projection(encoder(batch)[1]), projection(encoder(view)[1]), temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, count = total + float(loss.detach()) * batch.num_graphs, count + batch.num_graphs
        losses.append(total / max(count, 1))
    return losses


class GraphCL(PRODEN[GraphCLParams]):
    def setup(self, model: nn.Module, data: TrainingData, inputs: PartialLabelInputs, ctx: RunContext) -> None:
        p = self.params
        graph_ids = (torch.arange(data.graphs.num_graphs, device=data.train_idx.device)
                     if p.pretrain_on == "all" else data.train_idx)
        start = time.perf_counter()
        losses = pretrain_encoder(
            built(model, GINClassifier).encoder, data.graphs, graph_ids, epochs=p.pretrain_epochs,
            batch_size=p.pretrain_batch_size, lr=p.pretrain_lr, temperature=p.temperature,
            augmentation=p.augmentation, ratio=p.augmentation_ratio,
            generator=torch.Generator().manual_seed(ctx.seed + 1),
        )
        ctx.record("pretrain_seconds", time.perf_counter() - start, "s", higher_is_better=False)
        ctx.record("pretrain_final_loss", losses[-1], "")
        super().setup(model, data, inputs, ctx)
