"""ProxyAttn's block scores: the reference against a full-softmax oracle, Triton against the reference."""
from __future__ import annotations

import math
import os

import pytest
import torch

if not torch.cuda.is_available():
    # read when the kernel module is imported (the tests import it lazily): CPU tensors run in the interpreter
    os.environ["TRITON_INTERPRET"] = "1"

from kernels.proxy_scores import proxy_block_scores, proxy_block_scores_reference, proxy_estimation_flops
from tests.extras import require_extra

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def _pooled(groups: int, seq_len: int, stride: int, head_dim: int, seed: int = 0,
            dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """Strided views of full-length q̄, k̄, as the method hands them over; x3 spreads the softmax."""
    gen = torch.Generator().manual_seed(seed)
    q = 3 * torch.randn(groups, seq_len, head_dim, generator=gen)
    k = torch.randn(groups, seq_len, head_dim, generator=gen)
    return q[:, ::stride].to(dtype), k[:, ::stride].to(dtype)


def _strided_softmax(q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
    """The full [g, Ns, Ns] causal softmax over the sampled keys, materialised at once."""
    logits = (q.double() @ k.double().transpose(1, 2)) * scale
    ns = q.shape[1]
    ahead = torch.ones(ns, ns, dtype=torch.bool).triu(1)
    return torch.softmax(logits.masked_fill(ahead, float("-inf")), dim=-1)


def _oracle_block_scores(q: torch.Tensor, k: torch.Tensor, seq_len: int, block_size: int, stride: int,
                         scale: float, tile_reduce: str) -> torch.Tensor:
    """Tiles cut by original positions: strided row i belongs to block floor(i * s / B)."""
    probs = _strided_softmax(q, k, scale)
    block_of = torch.arange(q.shape[1]) * stride // block_size
    nb = math.ceil(seq_len / block_size)
    scores = torch.zeros(q.shape[0], nb, nb, dtype=torch.float64)
    for m in range(nb):
        for n in range(m + 1):
            tile = probs[:, block_of == m][:, :, block_of == n]
            key_max = tile.amax(dim=2)
            scores[:, m, n] = key_max.amax(dim=1) if tile_reduce == "max" else key_max.mean(dim=1)
    return scores.float()


REFERENCE_CASES = [  # (N, B, s, groups, head_dim)
    (300, 32, 4, 1, 16),   # ragged: Ns = 75, the last block holds 3 strided rows
    (300, 32, 4, 3, 48),
    (256, 64, 2, 3, 16),   # N a multiple of B
    (130, 16, 1, 1, 48),   # stride 1: plain causal softmax
]


@pytest.mark.parametrize("tile_reduce", ["max", "max_mean"])
@pytest.mark.parametrize(("seq_len", "block_size", "stride", "groups", "head_dim"), REFERENCE_CASES)
def test_reference_matches_the_materialised_strided_softmax_oracle_for_any_chunking(
        seq_len, block_size, stride, groups, head_dim, tile_reduce):
    q, k = _pooled(groups, seq_len, stride, head_dim)
    scale = head_dim ** -0.5
    want = _oracle_block_scores(q, k, seq_len, block_size, stride, scale, tile_reduce)
    block_elements = groups * (block_size // stride) * q.shape[1]  # logits of one query block against all keys
    for blocks_per_chunk in (1, 3, 10 ** 6):  # one block per step; ragged chunks; everything in one chunk
        got = proxy_block_scores_reference(q, k, seq_len, block_size, stride, scale, tile_reduce,
                                           chunk_elements=blocks_per_chunk * block_elements)
        assert got.dtype == torch.float32 and got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=0, atol=1e-6, msg=lambda m, n=blocks_per_chunk: f"{n} blocks: {m}")


def test_with_one_position_per_block_the_scores_are_the_strided_softmax_whose_rows_sum_to_one():
    q, k = _pooled(2, 160, 4, 16)
    scores = proxy_block_scores_reference(q, k, 160, 4, 4, 0.25, "max")  # B = s: every tile is 1 x 1
    torch.testing.assert_close(scores, _strided_softmax(q, k, 0.25).float(), rtol=0, atol=1e-6)
    torch.testing.assert_close(scores.sum(dim=-1), torch.ones(2, 40), rtol=0, atol=1e-5)


@pytest.mark.parametrize("tile_reduce", ["max", "max_mean"])
def test_tiles_are_probabilities_positive_on_the_diagonal_and_zero_above_it(tile_reduce):
    q, k = _pooled(3, 300, 4, 16)
    scores = proxy_block_scores_reference(q, k, 300, 32, 4, 0.25, tile_reduce)
    diagonal = scores.diagonal(dim1=1, dim2=2)
    assert bool((diagonal > 0).all()) and bool((diagonal <= 1).all())
    assert bool((scores >= 0).all()) and bool((scores <= 1).all())
    assert bool((scores.triu(1) == 0).all())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_inputs_are_computed_in_fp32_and_stay_close_to_fp32_inputs(dtype):
    q, k = _pooled(1, 300, 4, 48)
    q_half, k_half = q.to(dtype), k.to(dtype)
    got = proxy_block_scores_reference(q_half, k_half, 300, 32, 4, 48 ** -0.5)
    assert got.dtype == torch.float32
    # exactly the fp32 computation of the rounded inputs ...
    exact = proxy_block_scores_reference(q_half.float(), k_half.float(), 300, 32, 4, 48 ** -0.5)
    torch.testing.assert_close(got, exact, rtol=0, atol=1e-6)
    # ... so only the rounding of the inputs separates it from the fp32 scores
    fp32 = proxy_block_scores_reference(q, k, 300, 32, 4, 48 ** -0.5)
    torch.testing.assert_close(got, fp32, rtol=0, atol=2e-2 if dtype == torch.bfloat16 else 3e-3)


TRITON_CASES = [  # (N, B, s, groups, head_dim): small, the interpreter runs every tile in Python
    (150, 32, 4, 2, 48),   # B/s = 8 < 16: padded query rows; d = 48 padded to 64; ragged Ns = 38
    (150, 48, 4, 1, 20),   # B/s = 12, not a power of two
    (192, 64, 2, 1, 16),   # B/s = 32, N a multiple of B
]


@pytest.mark.parametrize("tile_reduce", ["max", "max_mean"])
@pytest.mark.parametrize(("seq_len", "block_size", "stride", "groups", "head_dim"), TRITON_CASES)
def test_triton_kernel_matches_the_reference(seq_len, block_size, stride, groups, head_dim, tile_reduce):
    require_extra("sparse-attention")
    q, k = _pooled(groups, seq_len, stride, head_dim)
    scale = head_dim ** -0.5
    want = proxy_block_scores_reference(q, k, seq_len, block_size, stride, scale, tile_reduce)
    got = proxy_block_scores(q.to(DEVICE), k.to(DEVICE), seq_len, block_size, stride, scale, tile_reduce,
                             backend="triton")
    assert got.dtype == torch.float32 and got.shape == want.shape
    torch.testing.assert_close(got.cpu(), want, rtol=0, atol=1e-5)


def test_triton_kernel_reads_fp16_inputs_like_the_reference():
    require_extra("sparse-attention")
    q, k = _pooled(1, 150, 4, 32, dtype=torch.float16)
    want = proxy_block_scores_reference(q, k, 150, 32, 4, 32 ** -0.5)
    got = proxy_block_scores(q.to(DEVICE), k.to(DEVICE), 150, 32, 4, 32 ** -0.5, backend="triton")
    torch.testing.assert_close(got.cpu(), want, rtol=0, atol=1e-5)


def test_auto_backend_on_cpu_is_the_reference():
    q, k = _pooled(1, 300, 4, 16)
    torch.testing.assert_close(proxy_block_scores(q, k, 300, 32, 4, 0.25),
                               proxy_block_scores_reference(q, k, 300, 32, 4, 0.25), rtol=0, atol=0)


@pytest.mark.parametrize(("change", "message"), [
    ({"block_size": 30}, "multiple of stride"),
    ({"tile_reduce": "mean"}, "tile_reduce"),
    ({"backend": "cuda"}, "backend"),
    ({"seq_len": 320}, "Ns=80"),
    ({"k": torch.zeros(1, 75, 32)}, "head_dim"),
    ({"k": torch.zeros(1, 75, 16, device="meta")}, "device"),
    ({"k": torch.zeros(1, 75, 16, dtype=torch.float16)}, "dtype"),
], ids=["block-not-multiple-of-stride", "unknown-tile-reduce", "unknown-backend", "wrong-Ns", "shape-mismatch",
        "device-mismatch", "dtype-mismatch"])
def test_bad_arguments_raise_value_error_naming_the_problem(change, message):
    q, k = _pooled(1, 300, 4, 16)
    arguments = {"q_pooled": q, "k_pooled": k, "seq_len": 300, "block_size": 32, "stride": 4, "scale": 0.25}
    arguments.update({("k_pooled" if key == "k" else key): value for key, value in change.items()})
    with pytest.raises(ValueError, match=message):
        proxy_block_scores(**arguments)


def test_estimation_flops_count_two_per_multiply_add_of_the_causal_strided_product():
    ns = math.ceil(300 / 4)
    causal_pairs = int(torch.ones(ns, ns).tril().sum())
    assert proxy_estimation_flops(300, 4, groups=3, head_dim=48) == 2 * 3 * 48 * causal_pairs


def test_estimation_is_under_two_percent_of_dense_causal_attention_at_16k():
    seq_len, heads, head_dim = 16384, 8, 128
    dense = 2 * 2 * heads * head_dim * seq_len * (seq_len + 1) / 2  # QKᵀ and PV
    fraction = proxy_estimation_flops(seq_len, 4, groups=1, head_dim=head_dim) / dense
    assert fraction < 0.02
    assert fraction == pytest.approx(1 / (2 * heads * 4 ** 2), rel=1e-3)  # g / (2 Hq s²)
