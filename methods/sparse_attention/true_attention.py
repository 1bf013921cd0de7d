"""The exact softmax attention, one query block at a time: the ground truth of every fidelity figure.

Rows of one query block are scored against every causal key at once ([Hq, B, N] at most), so
memory stays O(H·N·B) at any length; the cost is dense attention's, which is what an exact
reference costs.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from kernels.block_layout import num_blocks
from methods.sparse_attention.problem import AttentionCase


@dataclass(frozen=True)
class QueryBlockAttention:
    """Exact attention of query block `index`: each row's mass per key block, and the dense output rows."""

    index: int
    block_mass: torch.Tensor  # float32 [Hq, rows, nb]; each row sums to 1 over key blocks 0..index
    output: torch.Tensor      # float32 [Hq, rows, d]


def expand_kv(tensor: torch.Tensor, group_size: int) -> torch.Tensor:
    """KV heads repeated so query head h lines up with KV head h // group_size."""
    return tensor.repeat_interleave(group_size, dim=0) if group_size > 1 else tensor


def query_block_attention(case: AttentionCase, block_size: int) -> Iterator[QueryBlockAttention]:
    """The exact causal softmax of `case`, yielded per query block (fp32 whatever the input dtype)."""
    n, nb = case.seq_len, num_blocks(case.seq_len, block_size)
    k = expand_kv(case.k.float(), case.group_size)
    v = expand_kv(case.v.float(), case.group_size)
    scale = 1.0 / math.sqrt(case.head_dim)
    for m in range(nb):
        start, stop = m * block_size, min((m + 1) * block_size, n)
        q = case.q[:, start:stop].float()
        logits = torch.einsum("hrd,hkd->hrk", q, k[:, :stop]) * scale
        rows = torch.arange(start, stop, device=q.device)[:, None]
        logits.masked_fill_(torch.arange(stop, device=q.device)[None, :] > rows, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        padded = torch.nn.functional.pad(probs, (0, (m + 1) * block_size - stop))
        mass = padded.reshape(probs.shape[0], probs.shape[1], m + 1, block_size).sum(-1)
        yield QueryBlockAttention(m, torch.nn.functional.pad(mass, (0, nb - m - 1)), probs @ v[:, :stop])


def block_mass(case: AttentionCase, block_size: int) -> torch.Tensor:
    """[Hq, nb, nb]: the attention mass of key block n averaged over the rows of query block m.

    What an oracle would rank blocks by; each row (m) sums to 1 over n <= m.
    """
    return torch.stack([block.block_mass.mean(dim=1) for block in query_block_attention(case, block_size)], dim=1)
