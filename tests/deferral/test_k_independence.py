"""One trained scorer serves every k: changing k never retrains, and the sets it gives are nested."""
from __future__ import annotations

import pytest

from methods.deferral import scorer as scorer_module
from methods.deferral.allocation import COST_SWEEP
from methods.deferral.baselines.l2d_two_stage import TwoStageL2D
from methods.deferral.topk import TopKL2D
from methods.deferral.topkx import SWEEP, TopKx
from tests.method_runs import context


@pytest.fixture
def trainings(monkeypatch):
    """The (n, outputs) shapes of the costs of every scorer trained, with the process's scorer cache emptied."""
    shapes: list[tuple[int, ...]] = []
    train = scorer_module.train_scorer

    def counted(features, costs, config, seed):  # noqa: ANN001, ANN202
        shapes.append(costs.shape)
        return train(features, costs, config, seed)

    monkeypatch.setattr(scorer_module, "train_scorer", counted)
    monkeypatch.setattr(scorer_module, "_trained", type(scorer_module._trained)())
    return shapes


def test_changing_k_does_not_retrain_the_scorer(mixture_instance, trainings):
    inputs = mixture_instance.inputs
    allocations = [TopKL2D(k=k, epochs=50).run(inputs, context()) for k in range(1, inputs.num_entities + 1)]
    TwoStageL2D(epochs=50).run(inputs, context())  # Top-1 L2D is the same scorer at k = 1
    # one scorer per training cost scale of the beta sweep (the configured 1.0 among them), whatever k is
    assert trainings == [(inputs.train.y.size, inputs.num_entities)] * len(set(COST_SWEEP))
    for k, found in enumerate(allocations, start=1):
        assert (found.consulted.sum(axis=2) == k).all()  # every point of the curve keeps k


def test_the_sets_of_one_scorer_are_nested_in_k(mixture_instance):
    inputs = mixture_instance.inputs
    sets = [TopKL2D(k=k, epochs=50).run(inputs, context()).consulted for k in range(1, inputs.num_entities + 1)]
    for smaller, larger in zip(sets[:-1], sets[1:], strict=True):
        assert (larger | smaller == larger).all() and (larger.sum(axis=2) == smaller.sum(axis=2) + 1).all()


def test_top_k_of_x_reuses_the_entity_scorer_and_trains_only_its_selectors(mixture_instance, trainings):
    inputs = mixture_instance.inputs
    TopKL2D(k=1, epochs=50).run(inputs, context())
    TopKx(epochs=50).run(inputs, context())
    entity_scorers = [shape for shape in trainings if shape == (inputs.train.y.size, inputs.num_entities)]
    selectors = [shape for shape in trainings if shape == (inputs.selector.y.size, inputs.num_entities)]
    assert len(entity_scorers) == len(set(COST_SWEEP)) and len(selectors) == 1 + len(SWEEP)
    assert len(trainings) == len(entity_scorers) + len(selectors)
