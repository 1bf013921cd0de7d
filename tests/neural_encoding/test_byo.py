"""Bring-your-own predicted traces: the .npz format scores with the family's metrics, and each mistake is named
with its file and field."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from harness import DataError
from methods.neural_encoding.baselines.recorded import RecordedPredictions
from methods.neural_encoding.byo import load_traces
from methods.neural_encoding.metrics import CORR_TO_AVERAGE, POP_STIM_R
from tests.method_runs import scored
from tests.neural_encoding.conftest import TASK


def _write(folder, name="s0.npz", trials=6, **fields):
    rng = np.random.default_rng(0)
    responses = rng.poisson(2.0, (trials, 5, 3)).astype(float)
    arrays = {"responses": responses, "predictions": responses + rng.normal(size=responses.shape),
              "movie": np.repeat(np.arange(trials // 2), 2)} | fields
    np.savez(folder / name, **{k: v for k, v in arrays.items() if v is not None})
    return arrays


def test_recorded_traces_score_as_scipy_pearson_per_neuron(tmp_path):
    arrays = _write(tmp_path)
    instance = TASK.instance(load_traces(tmp_path), {}, 0)
    values = scored(TASK, instance, RecordedPredictions(), {"r": POP_STIM_R, "avg": CORR_TO_AVERAGE})
    expected = np.mean([stats.pearsonr(arrays["responses"][..., u].ravel(),
                                       arrays["predictions"][..., u].ravel()).statistic for u in range(3)])
    assert values["r"] == pytest.approx(expected) and np.isfinite(values["avg"])


def test_missing_predictions_field_names_file_and_field(tmp_path):
    _write(tmp_path, predictions=None)
    with pytest.raises(DataError, match="predictions") as error:
        load_traces(tmp_path)
    assert "s0.npz" in str(error.value)


def test_shape_mismatch_is_named(tmp_path):
    _write(tmp_path, predictions=np.zeros((6, 5, 2)))
    with pytest.raises(DataError, match="shape"):
        load_traces(tmp_path)


def test_a_movie_shown_once_is_named(tmp_path):
    _write(tmp_path, movie=np.arange(6))
    with pytest.raises(DataError, match="at least twice"):
        load_traces(tmp_path)


def test_an_empty_folder_and_an_unknown_column_are_named(tmp_path):
    with pytest.raises(DataError, match="no .npz"):
        load_traces(tmp_path)
    _write(tmp_path)
    with pytest.raises(DataError, match="unknown column"):
        load_traces(tmp_path, column="whiskers")
