"""The task contract: masks hide each column's targets, the reference predictors order as a ceiling should,
and a malformed output is refused."""
from __future__ import annotations

import numpy as np
import pytest

from methods.neural_encoding.baselines.ground_truth import GroundTruthRate
from methods.neural_encoding.baselines.ridge import RidgeEncoder
from methods.neural_encoding.baselines.trial_average import TrialAverage
from methods.neural_encoding.columns import COLUMNS
from methods.neural_encoding.metrics import FORECAST_R, POP_STIM_R, RUNNING_R
from methods.neural_encoding.omnimouse import OmniMouse
from methods.neural_encoding.task import split_spec
from tests.method_runs import context, scored
from tests.neural_encoding.conftest import TASK

METRICS = {"forecast": FORECAST_R, "pop_stim": POP_STIM_R, "running": RUNNING_R}


def test_each_column_zeroes_its_targets_in_the_test_view(small_instance):
    truth = small_instance.truth
    for column in COLUMNS:
        for view, target in zip(small_instance.inputs.test[column.name], truth.targets[column.name], strict=True):
            hidden = view.spikes if column.is_neural else view.behaviour
            assert not hidden[:, target.times][:, :, target.units].any()
            assert (view.video is not None) == column.video


def test_ground_truth_beats_trial_average_and_ridge_decodes_running(small_instance):
    truth = scored(TASK, small_instance, GroundTruthRate(), METRICS)
    average = scored(TASK, small_instance, TrialAverage(), METRICS)
    ridge = scored(TASK, small_instance, RidgeEncoder(), METRICS)
    assert truth["pop_stim"] > average["pop_stim"] and truth["pop_stim"] > ridge["pop_stim"]
    assert np.isnan(truth["running"]) and ridge["running"] > 0.3


def test_the_multitask_model_predicts_every_column_and_a_specialist_one(small_instance):
    output = OmniMouse(steps=3, width=8).run(small_instance.inputs, context())
    assert sorted(output) == sorted(c.name for c in COLUMNS)
    assert list(OmniMouse(steps=3, width=8, specialist="running").run(small_instance.inputs, context())) == ["running"]


def test_a_wrongly_shaped_prediction_is_refused(small_instance):
    with pytest.raises(ValueError, match="shape"):
        TASK.predictions(small_instance, {"pop_stim": [np.zeros((1, 1, 1))] * 2})


def test_unknown_split_keys_and_columns_are_named():
    with pytest.raises(ValueError, match="unknown split key"):
        split_spec({"sessions": 2})
    with pytest.raises(ValueError, match="unknown column"):
        split_spec({"columns": ["whiskers"]})
