"""The task's contract: splits, synthetic experts, aggregation, the predictions table and its mistakes."""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from harness import DataError
from methods.deferral.aggregation import aggregate
from methods.deferral.baselines.random_k import RandomK
from methods.deferral.data import gaussian_mixture, load_bundled, specialist_panel
from methods.deferral.experts import ClassSpecialists
from methods.deferral.metrics import ACCURACY
from methods.deferral.problem import Allocation
from methods.deferral.splits import SplitSpec, split_parts
from tests.deferral.conftest import TASK
from tests.method_runs import context


@pytest.mark.parametrize(("answers", "weights", "decision"), [
    ([0, 1, 1, 2], [0.9, 0.2, 0.1, 0.5], 1),        # two votes beat one, however heavy the one
    ([0, 1, 1, 2], [0.5, 0.2, 0.4, 0.0], 1),        # an entity of weight 0 does not vote
    ([0, 1, 0, 0], [0.2, 0.3, 0.0, 0.0], 1),        # k = 2 disagreeing: the heavier (more reliable) voter
    ([3, 1, 0, 0], [0.6, 0.3, 0.0, 0.0], 3),        # ... whichever label it names
    ([0, 0, 1, 1], [0.1, 0.2, 0.15, 0.18], 0),      # a 2-2 tie: the label whose heaviest voter is heaviest
    ([2, 1, 0, 0], [0.4, 0.4, 0.0, 0.0], 1),        # equal weights too: the lowest label
    ([2, 2, 2, 1], [0.1, 0.1, 0.1, 0.9], 2),        # three weak votes beat one strong
])
def test_majority_vote_with_ties_to_the_heaviest_voter(answers, weights, decision):
    decided = aggregate("classification", np.array([answers]), np.array([weights]), 4)
    np.testing.assert_array_equal(decided, [decision])


def test_two_voters_can_only_repeat_one_of_their_answers():
    rng = np.random.default_rng(0)
    answers = rng.integers(0, 5, (200, 2))
    weights = rng.random((200, 2)) + 0.01
    decided = aggregate("classification", answers, weights, 5)
    heavier = answers[np.arange(200), weights.argmax(axis=1)]
    np.testing.assert_array_equal(decided, np.where(answers[:, 0] == answers[:, 1], answers[:, 0], heavier))


def test_regression_decision_is_the_weighted_mean_and_equal_weights_average():
    np.testing.assert_allclose(aggregate("regression", np.array([[1.0, 3.0, 8.0]]), np.ones((1, 3)), 0), [4.0])
    answers = np.array([[1.0, 3.0, 100.0]])
    np.testing.assert_allclose(aggregate("regression", answers, np.array([[1.0, 3.0, 0.0]]), 0), [2.5])


def test_class_specialists_answer_with_their_competence():
    panel = ClassSpecialists(0.9, 0.3, np.array([0.1, 0.2]), generalist=0.6, num_classes=4)
    y = np.repeat(np.arange(4), 20_000)
    answers = panel.answers(np.arange(y.size), y, np.random.default_rng(0))
    for label in range(4):
        observed = (answers[y == label] == label).mean(axis=0)
        np.testing.assert_allclose(observed, panel.competence[:, label], atol=0.01)
    wrong = answers[:, 0][answers[:, 0] != y]
    assert set(np.unique(wrong)) == {0, 1, 2, 3}  # errors spread over the other classes
    np.testing.assert_allclose(panel.expected_loss(np.arange(4), np.arange(4), None), 1 - panel.competence.T)


def test_region_specialists_noise_matches_their_expected_loss():
    y = np.linspace(-2, 2, 40_000)
    panel = specialist_panel("regression", y, 2, 0.2, 1.0, None, generalist=0.5)
    answers = panel.answers(np.arange(y.size), y, np.random.default_rng(0))
    expected = panel.expected_loss(np.arange(y.size), y, None)
    for region in (y < 0, y >= 0):
        np.testing.assert_allclose(((answers - y[:, None]) ** 2)[region].mean(axis=0), expected[region].mean(axis=0),
                                   rtol=0.03)


def test_mixture_posterior_is_the_gaussians_bayes_posterior():
    problem = gaussian_mixture(num_samples=60, num_classes=3, dims=2, seed=4)
    rng = np.random.default_rng(4)  # the generator's own draws: its means first
    means = rng.standard_normal((3, 2)) * 3.0 / np.sqrt(4)
    density = np.column_stack([multivariate_normal(mean, np.eye(2)).pdf(problem.x) for mean in means])
    np.testing.assert_allclose(problem.posterior, density / density.sum(axis=1, keepdims=True), rtol=1e-9)


def test_bundled_sets_load_without_downloading():
    for name, classes in (("digits", 10), ("wine", 3), ("breast_cancer", 2)):
        problem = load_bundled(name)
        assert problem.kind == "classification" and problem.num_classes == classes
    diabetes = load_bundled("diabetes")
    assert diabetes.kind == "regression" and abs(diabetes.y.mean()) < 1e-9 and abs(diabetes.y.std() - 1) < 1e-9


def test_unknown_bundled_set_is_a_data_error():
    with pytest.raises(DataError, match="no bundled dataset 'iris'"):
        load_bundled("iris")


def test_wrong_number_of_costs_is_a_data_error():
    with pytest.raises(DataError, match="costs must list 4"):
        load_bundled("wine", costs=[0.1, 0.2])


@pytest.mark.parametrize(("split", "message"), [
    ({"test": 0.2}, "unknown split key 'test'"),
    ({"model": 1.5}, "'model' must be a fraction"),
    ({"model": 0.5, "train": 0.3, "selector": 0.1, "val": 0.1}, "must leave samples for test"),
    ({"selector": 0}, "'selector' must be a fraction"),
    ({"model_components": 0}, "'model_components' must be a positive integer"),
])
def test_bad_split_keys_are_named(split, message):
    with pytest.raises(ValueError, match=message):
        TASK.check_split(split)


def test_split_parts_are_disjoint_cover_every_sample_and_are_stratified():
    strata = np.repeat([0, 1, 2], [100, 60, 40])
    parts = split_parts(strata, SplitSpec(), np.random.default_rng(0))
    rows = np.concatenate(parts)
    assert rows.size == strata.size and np.unique(rows).size == strata.size
    for part, fraction in zip(parts, (0.25, 0.3, 0.1, 0.1, 0.25), strict=True):
        np.testing.assert_allclose(np.bincount(strata[part]), fraction * np.array([100, 60, 40]), atol=1)


def test_the_selector_part_is_disjoint_from_train_validation_and_test(mixture_instance):
    inputs = mixture_instance.inputs
    rows = {name: {tuple(np.round(r, 9)) for r in part} for name, part in
            (("train", inputs.train.x), ("selector", inputs.selector.x), ("val", inputs.val.x),
             ("test", inputs.test_x))}
    names = sorted(rows)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert not rows[first] & rows[second], (first, second)
    for part in (inputs.selector, inputs.val):  # stratified: 10 % of each class's 150 samples, up to rounding
        np.testing.assert_allclose(np.bincount(part.y, minlength=4), 15, atol=1)


def test_topkx_trains_its_selector_on_the_selector_part_alone(mixture_instance):
    from dataclasses import replace

    from methods.deferral.topkx import TopKx

    inputs = mixture_instance.inputs
    shuffled_val = replace(inputs, val=replace(inputs.val, y=np.roll(inputs.val.y, 1)))
    first = TopKx(epochs=20).run(inputs, context()).consulted
    second = TopKx(epochs=20).run(shuffled_val, context()).consulted
    np.testing.assert_array_equal(first, second)  # the validation labels never reach the allocation


def test_predictions_table_has_one_row_per_point_and_sample_and_fits_its_schema(mixture_instance):
    table = TASK.predictions(mixture_instance, RandomK(k=2).run(mixture_instance.inputs, context()))
    points = mixture_instance.inputs.num_entities + 1
    assert len(table) == points * mixture_instance.truth.y.size
    assert list(table.columns[:4]) == ["point", "sample", "decision", "model_answer"]
    assert {f"consult_{e}" for e in mixture_instance.truth.entities} <= set(table.columns)
    assert len(TASK.checked(mixture_instance, table)) == len(table)


def _second_sample_as_first(table):  # noqa: ANN001, ANN202
    first, second = table["sample"].iloc[:2]
    return table.assign(sample=table["sample"].replace({second: first}))


@pytest.mark.parametrize(("mutate", "message"), [
    # the engine's checks, from the task's predictions_schema
    (lambda t: t.drop(columns="decision"), "decision: the predictions table: no column 'decision'"),
    (lambda t: t[t["sample"] != t["sample"].iloc[0]], "1 test sample(s) have no row for point 0"),
    (_second_sample_as_first, "a second row for point 0, sample"),
    (lambda t: t.assign(sample=t["sample"].replace({t["sample"].iloc[0]: "elsewhere"})),
     "sample 'elsewhere' is not a test sample of this dataset"),
    (lambda t: t.assign(decision=t["decision"].where(t.index != 3)), "decision: the predictions table: row 3"),
    (lambda t: t.assign(consult_expert2=2), "consult_expert2: the predictions table: row 0 (counting from 0): 2 is "
                                            "not true or false"),
    # the task's own: a column per entity, points numbered without gaps, someone consulted
    (lambda t: t.drop(columns="consult_expert1"), "predictions lack column 'consult_expert1'"),
    (lambda t: t.assign(point=t["point"].replace({1: 9})), "without gaps"),
    (lambda t: t.assign(**{c: False for c in t.columns if c.startswith("consult_")}), "consults no entity"),
])
def test_malformed_predictions_are_data_errors(mixture_instance, mutate, message):
    table = TASK.predictions(mixture_instance, RandomK(k=2).run(mixture_instance.inputs, context()))
    with pytest.raises(DataError, match=re.escape(message)):
        TASK.score(mixture_instance, TASK.checked(mixture_instance, mutate(table)), {"accuracy": ACCURACY})


def test_an_allocation_consulting_nobody_is_refused(mixture_instance):
    n, entities = mixture_instance.truth.y.size, mixture_instance.inputs.num_entities
    nobody = Allocation(np.zeros((1, n, entities), bool), np.ones((1, n, entities)))
    with pytest.raises(ValueError, match="at least one entity"):
        TASK.predictions(mixture_instance, nobody)


def test_resample_draws_test_samples_with_replacement(mixture_instance):
    table = TASK.predictions(mixture_instance, RandomK(k=2).run(mixture_instance.inputs, context()))
    drawn = TASK.resample(mixture_instance, np.random.default_rng(0))
    assert np.unique(drawn.truth.sample).size < drawn.truth.sample.size
    assert 0 <= TASK.score(drawn, table, {"accuracy": ACCURACY})["accuracy"] <= 100
