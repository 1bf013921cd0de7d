"""A Hugging Face model with a block-sparse prefill: dense methods change nothing, sparse ones only the prefill."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("one_torch_thread")

from kernels.block_layout import causal_block_mask  # noqa: E402
from methods.sparse_attention.baselines.fixed_density import FixedDensity  # noqa: E402
from methods.sparse_attention.data import load_captured  # noqa: E402
from methods.sparse_attention.dense import DenseAttention  # noqa: E402
from methods.sparse_attention.hf_attention import capture_qkv, sparse_prefill  # noqa: E402
from methods.sparse_attention.method import BlockSparseMethod, Estimate  # noqa: E402
from methods.sparse_attention.problem import AttentionCase  # noqa: E402
from methods.sparse_attention.true_attention import query_block_attention  # noqa: E402

BLOCK = 16
LAYERS = 2


class EveryCausalBlock(BlockSparseMethod):
    """Dense attention through the block-sparse kernel: the mask with every causal block."""

    def estimate(self, case: AttentionCase, block_size: int) -> Estimate:
        return Estimate(causal_block_mask(case.q_heads, case.seq_len, block_size, case.q.device), 0.0)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                                      attn_implementation="sdpa")
    return transformers.LlamaForCausalLM(config).eval()


@pytest.fixture(scope="module")
def input_ids():
    return torch.randint(0, 96, (1, 200), generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("method", [DenseAttention(), EveryCausalBlock()], ids=["sdpa", "block_kernel"])
@pytest.mark.parametrize("reference", ["sdpa", "eager"])
def test_dense_prefill_gives_the_models_own_logits(model, input_ids, method, reference):
    model.set_attn_implementation(reference)
    try:
        with torch.no_grad():
            expected = model(input_ids).logits
            with sparse_prefill(model, method, BLOCK) as stats:
                logits = model(input_ids).logits
    finally:
        model.set_attn_implementation("sdpa")
    torch.testing.assert_close(logits, expected, atol=1e-4, rtol=0)
    assert [r.layer for r in stats.layers] == list(range(LAYERS))
    assert all(r.density == 1.0 and r.seq_len == input_ids.shape[1] for r in stats.layers)


def test_dense_prefill_of_a_qwen2_model_gives_its_own_logits(input_ids):
    torch.manual_seed(0)
    config = transformers.Qwen2Config(vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=LAYERS,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512)
    qwen = transformers.Qwen2ForCausalLM(config).eval()
    with torch.no_grad():
        expected = qwen(input_ids).logits
        with sparse_prefill(qwen, EveryCausalBlock(), BLOCK) as stats:
            logits = qwen(input_ids).logits
    torch.testing.assert_close(logits, expected, atol=1e-4, rtol=0)
    assert len(stats.layers) == LAYERS


def test_sparse_prefill_changes_the_logits_at_the_density_it_records(model, input_ids):
    with torch.no_grad():
        expected = model(input_ids).logits
        with sparse_prefill(model, FixedDensity(density=0.3), BLOCK) as stats:
            logits = model(input_ids).logits
    assert (logits - expected).abs().max() > 1e-3
    assert 0.2 < stats.density < 0.6
    assert stats.estimation_ms > 0 and stats.attention_ms > 0 and stats.fallbacks == 0


def test_decode_after_a_sparse_prefill_is_transformers_own_sdpa(model, input_ids):
    step = torch.tensor([[5]])
    with torch.no_grad(), sparse_prefill(model, FixedDensity(density=0.3), BLOCK) as stats:
        generated = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=3,
                                   do_sample=False, pad_token_id=0)
        cache = model(input_ids, use_cache=True).past_key_values
        same_cache = copy.deepcopy(cache)
        inside = model(step, past_key_values=cache, use_cache=True).logits
    with torch.no_grad():
        outside = model(step, past_key_values=same_cache, use_cache=True).logits
    assert generated.shape == (1, input_ids.shape[1] + 3)
    assert len(stats.layers) == 2 * LAYERS          # the prefill of generate, then the direct one
    assert stats.decode_calls == (2 + 1) * LAYERS   # two decode steps of generate, then the direct one
    torch.testing.assert_close(inside, outside, atol=1e-6, rtol=0)


def test_the_attention_implementation_is_restored_after_an_error(model, input_ids):
    with pytest.raises(RuntimeError, match="inside"), sparse_prefill(model, DenseAttention(), BLOCK):
        raise RuntimeError("inside")
    assert model.config._attn_implementation == "sdpa"
    registered = transformers.AttentionInterface._global_mapping
    assert not [name for name in registered if name.startswith("harness_")]


def test_scaling_other_than_inverse_sqrt_head_dim_is_refused(model, input_ids):
    attention = model.model.layers[0].self_attn
    attention.scaling, original = 0.5, attention.scaling
    try:
        with pytest.raises(ValueError, match="scaling 0.5 is not 1/sqrt"):
            with sparse_prefill(model, DenseAttention(), BLOCK):
                model(input_ids)
    finally:
        attention.scaling = original


def test_padded_or_batched_prefills_are_refused(model, input_ids):
    padded = torch.ones_like(input_ids)
    padded[0, :3] = 0
    with torch.no_grad(), sparse_prefill(model, DenseAttention(), BLOCK):
        with pytest.raises(ValueError, match="attention mask"):
            model(input_ids, attention_mask=padded)
        with pytest.raises(ValueError, match="batch 1"):
            model(input_ids.repeat(2, 1))


def test_capture_has_the_family_shapes_and_reproduces_the_layers_sdpa_output(model, input_ids, tmp_path):
    captured = capture_qkv(model, input_ids)
    n = input_ids.shape[1]
    assert captured["q"].shape == (LAYERS, 4, n, 16) and captured["q"].dtype == np.float32
    assert captured["k"].shape == captured["v"].shape == (LAYERS, 2, n, 16)
    assert captured["layers"].tolist() == list(range(LAYERS))
    outputs = {}
    hooks = [model.model.layers[i].self_attn.o_proj.register_forward_pre_hook(
        lambda _, args, i=i: outputs.__setitem__(i, args[0][0].reshape(n, 4, 16).transpose(0, 1)))
        for i in range(LAYERS)]
    try:
        with torch.no_grad():
            model(input_ids)
    finally:
        for hook in hooks:
            hook.remove()
    np.savez(tmp_path / "capture.npz", **{name: captured[name][None] for name in ("q", "k", "v")},
             layers=captured["layers"])
    for case in load_captured(tmp_path / "capture.npz").cases(0):
        layer = int(case.name.rsplit("layer", 1)[1])
        exact = torch.cat([block.output for block in query_block_attention(case, BLOCK)], dim=1)
        torch.testing.assert_close(exact, outputs[layer], atol=1e-5, rtol=1e-4)


def test_capture_of_chosen_layers_in_float16(model, input_ids):
    captured = capture_qkv(model, input_ids[0, :40], layers=[1], dtype=np.float16)
    assert captured["q"].shape == (1, 4, 40, 16) and captured["v"].dtype == np.float16
    assert captured["layers"].tolist() == [1]
    with pytest.raises(ValueError, match=r"layer\(s\) \[5\] do not exist"):
        capture_qkv(model, input_ids, layers=[5])
