"""Block-sparse attention: the Triton kernel (interpreted on CPU) == the torch reference == dense attention
under the N x N mask the block mask and causality imply, materialised here as the oracle."""
from __future__ import annotations

import math
import os

import pytest
import torch

HAS_CUDA = torch.cuda.is_available()
if not HAS_CUDA:
    # Triton reads TRITON_INTERPRET when @triton.jit decorates the kernel, i.e. when triton_kernel is
    # first imported (by the `triton_attention` fixture, after this line), not when triton is.
    os.environ["TRITON_INTERPRET"] = "1"

from tests.kernels import triton_kernel_module  # noqa: E402
from kernels.block_layout import BlockLayout, causal_block_mask, random_block_mask  # noqa: E402
from kernels.block_sparse_attention import (  # noqa: E402
    block_sparse_attention, block_sparse_attention_reference, dense_causal_attention,
)

# The Triton backend runs where it can: compiled on a GPU, interpreted on CPU tensors otherwise.
TRITON_DEVICE = "cuda" if HAS_CUDA else "cpu"
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs CUDA")


@pytest.fixture(scope="module")
def triton_attention():
    return triton_kernel_module("kernels.block_sparse_attention").block_sparse_attention_triton


def _qkv(q_heads: int, kv_heads: int, seq_len: int, dim: int, seed: int = 0,
         device: str = "cpu") -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    shapes = ((q_heads, seq_len, dim), (kv_heads, seq_len, dim), (kv_heads, seq_len, dim))
    return tuple(torch.randn(shape, generator=g).to(device) for shape in shapes)


def masked_dense_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_mask: torch.Tensor,
                           block_size: int, scale: float | None = None) -> torch.Tensor:
    """Float64 softmax attention under the full N x N mask: block mask expanded to tokens, and causal."""
    q_heads, seq_len, dim = q.shape
    group = q_heads // k.shape[0]
    tokens = block_mask.cpu().repeat_interleave(block_size, 1).repeat_interleave(block_size, 2)
    allowed = tokens[:, :seq_len, :seq_len] & torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
    keys = k.cpu().double().repeat_interleave(group, 0)
    values = v.cpu().double().repeat_interleave(group, 0)
    scores = q.cpu().double() @ keys.transpose(1, 2) * (dim**-0.5 if scale is None else scale)
    return scores.masked_fill(~allowed, -math.inf).softmax(-1) @ values


def _max_error(out: torch.Tensor, oracle: torch.Tensor) -> float:
    return float((out.cpu().double() - oracle).abs().max())


# (Hq, Hkv, N, B, d, diagonal kept, density): GQA ratios 1, 2, 4 and 7; ragged N; d not a power of two.
CASES = [
    pytest.param(2, 2, 64, 16, 16, True, 0.5, id="mha-N64-B16-d16"),
    pytest.param(4, 1, 100, 32, 48, False, 0.5, id="gqa4-ragged-N100-B32-d48-no-diagonal"),
    pytest.param(7, 1, 100, 32, 64, True, 0.7, id="gqa7-ragged-N100-B32-d64"),
    pytest.param(2, 1, 200, 32, 32, False, 0.3, id="gqa2-N200-B32-d32-no-diagonal"),
    pytest.param(1, 1, 130, 16, 24, False, 0.3, id="mha-ragged-N130-B16-d24-no-diagonal"),
]


def _case(q_heads: int, kv_heads: int, seq_len: int, block: int, dim: int, keep_diagonal: bool, density: float,
          device: str = "cpu"):
    q, k, v = _qkv(q_heads, kv_heads, seq_len, dim, device=device)
    mask = random_block_mask(q_heads, seq_len, block, density, keep_diagonal, torch.Generator().manual_seed(1))
    return q, k, v, mask, BlockLayout.from_mask(mask.to(device), seq_len, block)


@pytest.mark.parametrize("q_heads, kv_heads, seq_len, block, dim, keep_diagonal, density", CASES)
def test_reference_equals_attention_under_the_materialised_mask(q_heads, kv_heads, seq_len, block, dim,
                                                                keep_diagonal, density):
    q, k, v, mask, layout = _case(q_heads, kv_heads, seq_len, block, dim, keep_diagonal, density)
    out = block_sparse_attention_reference(q, k, v, layout)
    assert out.shape == q.shape and out.dtype == torch.float32
    assert _max_error(out, masked_dense_attention(q, k, v, mask, block)) <= 1e-4


@pytest.mark.parametrize("q_heads, kv_heads, seq_len, block, dim, keep_diagonal, density", CASES)
def test_triton_equals_the_reference_and_the_materialised_mask(triton_attention, q_heads, kv_heads, seq_len,
                                                               block, dim, keep_diagonal, density):
    q, k, v, mask, layout = _case(q_heads, kv_heads, seq_len, block, dim, keep_diagonal, density, TRITON_DEVICE)
    out = triton_attention(q, k, v, layout)
    assert out.shape == q.shape and out.dtype == torch.float32
    assert _max_error(out, masked_dense_attention(q, k, v, mask, block)) <= 1e-4
    assert _max_error(out, block_sparse_attention_reference(q, k, v, layout).cpu().double()) <= 1e-4


@pytest.mark.parametrize("backend", ["reference", "triton"])
def test_sliding_window_layout_equals_the_materialised_mask(request, backend):
    """Every row three blocks wide: more equal rows than the reference batches at once, so it splits them."""
    attention = (request.getfixturevalue("triton_attention") if backend == "triton"
                 else block_sparse_attention_reference)
    device = TRITON_DEVICE if backend == "triton" else "cpu"
    q, k, v = _qkv(2, 1, 150, 16, device=device)
    ones = torch.ones(10, 10, dtype=torch.bool)
    mask = (ones.tril() & ones.triu(-2)).expand(2, 10, 10).clone()          # the diagonal and two before it
    layout = BlockLayout.from_mask(mask.to(device), 150, 16)
    assert _max_error(attention(q, k, v, layout), masked_dense_attention(q, k, v, mask, 16)) <= 1e-4


def test_an_explicit_scale_replaces_one_over_sqrt_d(triton_attention):
    q, k, v, mask, layout = _case(4, 2, 96, 32, 32, True, 0.5, TRITON_DEVICE)
    oracle = masked_dense_attention(q, k, v, mask, 32, scale=0.3)
    assert _max_error(block_sparse_attention_reference(q, k, v, layout, scale=0.3), oracle) <= 1e-4
    assert _max_error(triton_attention(q, k, v, layout, scale=0.3), oracle) <= 1e-4


@pytest.mark.parametrize("backend", ["reference", "triton"])
def test_full_causal_layout_equals_dense_sdpa(request, backend):
    attention = (request.getfixturevalue("triton_attention") if backend == "triton"
                 else block_sparse_attention_reference)
    device = TRITON_DEVICE if backend == "triton" else "cpu"
    q, k, v = _qkv(4, 1, 100, 32, device=device)
    layout = BlockLayout.from_mask(causal_block_mask(4, 100, 32, device=device), 100, 32)
    assert _max_error(attention(q, k, v, layout), dense_causal_attention(q, k, v).cpu().double()) <= 1e-4


@pytest.mark.parametrize("backend", ["reference", "triton"])
def test_sequence_major_inputs_viewed_as_head_major_give_the_same_result(request, backend):
    """Q, K, V sliced from [N, H, d] projections are strided views; both backends read them as they are."""
    attention = (request.getfixturevalue("triton_attention") if backend == "triton"
                 else block_sparse_attention_reference)
    device = TRITON_DEVICE if backend == "triton" else "cpu"
    q, k, v, mask, layout = _case(4, 2, 100, 32, 32, True, 0.5, device)
    strided = [x.transpose(0, 1).contiguous().transpose(0, 1) for x in (q, k, v)]
    assert not strided[0].is_contiguous()
    assert _max_error(attention(*strided, layout), masked_dense_attention(q, k, v, mask, 32)) <= 1e-4


def test_dense_causal_attention_equals_the_materialised_causal_mask_with_gqa():
    q, k, v = _qkv(6, 2, 70, 24)
    oracle = masked_dense_attention(q, k, v, causal_block_mask(6, 70, 16), 16)
    assert _max_error(dense_causal_attention(q, k, v), oracle) <= 1e-4
    half = dense_causal_attention(q.half(), k.half(), v.half())
    assert half.dtype == torch.float16


# Tolerances: the output's own rounding plus, in Triton, probabilities rounded to the input dtype.
HALF_TOLERANCE = {torch.float16: 4e-3, torch.bfloat16: 3e-2}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("backend", ["reference", "triton"])
def test_half_precision_inputs_return_their_dtype_close_to_the_float32_result(request, backend, dtype):
    if backend == "triton":
        attention = request.getfixturevalue("triton_attention")
        if dtype == torch.bfloat16 and not HAS_CUDA:
            pytest.skip("the Triton interpreter multiplies bfloat16 bit patterns in tl.dot "
                        "(triton-lang/triton#11584); bf16 runs in the GPU tests")
    else:
        attention = block_sparse_attention_reference
    device = TRITON_DEVICE if backend == "triton" else "cpu"
    q, k, v, _, layout = _case(4, 1, 100, 32, 48, False, 0.5, device)
    q, k, v = (x.to(dtype) for x in (q, k, v))
    out = attention(q, k, v, layout)
    exact = block_sparse_attention_reference(q.float(), k.float(), v.float(), layout)
    assert out.dtype == dtype
    assert _max_error(out.float(), exact.cpu().double()) <= HALF_TOLERANCE[dtype]


def test_auto_backend_on_cpu_is_the_reference():
    q, k, v, _, layout = _case(4, 2, 100, 32, 32, True, 0.5)
    assert torch.equal(block_sparse_attention(q, k, v, layout), block_sparse_attention_reference(q, k, v, layout))


@pytest.mark.parametrize("change, backend, message", [
    (lambda q, k, v: (q, k, v), "cuda-graph", "unknown backend 'cuda-graph'"),
    (lambda q, k, v: (q[:, :96], k[:, :96], v[:, :96]), "auto", "N=100"),
    (lambda q, k, v: (q[:2], k[:1], v[:1]), "auto", "covers 4 heads"),
    (lambda q, k, v: (q[:3], k, v), "auto", "not a multiple of 2 KV heads"),
    (lambda q, k, v: (q, k.half(), v), "auto", "share one dtype"),
    (lambda q, k, v: (q.double(), k.double(), v.double()), "auto", "share one dtype"),
    (lambda q, k, v: (q, k.to("meta"), v.to("meta")), "reference", "share one device"),
    (lambda q, k, v: (q[0], k, v), "auto", r"\[heads, N, d\]"),
    (lambda q, k, v: (q, k, v[..., :16]), "auto", "shapes do not agree"),
], ids=["unknown-backend", "seq-len", "heads", "gqa-ratio", "dtype-mismatch", "float64", "device", "rank",
        "v-shape"])
def test_dispatcher_names_what_is_wrong(change, backend, message):
    q, k, v, _, layout = _case(4, 2, 100, 32, 32, True, 0.5)
    with pytest.raises(ValueError, match=message):
        block_sparse_attention(*change(q, k, v), layout, backend=backend)


def test_triton_backend_without_triton_installed_is_a_clear_error(monkeypatch):
    import kernels.block_sparse_attention as package

    monkeypatch.setattr(package, "_triton_installed", lambda: False)
    q, k, v, _, layout = _case(2, 2, 64, 16, 16, True, 0.5)
    with pytest.raises(ValueError, match="needs the triton package"):
        block_sparse_attention(q, k, v, layout, backend="triton")


def test_triton_rejects_a_block_size_tl_dot_cannot_tile(triton_attention):
    q, k, v = _qkv(2, 2, 48, 16, device=TRITON_DEVICE)
    layout = BlockLayout.from_mask(causal_block_mask(2, 48, 24, device=TRITON_DEVICE), 48, 24)
    with pytest.raises(ValueError, match="power-of-two block size"):
        triton_attention(q, k, v, layout)


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("dtype, tolerance", [(torch.float32, 1e-4), (torch.float16, 4e-3), (torch.bfloat16, 3e-2)],
                         ids=["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("block", [64, 128])
def test_compiled_triton_on_cuda_equals_the_reference(triton_attention, block, dtype, tolerance):
    q, k, v, _, layout = _case(8, 2, 1000, block, 128, False, 0.3, "cuda")
    q, k, v = (x.to(dtype) for x in (q, k, v))
    out = triton_attention(q, k, v, layout)
    exact = block_sparse_attention_reference(q.float(), k.float(), v.float(), layout)
    assert out.dtype == dtype and _max_error(out.float(), exact.cpu().double()) <= tolerance


@pytest.mark.gpu
@needs_cuda
def test_auto_backend_on_cuda_is_triton(triton_attention, monkeypatch):
    import kernels.block_sparse_attention as package

    q, k, v, _, layout = _case(4, 2, 300, 64, 64, True, 0.5, "cuda")
    expected = triton_attention(q, k, v, layout)
    monkeypatch.setattr(package, "block_sparse_attention_reference", None)  # calling it would fail
    assert torch.equal(block_sparse_attention(q, k, v, layout), expected)
