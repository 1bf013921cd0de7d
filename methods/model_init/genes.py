"""MASA's gene matrices and their SVD reshaping [inferred from the abstract and a secondary summary].

Gene matrices: per group of consecutive source layers, one low-rank matrix G = A B per FFN projection (gate,
up, down), initialised by the truncated SVD of the group's mean weight and learned by minimising

    output_weight * mean_l ||FFN_G(X_l) - FFN_W_l(X_l)||^2 / ||FFN_W_l(X_l)||^2
      + lambda * mean_{l, p} [ ||sigma(G_p) - sigma_r(W_lp)||^2 / ||sigma_r(W_lp)||^2
                               + (1 - ||U_k(W)' U_k(G)||_F^2 / k) + (1 - ||V_k(W)' V_k(G)||_F^2 / k) ]

on calibration activations X_l (the FFN inputs of training lines), stopping early at an exact fit. G's SVD is
taken through QR of its factors and the SVD of the r x r core, which keeps the gradients finite where G has zero
singular values.

Reshaping: G = U S V' is cut to the student's rank r_t = min(r, out_t, in_t); the singular vectors keep the
student's rows (truncation: the chosen channels and neurons) or gain zero rows (expansion), and are made
orthonormal again (QR, signs kept), so W_t = U_t S_t V_t' has exactly G's top r_t singular values."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

EXACT = 1e-10  # a gene loss this small is an exact fit: Adam's normalised steps would only add round-off noise


@dataclass(frozen=True)
class FFN:
    """SwiGLU weights: gate, up (ffn x hidden), down (hidden x ffn)."""

    gate: torch.Tensor
    up: torch.Tensor
    down: torch.Tensor

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (torch.nn.functional.silu(x @ self.gate.T) * (x @ self.up.T)) @ self.down.T

    def matrices(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.gate, self.up, self.down


def ffn_of(block: Any) -> FFN:
    mlp = block.mlp
    return FFN(mlp.gate_proj.weight.detach(), mlp.up_proj.weight.detach(), mlp.down_proj.weight.detach())


def groups(layers: int, genes: int) -> list[list[int]]:
    """Consecutive source layers per gene group (at most `layers` groups)."""
    genes = min(genes, layers)
    return [list(range(g * layers // genes, (g + 1) * layers // genes)) for g in range(genes)]


def group_of(layer: int, layers: int, genes: int) -> int:
    """The gene group student layer `layer` of `layers` takes."""
    return layer * genes // layers


def group_layers(source_layers: int, student_layers: int, genes: int) -> tuple[list[list[int]], list[int]]:
    """The source layers of each gene group, and the group each student layer takes."""
    members = groups(source_layers, genes)
    return members, [group_of(j, student_layers, len(members)) for j in range(student_layers)]


def svd_of_factors(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """U (m x r), S (r), V (n x r) of A B through QR of both factors and the SVD of the r x r core."""
    qa, ra = torch.linalg.qr(a)
    qb, rb = torch.linalg.qr(b.T)
    uc, s, vch = torch.linalg.svd(ra @ rb.T)
    return qa @ uc, s, qb @ vch.T


def spectral_term(a: torch.Tensor, b: torch.Tensor, target: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
                  k: int) -> torch.Tensor:
    """The spectrum's relative squared error plus the top-k left and right subspace misalignments (each 0..1)."""
    u, s, v = svd_of_factors(a, b)
    tu, ts, tv = target
    r = min(len(s), len(ts))
    spectrum = ((s[:r] - ts[:r]) ** 2).sum() / (ts[:r] ** 2).sum()
    k = min(k, r)
    left = 1 - (tu[:, :k].T @ u[:, :k]).pow(2).sum() / k
    right = 1 - (tv[:, :k].T @ v[:, :k]).pow(2).sum() / k
    return spectrum + left + right


def _truncated(w: torch.Tensor, rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    u, s, vh = torch.linalg.svd(w, full_matrices=False)
    root = s[:rank].sqrt()
    return u[:, :rank] * root, root[:, None] * vh[:rank]


def learn_genes(sources: Sequence[FFN], inputs: Sequence[torch.Tensor], genes: int, rank: int,
                output_weight: float, spectral_weight: float, subspace_rank: int, steps: int, lr: float
                ) -> list[FFN]:
    """One gene FFN per group of `sources` (layer FFNs with their calibration inputs), learned by Adam."""
    found = []
    for members in groups(len(sources), genes):
        layers = [sources[i] for i in members]
        targets = [[torch.linalg.svd(w, full_matrices=False) for w in f.matrices()] for f in layers]
        targets_t = [[(u, s, vh.T) for u, s, vh in t] for t in targets]
        factors = [_truncated(torch.stack(ws).mean(0), min(rank, *ws[0].shape))
                   for ws in zip(*(f.matrices() for f in layers), strict=True)]
        params = [torch.nn.Parameter(t.clone()) for pair in factors for t in pair]
        outputs = [(f(inputs[i]), inputs[i]) for f, i in zip(layers, members, strict=True)]
        optimizer = torch.optim.Adam(params, lr=lr)
        for _ in range(steps):
            gene = FFN(*(params[2 * p] @ params[2 * p + 1] for p in range(3)))
            loss = torch.zeros(())
            if output_weight > 0:
                loss = loss + output_weight * sum(((gene(x) - y) ** 2).sum() / (y ** 2).sum()
                                                  for y, x in outputs) / len(outputs)
            if spectral_weight > 0:
                loss = loss + spectral_weight * sum(
                    spectral_term(params[2 * p], params[2 * p + 1], t[p], subspace_rank)
                    for t in targets_t for p in range(3)) / (3 * len(targets_t))
            if float(loss.detach()) < EXACT:
                break
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            found.append(FFN(*(params[2 * p] @ params[2 * p + 1] for p in range(3))))
    return found


def orthonormal(vectors: torch.Tensor) -> torch.Tensor:
    """Q of the QR of `vectors` (n x r, n >= r) with signs making diag(R) positive: orthonormal vectors equal
    their input."""
    q, r = torch.linalg.qr(vectors)
    signs = torch.sign(torch.diagonal(r))
    return q * torch.where(signs == 0, torch.ones_like(signs), signs)


def resize_rows(vectors: torch.Tensor, rows: torch.Tensor | int) -> torch.Tensor:
    """Singular vectors (n x r) cut to the given row indices (truncation) or padded with zero rows to `rows`
    (expansion), then orthonormalised."""
    if isinstance(rows, int):
        if rows < vectors.shape[0]:
            raise ValueError(f"expanding to {rows} rows needs at least the {vectors.shape[0]} it has")
        picked = torch.cat([vectors, vectors.new_zeros(rows - vectors.shape[0], vectors.shape[1])])
    else:
        picked = vectors[rows]
    return orthonormal(picked)


def reshape_matrix(g: torch.Tensor, rows: torch.Tensor | int, cols: torch.Tensor | int, rank: int) -> torch.Tensor:
    """G reshaped by SVD to the student's rows and columns (indices kept, or a larger size), rank <= `rank`."""
    u, s, vh = torch.linalg.svd(g, full_matrices=False)
    out = len(rows) if isinstance(rows, torch.Tensor) else rows
    inn = len(cols) if isinstance(cols, torch.Tensor) else cols
    r = min(rank, out, inn, len(s))
    return resize_rows(u[:, :r], rows) @ torch.diag(s[:r]) @ resize_rows(vh[:r].T, cols).T


def neuron_leverage(gene: FFN, rank: int) -> torch.Tensor:
    """Each FFN neuron's energy in the gene's top-`rank` singular directions (gate and up rows, down columns)."""
    total = torch.zeros(gene.gate.shape[0])
    for w in (gene.gate, gene.up, gene.down.T):
        u, s, _ = torch.linalg.svd(w, full_matrices=False)
        total += ((u[:, :rank] * s[:rank]) ** 2).sum(dim=1)
    return total


def reshape_ffn(gene: FFN, channels: torch.Tensor | int, neurons: torch.Tensor | int, rank: int) -> FFN:
    """The gene as a student FFN: hidden `channels` and FFN `neurons` kept (indices) or grown to a size."""
    return FFN(reshape_matrix(gene.gate, neurons, channels, rank), reshape_matrix(gene.up, neurons, channels, rank),
               reshape_matrix(gene.down, channels, neurons, rank))
