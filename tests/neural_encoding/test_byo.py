"""Bring your own test split and predictions: the `traces` loader reads a real split's responses, a suite's
`predictions:` file in the task's table is scored against them by `harness score` with the family's metrics,
and each mistake is named with its file (and line and column where it has them)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness import DataError
from harness.store import Store
from methods.neural_encoding.byo import load_traces
from methods.neural_encoding.metrics import CORR_TO_AVERAGE, POP_STIM_R
from tests.neural_encoding.conftest import TASK

SUITE = """\
schema_version: 1
suite: traces_byo
task: neural_encoding.omnimouse
defaults: {{seeds: [0]}}
datasets:
  split: {{loader: traces, args: {{path: "{folder}"}}}}
metrics: [pop_stim_r, corr_to_average]
methods:
  mine: {{predictions: "preds/{{method}}/{{dataset}}/{{seed}}.{suffix}"}}
"""
SESSIONS = 2


def _write(folder, name="s0.npz", trials=6, seed=0, **fields):
    """A session file; `fields` replace (None: leave out) its arrays. Returns the responses and a prediction."""
    rng = np.random.default_rng(seed)
    responses = rng.poisson(2.0, (trials, 5, 3)).astype(float)
    arrays = {"responses": responses, "movie": np.repeat(np.arange(trials // 2), 2)} | fields
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / name, **{k: v for k, v in arrays.items() if v is not None})
    return responses, responses + rng.normal(size=responses.shape)


def _split(tmp_path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two sessions' responses and predictions under tmp_path/split."""
    written = [_write(tmp_path / "split", f"s{i}.npz", seed=i) for i in range(SESSIONS)]
    return [r for r, _ in written], [p for _, p in written]


def _table(predicted: list[np.ndarray]) -> pd.DataFrame:
    """The README's recipe: one row per predicted value, session by session."""
    tables = []
    for session, array in enumerate(predicted):
        trial, time, unit = np.indices(array.shape).reshape(3, -1)
        tables.append(pd.DataFrame({"column": "pop_stim", "session": session, "trial": trial, "time": time,
                                    "unit": unit, "prediction": array.ravel()}))
    return pd.concat(tables, ignore_index=True)


def _score(table: pd.DataFrame, suffix: str, tmp_path, cli, write_suite, store) -> tuple[dict, str]:
    """`harness score` of the suite with `table` as seed 0's predictions file; (the run record, the file)."""
    path = tmp_path / "preds" / "mine" / "split" / f"0.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == "parquet":
        table.to_parquet(path)
    elif suffix == "csv":
        table.to_csv(path, index=False)
    else:
        table.to_json(path, orient="records", lines=True)
    cli("score", str(write_suite(SUITE.format(folder=tmp_path / "split", suffix=suffix))), "--store", str(store),
        plugin=False)
    [record] = Store(store).records()
    return record, str(path)


@pytest.mark.parametrize("suffix", ["parquet", "csv", "jsonl"])
def test_a_predictions_file_scores_as_scipy_pearson_and_as_the_tasks_own_table(suffix, tmp_path, cli, write_suite,
                                                                               store):
    responses, predicted = _split(tmp_path)
    record, _ = _score(_table(predicted), suffix, tmp_path, cli, write_suite, store)
    assert record["status"] == "ok", record.get("error")
    per_unit = [stats.pearsonr(r[..., u].ravel(), p[..., u].ravel()).statistic
                for r, p in zip(responses, predicted, strict=True) for u in range(r.shape[2])]
    assert record["metrics"]["pop_stim_r"] == pytest.approx(np.mean(per_unit))
    instance = TASK.instance(load_traces(tmp_path / "split"), {}, 0)
    own = TASK.predictions(instance, {"pop_stim": predicted})  # the table a method's output becomes
    metrics = {"pop_stim_r": POP_STIM_R, "corr_to_average": CORR_TO_AVERAGE}
    expected = TASK.score(instance, TASK.checked(instance, own), metrics)
    assert record["metrics"] == pytest.approx(expected) and np.isfinite(expected["corr_to_average"])


def _with_nan(table: pd.DataFrame) -> pd.DataFrame:
    table.loc[7, "prediction"] = np.nan
    return table


BAD_TABLES = {  # (change, suffix, what the error names beside the file)
    "a NaN prediction": (_with_nan, "csv", ":9: prediction: holds an empty value"),  # row 7 under the header
    "no unit column": (lambda t: t.drop(columns="unit"), "jsonl", "unit: no column 'unit'"),
    "a value given twice": (lambda t: pd.concat([t, t.iloc[[4]]], ignore_index=True), "csv",
                            f":{2 * 6 * 5 * 3 + 2}: trial: a second row"),
    "a session's value left out": (lambda t: t.drop(index=3), "parquet", "do not cover the 6 trials x 5 time bins"),
    "an unknown session": (lambda t: t.assign(session=t["session"] + 1), "parquet", "unknown column or session"),
}


@pytest.mark.parametrize("case", list(BAD_TABLES))
def test_a_bad_predictions_file_is_named_with_its_line_and_column(case, tmp_path, cli, write_suite, store):
    change, suffix, named = BAD_TABLES[case]
    record, path = _score(change(_table(_split(tmp_path)[1])), suffix, tmp_path, cli, write_suite, store)
    assert record["status"] == "failed"
    assert path in record["error"] and named in record["error"], record["error"]


def test_a_recorded_split_has_nothing_to_train_a_method_on(tmp_path):
    from methods.neural_encoding.baselines.ridge import RidgeEncoder
    from tests.method_runs import context

    _split(tmp_path)
    instance = TASK.instance(load_traces(tmp_path / "split"), {}, 0)
    with pytest.raises(DataError, match="predictions file"):
        RidgeEncoder().run(instance.inputs, context())


def test_a_missing_responses_field_names_file_and_field(tmp_path):
    _write(tmp_path, responses=None)
    with pytest.raises(DataError, match="responses") as error:
        load_traces(tmp_path)
    assert "s0.npz" in str(error.value)


def test_non_finite_responses_are_named(tmp_path):
    responses, _ = _write(tmp_path)
    responses[0, 0, 0] = np.inf
    _write(tmp_path, responses=responses)
    with pytest.raises(DataError, match="NaN or infinite"):
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
