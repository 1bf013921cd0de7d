"""Block-sparse causal attention in plain torch: the semantics every backend matches, and the CPU path.

The unit of work is a CSR row, one (head, query block) pair. Rows with the same number of active
key blocks and the same answer to "is the diagonal block kept?" form a group, and each group is
one fused SDPA call over its rows' gathered K/V blocks: unmasked, or with the lower-right causal
mask (a kept diagonal block is a row's last, as columns ascend and never pass the query block).
Equal rows need no padding. K/V blocks are gathered for several groups at once, so the whole call
is a few dozen torch calls instead of several per query block: on a busy CPU every parallel call
waits for its slowest thread. Only active blocks are computed, and the gathered blocks of one batch
are bounded by 2·Hq·nb, so memory is O(Hq·N·d), never N x N.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention.inputs import check_inputs


@dataclass(frozen=True)
class _Group:
    """Rows `start:stop` of the sorted rows, all `width` blocks wide, whose blocks start at `first_block`."""

    start: int
    stop: int
    width: int
    diagonal: bool
    first_block: int

    @property
    def last_block(self) -> int:
        return self.first_block + (self.stop - self.start) * self.width


def _blocks(x: torch.Tensor, num_blocks: int, block_size: int) -> torch.Tensor:
    """[H, N, d] as [H·nb, B, d], one entry per (head, block), zero-padding a ragged last block.

    Padded keys lie after every real query, so the causal mask drops them; padded query rows are
    dropped from the output. Whole blocks let `index_select` gather them as contiguous rows.
    """
    heads, seq_len, dim = x.shape
    padding = num_blocks * block_size - seq_len
    if padding:
        x = torch.cat([x, x.new_zeros(heads, padding, dim)], dim=1)
    return x.reshape(heads * num_blocks, block_size, dim)


def _schedule(layout: BlockLayout, group_size: int) -> tuple[torch.Tensor, torch.Tensor, list[_Group]]:
    """Rows sorted by (width, diagonal kept), the K/V block of each of their active slots in that order
    (row r's query head reads KV head r // nb // group_size), and the groups of equal rows."""
    nb = layout.num_blocks
    rows = torch.arange(layout.heads * nb, device=layout.row_ptr.device)
    counts = layout.row_ptr.diff()
    diagonal = layout.col_idx[layout.row_ptr[1:] - 1] == rows % nb
    key = counts * 2 + diagonal.long()
    order = key.argsort(descending=True, stable=True)
    widths = counts[order]
    starts = torch.cumsum(widths, 0) - widths
    slot = torch.arange(layout.nnz, device=rows.device) - starts.repeat_interleave(widths)
    columns = layout.col_idx[layout.row_ptr[order].repeat_interleave(widths) + slot]
    blocks = (order // nb // group_size * nb).repeat_interleave(widths) + columns

    sizes = torch.unique_consecutive(key[order], return_counts=True)[1].tolist()
    bounds = [0, *torch.tensor(sizes).cumsum(0).tolist()]
    first_rows = bounds[:-1]
    widths_at, kept_at, starts_at = (x[first_rows].tolist() for x in (widths, diagonal[order], starts))
    groups = [_Group(start, stop, width, kept, first)
              for start, stop, width, kept, first in zip(first_rows, bounds[1:], widths_at, kept_at, starts_at)]
    return order, blocks, groups


def _batches(groups: list[_Group], max_blocks: int) -> list[list[_Group]]:
    """Consecutive groups whose blocks total at most `max_blocks`, a larger group split by rows."""
    pieces = []
    for group in groups:
        rows_per_piece = max(1, max_blocks // group.width)
        for start in range(group.start, group.stop, rows_per_piece):
            stop = min(group.stop, start + rows_per_piece)
            pieces.append(_Group(start, stop, group.width, group.diagonal,
                                 group.first_block + (start - group.start) * group.width))
    batches: list[list[_Group]] = []
    for piece in pieces:
        if batches and piece.last_block - batches[-1][0].first_block <= max_blocks:
            batches[-1].append(piece)
        else:
            batches.append([piece])
    return batches


def block_sparse_attention_reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: BlockLayout,
                                     scale: float | None = None) -> torch.Tensor:
    """softmax(scale · Q Kᵀ) V over the active blocks of `layout`, causal inside diagonal blocks.

    Accumulates in float32 whatever the input dtype and returns Q's dtype; scale defaults to 1/sqrt(d).
    """
    check_inputs(q, k, v, layout)
    q_heads, seq_len, dim = q.shape
    block, nb = layout.block_size, layout.num_blocks
    order, blocks, groups = _schedule(layout, q_heads // k.shape[0])
    queries = _blocks(q.float(), nb, block).index_select(0, order)
    keys, values = (_blocks(x.float(), nb, block) for x in (k, v))
    widest = groups[0].width
    # Query i of a block sees key j of the row's last block iff j <= i (lower-right causal). One additive
    # mask for the widest row; a row of width w uses its last w blocks, so SDPA never converts a bool mask.
    causal = torch.zeros(block, widest * block, device=q.device).masked_fill_(
        torch.ones(block, widest * block, dtype=torch.bool, device=q.device).triu((widest - 1) * block + 1),
        -torch.inf)
    attended = []
    for batch in _batches(groups, 2 * q_heads * nb):
        offset = batch[0].first_block
        gathered = blocks[offset:batch[-1].last_block]
        batch_keys, batch_values = keys.index_select(0, gathered), values.index_select(0, gathered)
        for group in batch:
            tile = (group.stop - group.start, 1, group.width * block, dim)
            span = slice(group.first_block - offset, group.last_block - offset)
            attended.append(F.scaled_dot_product_attention(
                queries[group.start:group.stop, None], batch_keys[span].view(tile), batch_values[span].view(tile),
                attn_mask=causal[:, (widest - group.width) * block:] if group.diagonal else None, scale=scale))
    out = torch.empty_like(queries).index_copy_(0, order, torch.cat(attended)[:, 0])
    return out.view(q_heads, nb * block, dim)[:, :seq_len].to(q.dtype)
