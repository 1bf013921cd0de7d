"""The oracle: blocks chosen by their true attention mass, an upper bound no estimator can beat at equal density."""
from __future__ import annotations

from methods.sparse_attention.method import BlockSparseMethod, Estimate
from methods.sparse_attention.params import OracleParams
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.selection import cover_per_row
from methods.sparse_attention.true_attention import block_mass


class OracleTopK(BlockSparseMethod[OracleParams]):
    """Per (head, query block), the fewest key blocks holding `gamma` of the block's exact attention mass.

    Its estimation is exact attention itself, so its cost (QK^T over every causal pair) is recorded as such.
    """

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        n = case.seq_len
        flops = 2.0 * case.q_heads * case.head_dim * n * (n + 1) / 2
        return Estimate(cover_per_row(block_mass(case, block_size), self.params.gamma), flops)
