"""The task contract: splits, what a method sees, predictions and scoring."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from harness import DataError
from methods.partial_label_graph.metrics import ACCURACY, TRAIN_ACCURACY
from methods.partial_label_graph.task import PartialLabelClassification, split_params, stratified_split

TASK = PartialLabelClassification()


def test_split_is_stratified_disjoint_and_covers_every_graph():
    y = np.repeat(np.arange(6), 100)
    train, val, test = stratified_split(y, 0.8, 0.1, np.random.default_rng(0))
    assert np.intersect1d(train, val).size == np.intersect1d(train, test).size == np.intersect1d(val, test).size == 0
    assert np.array_equal(np.sort(np.r_[train, val, test]), np.arange(600))
    for part, share in ((train, 80), (val, 10), (test, 10)):
        assert np.array_equal(np.bincount(y[part]), np.full(6, share))


def test_the_method_sees_no_label_beyond_candidates_validation_and_the_oracle_field(tiny_instance, tiny):
    inputs = tiny_instance.inputs
    assert (inputs.graphs.y == -1).all() and inputs.graphs.candidates is None
    assert inputs.train_candidates.shape == (inputs.train_idx.size, tiny.num_classes)
    assert inputs.train_candidates[np.arange(inputs.train_idx.size), tiny.y[inputs.train_idx]].all()
    assert np.array_equal(inputs.val_y, tiny.y[inputs.val_idx])
    assert np.intersect1d(inputs.test_idx, np.r_[inputs.train_idx, inputs.val_idx]).size == 0


def test_each_seed_draws_a_new_split_and_new_candidates(tiny):
    a = TASK.instance(tiny, {"q": 0.5}, seed=0).inputs
    b = TASK.instance(tiny, {"q": 0.5}, seed=1).inputs
    assert not np.array_equal(a.train_idx, b.train_idx)


def test_user_supplied_candidates_replace_the_generated_ones(tiny):
    own = np.ones((tiny.num_graphs, tiny.num_classes), dtype=bool)
    inputs = TASK.instance(dataclasses.replace(tiny, candidates=own), {}, seed=0).inputs
    assert inputs.train_candidates.all()


def test_without_q_or_candidate_file_the_split_is_a_user_error(tiny):
    with pytest.raises(DataError, match="no candidate sets and the split gives no q"):
        TASK.instance(tiny, {}, seed=0)


@pytest.mark.parametrize("split, message", [
    ({"q": 1.5}, "'q' is a probability"),
    ({"q": 0.3, "train": 0.9, "val": 0.2}, "must leave graphs for test"),
    ({"q": 0.3, "tets": 0.1}, "unknown split key 'tets'"),
    ({"q": 0.3, "resample_singletons": "yes"}, "must be true or false"),
])
def test_bad_split_keys_are_named(split, message):
    with pytest.raises(ValueError, match=message):
        split_params(split)


def test_scores_are_accuracies_of_the_argmax_on_test_and_train_graphs(tiny_instance, tiny):
    inputs = tiny_instance.inputs
    scores = np.eye(tiny.num_classes)[tiny.y] + 0.0
    wrong = inputs.test_idx[:2]
    scores[wrong] = np.roll(scores[wrong], 1, axis=1)
    predictions = TASK.predictions(tiny_instance, scores)
    result = TASK.score(tiny_instance, predictions, {"acc": ACCURACY, "tr": TRAIN_ACCURACY})
    assert result["acc"] == pytest.approx(100 * (1 - 2 / inputs.test_idx.size))
    assert result["tr"] == 100.0


def test_train_accuracy_takes_the_top_class_over_all_classes_not_only_the_candidates(tiny_instance, tiny):
    inputs = tiny_instance.inputs
    scores = np.eye(tiny.num_classes)[tiny.y] * 0.5
    outside = ~inputs.train_candidates[0].astype(bool)
    scores[inputs.train_idx[0], np.flatnonzero(outside)[0]] = 1.0  # a non-candidate outscores the true label
    result = TASK.score(tiny_instance, TASK.predictions(tiny_instance, scores), {"tr": TRAIN_ACCURACY})
    assert result["tr"] == pytest.approx(100 * (1 - 1 / inputs.train_idx.size))


def test_output_of_the_wrong_shape_is_refused(tiny_instance):
    with pytest.raises(ValueError, match="class scores for every graph"):
        TASK.predictions(tiny_instance, np.zeros((3, 3)))


def test_the_methods_table_fits_the_schema(tiny_instance, tiny):
    predictions = TASK.predictions(tiny_instance, np.eye(tiny.num_classes)[tiny.y])
    assert len(TASK.checked(tiny_instance, predictions)) == len(predictions)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.drop(columns="part"), "part: the predictions table: no column 'part'"),
    (lambda t: pd.concat([t, t.iloc[:1]], ignore_index=True), "a second row for part 'test', graph "),
    (lambda t: t.assign(predicted=t["predicted"].where(t.index != 2, 1.5)),
     "predicted: the predictions table: row 2 (counting from 0): 1.5 is not an integer"),
    (lambda t: t.assign(graph=t["graph"].where(t.index != 0, -1)), "sample -1 is not a test sample of this dataset"),
])
def test_malformed_predictions_are_refused_naming_row_and_column(tiny_instance, tiny, change, message):
    predictions = TASK.predictions(tiny_instance, np.eye(tiny.num_classes)[tiny.y])
    with pytest.raises(DataError, match=re.escape(message)):
        TASK.checked(tiny_instance, change(predictions))


@pytest.mark.parametrize("part", ["test", "train"])
def test_predictions_missing_a_graph_of_a_part_are_a_data_error(tiny_instance, tiny, part):
    predictions = TASK.predictions(tiny_instance, np.eye(tiny.num_classes)[tiny.y])
    first = predictions.index[predictions["part"] == part][0]
    checked = TASK.checked(tiny_instance, predictions.drop(index=first))
    with pytest.raises(DataError, match=f"{part} graphs have no prediction"):
        TASK.score(tiny_instance, checked, {"acc": ACCURACY, "tr": TRAIN_ACCURACY})


def test_bootstrap_resamples_test_graphs_only(tiny_instance):
    resampled = TASK.resample(tiny_instance, np.random.default_rng(0))
    assert resampled.inputs is tiny_instance.inputs
    assert np.isin(resampled.truth.test_idx, tiny_instance.truth.test_idx).all()
    assert np.array_equal(resampled.truth.train_idx, tiny_instance.truth.train_idx)
