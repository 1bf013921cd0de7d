"""Which key blocks each (head, query block) attends to, as CSR: the one mask format of every kernel.

A block mask is a boolean tensor [H, nb, nb] (query block m, key block n, nb = ceil(N / B)); the
last block may be ragged (N need not be a multiple of B). Causality is part of the contract: a
block above the diagonal is an error, and every query block attends to at least one key block,
so every row's softmax is defined. CSR (rows = head * nb + m, columns ascending) is what the
kernels iterate over: FlexPrefill's kernel uses the same row_ptr / col_idx shape.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch


def num_blocks(seq_len: int, block_size: int) -> int:
    return math.ceil(seq_len / block_size)


def causal_block_mask(heads: int, seq_len: int, block_size: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """Every block on or below the diagonal: the mask of dense causal attention."""
    nb = num_blocks(seq_len, block_size)
    return torch.ones(nb, nb, dtype=torch.bool, device=device).tril().expand(heads, nb, nb).clone()



def random_block_mask(heads: int, seq_len: int, block_size: int, density: float, keep_diagonal: bool = True,
                      generator: torch.Generator | None = None) -> torch.Tensor:
    """About `density` of the causal blocks, drawn at random: a mask with no method's structure in it,
    for tests and benchmarks. Diagonal blocks count towards the density when kept; a row left empty
    gets one random block on or below its diagonal, so the result is always a valid block mask."""
    nb = num_blocks(seq_len, block_size)
    causal = torch.ones(nb, nb, dtype=torch.bool).tril()
    total = nb * (nb + 1) / 2
    p = min(max((density * total - nb) / max(total - nb, 1), 0.0), 1.0) if keep_diagonal else density
    mask = (torch.rand(heads, nb, nb, generator=generator) < p) & causal
    if keep_diagonal:
        mask |= torch.eye(nb, dtype=torch.bool)
    empty = ~mask.any(dim=2)
    fallback = (torch.rand(heads, nb, generator=generator) * torch.arange(1, nb + 1)).long()
    mask[empty.nonzero(as_tuple=True) + (fallback[empty],)] = True
    return mask


@dataclass(frozen=True)
class BlockLayout:
    """Active key blocks per (head, query block): `col_idx[row_ptr[r]:row_ptr[r + 1]]` for row r = h * nb + m."""

    seq_len: int
    block_size: int
    heads: int
    row_ptr: torch.Tensor  # int64 [heads * nb + 1]
    col_idx: torch.Tensor  # int32 [nnz], ascending within each row

    @property
    def num_blocks(self) -> int:
        return num_blocks(self.seq_len, self.block_size)

    @property
    def nnz(self) -> int:
        return int(self.col_idx.numel())

    @classmethod
    def from_mask(cls, mask: torch.Tensor, seq_len: int, block_size: int) -> BlockLayout:
        """The layout of a boolean [H, nb, nb] mask; `ValueError` names what breaks the contract."""
        nb = num_blocks(seq_len, block_size)
        if mask.dtype != torch.bool or mask.dim() != 3 or tuple(mask.shape[1:]) != (nb, nb):
            raise ValueError(f"a block mask is a bool tensor [heads, {nb}, {nb}] for N={seq_len}, B={block_size}; "
                             f"got {mask.dtype} {tuple(mask.shape)}")
        above = torch.triu(mask, diagonal=1)
        if bool(above.any()):
            h, m, n = (int(i) for i in above.nonzero()[0])
            raise ValueError(f"block mask is not causal: head {h}, query block {m} selects key block {n} > {m}")
        counts = mask.sum(dim=2).reshape(-1)
        if bool((counts == 0).any()):
            row = int((counts == 0).nonzero()[0])
            raise ValueError(f"block mask leaves head {row // nb}, query block {row % nb} without any key block")
        row_ptr = torch.zeros(counts.numel() + 1, dtype=torch.int64, device=mask.device)
        row_ptr[1:] = counts.cumsum(0)
        col_idx = mask.reshape(-1, nb).nonzero()[:, 1].to(torch.int32)  # nonzero is row-major: ascending per row
        return cls(seq_len, block_size, int(mask.shape[0]), row_ptr, col_idx)

    def to_mask(self) -> torch.Tensor:
        nb = self.num_blocks
        rows = torch.repeat_interleave(torch.arange(self.heads * nb, device=self.row_ptr.device),
                                       self.row_ptr.diff())
        mask = torch.zeros(self.heads * nb, nb, dtype=torch.bool, device=self.row_ptr.device)
        mask[rows, self.col_idx.long()] = True
        return mask.reshape(self.heads, nb, nb)
