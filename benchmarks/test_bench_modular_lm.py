"""The modular_lm family's hot paths: one fine-tuning step of the four-expert mixture of blocks (the suites'
model: 2 layers, d = 64, batch 32 questions; each expert runs every token, so a step costs about four dense
steps) beside one dense step, and the routing figures with their 200-draw permutation baseline for 400 questions.
Times go to the benchmark record; nothing is asserted about them."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from methods.modular_lm.blocks import clone_blocks  # noqa: E402
from methods.common.corpus import build_corpus, vocabulary  # noqa: E402
from methods.common.tiny_llama import BaseConfig, build_model  # noqa: E402
from methods.common.corpus_training import TrainingStream, batch_loss  # noqa: E402
from methods.common.vocab import WordTokenizer  # noqa: E402


def _step(model, batch):
    loss = batch_loss(model, batch)
    loss.backward()
    model.zero_grad(set_to_none=True)
    return float(loss.detach())


@pytest.mark.parametrize("experts", [1, 4])
def test_training_step_dense_and_mixture(benchmark, experts):
    torch.set_num_threads(1)
    config = BaseConfig()
    tokenizer = WordTokenizer.over(vocabulary(config.corpus))
    torch.manual_seed(0)
    model = build_model(config, tokenizer)
    if experts > 1:
        clone_blocks(model, experts, 64, seed=0)
    batch = TrainingStream(build_corpus(config.corpus), tokenizer, 3.0, seed=0).batch(32)
    model.train()
    benchmark.pedantic(_step, args=(model, batch), rounds=10, iterations=1, warmup_rounds=1)
    benchmark.extra_info["experts"] = experts


def test_routing_figures_400_questions(benchmark):
    import numpy as np

    from methods.common.corpus import DOMAINS
    from methods.modular_lm.metrics import contingency, mutual_information, permuted_layer_mi

    rng = np.random.default_rng(0)
    labels = rng.integers(0, len(DOMAINS), 400)
    counts = rng.multinomial(20, [0.4, 0.3, 0.2, 0.1], size=400).astype(float)

    def figures() -> float:
        return mutual_information(contingency(counts, labels, 4)) - float(permuted_layer_mi([counts], labels, 4).mean())

    benchmark.pedantic(figures, rounds=3, iterations=1)
