"""FlexPrefill, Lai et al., ICLR 2025: context-aware sparse attention for long-sequence prefill.

Per head, from the causal attention of the last B queries (`get_active_blocks` of bytedance/FlexPrefill
`flex_prefill/ops/flex_prefill_attention.py`, commit a24b27b, mirrored here):
1. vertical = column means of those rows, slash = diagonal means (by query-key distance);
2. the sqrt-JS distance between softmax(mean last query . block-mean K) and the block sums of the
   vertical scores; below tau the head is query-aware, otherwise vertical-slash (VS);
3. VS heads: the vertical and slash token counts covering gamma (`score_cover_topk`), turned into block
   counts (count // B + 1) and clamped to [min_budget, max_budget] blocks, pick the top key blocks by
   pooled vertical score and the top block diagonals by pooled slash score;
4. query-aware heads take min_budget blocks of each, plus the block pairs of softmax(block-mean Q .
   block-mean K) (causal, per row) that, sorted over the whole head, cover gamma * nb (`score_cover_idx`):
   the cover is global, so a confident row can crowd out another row's best block.
Every row keeps key block 0 and its diagonal block: the reference scores them inf, so they take
one of the counted slots (with a one-block budget, block 0 is the only vertical block).

Defaults: gamma 0.95, tau 0.1, min_budget 1024 tokens as in `experiments/scripts/flex_prefill/ruler.sh`
(Llama-3.1-8B and GLM-4); the README's example uses gamma 0.9 and min_budget 512. max_budget None
(no cap). N <= max(2B, ceil(min_budget / B) * B) falls back to dense causal attention, as
`flex_prefill_attention` does.

Choices where the reference is silent or specific to its setting:
- token counts become block counts with `// B`; the reference divides by a literal 128, its block size;
- slash scores are pooled by distance, block offset = distance // B; this equals the reference's pooling
  when B divides N, and when it does not the reference's offsets are shifted by the padding, -N mod B;
- the query-aware cover never keeps blocks above the diagonal: their probability is 0, so they sort
  last and the reference reaches them only at gamma = 1 through rounding; they would break the
  causal-mask contract;
- 0 * log 0 is taken as 0 in the JS distance;
- min_budget = 0 still keeps one block of each kind (the forced ones), as the reference's padding
  with index 0 does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from kernels.block_layout import causal_block_mask, num_blocks
from methods.sparse_attention.last_queries import block_means, block_sums, last_query_scores
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import FlexPrefillParams
from methods.sparse_attention.problem import AttentionCase


def score_cover_topk(scores: torch.Tensor, gamma: float) -> torch.Tensor:
    """`score_cover_topk`: 1 + how many of the largest scores (per row) sum to at most gamma."""
    cumulative = scores.sort(dim=-1, descending=True).values.cumsum(-1)
    return (cumulative <= gamma).sum(-1) + 1


def sqrt_js_distance(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """sqrt of the Jensen-Shannon divergence (natural log) between distributions on the last axis."""
    m = ((p + q) / 2).clamp_min(torch.finfo(p.dtype).tiny)   # where m underflows to 0, p = q = 0 too
    return torch.sqrt(0.5 * torch.xlogy(p, p / m).sum(-1) + 0.5 * torch.xlogy(q, q / m).sum(-1))


def top_blocks(scores: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """bool [H, nb]: each row's `counts[h]` highest-scoring entries."""
    order = scores.argsort(dim=-1, descending=True)
    keep = torch.arange(scores.shape[-1], device=scores.device)[None, :] < counts[:, None]
    return torch.zeros_like(keep).scatter_(1, order, keep)


@dataclass(frozen=True)
class HeadStatistics:
    """What FlexPrefill reads off the last queries, per query head (fp32)."""

    vertical: torch.Tensor     # [Hq, N] column means of the last queries' attention
    slash: torch.Tensor        # [Hq, N] diagonal means, entry t = query-key distance t
    block_keys: torch.Tensor   # [Hq, nb, d] block-mean keys of each head's KV head
    distance: torch.Tensor     # [Hq] sqrt-JS: block-mean estimate against pooled vertical scores
    query_aware: torch.Tensor  # bool [Hq]: distance < tau


class FlexPrefill(BlockSparseMethod[FlexPrefillParams]):
    """FlexPrefill's per-head choice between a query-aware block pattern and a vertical-slash one."""

    def head_statistics(self, case: AttentionCase, block_size: int) -> HeadStatistics:
        """Steps 1-2: the last B queries' vertical and slash scores and each head's pattern."""
        n_last = min(block_size, case.seq_len)
        columns, diagonals, mean_q = last_query_scores(case, n_last)
        vertical, slash = columns / n_last, diagonals / n_last
        heads_kv = torch.arange(case.q_heads, device=case.q.device) // case.group_size
        block_keys = block_means(case.k, block_size)[heads_kv]
        estimated = torch.softmax((block_keys @ mean_q[:, :, None]).squeeze(-1), dim=-1)
        distance = sqrt_js_distance(estimated, block_sums(vertical, block_size))
        return HeadStatistics(vertical, slash, block_keys, distance, distance < self.params.tau)

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        """FLOPs (2 per multiply-add of the matmuls): the last B queries' QK^T (2 Hq B N d), the mean last
        query against the block-mean keys (2 Hq nb d) and, for query-aware heads only, block-mean Q
        against block-mean K (2 nb^2 d each). Softmaxes, pooling and sorting are not counted."""
        n, d = case.seq_len, case.head_dim
        nb = num_blocks(n, block_size)
        dense_limit = max(2 * block_size, math.ceil(self.params.min_budget / block_size) * block_size)
        if n <= dense_limit:
            mask = causal_block_mask(case.q_heads, n, block_size, case.q.device)
            return Estimate(mask=mask, flops=0.0, fallback=f"dense: N={n} <= max(2B, min_budget) = {dense_limit}")
        # At least one block each, so block 0 and the diagonal (scored inf below) are always chosen;
        # they take one of the counted slots, as in the reference.
        min_blocks = max(math.ceil(self.params.min_budget / block_size), 1)
        max_blocks = nb if self.params.max_budget is None else min(math.ceil(self.params.max_budget / block_size), nb)

        stats = self.head_statistics(case, block_size)
        gamma = self.params.gamma
        vertical_blocks = (score_cover_topk(stats.vertical, gamma) // block_size + 1).clamp(min_blocks, max_blocks)
        slash_blocks = (score_cover_topk(stats.slash, gamma) // block_size + 1).clamp(min_blocks, max_blocks)
        vertical_blocks[stats.query_aware] = min_blocks
        slash_blocks[stats.query_aware] = min_blocks
        vertical = block_sums(stats.vertical, block_size)
        slash = block_sums(stats.slash, block_size)   # entry o: block offset o = distance // B
        vertical[:, 0] = float("inf")
        slash[:, 0] = float("inf")
        mask = self._vertical_slash_mask(top_blocks(vertical, vertical_blocks), top_blocks(slash, slash_blocks))

        heads = stats.query_aware.nonzero().squeeze(-1)
        if heads.numel():
            mask[heads] |= self._query_aware_blocks(case, block_size, heads, stats.block_keys[heads])
        n_last = min(block_size, n)
        flops = 2.0 * d * case.q_heads * (n_last * n + nb) + 2.0 * d * heads.numel() * nb * nb
        return Estimate(mask=mask, flops=flops)

    @staticmethod
    def _vertical_slash_mask(key_blocks: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """bool [H, nb, nb]: (m, n) is active if key block n is chosen or block offset m - n is chosen."""
        nb = key_blocks.shape[-1]
        m = torch.arange(nb, device=key_blocks.device)
        offset = (m[:, None] - m[None, :]).clamp(min=0)
        return (key_blocks[:, None, :] | offsets[:, offset]) & (m[:, None] >= m[None, :])

    def _query_aware_blocks(self, case: AttentionCase, block_size: int, heads: torch.Tensor,
                            mean_k: torch.Tensor) -> torch.Tensor:
        """bool [len(heads), nb, nb]: the block pairs covering gamma * nb of the causal pooled softmax."""
        mean_q = block_means(case.q[heads], block_size) / math.sqrt(case.head_dim)
        nb = mean_q.shape[1]
        causal = torch.ones(nb, nb, dtype=torch.bool, device=mean_q.device).tril()
        probs = torch.softmax((mean_q @ mean_k.transpose(1, 2)).masked_fill(~causal, float("-inf")), dim=-1)
        flat = probs.reshape(len(heads), -1)
        values, order = flat.sort(dim=-1, descending=True)
        keep = values.cumsum(-1) <= self.params.gamma * nb
        return torch.zeros_like(keep).scatter_(1, order, keep).reshape(-1, nb, nb) & causal
