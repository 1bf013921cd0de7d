"""The family's specification: the metric against scikit-learn, the method against the Bayes optimum, chance
at chance, the split and the predictions table's checks, and a user's CSV read or refused with its line."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError, RunContext
from methods.my_family.baselines.random_scores import RandomScores
from methods.my_family.data import bayes_auroc, gaussian_blobs, load_points_csv
from methods.my_family.metrics import AUROC
from methods.my_family.my_method import MyMethod
from methods.my_family.task import PointScoring


def _context(seed: int = 0) -> RunContext:
    return RunContext(seed=seed, device="cpu", threads=1)


def test_auroc_matches_sklearn_with_ties():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 300)
    y_score = rng.integers(0, 5, 300).astype(float)  # few distinct values: many ties
    assert AUROC(y_true, y_score) == pytest.approx(100 * metrics.roc_auc_score(y_true, y_score))


def test_auroc_is_nan_without_both_classes():
    assert np.isnan(AUROC(np.ones(5), np.arange(5.0)))


@pytest.mark.parametrize("separation", [1.0, 2.0])
def test_my_method_comes_within_two_points_of_the_bayes_auroc(separation):
    task = PointScoring()
    instance = task.instance(gaussian_blobs(num_points=20_000, separation=separation), {}, seed=0)
    predictions = task.predictions(instance, MyMethod().run(instance.inputs, _context()))
    auroc = task.score(instance, predictions, {"auroc": AUROC})["auroc"]
    assert bayes_auroc(separation) - 2 < auroc <= bayes_auroc(separation) + 1


def test_random_scores_are_chance_and_repeat_with_the_seed():
    task = PointScoring()
    instance = task.instance(gaussian_blobs(num_points=20_000), {}, seed=0)
    first = RandomScores().run(instance.inputs, _context(seed=3))
    assert np.array_equal(first, RandomScores().run(instance.inputs, _context(seed=3)))
    predictions = task.predictions(instance, first)
    assert task.score(instance, predictions, {"auroc": AUROC})["auroc"] == pytest.approx(50, abs=2)


def test_each_seed_draws_its_own_split_of_the_asked_size():
    task = PointScoring()
    data = gaussian_blobs(num_points=100)
    splits = [task.instance(data, {"test_fraction": 0.3}, seed=seed).truth.test_idx for seed in (0, 1)]
    assert [s.size for s in splits] == [30, 30] and not np.array_equal(*splits)


@pytest.mark.parametrize("split", [{"test_fraction": 1.5}, {"test_share": 0.3}])
def test_a_bad_split_is_refused_naming_the_key(split):
    with pytest.raises(ValueError, match="test_fraction|test_share"):
        PointScoring().check_split(split)


def test_predictions_missing_a_test_point_name_it():
    task = PointScoring()
    instance = task.instance(gaussian_blobs(num_points=40), {}, seed=0)
    predictions = task.predictions(instance, np.zeros(20)).iloc[1:]
    with pytest.raises(DataError, match=f"1 test sample.*no row, e.g. {instance.truth.test_idx[0]}"):
        task.checked(instance, predictions)  # what the engine does before every score


def test_a_users_csv_is_read_and_a_bad_label_is_refused_with_its_line(tmp_path):
    path = tmp_path / "points.csv"
    pd.DataFrame({"a": [0.5, 1.5, -1.0], "b": [1.0, 2.0, 3.0], "label": [1, 1, 0]}).to_csv(path, index=False)
    points = load_points_csv(path)
    assert points.x.shape == (3, 2) and points.y.tolist() == [1, 1, 0]
    path.write_text(path.read_text().replace("-1.0,3.0,0", "-1.0,3.0,2"))
    with pytest.raises(DataError, match="not 0 or 1") as error:
        load_points_csv(path)
    assert error.value.line == 4
