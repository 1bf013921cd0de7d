"""The contract `neural_encoding.omnimouse`: OmniMouse's seven task columns (forecast, forecast + stimulus,
population completion, population + stimulus, gaze, pupil, running; spec shared/papers/omnimouse.md) on a
simulated cortex, or a user's recorded test split (the `traces` loader) against which their model's predictions file
is scored with the same metrics.

Each seed simulates a new cortex from the loader's `CortexSpec`. A method sees every session's training trials
and, per column, the evaluated sessions' test trials with that column's targets zeroed (`TestView`); it returns
per column and session an array (test trials, target times, target units). Split keys: `eval_sessions` (score
the first k sessions' test trials; default all) and `columns` (default the seven).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.predictions_schema import Column as TableColumn, PredictionsSchema
from methods.neural_encoding.byo import RecordedTraces
from methods.neural_encoding.columns import BY_NAME, Column
from methods.neural_encoding.cortex import CortexSpec, Session, simulate
from methods.neural_encoding.problem import (EncodingInputs, EncodingTruth, Oracle, Target, TestView, TrainSession)
from methods.neural_encoding.scored import table_of, scored_columns

SPLIT_KEYS = ("eval_sessions", "columns")


def split_spec(split: Mapping[str, Any], sessions: int | None = None) -> tuple[int | None, tuple[str, ...]]:
    unknown = sorted(set(map(str, split)) - set(SPLIT_KEYS))
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; the neural_encoding task takes {', '.join(SPLIT_KEYS)}")
    count = split.get("eval_sessions")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise ValueError(f"eval_sessions must be a positive integer, got {count!r}")
    if count is not None and sessions is not None and count > sessions:
        raise ValueError(f"eval_sessions {count} exceeds the cortex's {sessions} sessions")
    columns = tuple(split.get("columns", BY_NAME))
    bad = [c for c in columns if c not in BY_NAME]
    if bad:
        raise ValueError(f"unknown column {bad[0]!r}; the columns are {', '.join(BY_NAME)}")
    return count, columns


def test_view(session: Session, column: Column) -> TestView:
    test = session.test
    spikes, behaviour = session.spikes[test], session.behaviour[test]
    time_bins, neurons = spikes.shape[1:]
    seen = column.neural_input(time_bins, neurons)
    return TestView(spikes * seen, behaviour * column.behaviour_input(), session.video[test] if column.video else None,
                    column.target_times(time_bins), column.target_units(neurons))


def target(session: Session, column: Column) -> Target:
    test = session.test
    source = session.spikes[test] if column.is_neural else session.behaviour[test]
    times, units = column.target_times(source.shape[1]), column.target_units(session.spikes.shape[2])
    return Target(source[:, times][:, :, units].astype(np.float64), times, units, session.test_movie[test])


def leave_one_out_mean(spikes: np.ndarray, movie: np.ndarray) -> np.ndarray:
    """Per trial, the mean response of the other repeats of its movie."""
    out = np.empty_like(spikes)
    for m in np.unique(movie):
        rows = movie == m
        out[rows] = (spikes[rows].sum(axis=0) - spikes[rows]) / (rows.sum() - 1)
    return out


class NeuralEncoding(Task):
    """Seven masked prediction tasks on one simulated cortex per seed (or the user's recorded test split)."""

    # One row per predicted value. The engine checks kinds, finiteness and that no value is answered twice;
    # `scored_columns` checks each (column, session)'s rows against its targets' trials x times x units, which
    # differ per column and session, so the task lists no test samples.
    predictions_schema = PredictionsSchema(
        (TableColumn("column", "text", description="the task column: forecast, forecast_stim, population, pop_stim, "
                                                   "gaze, pupil or running"),
         TableColumn("session", "integer", description="the evaluated session, from 0"),
         TableColumn("trial", "integer", description="the trial's position among the session's test trials"),
         TableColumn("time", "integer", description="the time bin"),
         TableColumn("unit", "integer", description="the neuron, or the behaviour channel"),
         TableColumn("prediction", "number")),
        sample="trial", per=("column", "session", "time", "unit"))

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_spec(split)

    def instance(self, data: CortexSpec | RecordedTraces, split: Mapping[str, Any], seed: int) -> Instance:
        if isinstance(data, RecordedTraces):
            return data.instance()
        count, names = split_spec(split, data.sessions)
        cortex = simulate(data, seed)
        evaluated = cortex.sessions[: count or data.sessions]
        train = tuple(TrainSession(s.video[s.train], s.spikes[s.train], s.behaviour[s.train]) for s in cortex.sessions)
        columns = [BY_NAME[name] for name in names]
        test = {c.name: tuple(test_view(s, c) for s in evaluated) for c in columns}
        oracle = tuple(Oracle(s.rates[s.test], leave_one_out_mean(s.spikes[s.test], s.test_movie[s.test]))
                       for s in evaluated)
        truth = EncodingTruth({c.name: tuple(target(s, c) for s in evaluated) for c in columns})
        return Instance(EncodingInputs(train, test, oracle), truth)

    tiny_instance_is_slow = False

    def tiny_instance(self, seed: int) -> Instance:
        """Two sessions of 12 neurons, 12 training trials of 16 bins, 2 test movies x 2 repeats, 12-pixel frames."""
        spec = CortexSpec(sessions=2, neurons=12, train_trials=12, test_movies=2, repeats=2, time_bins=16, frame=12)
        return self.instance(spec, {}, seed)

    def hide_test_labels(self, inputs: EncodingInputs, rng: np.random.Generator) -> EncodingInputs:
        """The oracle's rates and repeat means (read by the reference predictors alone) replaced by noise."""
        if inputs.oracle is None:
            return inputs
        noisy = tuple(Oracle(rng.random(o.rates.shape).astype(np.float32), rng.random(o.repeat_mean.shape))
                      for o in inputs.oracle)
        return replace(inputs, oracle=noisy)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: EncodingTruth = instance.truth
        if not isinstance(output, dict):
            raise ValueError(f"a neural-encoding method returns {{column: [array per session]}}, got "
                             f"{type(output).__name__}")
        tables = []
        for column, arrays in output.items():
            targets = truth.targets.get(column)
            if targets is None:
                raise ValueError(f"the method predicted column {column!r}, which this instance does not score")
            if len(arrays) != len(targets):
                raise ValueError(f"column {column!r}: {len(arrays)} arrays for {len(targets)} evaluated sessions")
            for session, (goal, array) in enumerate(zip(targets, arrays, strict=True)):
                array = np.asarray(array, dtype=np.float64)
                if array.shape != goal.values.shape:
                    raise ValueError(f"column {column!r}, session {session}: predictions must have shape "
                                     f"{goal.values.shape}, got {array.shape}")
                tables.append(table_of(column, session, goal, array))
        if not tables:
            return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in
                                 (("column", str), ("session", "int32"), ("trial", "int32"), ("time", "int32"),
                                  ("unit", "int32"), ("prediction", "float32"))})
        return pd.concat(tables, ignore_index=True)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_columns(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
