"""GPTQ-format W4A16 matmul: the packing against the format's bit layout, dequantization against a hand
computation, and the CPU path and the Triton kernel (interpreted on CPU) against the plain reference."""
from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
import torch

HAS_CUDA = torch.cuda.is_available()
if not HAS_CUDA:
    # Triton reads TRITON_INTERPRET when @triton.jit decorates the kernel, i.e. when triton_kernel is
    # first imported (by the `triton_matmul` fixture, after this line), not when triton is.
    os.environ["TRITON_INTERPRET"] = "1"

import kernels.int4_matmul as package  # noqa: E402
from tests.kernels import triton_kernel_module  # noqa: E402
from kernels.int4_matmul import (  # noqa: E402
    dequantize, pack_cols, pack_rows, quantize_rtn, unpack_cols, unpack_rows, w4a16_flops, w4a16_matmul,
    w4a16_matmul_cpu, w4a16_matmul_reference,
)

TRITON_DEVICE = "cuda" if HAS_CUDA else "cpu"
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs CUDA")


@pytest.fixture(scope="module")
def triton_matmul():
    return triton_kernel_module("kernels.int4_matmul").w4a16_matmul_triton


def _quantized(in_features: int, out_features: int, group_size: int, bits: int = 4,
               scale_dtype: torch.dtype = torch.float16, seed: int = 0,
               device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(qweight, scales, qzeros) from uniformly random codes and zero-points (so every top field is set
    somewhere) and positive scales of a realistic size for weights of about 0.02-0.05."""
    gen = torch.Generator().manual_seed(seed)
    n_groups = in_features // group_size
    codes = torch.randint(0, 1 << bits, (in_features, out_features), generator=gen)
    zeros = torch.randint(0, 1 << bits, (n_groups, out_features), generator=gen)
    scales = (0.005 + 0.01 * torch.rand(n_groups, out_features, generator=gen)).to(scale_dtype)
    return pack_rows(codes, bits).to(device), scales.to(device), pack_cols(zeros, bits).to(device)


def _dtype_id(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _activations(shape: tuple[int, ...], dtype: torch.dtype = torch.float32, seed: int = 1,
                 device: str = "cpu") -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype).to(device)


TOLERANCE = {torch.float32: {"rtol": 1e-5, "atol": 1e-5}, torch.float16: {"rtol": 1e-2, "atol": 1e-2},
             torch.bfloat16: {"rtol": 2e-2, "atol": 5e-2}}


# --- packing --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bits", [2, 4, 8])
def test_unpack_inverts_pack_for_every_width_including_negative_words(bits):
    gen = torch.Generator().manual_seed(bits)
    codes = torch.randint(0, 1 << bits, (64, 24), generator=gen)
    codes[-1] = (1 << bits) - 1  # every code of the last word's top field has its top bit set
    qweight = pack_rows(codes, bits)
    assert qweight.dtype == torch.int32 and qweight.shape == (64 * bits // 32, 24)
    assert bool((qweight[-1] < 0).all())
    assert torch.equal(unpack_rows(qweight, bits).long(), codes)

    zeros = codes[-16:].t().contiguous()  # [24, 16] packed along its 16 columns, top fields set
    qzeros = pack_cols(zeros, bits)
    assert qzeros.dtype == torch.int32 and qzeros.shape == (24, 16 * bits // 32)
    assert bool((qzeros[:, -1] < 0).all())
    assert torch.equal(unpack_cols(qzeros, bits).long(), zeros)


def test_four_bit_rows_sit_in_nibbles_lowest_first_and_a_top_nibble_makes_the_word_negative():
    column = torch.tensor([1, 2, 3, 4, 5, 6, 7, 15]).view(8, 1)
    word = sum(int(code) << (4 * k) for k, code in enumerate(column.flatten()))  # 0xF7654321
    assert pack_rows(column, 4).item() == word - (1 << 32)
    assert pack_cols(column.t(), 4).item() == word - (1 << 32)  # columns use the same bit order
    two_bit = torch.tensor([3] + [0] * 14 + [2]).view(16, 1)
    assert pack_rows(two_bit, 2).item() == 3 + (2 << 30) - (1 << 32)


def test_dequantize_matches_a_hand_computed_example():
    # in 8 rows, 8 columns, group_size 4 -> 2 groups; column 0 and 7 worked by hand below
    codes = torch.arange(64).view(8, 8) % 16
    zeros = torch.tensor([[8, 0, 0, 0, 0, 0, 0, 15], [3, 0, 0, 0, 0, 0, 0, 1]])
    scales = torch.full((2, 8), 0.5)
    scales[1] = 0.25
    weight = dequantize(pack_rows(codes, 4), scales, pack_cols(zeros, 4), group_size=4)
    assert weight.dtype == torch.float32 and weight.shape == (8, 8)
    # column 0 codes are 0, 8, 0, 8 | 0, 8, 0, 8; group 0 has zero 8 and scale 0.5, group 1 zero 3 and 0.25
    assert weight[:, 0].tolist() == [-4.0, 0.0, -4.0, 0.0, -0.75, 1.25, -0.75, 1.25]
    # column 7 codes are 7, 15, 7, 15 | 7, 15, 7, 15; zeros 15 then 1
    assert weight[:, 7].tolist() == [-4.0, 0.0, -4.0, 0.0, 1.5, 3.5, 1.5, 3.5]
    by_formula = torch.tensor([[scales[r // 4, c].item() * (codes[r, c].item() - zeros[r // 4, c].item())
                                for c in range(8)] for r in range(8)])
    assert torch.equal(weight, by_formula)


def test_zero_points_are_stored_exactly_not_minus_one_as_in_gptq_v1():
    codes = torch.full((8, 8), 8)
    weight = dequantize(pack_rows(codes, 4), torch.ones(1, 8), pack_cols(torch.full((1, 8), 8), 4), group_size=8)
    assert bool((weight == 0).all())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=_dtype_id)
def test_dequantize_rounds_the_fp32_product_once_to_the_requested_dtype(dtype):
    qweight, scales, qzeros = _quantized(64, 16, 32, scale_dtype=torch.float32)
    exact = dequantize(qweight, scales, qzeros, 32)
    assert torch.equal(dequantize(qweight, scales, qzeros, 32, dtype=dtype), exact.to(dtype))


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_round_to_nearest_quantization_is_within_half_a_step_of_the_weight(bits):
    weight = 0.05 * torch.randn(256, 48, generator=torch.Generator().manual_seed(3))
    qweight, scales, qzeros = quantize_rtn(weight, 64, bits, scale_dtype=torch.float32)
    error = (dequantize(qweight, scales, qzeros, 64, bits) - weight).abs()
    half_step = scales.repeat_interleave(64, dim=0) / 2
    assert bool((error <= half_step * (1 + 1e-5)).all())


# --- matmul: CPU path and Triton against the reference --------------------------------------------------

@pytest.mark.parametrize("x_dtype", [torch.float32, torch.float16, torch.bfloat16], ids=_dtype_id)
@pytest.mark.parametrize("scale_dtype", [torch.float32, torch.float16, torch.bfloat16], ids=_dtype_id)
@pytest.mark.parametrize("group_size", [64, 128])
@pytest.mark.parametrize("with_bias", [False, True], ids=["no-bias", "bias"])
def test_cpu_path_matches_the_reference(x_dtype, scale_dtype, group_size, with_bias):
    qweight, scales, qzeros = _quantized(256, 64, group_size, scale_dtype=scale_dtype)
    x = _activations((2, 8, 256), x_dtype)
    bias = _activations((64,), x_dtype, seed=2) if with_bias else None
    want = w4a16_matmul_reference(x, qweight, scales, qzeros, group_size, bias)
    got = w4a16_matmul_cpu(x, qweight, scales, qzeros, group_size, bias)
    assert got.dtype == x_dtype and got.shape == (2, 8, 64)
    torch.testing.assert_close(got.float(), want.float(), **TOLERANCE[x_dtype])


@pytest.mark.parametrize("bits", [2, 8])
def test_cpu_path_and_reference_agree_for_two_and_eight_bit_weights(bits):
    qweight, scales, qzeros = _quantized(256, 64, 64, bits=bits, scale_dtype=torch.float32)
    x = _activations((16, 256))
    want = x @ dequantize(qweight, scales, qzeros, 64, bits)
    for backend in ("cpu", "reference"):
        torch.testing.assert_close(w4a16_matmul(x, qweight, scales, qzeros, 64, bits=bits, backend=backend), want,
                                   **TOLERANCE[torch.float32])


@pytest.mark.parametrize("x_dtype", [torch.float32, torch.float16], ids=_dtype_id)
@pytest.mark.parametrize("scale_dtype", [torch.float32, torch.float16], ids=_dtype_id)
@pytest.mark.parametrize("group_size", [64, 128])
@pytest.mark.parametrize("with_bias", [False, True], ids=["no-bias", "bias"])
def test_triton_kernel_matches_the_reference(triton_matmul, x_dtype, scale_dtype, group_size, with_bias):
    """bf16 runs on CUDA only (test_compiled_triton_on_cuda...): triton 3.9's interpreter truncates
    fp32 -> bf16 and its bf16 tl.dot returns garbage, so there is nothing to compare on CPU."""
    qweight, scales, qzeros = _quantized(256, 64, group_size, scale_dtype=scale_dtype, device=TRITON_DEVICE)
    x = _activations((2, 8, 256), x_dtype, device=TRITON_DEVICE)  # 3-D: M = 16 rows
    bias = _activations((64,), torch.float32, seed=2, device=TRITON_DEVICE) if with_bias else None
    want = w4a16_matmul_reference(x.cpu(), qweight.cpu(), scales.cpu(), qzeros.cpu(), group_size,
                                  None if bias is None else bias.cpu())
    got = triton_matmul(x, qweight, scales, qzeros, group_size, bias)
    assert got.dtype == x_dtype and got.shape == (2, 8, 64)
    torch.testing.assert_close(got.cpu().float(), want.float(), **TOLERANCE[x_dtype])


def test_triton_kernel_handles_ragged_rows_and_columns_and_strided_activations(triton_matmul):
    qweight, scales, qzeros = _quantized(96, 72, 48, scale_dtype=torch.float32, device=TRITON_DEVICE)
    x = _activations((20, 192), device=TRITON_DEVICE)[:, ::2]  # 20 rows (BLOCK_M 32), a non-unit stride
    want = w4a16_matmul_reference(x.cpu(), qweight.cpu(), scales.cpu(), qzeros.cpu(), 48)
    got = triton_matmul(x, qweight, scales, qzeros, 48)
    torch.testing.assert_close(got.cpu(), want, **TOLERANCE[torch.float32])


def test_triton_kernel_rejects_what_it_does_not_implement(triton_matmul):
    qweight, scales, qzeros = _quantized(64, 16, 32, bits=8, device=TRITON_DEVICE)
    x = _activations((4, 64), device=TRITON_DEVICE)
    with pytest.raises(ValueError, match="supports 4-bit; use backend='reference'"):
        triton_matmul(x, qweight, scales, qzeros, 32, bits=8)
    qweight, scales, qzeros = _quantized(64, 16, 8, device=TRITON_DEVICE)
    with pytest.raises(ValueError, match="multiple of 16"):
        triton_matmul(x, qweight, scales, qzeros, 8)


# --- errors, dispatch, cost -----------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "message"), [
    (lambda: pack_rows(torch.tensor([[16]] * 8), 4), r"0\.\.15 for bits=4"),
    (lambda: pack_rows(torch.tensor([[-1]] * 8), 4), r"0\.\.15 for bits=4"),
    (lambda: pack_rows(torch.zeros(12, 2, dtype=torch.int64), 4), "not divisible by 8"),
    (lambda: pack_cols(torch.zeros(2, 12, dtype=torch.int64), 4), "not divisible by 8"),
    (lambda: pack_rows(torch.zeros(8, 2), 4), "integer tensor"),
    (lambda: pack_rows(torch.zeros(12, 2, dtype=torch.int64), 3), "bits must be one of"),
    (lambda: unpack_rows(torch.zeros(2, 2, dtype=torch.int64), 4), "int32"),
], ids=["code-too-large", "code-negative", "rows-not-divisible", "cols-not-divisible", "float-codes",
        "unsupported-bits", "qweight-not-int32"])
def test_packing_names_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


QUANTIZED = _quantized(256, 64, 64)


@pytest.mark.parametrize(("change", "message"), [
    ({"group_size": 96}, "group_size 96 does not divide in_features 256"),
    ({"group_size": 0}, "group_size must be a positive int"),
    ({"scales": QUANTIZED[1][:2]}, r"scales must be \[n_groups, out_features\] = \[4, 64\]"),
    ({"scales": QUANTIZED[1].to(torch.int32)}, "scales must be floating"),
    ({"qzeros": QUANTIZED[2][:, :4]}, r"qzeros must be int32 \[n_groups, out_features // 8\] = \[4, 8\]"),
    ({"qweight": QUANTIZED[0].long()}, "qweight must be a 2-D int32"),
    ({"bits": 3}, "bits must be one of"),
    ({"x": torch.zeros(4, 128)}, "x has 128 features"),
    ({"x": torch.zeros(4, 256, dtype=torch.int32)}, "x must be a floating"),
    ({"bias": torch.zeros(32)}, r"bias must be \[out_features\] = \[64\]"),
    ({"x": torch.zeros(4, 256, device="meta")}, "one device"),
    ({"backend": "cuda"}, "unknown backend"),
], ids=["group-not-dividing", "group-zero", "scales-shape", "scales-dtype", "qzeros-shape", "qweight-dtype",
        "bits-unsupported", "x-features", "x-dtype", "bias-shape", "device-mismatch", "unknown-backend"])
@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_matmul_names_what_is_wrong(change, message, backend):
    qweight, scales, qzeros = QUANTIZED
    arguments = {"x": torch.zeros(4, 256), "qweight": qweight, "scales": scales, "qzeros": qzeros,
                 "group_size": 64, "backend": backend}
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        w4a16_matmul(**arguments)


def test_out_features_that_cannot_fill_whole_zero_point_words_are_rejected():
    qweight = pack_rows(torch.zeros(8, 12, dtype=torch.int64), 4)
    with pytest.raises(ValueError, match="out_features 12 is not divisible by 8"):
        dequantize(qweight, torch.ones(1, 12), torch.zeros(1, 1, dtype=torch.int32), 8)


def test_auto_backend_on_cpu_runs_the_cpu_path(monkeypatch):
    qweight, scales, qzeros = QUANTIZED
    x = _activations((4, 256))
    monkeypatch.setattr(package, "w4a16_matmul_cpu", lambda *args: "cpu path")
    assert w4a16_matmul(x, qweight, scales, qzeros, 64) == "cpu path"


def test_auto_backend_picks_triton_only_for_four_bit_cuda_tensors_with_triton_installed(monkeypatch):
    on_cuda = SimpleNamespace(is_cuda=True, device=torch.device("cuda"))  # choose_backend reads only these
    monkeypatch.setattr(package, "_triton_installed", lambda: True)
    assert package.choose_backend(on_cuda, 4) == "triton"
    assert package.choose_backend(on_cuda, 8) == "reference"
    assert package.choose_backend(torch.zeros(1), 4) == "cpu"
    assert package.choose_backend(torch.zeros(1, device="meta"), 4) == "reference"
    monkeypatch.setattr(package, "_triton_installed", lambda: False)
    assert package.choose_backend(on_cuda, 4) == "reference"


def test_triton_backend_without_triton_installed_is_a_clear_error(monkeypatch):
    qweight, scales, qzeros = QUANTIZED
    monkeypatch.setattr(package, "_triton_installed", lambda: False)
    with pytest.raises(ValueError, match="needs the triton package"):
        w4a16_matmul(torch.zeros(4, 256), qweight, scales, qzeros, 64, backend="triton")


def test_flops_count_two_per_multiply_add_of_the_matmul():
    assert w4a16_flops(16, 256, 64) == 2 * 16 * 256 * 64


# --- CUDA -----------------------------------------------------------------------------------------------

@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("x_dtype", [torch.float16, torch.bfloat16, torch.float32], ids=["fp16", "bf16", "fp32"])
def test_compiled_triton_on_cuda_matches_the_reference_at_4096(triton_matmul, x_dtype):
    qweight, scales, qzeros = _quantized(4096, 4096, 128, device="cuda")
    x = _activations((2, 64, 4096), x_dtype, device="cuda")
    bias = _activations((4096,), x_dtype, seed=2, device="cuda")
    exact = x.double() @ dequantize(qweight, scales, qzeros, 128, dtype=x_dtype).double() + bias.double()
    got = w4a16_matmul(x, qweight, scales, qzeros, 128, bias)  # auto: Triton on CUDA
    reference = w4a16_matmul_reference(x, qweight, scales, qzeros, 128, bias)
    assert got.dtype == x_dtype
    # |y| ~ 6 here: both are within a few output ulps of the float64 product of the same W
    torch.testing.assert_close(got.double(), exact, **TOLERANCE[x_dtype])
    torch.testing.assert_close(reference.double(), exact, **TOLERANCE[x_dtype])
