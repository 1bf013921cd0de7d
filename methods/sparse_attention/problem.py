"""What a sparse-attention method sees: one or more prefill attention problems of one layer each.

Q is [Hq, N, d], K and V are [Hkv, N, d] (after RoPE, batch 1), causal, grouped-query:
query head h reads KV head h // (Hq / Hkv). A method answers each case with a block mask
[Hq, nb, nb] (`kernels.block_layout`); the family's one block-sparse backend computes the output,
so methods differ in their estimation alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from harness import DataError


@dataclass(frozen=True)
class AttentionCase:
    """One layer's prefill attention: `name` says where it came from (e.g. `prompt0/layer3`)."""

    name: str
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor

    @property
    def q_heads(self) -> int:
        return int(self.q.shape[0])

    @property
    def kv_heads(self) -> int:
        return int(self.k.shape[0])

    @property
    def seq_len(self) -> int:
        return int(self.q.shape[1])

    @property
    def head_dim(self) -> int:
        return int(self.q.shape[2])

    @property
    def group_size(self) -> int:
        """Query heads per KV head (the GQA ratio)."""
        return self.q_heads // self.kv_heads

    def to(self, device: str) -> AttentionCase:
        return AttentionCase(self.name, self.q.to(device), self.k.to(device), self.v.to(device))


@dataclass(frozen=True)
class PrefillInputs:
    """The cases of one instance and the block size every method's mask uses."""

    cases: tuple[AttentionCase, ...]
    block_size: int


def check_case(case: AttentionCase, source: str) -> None:
    """`DataError` naming the case and what is wrong: shapes, head ratio, dtypes, devices, NaN."""
    q, k, v = case.q, case.k, case.v
    where = f"case '{case.name}'"
    if q.dim() != 3 or k.dim() != 3 or v.dim() != 3:
        raise DataError(f"{where}: Q, K, V must be [heads, N, d]; got {tuple(q.shape)}, {tuple(k.shape)}, "
                        f"{tuple(v.shape)}", file=source)
    if k.shape != v.shape or q.shape[1:] != k.shape[1:]:
        raise DataError(f"{where}: shapes do not agree: Q {tuple(q.shape)}, K {tuple(k.shape)}, V {tuple(v.shape)} "
                        "(K and V share a shape; Q differs from them in the head count only)", file=source)
    if q.shape[0] % k.shape[0]:
        raise DataError(f"{where}: {q.shape[0]} query heads do not divide into {k.shape[0]} KV heads",
                        file=source, hint="Grouped-query attention needs Hq to be a multiple of Hkv.")
    if len({q.dtype, k.dtype, v.dtype}) > 1 or len({q.device, k.device, v.device}) > 1:
        raise DataError(f"{where}: Q, K, V must share one dtype and device; got {q.dtype}/{k.dtype}/{v.dtype} on "
                        f"{q.device}/{k.device}/{v.device}", file=source)
    if q.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise DataError(f"{where}: dtype {q.dtype} is not supported (float32, float16, bfloat16)", file=source)
    for name, tensor in (("Q", q), ("K", k), ("V", v)):
        if not bool(torch.isfinite(tensor).all()):
            raise DataError(f"{where}: {name} has {int((~torch.isfinite(tensor)).sum())} non-finite values",
                            file=source, hint="Capture the tensors again; NaN or inf make every score meaningless.")


@dataclass(frozen=True)
class PrefillOutput:
    """One mask per case, in the order of `PrefillInputs.cases`."""

    masks: tuple[torch.Tensor, ...]
