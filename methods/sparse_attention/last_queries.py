"""What several estimators read first: the exact attention of the last queries, and block pooling.

MInference and FlexPrefill score vertical and slash lines from the last queries' softmax; ProxyAttn
sizes each head's budget from its last query block's. The probe is computed once here for all three.
"""
from __future__ import annotations

import math
from typing import Literal, overload

import torch

from kernels.block_layout import num_blocks
from methods.sparse_attention.problem import AttentionCase


def diagonal_sums(probs: torch.Tensor) -> torch.Tensor:
    """[..., n, N] attention rows of the last n queries -> [..., N]: entry t sums the pairs at distance t.

    Query i of the n is position N - n + i, so distance t pairs it with key N - n + i - t. Each row
    is shifted by n - 1 - i through a strided view of the key-reversed, right-padded rows: no
    N x N matrix and no index tensor.
    """
    *lead, n, length = probs.shape
    rows = torch.nn.functional.pad(probs.flip(-1), (0, n)).reshape(-1, n, length + n).contiguous()
    per = n * (length + n)
    shifted = rows.as_strided((rows.shape[0], n, length), (per, length + n - 1, 1), storage_offset=n - 1)
    return shifted.sum(-2).reshape(*lead, length)


@overload
def last_query_scores(case: AttentionCase, n_last: int, diagonals: Literal[True] = ...
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]: ...


@overload
def last_query_scores(case: AttentionCase, n_last: int, diagonals: Literal[False]
                      ) -> tuple[torch.Tensor, None, torch.Tensor]: ...


def last_query_scores(case: AttentionCase, n_last: int, diagonals: bool = True
                      ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
    """(column sums [Hq, N], diagonal sums [Hq, N] by distance or None, mean scaled last query [Hq, d]), fp32.

    The causal softmax rows of the last `n_last` queries over all N keys, one KV group at a time so
    at most group_size * n_last * N scores are held at once.
    """
    n, d, g = case.seq_len, case.head_dim, case.group_size
    scale = 1.0 / math.sqrt(d)
    causal = torch.ones(n_last, n_last, dtype=torch.bool, device=case.q.device).tril()
    columns, diagonal, mean_q = [], [], []
    for kv in range(case.kv_heads):
        last_q = case.q[kv * g:(kv + 1) * g, n - n_last:].float() * scale  # [g, n_last, d]
        scores = last_q @ case.k[kv].float().T                              # [g, n_last, N]
        scores[..., n - n_last:] = scores[..., n - n_last:].masked_fill(~causal, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        columns.append(probs.sum(-2))
        if diagonals:
            diagonal.append(diagonal_sums(probs))
        mean_q.append(last_q.mean(-2))
    return torch.cat(columns), torch.cat(diagonal) if diagonals else None, torch.cat(mean_q)


def block_sums(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """[..., N] -> [..., nb]: sums over each block, the ragged last one over its own positions."""
    n = x.shape[-1]
    padded = torch.nn.functional.pad(x, (0, num_blocks(n, block_size) * block_size - n))
    return padded.unflatten(-1, (-1, block_size)).sum(-1)


def block_means(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """[H, N, d] -> [H, nb, d] fp32: the mean of each block's rows, the ragged last one over its own rows."""
    n = x.shape[1]
    nb = num_blocks(n, block_size)
    padded = torch.nn.functional.pad(x.float(), (0, 0, 0, nb * block_size - n))
    sizes = torch.full((nb,), float(block_size), device=x.device)
    sizes[-1] = n - (nb - 1) * block_size
    return padded.unflatten(1, (nb, block_size)).sum(2) / sizes[:, None]
