"""Block-sparse causal attention in plain torch: the semantics every backend matches, and the CPU path.

The unit of work is a CSR row, one (head, query block) pair. Rows are sorted by their number of
active key blocks and taken in groups: each group gathers its rows' query tiles and active K/V
blocks by index, pads every row to the group's widest (padded slots score -inf) and runs one
batched matmul, softmax and matmul. Sorting keeps the padding small; grouping keeps the number
of torch calls small (a call per query block costs more than its arithmetic on a busy CPU).
Only active blocks are computed and a group holds at most Hq·nb block slots, so the largest
buffer, the score tile, is O(Hq·N·B), never N x N.
"""
from __future__ import annotations

import torch

from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention.inputs import check_inputs


def _blocks(x: torch.Tensor, num_blocks: int, block_size: int) -> torch.Tensor:
    """[H, N, d] as [H·nb, B, d], one entry per (head, block), zero-padding a ragged last block.

    Padded keys are masked as lying after every real query; padded query rows are dropped. Whole
    contiguous blocks let `index_select` gather them several times faster than advanced indexing.
    """
    heads, seq_len, dim = x.shape
    padding = num_blocks * block_size - seq_len
    if padding:
        x = torch.cat([x, x.new_zeros(heads, padding, dim)], dim=1)
    return x.reshape(heads * num_blocks, block_size, dim)


def _row_groups(counts: torch.Tensor, max_slots: int) -> list[torch.Tensor]:
    """CSR row ids, widest first, cut into groups of at most `max_slots` block slots whose rows are all
    at least 90 % as wide as the group's first: about 2 % padding, and a few dozen groups."""
    order = counts.argsort(descending=True)
    widths = counts[order].tolist()
    groups, start = [], 0
    while start < len(widths):
        limit = min(len(widths), start + max(1, max_slots // widths[start]))
        stop = start + 1
        while stop < limit and widths[stop] >= 0.9 * widths[start]:
            stop += 1
        groups.append(order[start:stop])
        start = stop
    return groups


def block_sparse_attention_reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: BlockLayout,
                                     scale: float | None = None) -> torch.Tensor:
    """softmax(scale · Q Kᵀ) V over the active blocks of `layout`, causal inside diagonal blocks.

    Accumulates in float32 whatever the input dtype and returns Q's dtype; scale defaults to 1/sqrt(d).
    """
    check_inputs(q, k, v, layout)
    q_heads, seq_len, dim = q.shape
    block, nb = layout.block_size, layout.num_blocks
    scale = dim**-0.5 if scale is None else scale
    # Folding the scale into Q costs one pass over Q instead of one over every score tile.
    queries = _blocks(q.float() * scale, nb, block)
    keys = _blocks(k.float(), nb, block)
    values = _blocks(v.float(), nb, block)
    group_size = q_heads // k.shape[0]
    counts = layout.row_ptr.diff()
    key_after_query = torch.ones(block, block, dtype=torch.bool, device=q.device).tril(-1)  # [key, query]
    out = torch.empty_like(queries)
    for rows in _row_groups(counts, q_heads * nb):
        width = int(counts[rows[0]])
        slots = torch.arange(width, device=q.device)
        active = slots < counts[rows, None]                                     # [R, C]
        position = (layout.row_ptr[rows, None] + slots).clamp_max(layout.nnz - 1)  # padding reads any block
        columns = layout.col_idx[position].long()
        head, query_block = rows // nb, rows % nb
        blocks = ((head // group_size * nb)[:, None] + columns).flatten()
        tile = (len(rows), width * block, dim)
        # Scores as [row, key, query]: K·Qᵀ runs faster than Q·Kᵀ in MKL for these shapes.
        scores = torch.bmm(keys.index_select(0, blocks).view(tile), queries.index_select(0, rows).transpose(1, 2))
        by_slot = scores.view(len(rows), width, block, block)
        padded_rows, padded_slots = (~active).nonzero(as_tuple=True)
        by_slot[padded_rows, padded_slots] = -torch.inf
        _mask_diagonal_block(by_slot, columns, counts[rows], query_block, key_after_query)
        # Softmax in place, normalised after the matmul: one pass and one tile-sized buffer fewer.
        scores.sub_(scores.amax(dim=1, keepdim=True)).exp_()
        total = scores.sum(dim=1).unsqueeze(-1)                                 # [R, B, 1]
        weighted = torch.bmm(scores.transpose(1, 2), values.index_select(0, blocks).view(tile))
        out.index_copy_(0, rows, weighted.div_(total))
    return out.view(q_heads, nb * block, dim)[:, :seq_len].to(q.dtype)


def _mask_diagonal_block(scores: torch.Tensor, columns: torch.Tensor, counts: torch.Tensor,
                         query_block: torch.Tensor, key_after_query: torch.Tensor) -> None:
    """Set scores [row, slot, key, query] of keys after their query to -inf, in the diagonal block of the
    rows that keep it. Columns ascend and never pass the query block, so a kept diagonal block is a
    row's last active slot."""
    last = (counts - 1)[:, None]
    rows = (columns.gather(1, last)[:, 0] == query_block).nonzero()[:, 0]
    slots = last[rows, 0]
    scores[rows, slots] = scores[rows, slots].masked_fill_(key_after_query, -torch.inf)
