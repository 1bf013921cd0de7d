"""How faithful a block mask is to exact attention: density, attention-mass recall, output error.

Definitions (shared/papers/proxyattn.md, "Small-scale reproduction plan"):
- density: the fraction of the N(N+1)/2 causal (query, key) pairs that the mask computes (a
  diagonal block counts its causal half), so it is what compute scales with, ragged blocks included;
- block density: the fraction of the nb(nb+1)/2 causal blocks the mask keeps (a diagonal block counts
  whole), the count a block-sparse kernel schedules; with the diagonal kept it reads up to 1/nb above density.
  Neither is FlexPrefill's `computational_ratio` (kept blocks over all nb^2, so dense reads ~0.5);
- recall of a query row: the exact softmax mass that falls in the row's selected key blocks;
- output relative error: ||O_sparse - O_dense||_F / ||O_dense||_F over all heads, where O_sparse is
  the family's one block-sparse backend (the CPU reference, so scores do not depend on the GPU).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch

from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention import block_sparse_attention
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.true_attention import query_block_attention


@dataclass(frozen=True)
class CaseFidelity:
    density: float
    row_recall: np.ndarray  # float64 [Hq * N], every (head, query row)
    output_rel_error: float


def causal_pair_density(mask: torch.Tensor, seq_len: int, block_size: int) -> float:
    """Computed causal pairs over all N(N+1)/2 causal pairs, averaged over heads."""
    sizes = torch.full((mask.shape[1],), block_size, dtype=torch.float64)
    sizes[-1] = seq_len - block_size * (mask.shape[1] - 1)
    pairs = sizes[:, None] * sizes[None, :]
    pairs.diagonal().copy_(sizes * (sizes + 1) / 2)
    computed = (mask.double().cpu() * pairs).sum(dim=(1, 2)).mean()
    return float(computed / (seq_len * (seq_len + 1) / 2))


def causal_block_density(mask: torch.Tensor) -> float:
    """Kept blocks over the nb(nb+1)/2 causal blocks, averaged over heads."""
    nb = mask.shape[1]
    return float(mask.double().sum(dim=(1, 2)).mean().cpu() / (nb * (nb + 1) / 2))


def case_fidelity(case: AttentionCase, mask: torch.Tensor, block_size: int) -> CaseFidelity:
    layout = BlockLayout.from_mask(mask, case.seq_len, block_size)
    sparse = block_sparse_attention(case.q, case.k, case.v, layout, backend="reference").float()
    recalls, error, norm = [], 0.0, 0.0
    for block in query_block_attention(case, block_size):
        selected = mask[:, block.index, :].to(block.block_mass.dtype)
        recalls.append((block.block_mass * selected[:, None, :]).sum(-1))
        rows = slice(block.index * block_size, block.index * block_size + block.output.shape[1])
        error += float((sparse[:, rows] - block.output).pow(2).sum())
        norm += float(block.output.pow(2).sum())
    recall = torch.cat(recalls, dim=1).reshape(-1).double().numpy()
    return CaseFidelity(causal_pair_density(mask, case.seq_len, block_size), recall,
                        float(np.sqrt(error / norm)) if norm > 0 else 0.0)


class FidelityEvaluation:
    """Per-case fidelity, pooled the way the metrics report it: means over cases, quantiles over all rows.

    Exact attention is computed on first use only, so density alone (a GPU speed suite at 128K)
    costs nothing beyond the masks.
    """

    def __init__(self, cases: Sequence[AttentionCase], masks: Sequence[torch.Tensor], block_size: int) -> None:
        if len(cases) != len(masks):
            raise ValueError(f"{len(masks)} masks for {len(cases)} cases")
        self._cases, self._masks, self._block_size = tuple(cases), tuple(masks), block_size

    @cached_property
    def cases(self) -> tuple[CaseFidelity, ...]:
        return tuple(case_fidelity(c, m, self._block_size) for c, m in zip(self._cases, self._masks, strict=True))

    @cached_property
    def rows(self) -> np.ndarray:
        return np.concatenate([c.row_recall for c in self.cases])

    def density(self) -> float:
        return float(np.mean([causal_pair_density(m, c.seq_len, self._block_size)
                              for c, m in zip(self._cases, self._masks, strict=True)]))

    def block_density(self) -> float:
        return float(np.mean([causal_block_density(m) for m in self._masks]))

    def recall_mean(self) -> float:
        return float(self.rows.mean())

    def recall_quantile(self, q: float) -> float:
        return float(np.quantile(self.rows, q))

    def output_rel_error(self) -> float:
        return float(np.mean([c.output_rel_error for c in self.cases]))
