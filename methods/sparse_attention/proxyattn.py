"""ProxyAttn (Wang et al., ICLR 2026, arXiv 2509.24745): block masks from pooled proxy heads, per-head budgets.

Spec: shared/papers/proxyattn.md ("Algorithm"); the paper's text and code were not read there, so
the spec's inferred points are parameters here, their defaults the spec's:
1. proxy scores: per group of KV heads (GQA groups never split), Q and K pooled over the group's
   heads and sampled every `stride` tokens; A = tile reduction of the row softmax (`kernels.proxy_scores`);
2. budget (Algorithm 1): head h's exact attention of its last block of queries, summed per key block;
   b_h = (fewest blocks covering `gamma` of it) / nb. We sum the mass per block where the notes say
   "avg-pool": the two rank alike and differ only in how a ragged last block weighs;
3. mask: query block m keeps its top K_m blocks by A, K_m = clip(ceil(b_h nb), min blocks, m + 1)
   (`row_budget_rule: literal`; `proportional`: ceil(b_h (m + 1))), block 0 and the diagonal forced.
`budget: static` gives every head the mean of the dynamic budgets (Fig. 5c's ablation); as rows clip
budgets differently, the two compare at matched density along a gamma sweep (`at_matched` claims).
Below max(2B, min_budget) tokens it falls back to dense, as FlexPrefill does.
"""
from __future__ import annotations

import math

import torch

from kernels.block_layout import causal_block_mask, num_blocks
from kernels.proxy_scores import proxy_block_scores, proxy_estimation_flops
from methods.sparse_attention.last_queries import block_sums, last_query_scores
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import ProxyAttnParams
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.selection import cover_count, force_blocks, top_k_per_row

class ProxyAttn(BlockSparseMethod[ProxyAttnParams]):
    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        p = self.params
        n, nb = case.seq_len, num_blocks(case.seq_len, block_size)
        if n <= max(2 * block_size, p.min_budget):
            return Estimate(causal_block_mask(case.q_heads, n, block_size, case.q.device), 0.0,
                            f"dense: N={n} <= max(2B, min_budget) = {max(2 * block_size, p.min_budget)}")
        if case.kv_heads % p.groups:
            raise ValueError(f"groups={p.groups} does not divide the {case.kv_heads} KV heads")
        if block_size % p.stride:
            raise ValueError(f"stride {p.stride} does not divide the block size {block_size}")
        scores = self._proxy_scores(case, block_size)  # [g, nb, nb]
        per_head = scores.repeat_interleave(case.q_heads // p.groups, dim=0)
        if p.force_sink_diag:
            per_head = force_blocks(per_head, sink=True, diagonal=True)
        mask = top_k_per_row(per_head, self._row_budgets(case, block_size, nb))
        flops = proxy_estimation_flops(n, p.stride, p.groups, case.head_dim) + self._budget_flops(case, block_size)
        return Estimate(mask, flops)

    def _proxy_scores(self, case: AttentionCase, block_size: int) -> torch.Tensor:
        p = self.params
        q = case.q[:, ::p.stride].float()
        k = case.k[:, ::p.stride].float()
        q_pooled = q.reshape(p.groups, case.q_heads // p.groups, *q.shape[1:]).mean(1)
        k_pooled = k.reshape(p.groups, case.kv_heads // p.groups, *k.shape[1:]).mean(1)
        return proxy_block_scores(q_pooled, k_pooled, case.seq_len, block_size, p.stride,
                                  1.0 / math.sqrt(case.head_dim), p.tile_reduce)

    def head_budgets(self, case: AttentionCase, block_size: int) -> torch.Tensor:
        """b_h of Algorithm 1: the share of key blocks that covers gamma of head h's last-block attention."""
        n_last = min(block_size, case.seq_len)
        columns, _, _ = last_query_scores(case, n_last, diagonals=False)  # [Hq, N]: rows summed
        per_block = block_sums(columns / n_last, block_size)
        return cover_count(per_block, self.params.gamma).double() / num_blocks(case.seq_len, block_size)

    def _row_budgets(self, case: AttentionCase, block_size: int, nb: int) -> torch.Tensor:
        """K[h, m], the number of blocks query block m of head h keeps."""
        budgets = self.head_budgets(case, block_size)
        if self.params.budget == "static":
            budgets = budgets.mean().expand_as(budgets)
        rows = torch.arange(1, nb + 1, device=budgets.device, dtype=torch.float64)
        if self.params.row_budget_rule == "literal":
            k = torch.ceil(budgets[:, None] * nb).expand(-1, nb)
        else:
            k = torch.ceil(budgets[:, None] * rows[None, :])
        min_blocks = math.ceil(self.params.min_budget / block_size)
        return torch.minimum(k.clamp(min=min_blocks), rows[None, :]).long()

    def _budget_flops(self, case: AttentionCase, block_size: int) -> float:
        """QK^T of each head's last query block against every key (2 FLOPs per multiply-add)."""
        return 2.0 * case.q_heads * min(block_size, case.seq_len) * case.seq_len * case.head_dim
