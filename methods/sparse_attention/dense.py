"""Dense causal attention (SDPA): the reference every sparse method is measured against."""
from __future__ import annotations

import torch

from harness import MethodParams
from kernels.block_layout import BlockLayout, causal_block_mask
from kernels.block_sparse_attention import dense_causal_attention
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.problem import AttentionCase


class DenseAttention(BlockSparseMethod[MethodParams]):
    """Every causal block, computed by torch's scaled_dot_product_attention (FlashAttention on a GPU)."""

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        return Estimate(causal_block_mask(case.q_heads, case.seq_len, block_size, case.q.device), 0.0)

    def attend(self, case: AttentionCase, layout: BlockLayout) -> torch.Tensor:
        return dense_causal_attention(case.q, case.k, case.v)
