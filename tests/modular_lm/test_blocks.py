"""The mixture of blocks: cloning preserves the dense model, top-1 keeps the active parameters, fixed routing
follows the labels, removal sends an expert's tokens to the next best, steering biases the choice, stage 2's
top-2 mixes two experts."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from methods.modular_lm.blocks import MixtureOfBlocks, Routing, clone_blocks, non_router_parameters, routers  # noqa: E402
from methods.common.corpus import CorpusConfig, build_corpus, vocabulary  # noqa: E402
from methods.common.tiny_llama import BaseConfig, build_model  # noqa: E402
from methods.common.corpus_training import TrainingStream, train_steps  # noqa: E402
from methods.common.vocab import WordTokenizer  # noqa: E402

CORPUS = CorpusConfig(train_per_domain=40, dev_per_domain=8, test_per_domain=8, ood_per_domain=4, entities=20)
CONFIG = BaseConfig(corpus=CORPUS, hidden_size=16, intermediate_size=32, num_heads=2, steps=1, batch_size=4)


@pytest.fixture()
def model_and_stream():
    torch.manual_seed(0)
    tokenizer = WordTokenizer.over(vocabulary(CORPUS))
    model = build_model(CONFIG, tokenizer).eval()
    return model, TrainingStream(build_corpus(CORPUS), tokenizer, 3.0, seed=0)


def logits(model, batch):
    with torch.no_grad():
        return model(input_ids=batch.ids, attention_mask=batch.attention_mask, use_cache=False).logits


def test_cloned_model_computes_the_dense_model(model_and_stream):
    model, stream = model_and_stream
    batch = stream.batch(6)
    dense = logits(model, batch)
    clone_blocks(model, 4, 8, seed=0)
    torch.testing.assert_close(logits(model, batch), dense, rtol=1e-5, atol=1e-5)


def test_one_expert_per_token_holds_the_dense_block_parameters(model_and_stream):
    model, _ = model_and_stream
    dense_block = sum(p.numel() for p in model.model.layers[0].parameters())
    clone_blocks(model, 4, 8, seed=0)
    layer = model.model.layers[0]
    assert isinstance(layer, MixtureOfBlocks) and len(layer.experts) == 4
    assert all(sum(p.numel() for p in e.parameters()) == dense_block for e in layer.experts)


def test_fixed_routing_sends_each_token_to_its_label(model_and_stream):
    model, stream = model_and_stream
    routing = clone_blocks(model, 4, 8, seed=0)
    batch = stream.batch(8)
    routing.fixed, routing.record = batch.token_domains(), True
    logits(model, batch)
    assert len(routing.chosen) == 2 and all(torch.equal(c, batch.token_domains()) for c in routing.chosen)


def test_removed_expert_gets_no_token_and_its_tokens_go_to_the_next_best():
    router_logits = torch.tensor([[[3.0, 2.0, 0.0, 1.0], [0.0, 1.0, 5.0, 2.0]]])
    routing = Routing(record=True, removed=(0,))
    weights = routing.weights(router_logits)
    assert routing.chosen[0].tolist() == [[1, 2]]  # the first token's second best; the second token unchanged
    assert torch.equal(weights, torch.tensor([[[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]]))


def test_steering_bias_moves_tokens_to_the_steered_expert():
    router_logits = torch.tensor([[[1.0, 0.5, 0.0, -1.0], [4.0, 0.0, 0.0, 0.0]]])
    routing = Routing(record=True, bias=torch.tensor([0.0, 0.0, 0.0, 2.5]))
    routing.weights(router_logits)
    assert routing.chosen[0].tolist() == [[3, 0]]  # -1 + 2.5 beats 1.0; 0 + 2.5 stays below 4.0


def test_top2_mixes_the_two_best_with_renormalised_probabilities():
    router_logits = torch.tensor([[[2.0, 1.0, 0.0, -3.0]]])
    weights = Routing(top_k=2).weights(router_logits)
    probs = router_logits.softmax(-1)[0, 0]
    expected = torch.tensor([probs[0], probs[1], 0.0, 0.0]) / (probs[0] + probs[1])
    torch.testing.assert_close(weights[0, 0], expected)


def test_top1_is_one_hot_forward_and_trains_the_router():
    router_logits = torch.tensor([[[0.2, 1.0, -0.5, 0.0]]], requires_grad=True)
    weights = Routing().weights(router_logits)
    assert weights.detach().tolist() == [[[0.0, 1.0, 0.0, 0.0]]]
    (weights * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert router_logits.grad is not None and router_logits.grad.abs().sum() > 0


def test_stage_one_leaves_the_routers_untouched_and_trains_the_experts(model_and_stream):
    model, stream = model_and_stream
    routing = clone_blocks(model, 4, 8, seed=0)
    router_before = [p.detach().clone() for r in routers(model) for p in r.parameters()]
    expert_before = [e.mlp.up_proj.weight.detach().clone() for e in model.model.layers[0].experts]

    def labelled(m, batch):
        from methods.common.corpus_training import batch_loss

        routing.fixed = batch.domain[:, None].expand_as(batch.ids)
        return batch_loss(m, batch)

    train_steps(model, stream, 3, 8, 1e-2, non_router_parameters(model), labelled)
    after = [p for r in routers(model) for p in r.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(router_before, after, strict=True))
    changed = [not torch.equal(b, e.mlp.up_proj.weight) for b, e in zip(expert_before, model.model.layers[0].experts,
                                                                         strict=True)]
    assert sum(changed) >= 2  # the experts whose domains the batches held
