"""Per-example response-loss gradients against one backward pass per example, and the Rademacher projector
against the dense matrix it stands for."""
from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from methods.math_reasoning.gradients import (  # noqa: E402
    BLOCK_ENTRIES,
    RademacherProjector,
    ResponseExample,
    grace_example,
    projected_gradients,
    response_loss_gradients,
    trainable_dim,
)

VOCAB = 50


def tiny_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    return GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=64))


def tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(num_hidden_layers=2, hidden_size=32, intermediate_size=64,
                                        num_attention_heads=2, num_key_value_heads=1, vocab_size=VOCAB,
                                        max_position_embeddings=64))


def random_examples(n=6, seed=1):
    gen = torch.Generator().manual_seed(seed)
    examples = []
    for _ in range(n):
        length = int(torch.randint(8, 24, (1,), generator=gen))
        ids = torch.randint(0, VOCAB, (length,), generator=gen).tolist()
        examples.append((ids, int(torch.randint(1, length - 2, (1,), generator=gen))))
    return examples


def backward_per_example(model, examples):
    """One HF forward/backward per example, labels -100 on the prompt: the released code's gradient."""
    model.eval()
    rows = []
    for ids, prompt_length in examples:
        model.zero_grad(set_to_none=True)
        input_ids = torch.tensor([ids])
        labels = input_ids.clone()
        labels[0, :prompt_length] = -100
        model(input_ids=input_ids, labels=labels).loss.backward()
        rows.append(torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.requires_grad]))
    return torch.stack(rows)


@pytest.fixture(autouse=True)
def one_quiet_thread():
    """One torch thread (these tiny models gain nothing from two, and lose much when the cores are shared),
    and no warning that torch lacks a vmap batching rule for CPU SDPA: the result is still exact."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="There is a performance drop")
        yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("build", [tiny_gpt2, tiny_llama])
def test_vmap_gradients_of_padded_batches_equal_one_backward_per_example(build):
    model = build()
    examples = random_examples()
    expected = backward_per_example(model, examples)
    model.train()  # dropout must be off for the gradients, and the caller's mode comes back
    got = response_loss_gradients(model, examples, batch_size=4, method="vmap")
    assert model.training
    assert got.shape == (len(examples), trainable_dim(model))
    assert torch.allclose(got, expected, atol=1e-6)


def test_loop_fallback_equals_vmap():
    model = tiny_gpt2()
    examples = random_examples()
    assert torch.allclose(response_loss_gradients(model, examples, method="loop"),
                          response_loss_gradients(model, examples, method="vmap"), atol=1e-6)


def test_frozen_parameters_are_left_out_of_the_gradient():
    model = tiny_gpt2()
    model.transformer.wpe.weight.requires_grad_(False)
    examples = random_examples(3)
    got = response_loss_gradients(model, examples)
    assert got.shape[1] == trainable_dim(model) == sum(p.numel() for p in model.parameters()) - 64 * 32
    assert torch.allclose(got, backward_per_example(model, examples), atol=1e-6)


class BranchingLM(torch.nn.Module):
    """A causal LM with a data-dependent branch, which vmap cannot batch but grad can differentiate."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed, self.head = torch.nn.Embedding(VOCAB, 8), torch.nn.Linear(8, VOCAB)

    def forward(self, input_ids, use_cache=False):
        hidden = self.embed(input_ids).cumsum(dim=1)
        if hidden.sum() > 0:
            hidden = torch.tanh(hidden)
        return SimpleNamespace(logits=self.head(hidden))


def test_a_model_vmap_cannot_trace_falls_back_to_the_per_example_loop():
    model, examples = BranchingLM(), random_examples(4)
    with pytest.raises(RuntimeError):
        response_loss_gradients(model, examples, method="vmap")
    assert torch.allclose(response_loss_gradients(model, examples),
                          response_loss_gradients(model, examples, method="loop"))


def test_prompt_tokens_are_context_not_targets_and_responses_are_targets():
    model = tiny_gpt2()
    ids, prompt_length = random_examples(1, seed=2)[0]
    base = response_loss_gradients(model, [(ids, prompt_length)])
    unmasked = backward_per_example(model, [(ids, 1)])
    assert not torch.allclose(base, unmasked, atol=1e-4)  # with the prompt as targets it would differ
    one_more_masked = response_loss_gradients(model, [(ids, prompt_length + 1)])
    assert not torch.allclose(base, one_more_masked, atol=1e-4)
    changed_response = list(ids)
    changed_response[-1] = (changed_response[-1] + 1) % VOCAB
    assert not torch.allclose(base, response_loss_gradients(model, [(changed_response, prompt_length)]), atol=1e-4)


def test_an_example_without_response_tokens_is_a_user_error():
    with pytest.raises(ValueError, match="no predicted response"):
        response_loss_gradients(tiny_gpt2(), [ResponseExample((1, 2, 3), 3)])


def test_grace_example_masks_the_tokenised_template_prompt():
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = sorted(set("### Problem:\n\nSolution:2+3=5 abcdefghijklmnopqrstuvwxyz0123456789"))
    vocab = {c: i for i, c in enumerate(["<unk>", "<eos>", *chars])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", eos_token="<eos>")
    ids, prompt_length = grace_example(tokenizer, "2+3", "5")
    prompt = "### Problem:\n2+3\n\n### Solution:\n"
    assert prompt_length == len(prompt)
    assert ids == [vocab[c] for c in prompt] + [vocab["5"], vocab["<eos>"]]


def dense_rademacher(projector):
    """R built column block by column block from the projector's seeds, as one explicit d x D matrix."""
    blocks = []
    for index in range(projector.n_blocks):
        width = min(projector.block, projector.dim_in - index * projector.block)
        gen = torch.Generator().manual_seed(projector.block_seed(index))
        blocks.append(torch.randint(0, 2, (projector.dim_out, width), generator=gen, dtype=torch.int8) * 2 - 1)
    return torch.cat(blocks, dim=1).float()


@pytest.mark.parametrize("cache_bytes", [1 << 30, 3000 * 16, 0], ids=["float32-cache", "int8-cache", "regenerate"])
def test_projection_equals_the_explicit_dense_matrix(cache_bytes):
    projector = RademacherProjector(3000, 16, seed=3, block=700, cache_bytes=cache_bytes)
    assert projector.cache_dtype == {1 << 30: "float32", 3000 * 16: "int8", 0: None}[cache_bytes]
    grads = torch.randn(5, 3000, generator=torch.Generator().manual_seed(0))
    dense = dense_rademacher(projector)
    assert set(dense.unique().tolist()) == {-1.0, 1.0}
    assert torch.allclose(projector.project(grads), grads @ dense.T / math.sqrt(3000), atol=1e-5)
    assert torch.allclose(projector.project(grads), projector.project(grads))  # the cache changes nothing


def test_projection_is_fixed_by_the_seed():
    grads = torch.randn(3, 500, generator=torch.Generator().manual_seed(0))
    first = RademacherProjector(500, 32, seed=0, block=128).project(grads)
    assert torch.equal(first, RademacherProjector(500, 32, seed=0, block=128).project(grads))
    assert not torch.allclose(first, RademacherProjector(500, 32, seed=1, block=128).project(grads))


def test_default_blocks_stay_within_the_generation_budget():
    projector = RademacherProjector(1_000_000, 512, cache_bytes=0)
    assert projector.block * projector.dim_out <= BLOCK_ENTRIES
    assert projector.generate_block(projector.n_blocks - 1).shape == (512, 1_000_000 - 30 * projector.block)


def test_projection_approximately_preserves_inner_products():
    dim_in, dim_out = 20_000, 512
    grads = torch.randn(6, dim_in, generator=torch.Generator().manual_seed(0))
    grads[1] = 0.6 * grads[0] + 0.8 * grads[1]  # one correlated pair
    grads /= grads.norm(dim=1, keepdim=True)
    projected = RademacherProjector(dim_in, dim_out, seed=0).project(grads)
    gram, projected_gram = grads @ grads.T, projected @ projected.T * (dim_in / dim_out)  # E[hhᵀ] = (d/D) ggᵀ
    assert (projected_gram - gram).abs().max() < 0.3  # about 5 standard deviations of 1/sqrt(d)
    assert projected_gram[0, 1] == pytest.approx(gram[0, 1].item(), abs=0.3)


def test_streamed_projected_gradients_equal_projecting_all_gradients():
    model = tiny_gpt2()
    examples = random_examples(5)
    projector = RademacherProjector(trainable_dim(model), 24, seed=0)
    expected = projector.project(response_loss_gradients(model, examples)).double().numpy()
    got = projected_gradients(model, examples, projector, batch_size=2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="trainable parameters"):
        projected_gradients(model, examples, RademacherProjector(10, 4))
