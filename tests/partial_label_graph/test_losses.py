"""The partial-label losses against their formulas, and their confidences' invariants."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from methods.partial_label_graph.baselines.cc import CCLoss, candidate_marginal_nll
from methods.partial_label_graph.baselines.lws import LWS, leveraged_weighted_loss, split_confidence
from methods.partial_label_graph.baselines.proden import PRODEN, weighted_cross_entropy
from methods.partial_label_graph.baselines.supervised import SupervisedReference


def _batch(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(6, 4, generator=generator) * 3
    candidates = (torch.rand(6, 4, generator=generator) < 0.5).float()
    candidates[torch.arange(6), torch.arange(6) % 4] = 1.0
    return logits, candidates


def test_cc_is_minus_the_log_probability_of_the_candidate_set():
    logits, candidates = _batch()
    p = torch.softmax(logits, dim=1)
    expected = -torch.log((p * candidates).sum(dim=1)).mean()
    assert float(candidate_marginal_nll(logits, candidates)) == pytest.approx(float(expected), rel=1e-5)


def test_cc_is_zero_when_every_label_is_a_candidate():
    logits, _ = _batch()
    assert float(candidate_marginal_nll(logits, torch.ones_like(logits))) == pytest.approx(0.0, abs=1e-6)


def test_proden_loss_is_cross_entropy_with_one_hot_confidences():
    logits, _ = _batch()
    targets = torch.tensor([0, 1, 2, 3, 0, 1])
    one_hot = torch.nn.functional.one_hot(targets, 4).float()
    expected = torch.nn.functional.cross_entropy(logits, targets)
    assert float(weighted_cross_entropy(logits, one_hot)) == pytest.approx(float(expected), rel=1e-5)


def test_lws_weighs_candidates_and_non_candidates_by_their_confidences():
    logits, candidates = _batch()
    weights = split_confidence(torch.softmax(logits, dim=1), candidates)
    loss = leveraged_weighted_loss(logits, candidates, weights, beta=2.0)
    inside = (weights * candidates * torch.sigmoid(-logits)).sum(1)
    outside = (weights * (1 - candidates) * torch.sigmoid(logits)).sum(1)
    assert float(loss) == pytest.approx(float((inside + 2.0 * outside).mean()), rel=1e-6)
    assert torch.allclose((weights * candidates).sum(1), torch.ones(6))  # a distribution over the candidates


@pytest.mark.parametrize("method_class", [PRODEN, LWS])
def test_confidences_stay_distributions_on_the_candidates_after_training(method_class, tiny_instance, context):
    method = method_class(epochs=3, batch_size=16)
    method.run(tiny_instance.inputs, context)
    candidates = torch.as_tensor(tiny_instance.inputs.train_candidates, dtype=torch.float32)
    on_candidates = method.confidence * candidates
    assert torch.allclose(on_candidates.sum(dim=1), torch.ones(len(candidates)), atol=1e-5)
    if method_class is PRODEN:
        assert not method.confidence[candidates == 0].any()


@pytest.mark.parametrize("method_class", [CCLoss, PRODEN, LWS])
def test_partial_label_methods_never_read_the_true_training_labels(method_class, tiny_instance, context):
    import dataclasses

    first = method_class(epochs=2, batch_size=16).run(tiny_instance.inputs, context)
    shuffled = dataclasses.replace(tiny_instance.inputs, train_true_y=np.roll(tiny_instance.inputs.train_true_y, 1))
    again = method_class(epochs=2, batch_size=16).run(shuffled, context)
    assert np.array_equal(first, again)


def test_the_supervised_bound_does_read_them(tiny_instance, context):
    import dataclasses

    first = SupervisedReference(epochs=2, batch_size=16).run(tiny_instance.inputs, context)
    shuffled = dataclasses.replace(tiny_instance.inputs, train_true_y=np.roll(tiny_instance.inputs.train_true_y, 1))
    assert not np.array_equal(first, SupervisedReference(epochs=2, batch_size=16).run(shuffled, context))


@pytest.mark.slow
def test_a_supervised_gin_learns_the_planted_triangles(context):
    from methods.partial_label_graph.metrics import ACCURACY
    from methods.partial_label_graph.task import PartialLabelClassification
    from tests.partial_label_graph.conftest import tiny_graph_set

    task = PartialLabelClassification()
    instance = task.instance(tiny_graph_set(num_graphs=150), {"q": 0.0, "train": 0.6, "val": 0.2}, seed=0)
    scores = SupervisedReference(epochs=30, batch_size=16).run(instance.inputs, context)
    accuracy = task.score(instance, task.predictions(instance, scores), {"acc": ACCURACY})["acc"]
    assert accuracy > 100 / 3 + 20   # three balanced classes: chance is 33 %
