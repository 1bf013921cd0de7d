"""The task end to end on its tiny instance: every method answers every question under every condition, the
predictions table round-trips through the scorer, and a training method's answers depend on its seed's base."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("math_verify")

from methods.modular_lm.baselines.dense import Dense  # noqa: E402
from methods.modular_lm.baselines.recorded import Recorded  # noqa: E402
from methods.modular_lm.micro import MiCRo  # noqa: E402
from methods.modular_lm.task import DomainQA, scored_run  # noqa: E402
from tests.method_runs import context  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def instance():
    return DomainQA().tiny_instance(0)


def test_micro_answers_every_question_under_every_condition(instance):
    task = DomainQA()
    output = MiCRo(**MiCRo.params_model.tiny).run(instance.inputs, context())
    table = task.predictions(instance, output)
    conditions = {"full", *(f"remove:{e}" for e in range(4)), *(f"steer:{e}" for e in range(4))}
    assert set(table["condition"]) == conditions
    assert len(table) == len(conditions) * len(instance.truth)
    scores = task.score(instance, table, {name: m for name, m in _metrics().items()})
    assert 0.0 <= scores["accuracy"] <= 1.0
    assert not math.isnan(scores["routing_mi"]) and not math.isnan(scores["ablation_diagonal"])


def test_dense_has_no_ablation_and_zero_routing_excess(instance):
    task = DomainQA()
    table = task.predictions(instance, Dense(**Dense.params_model.tiny).run(instance.inputs, context()))
    scores = task.score(instance, table, _metrics())
    assert set(table["condition"]) == {"full"}
    assert scores["routing_mi_excess"] == 0.0 and math.isnan(scores["ablation_diagonal"])


def test_recorded_reference_answers_score_one(instance):
    task = DomainQA()
    table = task.predictions(instance, Recorded().run(instance.inputs, context()))
    assert task.score(instance, table, _metrics())["accuracy"] == 1.0
    assert task.score(instance, table, _metrics())["accuracy_ood"] == 1.0


def test_test_answers_are_hidden_from_methods(instance):
    assert all(example.answer == "" for example in instance.inputs.examples)


def test_a_missing_answer_is_rejected(instance):
    task = DomainQA()
    table = task.predictions(instance, Recorded().run(instance.inputs, context()))
    with pytest.raises(ValueError, match="answer each"):
        scored_run(instance.truth, table.iloc[1:])


def _metrics():
    from methods.modular_lm import metrics

    return {m.name: m for m in (metrics.ACCURACY, metrics.ACCURACY_OOD, metrics.ROUTING_MI, metrics.ROUTING_MI_EXCESS,
                                metrics.ABLATION_DIAGONAL, metrics.STEERING_EFFECT)}
