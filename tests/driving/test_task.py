"""The task contract: split checks, the predictions table (and its JSON form), scoring from it alone, resampling."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from harness import DataError
from methods.driving.metrics import METRICS
from methods.driving.predictions_io import COLUMNS, main as convert, read_predictions
from methods.driving.task import OpenLoopPlanning
from tests.driving.conftest import make_log

TASK = OpenLoopPlanning()
SOME = {name: METRICS[name] for name in ("fcp", "l2_avg_stp3", "collision_avg_stp3_polygon")}


@pytest.fixture
def instance(four_segment_log):
    return TASK.instance(four_segment_log, {}, seed=0)


def test_check_split_accepts_nothing_or_a_list_of_scenes():
    TASK.check_split({})
    TASK.check_split({"scenes": ["scene-0103"]})
    with pytest.raises(ValueError, match="allowed keys: scenes"):
        TASK.check_split({"scene": ["x"]})
    with pytest.raises(ValueError, match="non-empty list"):
        TASK.check_split({"scenes": "scene-0103"})


def test_split_scenes_select_frames_and_unknown_scenes_fail(four_segment_log):
    assert len(TASK.instance(four_segment_log, {"scenes": ["scene-b"]}, 0).inputs) == 32
    with pytest.raises(DataError, match="no scene 'scene-z'"):
        TASK.instance(four_segment_log, {"scenes": ["scene-z"]}, 0)


def test_predictions_table_has_one_row_per_keyframe_and_13_columns(instance):
    table = TASK.predictions(instance, instance.inputs.oracle_trajectory)
    assert list(table.columns) == COLUMNS and len(table) == 64
    assert table.loc[1, "y6"] == pytest.approx(18.0)


def test_wrong_output_shape_is_an_error(instance):
    with pytest.raises(ValueError, match=r"\(64, 6, 2\)"):
        TASK.predictions(instance, np.zeros((64, 6)))


def test_score_from_the_table_alone_ignores_row_order_and_extra_rows(instance):
    table = TASK.predictions(instance, instance.inputs.oracle_trajectory)
    extra = table.iloc[:1].assign(sample_token="not-in-the-dataset", x1=100.0)
    shuffled = TASK.checked(instance, pd.concat([table.sample(frac=1.0, random_state=0), extra], ignore_index=True))
    assert TASK.score(instance, shuffled, SOME) == {"fcp": 0.0, "l2_avg_stp3": 0.0, "collision_avg_stp3_polygon": 0.0}


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.drop(columns="y3"), "y3: the predictions table: no column 'y3'"),
    (lambda t: t.iloc[1:], "1 test sample(s) have no row, e.g. 'scene-a-000'"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "a second row for sample_token 'scene-a-000'"),
    (lambda t: t.assign(x1=np.nan), "x1: the predictions table: row 0 (counting from 0): holds an empty value"),
    (lambda t: t.assign(y6=np.inf), "y6: the predictions table: row 0 (counting from 0): holds inf, not a finite"),
    (lambda t: t.assign(x1="left"), "x1: the predictions table: row 0 (counting from 0): 'left' is not a number"),
])
def test_malformed_predictions_are_data_errors_naming_row_and_column(instance, mutate, message):
    table = TASK.predictions(instance, instance.inputs.oracle_trajectory)
    with pytest.raises(DataError, match=re.escape(message)):
        TASK.checked(instance, mutate(table))


def test_unscored_frames_need_no_plan_and_their_rows_are_left_out():
    log = make_log({"s": [0.0, 0.0, 0.0]}, incomplete={("s", 2)})
    instance = TASK.instance(log, {}, 0)
    table = TASK.predictions(instance, log.gt_trajectory)
    assert len(TASK.checked(instance, table)) == 2
    assert TASK.score(instance, TASK.checked(instance, table.iloc[:2]), SOME)["l2_avg_stp3"] == 0.0


def test_a_log_without_any_complete_future_is_a_data_error():
    log = make_log({"s": [0.0]}, incomplete={("s", 0)})
    with pytest.raises(DataError, match="complete 3 s future"):
        TASK.instance(log, {}, 0)


def test_json_plans_convert_to_the_same_table(instance, tmp_path):
    inputs = instance.inputs
    plans = {str(t): p.tolist() for t, p in zip(inputs.sample_token, inputs.oracle_trajectory, strict=True)}
    source = tmp_path / "plans.json"
    source.write_text(json.dumps({"plans": plans}))
    assert convert([str(source), str(tmp_path / "plans.parquet")]) == 0
    table = read_predictions(tmp_path / "plans.parquet")
    expected = TASK.predictions(instance, instance.inputs.oracle_trajectory)
    pd.testing.assert_frame_equal(table, expected)
    assert TASK.score(instance, read_predictions(source), SOME)["fcp"] == 0.0


def test_unreadable_json_is_a_data_error(tmp_path):
    bad = tmp_path / "plans.json"
    bad.write_text('{"plans": {"t": [[0, 1]]}}')
    with pytest.raises(DataError, match="plans JSON"):
        read_predictions(bad)


def test_resample_draws_whole_scenes_and_keeps_repeats_apart(instance):
    sample = TASK.resample(instance, np.random.default_rng(3))
    scenes = pd.Series(sample.truth.scene)
    assert len(sample.truth) == 64 and scenes.nunique() == 2
    assert all(name.split("#")[0] in ("scene-a", "scene-b") for name in scenes)
    table = TASK.predictions(instance, instance.inputs.oracle_trajectory)
    assert TASK.score(sample, table, SOME)["fcp"] == 0.0
    boxes_per_frame = np.bincount(sample.truth.box_frame, minlength=64)
    assert boxes_per_frame.sum() == sample.truth.boxes.shape[0]
