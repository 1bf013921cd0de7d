"""The shape every sparse-attention method shares: estimate a block mask, then run the one backend.

Subclasses implement `estimate` only, so a comparison between methods is a comparison of their
estimation: same kernel, same block size, same timing. `run` times estimation and attention
apart (CUDA-synchronised on a GPU) and records them with the estimation's analytic cost.
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from harness import Method, MethodParams, RunContext
from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention import block_sparse_attention
from methods.sparse_attention.problem import AttentionCase, PrefillInputs, PrefillOutput
from methods.sparse_attention.timing import timed

P = TypeVar("P", bound=MethodParams)


@dataclass(frozen=True)
class Estimate:
    """A method's answer for one case: its block mask, what estimating it cost, and any fallback taken."""

    mask: torch.Tensor   # bool [Hq, nb, nb]
    flops: float         # analytic FLOPs of the estimation (2 per multiply-add)
    fallback: str | None = None  # e.g. "dense: N <= min budget"; recorded, never silent


@dataclass(frozen=True)
class Prefill:
    """One case's sparse prefill: the estimate, the attention output and the two stages' times."""

    estimate: Estimate
    output: torch.Tensor
    estimation_ms: float
    attention_ms: float


def dense_attention_flops(case: AttentionCase) -> float:
    """FLOPs of causal attention computed exactly: QK^T and PV over the N(N+1)/2 causal pairs per head."""
    n = case.seq_len
    return 2.0 * 2.0 * case.q_heads * case.head_dim * n * (n + 1) / 2


class BlockSparseMethod(Method[P]):
    """A sparse prefill method: `estimate` picks the blocks; the family's backend attends over them."""

    @abstractmethod
    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        """The block mask for `case` (on `case`'s device) and the analytic cost of computing it."""

    def attend(self, case: AttentionCase, layout: BlockLayout) -> torch.Tensor:
        """The attention output under `layout`: the shared block-sparse kernel (dense overrides it with SDPA)."""
        return block_sparse_attention(case.q, case.k, case.v, layout)

    def run(self, inputs: Any, ctx: RunContext) -> Any:
        """One layer's cases (the fidelity task) or prompts to answer with sparse prefill (the long-context task)."""
        if isinstance(inputs, PrefillInputs):
            return self.run_prefill(inputs, ctx)
        from methods.sparse_attention.long_context import LongContextInputs, run_long_context

        if isinstance(inputs, LongContextInputs):
            return run_long_context(self, inputs, ctx)
        raise TypeError(f"a sparse-attention method takes PrefillInputs or LongContextInputs, "
                        f"got {type(inputs).__name__}")

    def prefill(self, case: AttentionCase, block_size: int) -> Prefill:
        """Estimate, then attend over the mask: one layer's sparse prefill, its two stages timed apart."""
        device = case.q.device
        with torch.no_grad():
            estimate, estimation_ms = timed(lambda: self.estimate(case, block_size), device)
            layout = BlockLayout.from_mask(estimate.mask, case.seq_len, block_size)
            output, attention_ms = timed(lambda: self.attend(case, layout), device)
        return Prefill(estimate, output, estimation_ms, attention_ms)

    def run_prefill(self, inputs: PrefillInputs, ctx: RunContext) -> PrefillOutput:
        masks: list[torch.Tensor] = []
        estimation_ms = attention_ms = flops = dense_flops = 0.0
        fallbacks = 0
        for index, case in enumerate(inputs.cases):
            case = case.to(ctx.device)
            if index == 0 and case.q.device.type == "cuda":  # compile Triton kernels and warm caches untimed
                self.prefill(case, inputs.block_size)
            result = self.prefill(case, inputs.block_size)
            estimation_ms += result.estimation_ms
            attention_ms += result.attention_ms
            if result.estimate.fallback:
                fallbacks += 1
                ctx.log.info("%s: %s", case.name, result.estimate.fallback)
            flops += result.estimate.flops
            dense_flops += dense_attention_flops(case)
            masks.append(result.estimate.mask.cpu())
        ctx.record("estimation_ms", estimation_ms, "ms", higher_is_better=False)
        ctx.record("attention_ms", attention_ms, "ms", higher_is_better=False)
        ctx.record("prefill_ms", estimation_ms + attention_ms, "ms", higher_is_better=False)
        ctx.record("estimation_flop_fraction", flops / dense_flops, "", higher_is_better=False)
        ctx.record("dense_fallbacks", fallbacks, "cases")
        return PrefillOutput(tuple(masks))
