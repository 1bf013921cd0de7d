"""The task end to end on its tiny instance: every method answers every question under every condition, the
predictions table round-trips through the scorer, and a training method's answers depend on its seed's base."""
from __future__ import annotations

import math

import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("math_verify")

from harness import DataError  # noqa: E402
from methods.modular_lm.baselines.dense import Dense  # noqa: E402
from methods.modular_lm.inputs import Answer  # noqa: E402
from methods.modular_lm.micro import MiCRo  # noqa: E402
from methods.modular_lm.task import DomainQA  # noqa: E402
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
    scores = task.score(instance, task.checked(instance, table), _metrics())
    assert 0.0 <= scores["accuracy"] <= 1.0
    assert not math.isnan(scores["routing_mi"]) and not math.isnan(scores["ablation_diagonal"])


def test_dense_has_no_ablation_and_zero_routing_excess(instance):
    task = DomainQA()
    table = task.predictions(instance, Dense(**Dense.params_model.tiny).run(instance.inputs, context()))
    scores = task.score(instance, task.checked(instance, table), _metrics())
    assert set(table["condition"]) == {"full"}
    assert scores["routing_mi_excess"] == 0.0 and math.isnan(scores["ablation_diagonal"])


def _reference_answers(instance):
    return DomainQA().predictions(instance, [Answer("full", i, t.target) for i, t in instance.truth.items()])


def test_the_reference_answers_score_one(instance):
    task = DomainQA()
    scores = task.score(instance, task.checked(instance, _reference_answers(instance)), _metrics())
    assert scores["accuracy"] == 1.0 and scores["accuracy_ood"] == 1.0


def test_test_answers_are_hidden_from_methods(instance):
    assert all(example.answer == "" for example in instance.inputs.examples)


def test_a_missing_answer_is_rejected(instance):
    table = _reference_answers(instance)
    with pytest.raises(DataError, match=f"1 test sample.s. have no row for condition 'full', e.g. '{table['id'][0]}'"):
        DomainQA().checked(instance, table.iloc[1:])


def test_a_mixture_answers_every_question_under_each_of_its_conditions(instance):
    table = _reference_answers(instance)
    removed = table.assign(condition="remove:0")
    DomainQA().checked(instance, pd.concat([table, removed]))
    with pytest.raises(DataError, match="have no row for condition 'remove:0'"):
        DomainQA().checked(instance, pd.concat([table, removed.iloc[2:]]))


def _metrics():
    from methods.modular_lm import metrics

    return {m.name: m for m in (metrics.ACCURACY, metrics.ACCURACY_OOD, metrics.ROUTING_MI, metrics.ROUTING_MI_EXCESS,
                                metrics.ABLATION_DIAGONAL, metrics.STEERING_EFFECT)}
