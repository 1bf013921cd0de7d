"""ProxyAttn's block scores, step 1 of its estimation, in plain torch: the semantics the Triton kernel must match.

For each proxy group the pooled, strided queries and keys (row i is original position i * s) give
P = row-softmax(causal(q̄ k̄ᵀ · scale)) over the sampled keys only (the spec's default "sampled
softmax"), and A[m, n] reduces P over the tile of query block m and key block n. Because B % s == 0,
block m holds the strided rows [m·B/s, (m+1)·B/s) on both axes, so the tiles are squares of B/s
strided rows (the last one ragged when N is not a multiple of B). Tiles above the diagonal are 0.
ProxyAttn (arXiv 2509.24745), spec shared/papers/proxyattn.md, "Algorithm" step 1.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

TILE_REDUCTIONS = ("max", "max_mean")


def strided_length(seq_len: int, stride: int) -> int:
    """Ns: the sampled positions 0, s, 2s, ... below N."""
    return math.ceil(seq_len / stride)


def check_proxy_inputs(q_pooled: torch.Tensor, k_pooled: torch.Tensor, seq_len: int, block_size: int,
                       stride: int, tile_reduce: str) -> None:
    """`ValueError` naming the first broken requirement; every backend calls this before computing."""
    if tile_reduce not in TILE_REDUCTIONS:
        raise ValueError(f"tile_reduce must be one of {TILE_REDUCTIONS}, got {tile_reduce!r}")
    if seq_len < 1 or block_size < 1 or stride < 1:
        raise ValueError(f"seq_len, block_size and stride must be positive; "
                         f"got N={seq_len}, B={block_size}, s={stride}")
    if block_size % stride:
        raise ValueError(f"block_size must be a multiple of stride so each block holds whole stride windows; "
                         f"got B={block_size}, s={stride}")
    if q_pooled.dim() != 3 or q_pooled.shape != k_pooled.shape:
        raise ValueError(f"q_pooled and k_pooled must both be [groups, Ns, head_dim]; "
                         f"got {tuple(q_pooled.shape)} and {tuple(k_pooled.shape)}")
    ns = strided_length(seq_len, stride)
    if q_pooled.shape[1] != ns:
        raise ValueError(f"N={seq_len} with stride {stride} samples Ns={ns} positions, "
                         f"but the pooled inputs have {q_pooled.shape[1]} rows")
    if q_pooled.device != k_pooled.device:
        raise ValueError(f"q_pooled and k_pooled must be on one device; got {q_pooled.device} and {k_pooled.device}")
    if q_pooled.dtype != k_pooled.dtype or not q_pooled.dtype.is_floating_point:
        raise ValueError(f"q_pooled and k_pooled must share one floating dtype; "
                         f"got {q_pooled.dtype} and {k_pooled.dtype}")


def proxy_block_scores_reference(q_pooled: torch.Tensor, k_pooled: torch.Tensor, seq_len: int, block_size: int,
                                 stride: int, scale: float, tile_reduce: str = "max", *,
                                 chunk_elements: int = 1 << 22) -> torch.Tensor:
    """A [groups, nb, nb] float32, a chunk of whole query blocks at a time: memory is bounded, never Ns².

    `tile_reduce="max"` takes the max over the whole tile (the paper's "max-pool"); `"max_mean"` the
    max over the tile's keys, then the mean over its query rows (the spec's alternative switch).
    A chunk holds as many query blocks as keep its logits under `chunk_elements` (at least one block).
    One block per step is 128 steps of small ops at N = 16K, and on a busy 2-core CPU every op's
    thread barrier then costs more than its arithmetic: measured 0.5-2.7 s per call against 0.3-0.4 s
    for the 4 chunks of the default. The chunk's upper-triangle tiles come out as exact zeros (exp(-inf) = 0).
    """
    check_proxy_inputs(q_pooled, k_pooled, seq_len, block_size, stride, tile_reduce)
    groups, ns, _ = q_pooled.shape
    rows = block_size // stride
    nb = math.ceil(seq_len / block_size)
    per_chunk = min(nb, max(1, chunk_elements // (groups * rows * ns)))
    q = q_pooled.float() * scale  # scaling once here saves an op per chunk
    k = k_pooled.float()
    # keys after the query only occur in the chunk's own diagonal square: strided key j is allowed iff j <= i
    ahead = torch.ones(per_chunk * rows, per_chunk * rows, dtype=torch.bool, device=q.device).triu_(1)
    scores = torch.zeros(groups, nb, nb, dtype=torch.float32, device=q.device)
    for first in range(0, nb, per_chunk):
        last = min(first + per_chunk, nb)  # query blocks [first, last)
        start, stop = first * rows, min(last * rows, ns)
        logits = torch.matmul(q[:, start:stop], k[:, :stop].transpose(1, 2))  # [g, r, stop]
        logits[:, :, start:].masked_fill_(ahead[: stop - start, : stop - start], float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        ragged = last * rows - stop
        if ragged:  # the last block on both axes: zero rows and keys are neutral, probabilities are >= 0
            probs = F.pad(probs, (0, ragged, 0, ragged))
        key_max = probs.view(groups, last - first, rows, last, rows).amax(dim=4)  # [g, blocks, rows, last]
        if tile_reduce == "max":
            scores[:, first:last, :last] = key_max.amax(dim=2)
        else:
            valid_rows = torch.full((last - first, 1), rows, dtype=torch.float32, device=q.device)
            valid_rows[-1] -= ragged
            scores[:, first:last, :last] = key_max.sum(dim=2) / valid_rows
    return scores
