"""Random blocks at a fixed density: no estimation at all, for timing kernels at controlled densities.

The spec's GPU plan times prefill "with forced densities" because masks from random weights mean
nothing; this method is that control, and the floor any estimator's recall must beat.
"""
from __future__ import annotations


import torch

from kernels.block_layout import num_blocks
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import FixedDensityParams
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.selection import force_blocks, top_k_per_row


class FixedDensity(BlockSparseMethod[FixedDensityParams]):
    """Query block m keeps ceil(density (m + 1)) causal blocks: block 0, the diagonal, the rest at random.

    Random draws come from torch's global generator, which the harness seeds per run.
    """

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        nb = num_blocks(case.seq_len, block_size)
        scores = force_blocks(torch.rand(case.q_heads, nb, nb), sink=True, diagonal=True)
        rows = torch.arange(1, nb + 1)
        keep = torch.ceil(self.params.density * rows.double()).long().expand(case.q_heads, nb)
        return Estimate(top_k_per_row(scores, keep).to(case.q.device), 0.0)
