"""PiCO's prototypes, queue and losses, and GraphCL's NT-Xent and pre-training, against loop
implementations of their definitions; both methods end to end on the tiny set."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness import RunContext
from methods.partial_label_graph.baselines import graphcl as graphcl_module
from methods.partial_label_graph.baselines.graphcl import (
    GraphCL,
    nt_xent,
    pretrain_encoder,
)
from methods.partial_label_graph.baselines.pico import (
    LabelledQueue,
    PiCO,
    masked_argmax,
    moco_loss,
    momentum_prototypes,
    pseudo_label_contrastive_loss,
)
from methods.partial_label_graph.batching import GraphTensors
from methods.partial_label_graph.encoder import GINEncoder
from methods.partial_label_graph.task import PartialLabelClassification
from methods.partial_label_graph.training import normalised
from tests.partial_label_graph.conftest import tiny_graph_set

SMALL = {"hidden": 32, "layers": 2, "epochs": 3, "batch_size": 16}


def _context() -> RunContext:
    torch.set_num_threads(1)
    return RunContext(seed=0, device="cpu", threads=1)


@pytest.fixture(scope="module")
def instance():
    return PartialLabelClassification().instance(tiny_graph_set(), {"q": 0.5, "train": 0.6, "val": 0.2}, seed=0)


@pytest.fixture(scope="module")
def pico_run(instance):
    """One short PiCO run (3 epochs; prototype updates from epoch 1): the method, its scores."""
    method = PiCO(embedding_dim=16, **SMALL)
    return method, method.run(instance.inputs, _context())


@pytest.fixture(scope="module")
def graphcl_run(instance):
    """One short GraphCL run: the method, its scores, its context."""
    context = _context()
    method = GraphCL(pretrain_epochs=2, pretrain_batch_size=16, **SMALL)
    return method, method.run(instance.inputs, context), context


def _unit_rows(rows: int, dim: int, seed: int, dtype=torch.float64) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return F.normalize(torch.randn(rows, dim, generator=generator, dtype=dtype), dim=1)


def _assert_class_probabilities(scores: np.ndarray, instance) -> None:
    assert scores.shape == (instance.inputs.graphs.num_graphs, instance.inputs.num_classes)
    assert np.isfinite(scores).all() and (scores >= 0).all()
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, atol=1e-5)


# --- PiCO: prototypes ---------------------------------------------------------------------------

@pytest.mark.parametrize("momentum", [0.0, 0.5, 0.9, 0.99])
def test_momentum_prototypes_equal_the_sequential_per_sample_update_then_normalisation(momentum):
    prototypes = _unit_rows(5, 6, seed=0) * 2.0                  # not unit length: the old norm must matter
    embeddings = _unit_rows(17, 6, seed=1)
    labels = torch.tensor([0, 2, 2, 0, 1, 2, 0, 0, 2, 1, 2, 0, 2, 2, 1, 0, 2])   # class 3 and 4 absent
    expected = prototypes.clone()
    for q, y in zip(embeddings, labels, strict=True):
        expected[y] = momentum * expected[y] + (1 - momentum) * q
    expected = F.normalize(expected, dim=1)
    moved = momentum_prototypes(prototypes, embeddings, labels, momentum)
    assert torch.allclose(moved, expected, atol=1e-10)
    assert torch.allclose(moved.norm(dim=1), torch.ones(5, dtype=torch.float64))


def test_momentum_prototypes_leave_an_unseen_prototype_zero():
    prototypes = torch.zeros(3, 4)
    moved = momentum_prototypes(prototypes, _unit_rows(4, 4, seed=2, dtype=torch.float32),
                                torch.tensor([0, 0, 2, 2]), 0.99)
    assert not moved[1].any() and torch.allclose(moved[[0, 2]].norm(dim=1), torch.ones(2))


# --- PiCO: queue --------------------------------------------------------------------------------

def test_labelled_queue_returns_only_the_filled_slots_in_push_order():
    queue = LabelledQueue(size=5, dim=3, device=torch.device("cpu"))
    keys, labels = queue.contents()
    assert keys.shape == (0, 3) and labels.shape == (0,)
    first = torch.randn(2, 3)
    queue.push(first, torch.tensor([4, 1]))
    keys, labels = queue.contents()
    assert torch.equal(keys, first) and labels.tolist() == [4, 1]
    keys.zero_()                                                   # a copy: the queue is untouched
    assert torch.equal(queue.contents()[0], first)


def test_labelled_queue_keeps_the_last_size_keys_fifo_with_their_labels():
    queue = LabelledQueue(size=5, dim=3, device=torch.device("cpu"))
    pushed_keys, pushed_labels = [], []
    for step, count in enumerate([2, 3, 4, 1, 7, 3]):             # wraps several times, once by more than size
        keys = torch.randn(count, 3, requires_grad=True)
        labels = torch.arange(count) + 10 * step
        queue.push(keys, labels)
        pushed_keys += list(keys.detach())
        pushed_labels += labels.tolist()
        keys_now, labels_now = queue.contents()
        last = min(5, len(pushed_labels))
        expected = {(tuple(k.tolist()), y) for k, y in zip(pushed_keys[-last:], pushed_labels[-last:], strict=True)}
        assert {(tuple(k.tolist()), int(y)) for k, y in zip(keys_now, labels_now, strict=True)} == expected
        assert len(labels_now) == last and not keys_now.requires_grad


# --- PiCO: losses -------------------------------------------------------------------------------

def _supcon_loop(features: torch.Tensor, labels: torch.Tensor, num_anchors: int, temperature: float) -> float:
    total = 0.0
    for i in range(num_anchors):
        others = [j for j in range(len(features)) if j != i]
        log_denominator = math.log(sum(math.exp(float(features[i] @ features[j]) / temperature) for j in others))
        positives = [j for j in others if labels[j] == labels[i]]
        log_likelihoods = [float(features[i] @ features[p]) / temperature - log_denominator for p in positives]
        total += -sum(log_likelihoods) / len(positives)
    return total / num_anchors


@pytest.mark.parametrize("temperature", [0.07, 0.5])
def test_pseudo_label_contrastive_loss_equals_the_supervised_contrastive_loss_loop(temperature):
    batch, queued = 6, 9
    queries, keys, queue = _unit_rows(batch, 8, 3), _unit_rows(batch, 8, 4), _unit_rows(queued, 8, 5)
    pseudo = torch.tensor([0, 1, 1, 2, 0, 1])
    queue_labels = torch.tensor([2, 2, 0, 1, 1, 0, 2, 1, 0])
    features, labels = torch.cat([queries, keys, queue]), torch.cat([pseudo, pseudo, queue_labels])
    loss = pseudo_label_contrastive_loss(features, labels, batch, temperature)
    assert float(loss) == pytest.approx(_supcon_loop(features, labels, batch, temperature), rel=1e-9)


def test_moco_loss_is_infonce_with_the_own_key_as_the_only_positive():
    queries, keys, queue = _unit_rows(5, 6, 8), _unit_rows(5, 6, 9), _unit_rows(7, 6, 10)
    temperature = 0.2
    expected = 0.0
    for q, k in zip(queries, keys, strict=True):
        positive = math.exp(float(q @ k) / temperature)
        negatives = sum(math.exp(float(q @ n) / temperature) for n in queue)
        expected += -math.log(positive / (positive + negatives))
    assert float(moco_loss(queries, keys, queue, temperature)) == pytest.approx(expected / 5, rel=1e-9)


def test_moco_loss_with_an_empty_queue_has_nothing_to_contrast():
    queries, keys = _unit_rows(3, 4, 11), _unit_rows(3, 4, 12)
    empty_queue = torch.zeros(0, 4, dtype=torch.float64)
    assert float(moco_loss(queries, keys, empty_queue, 0.07)) == pytest.approx(0.0, abs=1e-12)


def test_masked_argmax_never_returns_a_non_candidate():
    generator = torch.Generator().manual_seed(13)
    scores = torch.randn(200, 6, generator=generator)
    candidates = (torch.rand(200, 6, generator=generator) < 0.3).float()
    candidates[torch.arange(200), torch.randint(6, (200,), generator=generator)] = 1.0
    scores = scores + 100.0 * (1 - candidates)                     # non-candidates always score highest
    chosen = masked_argmax(scores, candidates)
    assert bool(candidates[torch.arange(200), chosen].all())
    for row in range(200):
        allowed = candidates[row].nonzero().flatten()
        assert int(chosen[row]) == int(allowed[scores[row, allowed].argmax()])


# --- PiCO: the method ---------------------------------------------------------------------------

def test_pico_confidences_stay_distributions_on_the_candidates_and_move_after_a_short_run(pico_run, instance):
    method, _ = pico_run
    candidates = torch.as_tensor(instance.inputs.train_candidates, dtype=torch.float32)
    confidence = method.confidence
    assert confidence.shape == candidates.shape and (confidence >= 0).all()
    assert torch.allclose(confidence.sum(dim=1), torch.ones(len(candidates)), atol=1e-5)
    assert not confidence[candidates == 0].any()
    assert not torch.allclose(confidence, normalised(candidates))   # the prototype updates did run


def test_pico_returns_class_probabilities_for_every_graph(pico_run, instance):
    _assert_class_probabilities(pico_run[1], instance)


def test_pico_never_reads_the_true_training_labels(pico_run, instance):
    shuffled = dataclasses.replace(instance.inputs, train_true_y=np.roll(instance.inputs.train_true_y, 1))
    assert not np.array_equal(shuffled.train_true_y, instance.inputs.train_true_y)
    again = PiCO(embedding_dim=16, **SMALL).run(shuffled, _context())
    assert np.array_equal(pico_run[1], again)


def test_pico_confidence_ema_falls_linearly_from_start_toward_end():
    method = PiCO(epochs=10)
    assert method.confidence_ema(0) == pytest.approx(0.95)
    assert method.confidence_ema(5) == pytest.approx(0.875)
    assert method.confidence_ema(10) == pytest.approx(0.8)


@pytest.mark.parametrize("kwargs, key", [
    ({"key_augmentation": "crop"}, "key_augmentation"), ({"query_augmentation": "crop"}, "query_augmentation"),
    ({"augmentation_ratio": 1.0}, "augmentation_ratio"), ({"prototype_momentum": 1.5}, "prototype_momentum"),
    ({"prototype_start": -1}, "prototype_start"), ({"queue_size": 0}, "queue_size"),
])
def test_pico_rejects_invalid_parameters_naming_them(kwargs, key):
    with pytest.raises(ValueError, match=key):
        PiCO(**kwargs)


# --- GraphCL: NT-Xent ---------------------------------------------------------------------------

def _graphcl_loss_cal(x: torch.Tensor, x_aug: torch.Tensor, temperature: float) -> float:
    """GraphCL's unsupervised_TU `simclr.loss_cal`, written as a loop: cosine similarities,
    the positive pair excluded from the denominator."""
    total = 0.0
    for i in range(len(x)):
        sims = [float(F.cosine_similarity(x[i], x_aug[j], dim=0)) / temperature for j in range(len(x))]
        positive = math.exp(sims[i])
        negatives = sum(math.exp(s) for j, s in enumerate(sims) if j != i)
        total += -math.log(positive / negatives)
    return total / len(x)


@pytest.mark.parametrize("temperature", [0.2, 1.0])
def test_nt_xent_equals_graphcls_loss_with_the_positive_left_out_of_the_denominator(temperature):
    generator = torch.Generator().manual_seed(14)
    views = torch.randn(7, 5, generator=generator, dtype=torch.float64) * 3   # not unit length: cosines matter
    other = torch.randn(7, 5, generator=generator, dtype=torch.float64) * 0.5
    expected = _graphcl_loss_cal(views, other, temperature)
    assert float(nt_xent(views, other, temperature)) == pytest.approx(expected, rel=1e-9)


def test_nt_xent_is_lower_when_each_view_matches_its_own_other_view():
    views = _unit_rows(6, 8, 15)
    assert float(nt_xent(views, views * 4.0, 0.2)) < float(nt_xent(views, _unit_rows(6, 8, 16), 0.2))


# --- GraphCL: pre-training ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pretraining_lowers_the_nt_xent_loss_over_a_few_epochs(seed):
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    graphs = GraphTensors(tiny_graph_set(), "cpu")
    encoder = GINEncoder(graphs.x.shape[1], hidden=32, layers=2)
    losses = pretrain_encoder(encoder, graphs, torch.arange(graphs.num_graphs), epochs=3, batch_size=16, lr=0.01,
                              temperature=0.2, augmentation="random2", ratio=0.2,
                              generator=torch.Generator().manual_seed(seed))
    assert len(losses) == 3 and all(math.isfinite(loss) for loss in losses)
    assert losses[-1] < losses[0]


def test_pretraining_skips_batches_of_one_graph():
    torch.manual_seed(0)
    graphs = GraphTensors(tiny_graph_set(), "cpu")
    encoder = GINEncoder(graphs.x.shape[1], hidden=8, layers=1)
    before = [p.detach().clone() for p in encoder.parameters()]
    pretrain_encoder(encoder, graphs, torch.tensor([3]), epochs=2, batch_size=16, lr=0.01, temperature=0.2,
                     augmentation="random2", ratio=0.2, generator=torch.Generator().manual_seed(0))
    assert all(torch.equal(a, b) for a, b in zip(before, encoder.parameters(), strict=True))


# --- GraphCL: the method ------------------------------------------------------------------------

def test_graphcl_records_its_pretraining_time_and_final_loss(monkeypatch, instance):
    returned = []

    def spy(*args, **kwargs):
        returned.append(pretrain_encoder(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(graphcl_module, "pretrain_encoder", spy)
    context = _context()
    GraphCL(pretrain_epochs=2, pretrain_batch_size=16, **SMALL).run(instance.inputs, context)
    assert len(returned) == 1 and len(returned[0]) == 2
    assert context.measurements["pretrain_final_loss"].value == pytest.approx(returned[0][-1])
    assert context.measurements["pretrain_seconds"].value > 0


@pytest.mark.parametrize("pretrain_on", ["train", "all"])
def test_graphcl_pretrains_only_on_the_graphs_pretrain_on_names(monkeypatch, instance, pretrain_on):
    seen: list[int] = []
    real_augment = graphcl_module.augment

    def spy(batch, *args, **kwargs):     # pre-training feeds the encoder each batch and its augmented view
        seen.extend(batch.graph_ids.tolist())
        return real_augment(batch, *args, **kwargs)

    monkeypatch.setattr(graphcl_module, "augment", spy)
    GraphCL(pretrain_on=pretrain_on, pretrain_epochs=2, pretrain_batch_size=16, **{**SMALL, "epochs": 1}).run(
        instance.inputs, _context())
    inputs = instance.inputs
    expected = set(inputs.train_idx.tolist()) if pretrain_on == "train" else set(range(inputs.graphs.num_graphs))
    assert set(seen) == expected
    assert len(seen) == 2 * len(expected)                          # each graph once per epoch
    if pretrain_on == "train":
        assert not set(seen) & (set(inputs.val_idx.tolist()) | set(inputs.test_idx.tolist()))


def test_graphcl_returns_class_probabilities_for_every_graph(graphcl_run, instance):
    _, scores, context = graphcl_run
    _assert_class_probabilities(scores, instance)
    assert math.isfinite(context.measurements["pretrain_final_loss"].value)


def test_graphcl_never_reads_the_true_training_labels(graphcl_run, instance):
    shuffled = dataclasses.replace(instance.inputs, train_true_y=np.roll(instance.inputs.train_true_y, 1))
    again = GraphCL(pretrain_epochs=2, pretrain_batch_size=16, **SMALL).run(shuffled, _context())
    assert np.array_equal(graphcl_run[1], again)


@pytest.mark.parametrize("kwargs, key", [
    ({"pretrain_on": "test"}, "pretrain_on"), ({"augmentation": "none"}, "augmentation"),
    ({"augmentation": "crop"}, "augmentation"), ({"augmentation_ratio": 1.0}, "augmentation_ratio"),
    ({"pretrain_epochs": 0}, "pretrain_epochs"), ({"temperature": 0.0}, "temperature"),
])
def test_graphcl_rejects_invalid_parameters_naming_them(kwargs, key):
    with pytest.raises(ValueError, match=key):
        GraphCL(**kwargs)
