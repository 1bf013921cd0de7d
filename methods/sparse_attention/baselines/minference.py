"""MInference's vertical-slash (VS) pattern, Jiang et al., NeurIPS 2024, covered by blocks.

The last 64 queries attend to every key; their column sums score the key columns ("vertical")
and their diagonal sums score the query-key distances ("slash"). The top `vertical_size` columns
and the top `slash_size` diagonals are kept, with the first 30 columns and the 100 nearest
diagonals forced in. This mirrors `get_vertical_and_slash_idx` of bytedance/FlexPrefill
`flex_prefill/ops/minfer/minfer_attention.py` (the spec's code pointer): keep_global = 30,
keep_local = 100, sizes raised to at least those and capped at N. microsoft/MInference's
`minference_prefill_kernel` (`minference/modules/minference_forward.py`) forces the same 30 columns
and 100 diagonals but raises the slash size only to 50, so below 100 which forced diagonals it keeps
is a tie-break; we follow FlexPrefill's copy.

Defaults 1000 / 6096: MInference's pattern for a head its config does not list (the same
`minference_prefill_kernel`), and that of 29 of the 32 layer-0 heads in FlexPrefill's
`flex_prefill/ops/minfer/config/Llama_3.1_8B_Instruct_128k_kv_out_v32_fit_o_best_pattern.json`.
That file gives each head one of five (vertical, slash) pairs found by MInference's offline
search; without that search we use one pair for every head (pass another pair to change it).

Our backend is block-sparse, so the token-level pattern becomes the set of blocks it touches: a
key block is active in a row if it holds a chosen column, or if a chosen diagonal passes through
one of its causal (query, key) pairs. That is coarser than MInference's token-level VS kernel:
the covering computes every pair the VS kernel computes and more, so it can only add attention
mass, never lose it.
"""
from __future__ import annotations

import torch

from kernels.block_layout import num_blocks
from methods.sparse_attention.last_queries import last_query_scores
from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import MInferenceParams
from methods.sparse_attention.problem import AttentionCase

LAST_QUERIES = 64
KEEP_FIRST_COLUMNS = 30
KEEP_NEAREST_DIAGONALS = 100


def vertical_slash_block_mask(columns: torch.Tensor, distances: torch.Tensor, seq_len: int,
                              block_size: int) -> torch.Tensor:
    """The blocks a token-level VS pattern touches: bool [H, nb, nb].

    `columns` [H, vertical_size] are chosen key positions, `distances` [H, slash_size] chosen
    query-key distances.
    Distance t = a*B + r puts the pairs of a full query block m on key blocks m - a and, when
    r > 0, m - a - 1; a ragged last block of L < B rows reaches block m - a only if r < L.
    """
    heads = columns.shape[0]
    nb = num_blocks(seq_len, block_size)
    device = columns.device
    column_blocks = torch.zeros(heads, nb, dtype=torch.bool, device=device)
    column_blocks.scatter_(1, columns // block_size, True)

    a, r = distances // block_size, distances % block_size
    last_rows = seq_len - (nb - 1) * block_size

    def offsets(near: torch.Tensor) -> torch.Tensor:
        """[H, nb] block offsets reached: a where `near`, a + 1 where r > 0 (offset nb and slot nb + 1 drop)."""
        unused = torch.full_like(a, nb + 1)
        reached = torch.zeros(heads, nb + 2, dtype=torch.bool, device=device)
        reached.scatter_(1, torch.where(near, a, unused), True)
        reached.scatter_(1, torch.where(r > 0, a + 1, unused), True)
        return reached[:, :nb]

    full_rows = offsets(torch.ones_like(r, dtype=torch.bool))
    m = torch.arange(nb, device=device)
    offset = (m[:, None] - m[None, :]).clamp(min=0)                       # [nb, nb]: m - n
    slash_blocks = full_rows[:, offset]                                    # [H, nb, nb]
    if last_rows < block_size:
        slash_blocks[:, -1] = offsets(r < last_rows)[:, offset[-1]]
    causal = m[:, None] >= m[None, :]
    return (slash_blocks | column_blocks[:, None, :]) & causal


class MInference(BlockSparseMethod[MInferenceParams]):
    """MInference's vertical-slash estimation (every head VS), as a block covering."""

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        """FLOPs: the last queries' QK^T, 2 * Hq * n_last * N * d; the softmax and the sums are not counted."""
        n = case.seq_len
        n_last = min(LAST_QUERIES, n)
        columns, diagonals, _ = last_query_scores(case, n_last)
        columns[:, :KEEP_FIRST_COLUMNS] = float("inf")
        diagonals[:, :KEEP_NEAREST_DIAGONALS] = float("inf")
        vertical_size = min(n, max(self.params.vertical_size, KEEP_FIRST_COLUMNS))
        slash_size = min(n, max(self.params.slash_size, KEEP_NEAREST_DIAGONALS))
        chosen_columns = columns.topk(vertical_size, dim=-1).indices
        chosen_distances = diagonals.topk(slash_size, dim=-1).indices
        mask = vertical_slash_block_mask(chosen_columns, chosen_distances, n, block_size)
        flops = 2.0 * case.q_heads * n_last * n * case.head_dim
        return Estimate(mask=mask, flops=flops)
