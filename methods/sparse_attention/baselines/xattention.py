"""XAttention, Xu et al., ICML 2025 ("Block Sparse Attention with Antidiagonal Scoring").

Mirrors `xattn_estimate` (torch path, select_mode "inverse") of mit-han-lab/x-attention
`xattn/src/Xattention.py` and `find_blocks_chunked` of `xattn/src/utils.py`, commit e379887:
1. keys regrouped by stride S (row r = K[rS], ..., K[rS+S-1]) and queries regrouped in reverse
   (row r = Q[rS+S-1], ..., Q[rS]), so one dot product is the antidiagonal sum of an S x S tile;
2. softmax with scale 1/sqrt(d)/S over the causal tiles of each strided query row, then the sum of
   each B x B block's (B/S)^2 tiles: the block scores;
3. per query block row: key block 0 and the diagonal, then blocks by descending score while the
   kept sum is below threshold * row total (the block that crosses it is kept; the sort runs in
   float64 as the reference's does).
Query blocks go in chunks, so at most a few query blocks' strided rows x N/S keys are held.

Defaults: stride 8 (README: S = 8 and S = 16 on RULER) and threshold 0.9 (`xattn_estimate`'s
default and the README's tau; `Xattention_prefill` defaults to 0.8). Llama's offline per-head
thresholds (`xattn/threshold/llama_threshold.py`) are not used: one threshold for every head.

Choices: B must be a multiple of S (the reference's `block_size // stride` assumes it). A ragged
end is zero-padded to a whole block: a tile holding both real and padded keys sums over its
real keys only, tiles past N are causally masked for every real query, and strided query rows
past N score nothing, as in the reference. GQA: query head h reads KV head h // group_size (the
reference repeats the KV heads beforehand).
"""
from __future__ import annotations

import math

import torch

from kernels.block_layout import num_blocks
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import XAttentionParams
from methods.sparse_attention.problem import AttentionCase

SCORE_ELEMENTS_PER_CHUNK = 1 << 24  # strided scores held at once (64 MiB in fp32)


def antidiagonal_block_scores(case: AttentionCase, block_size: int, stride: int, first: int, stop: int,
                              ) -> tuple[torch.Tensor, float]:
    """(block scores [Hq, stop - first, nb] of query blocks [first, stop), FLOPs of the strided QK^T).

    Each row of a query block sums the softmaxed antidiagonal scores of its B/S strided rows, so a
    full row sums to B/S; key blocks past the diagonal score 0.
    """
    n, d, g = case.seq_len, case.head_dim, case.group_size
    nb = num_blocks(n, block_size)
    rows_per_block = block_size // stride
    lo, hi = first * block_size, stop * block_size          # tokens of the chunk's query blocks
    pad = max(hi - n, 0)
    queries = torch.nn.functional.pad(case.q[:, lo:hi].float(), (0, 0, 0, pad))
    keys = torch.nn.functional.pad(case.k[:, :hi].float(), (0, 0, 0, pad))
    strided_q = queries.unflatten(1, (-1, stride)).flip(2).flatten(2)    # [Hq, rows, S d]
    strided_k = keys.unflatten(1, (-1, stride)).flatten(2)               # [Hkv, cols, S d]
    rows, cols = strided_q.shape[1], strided_k.shape[1]
    logits = strided_q.unflatten(0, (case.kv_heads, g)) @ strided_k[:, None].transpose(-1, -2)
    logits = logits.flatten(0, 1) / (math.sqrt(d) * stride)              # [Hq, rows, cols]
    row_tile = first * rows_per_block + torch.arange(rows, device=logits.device)
    col_tile = torch.arange(cols, device=logits.device)
    logits.masked_fill_(col_tile[None, :] > row_tile[:, None], float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    probs[:, row_tile * stride >= n] = 0.0
    scores = probs.unflatten(1, (stop - first, rows_per_block)).unflatten(-1, (stop, rows_per_block)).sum((2, 4))
    scores = torch.nn.functional.pad(scores, (0, nb - stop))
    return scores, 2.0 * case.q_heads * rows * cols * stride * d


def threshold_blocks(scores: torch.Tensor, first: int, threshold: float) -> torch.Tensor:
    """`find_blocks_chunked` (causal, threshold): bool mask of the rows of query blocks first, first + 1, ..."""
    heads, chunk, nb = scores.shape
    rows = torch.arange(chunk, device=scores.device)
    scores = scores.double()
    forced = torch.zeros(heads, chunk, nb, dtype=torch.bool, device=scores.device)
    forced[:, :, 0] = True
    forced[:, rows, first + rows] = True
    required = threshold * scores.sum(-1, keepdim=True)
    kept_sum = (scores * forced).sum(-1, keepdim=True)
    values, order = scores.masked_fill(forced, 0.0).sort(dim=-1, descending=True)
    before = values.cumsum(-1) - values                     # what the earlier choices already cover
    keep = torch.zeros_like(forced).scatter_(-1, order, kept_sum + before < required)
    causal = torch.arange(nb, device=scores.device)[None, :] <= (first + rows)[:, None]
    return (keep | forced) & causal


class XAttention(BlockSparseMethod[XAttentionParams]):
    """XAttention's antidiagonal block scoring with a cumulative threshold per query block row."""

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        """FLOPs: the strided QK^T, 2 (S d) per strided (query, key) pair computed; each chunk computes its
        rows against every key tile up to its last block, masked ones included. Softmax and sums not counted."""
        if block_size % self.params.stride:
            raise ValueError(f"block size {block_size} must be a multiple of XAttention's stride {self.params.stride}")
        n = case.seq_len
        nb = num_blocks(n, block_size)
        rows_per_block = block_size // self.params.stride
        per_block = case.q_heads * rows_per_block * nb * rows_per_block
        chunk = max(1, SCORE_ELEMENTS_PER_CHUNK // per_block)
        masks, flops = [], 0.0
        for first in range(0, nb, chunk):
            stop = min(first + chunk, nb)
            scores, cost = antidiagonal_block_scores(case, block_size, self.params.stride, first, stop)
            masks.append(threshold_blocks(scores, first, self.params.threshold))
            flops += cost
        return Estimate(mask=torch.cat(masks, dim=1), flops=flops)
