"""The CPU block-sparse attention (the torch reference) against dense causal SDPA, in one run, at N = 16K.

The issue's targets at density 0.25: sparse wall time at most 0.4x dense SDPA, memory O(N·B). Both
figures go to extra_info; neither is asserted (benchmarks measure). Dense SDPA is timed in each
round's setup, so the two alternate and share whatever else the machine is doing. Both run on one
torch thread, as the graph benchmarks do: on a shared 2-core runner a second thread mostly measures
the neighbours (the sparse path's few dozen parallel calls each wait for a descheduled thread).
"""
from __future__ import annotations

import ctypes
import time
from collections.abc import Callable

import pytest
import torch

from harness.measure import peak_rss_mb, reset_peak_rss
from kernels.block_layout import BlockLayout, random_block_mask
from kernels.block_sparse_attention import block_sparse_attention_reference, dense_causal_attention

SEQ_LEN, BLOCK, HEAD_DIM, DENSITY = 16384, 128, 128, 0.25


def _release_freed_heap() -> None:
    """Hand glibc's cached free memory back to the OS, so an earlier call's buffers do not hide this one's."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the figure is then a lower bound
        pass


def _peak_extra_mb(fn: Callable[[], torch.Tensor]) -> float:
    """Peak resident memory above the resident memory at the call, output included."""
    _release_freed_heap()
    reset_peak_rss()
    before = peak_rss_mb()
    fn()
    return peak_rss_mb() - before


@pytest.mark.parametrize("heads", [1, 2])
def test_sparse_reference_at_density_quarter_against_dense_sdpa_at_16k(benchmark, one_thread, heads):
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(heads, SEQ_LEN, HEAD_DIM, generator=gen) for _ in range(3))
    mask = random_block_mask(heads, SEQ_LEN, BLOCK, DENSITY, keep_diagonal=True, generator=gen)
    layout = BlockLayout.from_mask(mask, SEQ_LEN, BLOCK)
    dense_s: list[float] = []

    def time_dense() -> None:
        start = time.perf_counter()
        dense_causal_attention(q, k, v)
        dense_s.append(time.perf_counter() - start)

    benchmark.pedantic(block_sparse_attention_reference, args=(q, k, v, layout), setup=time_dense,
                       rounds=3, iterations=1)
    sparse_ms, dense_ms = benchmark.stats.stats.min * 1e3, min(dense_s) * 1e3
    causal_blocks = heads * mask.shape[1] * (mask.shape[1] + 1) / 2
    figures = {
        "density": round(float(mask.sum()) / causal_blocks, 4),
        "sparse_ms": round(sparse_ms, 1),
        "dense_ms": round(dense_ms, 1),
        "time_ratio": round(sparse_ms / dense_ms, 3),
        "sparse_peak_extra_mb": round(_peak_extra_mb(lambda: block_sparse_attention_reference(q, k, v, layout)), 1),
        "dense_peak_extra_mb": round(_peak_extra_mb(lambda: dense_causal_attention(q, k, v)), 1),
        "hq_n_b_fp32_mb": heads * SEQ_LEN * BLOCK * 4 / 2**20,   # the O(Hq·N·B) unit
        "n_by_n_fp32_mb": heads * SEQ_LEN**2 * 4 / 2**20,        # what materialising the scores would take
    }
    benchmark.extra_info.update(figures)
    print(f"\n{heads} head(s): sparse {sparse_ms:.0f} ms, dense SDPA {dense_ms:.0f} ms, "
          f"ratio {sparse_ms / dense_ms:.2f}; peak extra memory sparse {figures['sparse_peak_extra_mb']} MB, "
          f"dense {figures['dense_peak_extra_mb']} MB (Hq·N·B fp32 = {figures['hq_n_b_fp32_mb']:.0f} MB)")
