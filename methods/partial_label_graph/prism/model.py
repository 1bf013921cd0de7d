"""PRISM's network: a GIN encoder read two ways (shared/papers/prism.md, steps 1-3).

Spatial view: class prototypes attend over a graph's nodes, giving one substructure
embedding r_i^(c) per class. Spectral view: every eigenpair (lambda_p, u_p) is a band,
encoded by harmonics of lambda_p and spread over the nodes by u_p; a shared network reads
each band out and an attention over bands pools them.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import global_add_pool
from torch_geometric.utils import softmax as segment_softmax
from torch_geometric.utils import to_dense_batch

from methods.partial_label_graph.batching import GraphBatch
from methods.partial_label_graph.encoder import GINEncoder


@dataclass(frozen=True)
class Views:
    """One forward pass: each view's class logits and what relational inference compares."""

    spatial_logits: Tensor | None   # [B, C], None without the spatial view
    spectral_logits: Tensor | None  # [B, C], None without the spectral view
    graph_embeddings: Tensor        # g_i [B, d], l2-normalised
    substructures: Tensor | None    # r_i^(c) [B, C, d], None without substructures or the spatial view
    bands: Tensor | None            # z_i^(p) [B, T, d], None without the spectral view
    band_valid: Tensor              # bool [B, T]


def classifier_head(hidden: int, num_classes: int, layers: int) -> nn.Module:
    """MLP_spa / MLP_spe: `layers` linear maps with ReLU between (1 = a linear head)."""
    blocks: list[nn.Module] = []
    for _ in range(layers - 1):
        blocks += [nn.Linear(hidden, hidden), nn.ReLU()]
    return nn.Sequential(*blocks, nn.Linear(hidden, num_classes))


class SpectralView(nn.Module):
    """rho(lambda) = [sin(k lambda), cos(k lambda)]_{k=1..K} W_rho; X^(p) = u_p (x) rho(lambda_p);
    z^(p) = READOUT(f_shared(X^(p))); attention over the bands pools them.

    [inferred] f_shared reads each node's GIN state beside its band encoding (`node_states`):
    with the encoding alone the view would ignore node features, and Table 2's "w/o Spa" (this
    view alone) could not land within three points of the full model. f_shared is a two-layer
    MLP, W2 relu(W_h h_v + X^(p)_v + b1) + b2, its input layer's band block folded into
    W_rho; since the sum readout is linear, W2 is applied after it (b2 added once per graph),
    so no [n, T, d] matrix product is formed.
    """

    orders: Tensor  # a buffer, registered in __init__

    def __init__(self, hidden: int, harmonics: int, num_classes: int, head_layers: int,
                 node_states: bool = True) -> None:
        super().__init__()
        self.register_buffer("orders", torch.arange(1, harmonics + 1, dtype=torch.float32))
        self.rho = nn.Linear(2 * harmonics, hidden, bias=False)
        # node_states=False: f_shared sees the band encoding alone, W2 relu(X^(p)_v + b1) + b2
        self.state_in = nn.Linear(hidden, hidden) if node_states else None
        self.band_bias = None if node_states else nn.Parameter(torch.zeros(hidden))
        self.shared_out = nn.Linear(hidden, hidden)
        self.score = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1, bias=False))
        self.head = classifier_head(hidden, num_classes, head_layers)

    def forward(self, h: Tensor, batch: GraphBatch, eigvals: Tensor, eigvecs: Tensor,
                valid: Tensor) -> tuple[Tensor, Tensor]:
        """(logits [B, C], band embeddings z^(p) [B, T, d]); eigvals/valid [B, T], eigvecs [n, T]."""
        angles = eigvals.unsqueeze(2) * self.orders                                  # [B, T, K]
        rho = self.rho(torch.cat([angles.sin(), angles.cos()], dim=2))              # [B, T, d]
        base = self.state_in(h).unsqueeze(1) if self.state_in is not None else self.band_bias
        hidden = torch.relu(base + eigvecs.unsqueeze(2) * rho[batch.batch])                      # [n, T, d]
        pooled_hidden = global_add_pool(hidden.flatten(1), batch.batch, size=batch.num_graphs).view_as(rho)
        bands = self.shared_out(pooled_hidden)
        attention = self.score(bands).squeeze(2).masked_fill(~valid, float("-inf")).softmax(dim=1)
        return self.head((attention.unsqueeze(2) * bands).sum(dim=1)), bands


class PRISMNet(nn.Module):
    prototypes: Tensor  # a buffer, registered in __init__

    def __init__(
        self, in_features: int, num_classes: int, hidden: int, layers: int, dropout: float, harmonics: int,
        head_layers: int, attention_temperature: float, spatial: bool, spectral: bool, substructure: bool, *,
        spatial_input: str = "graph+substructures", spectral_node_states: bool = True,
        prototype_filter: str = "argmax",
    ) -> None:
        super().__init__()
        self.encoder = GINEncoder(in_features, hidden, layers, dropout)
        self.spatial_head = classifier_head(hidden, num_classes, head_layers) if spatial else None
        self.spectral = (SpectralView(hidden, harmonics, num_classes, head_layers, spectral_node_states)
                         if spectral else None)
        self.register_buffer("prototypes", torch.zeros(num_classes, hidden))
        self.temperature = attention_temperature
        self.substructure = substructure and spatial
        self.spatial_input, self.prototype_filter = spatial_input, prototype_filter

    def forward(self, batch: GraphBatch, eigvals: Tensor, eigvecs: Tensor, valid: Tensor) -> Views:
        h, g = self.encoder(batch)
        unit_g = F.normalize(g, dim=1)
        prototypes = self.prototypes.clone()  # the step's prototype update must not touch the autograd graph
        spatial_logits = substructures = None
        if self.spatial_head is not None:
            z_spa = g
            if self.substructure:
                substructures = self.substructures(h, batch, prototypes)
                # [inferred] z^spa = g_i + sum_c pi_ic r_i^(c) (`spatial_input`, or the sum alone), pi =
                # softmax over classes of cos(g_i, p_c)/tau: defined alike for unlabelled graphs, where Q_i is unknown
                pi = (unit_g @ prototypes.T / self.temperature).softmax(dim=1)
                mixed = (pi.unsqueeze(2) * substructures).sum(dim=1)
                z_spa = g + mixed if self.spatial_input == "graph+substructures" else mixed
            spatial_logits = self.spatial_head(z_spa)
        spectral_logits = bands = None
        if self.spectral is not None:
            spectral_logits, bands = self.spectral(h, batch, eigvals, eigvecs, valid)
        return Views(spatial_logits, spectral_logits, unit_g, substructures, bands, valid)

    def substructures(self, h: Tensor, batch: GraphBatch, prototypes: Tensor) -> Tensor:
        """r_i^(c) = sum_v alpha_vc h_v, alpha_vc = softmax over v in G_i of cos(h_v, p_c) / tau [B, C, d].

        [inferred] cosine with a temperature rather than the raw dot product h_v . p_c: the
        prototypes average l2-normalised graph embeddings, while node states are unnormalised.
        """
        affinity = F.normalize(h, dim=1) @ prototypes.T / self.temperature         # [n, C]
        alpha = segment_softmax(affinity, batch.batch, num_nodes=h.shape[0])      # per graph, per class
        # one [C, n_i] x [n_i, d] product per graph, padded to a batched matmul: forming
        # alpha_vc h_v as an [n, C, d] tensor is what made COIL-DEL (100 classes) slow
        dense_h, _ = to_dense_batch(h, batch.batch, batch_size=batch.num_graphs)
        dense_alpha, _ = to_dense_batch(alpha, batch.batch, batch_size=batch.num_graphs)
        return torch.bmm(dense_alpha.transpose(1, 2), dense_h)

    @torch.no_grad()
    def update_prototypes(self, embeddings: Tensor, confidence: Tensor, candidates: Tensor, momentum: float) -> None:
        """p_c <- m p_c + (1 - m) mean of g_i over the batch graphs with c in S_i and argmax Q_i = c.

        The argmax filter is our reading of the paper's unspecified "confidence-based
        filtering" [inferred]; `prototype_filter="candidates"` drops it (every graph with c in
        S_i counts, the spec's unfiltered formula). A class no batch graph passes for keeps
        its prototype.
        """
        chosen = candidates.float()                                                             # [B, C]
        if self.prototype_filter == "argmax":
            chosen = chosen * F.one_hot(confidence.argmax(dim=1), confidence.shape[1]).float()
        counts = chosen.sum(dim=0)
        means = chosen.T @ embeddings / counts.clamp_min(1).unsqueeze(1)
        present = counts > 0
        self.prototypes[present] = momentum * self.prototypes[present] + (1 - momentum) * means[present]
