"""GPTQ-format quantization of a Hugging Face model: what is quantized, how close, and the clear errors."""
from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

from methods.zo_finetune.quant import QuantLinear, quantize_model, scale_parameters  # noqa: E402


def test_every_decoder_linear_is_quantized_and_embeddings_and_head_are_not(tiny_model):
    linears = [n for n, m in tiny_model.named_modules() if isinstance(m, torch.nn.Linear) and "lm_head" not in n]
    quantize_model(tiny_model)
    quantized = [n for n, m in tiny_model.named_modules() if isinstance(m, QuantLinear)]
    assert quantized == linears
    assert isinstance(tiny_model.get_output_embeddings(), torch.nn.Linear)
    assert isinstance(tiny_model.get_input_embeddings(), torch.nn.Embedding)


def test_scale_count_is_quantized_weights_over_group_size(tiny_model):
    weights = sum(m.weight.numel() for n, m in tiny_model.named_modules()
                  if isinstance(m, torch.nn.Linear) and "lm_head" not in n)
    quantize_model(tiny_model, group_size=128)
    assert sum(s.numel() for s in scale_parameters(tiny_model)) == weights // 128


def test_quantized_layer_matches_its_dequantized_weight_and_rtn_error_is_bounded():
    torch.manual_seed(0)
    linear = torch.nn.Linear(256, 64)
    layer = QuantLinear.from_linear(linear, bits=4, group_size=64, scales_dtype=torch.float32)
    x = torch.randn(5, 256)
    torch.testing.assert_close(layer(x), x @ layer.weight_matrix() + linear.bias, atol=1e-4, rtol=1e-4)
    half_step = layer.scales.detach().repeat_interleave(64, dim=0) / 2
    assert bool(((layer.weight_matrix() - linear.weight.detach().T).abs() <= half_step + 1e-6).all())


def test_two_bit_channel_scales_have_one_scale_per_output_channel(tiny_model):
    quantize_model(tiny_model, bits=2, group_size=None)
    assert all(s.shape[0] == 1 for s in scale_parameters(tiny_model))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_two_bit_channel_rtn_changes_the_logits_more_than_four_bit(tiny_model, dtype):
    """zo_ablation's 2-bit Zero-Shot-Q scores what the 16-bit and 4-bit rows score: the quantization does run
    (the logits move, more at 2 bits), the tiny model's answers are decided by margins it does not close."""
    model = tiny_model.to(dtype)
    ids = torch.arange(4, 36).reshape(2, 16)
    with torch.no_grad():
        full = model(input_ids=ids).logits.float()
        change = {bits: float((quantize_model(copy.deepcopy(model), bits, group).eval()(input_ids=ids).logits.float()
                               - full).abs().max()) for bits, group in ((4, 128), (2, None))}
    assert change[2] > 2 * change[4] > 0


def test_scales_are_the_only_parameters_of_a_quantized_layer():
    layer = QuantLinear.from_linear(torch.nn.Linear(128, 32))
    assert [name for name, _ in layer.named_parameters()] == ["scales"]
    assert layer.scales.dtype == torch.float16


def test_group_size_not_dividing_in_features_names_the_layer(tiny_model):
    with pytest.raises(ValueError, match=r"group size 100 does not divide layer '.*_proj'.*in_features \(128\)"):
        quantize_model(tiny_model, group_size=100)
    assert not any(isinstance(m, QuantLinear) for m in tiny_model.modules())  # untouched


def test_a_model_without_linear_layers_is_a_clear_error():
    with pytest.raises(ValueError, match="no linear layers to quantize"):
        quantize_model(torch.nn.Sequential(torch.nn.Embedding(10, 8), torch.nn.LayerNorm(8)))


def test_unsupported_layer_types_are_named():
    from transformers.pytorch_utils import Conv1D

    model = torch.nn.Sequential(torch.nn.Linear(128, 128), Conv1D(128, 128))
    with pytest.raises(ValueError, match="layer '1' is a Conv1D"):
        quantize_model(model)


def test_unsupported_bit_width_is_a_clear_error(tiny_model):
    with pytest.raises(ValueError, match="bits must be one of"):
        quantize_model(tiny_model, bits=3)


def test_scale_parameters_of_an_unquantized_model_is_a_clear_error(tiny_model):
    with pytest.raises(ValueError, match="quantize it first"):
        scale_parameters(tiny_model)
