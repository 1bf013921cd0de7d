"""An export read back as run records (`harness report --runs`) keeps what the runs recorded: a measure recorded
as NaN stays NaN (the table shows 'NaN'), one never recorded stays absent (the table shows '—')."""
from __future__ import annotations

import json
import math

import pandas as pd

from harness.results import records_of_export


def test_a_measure_recorded_as_nan_survives_the_export_and_one_never_recorded_does_not_appear():
    info = json.dumps({"silhouette": {"unit": "", "higher_is_better": True}})
    frame = pd.DataFrame([
        {"run_id": "r1", "run_key": "k1", "suite": "s", "method": "m", "dataset": "d", "seed": 0, "status": "ok",
         "measure.silhouette": float("nan"), "measure_info": info},
        {"run_id": "r2", "run_key": "k2", "suite": "s", "method": "m", "dataset": "e", "seed": 0, "status": "ok",
         "measure.silhouette": float("nan"), "measure_info": "{}"},
    ])
    recorded_nan, never = records_of_export(frame, "runs.csv")
    assert math.isnan(recorded_nan["measurements"]["silhouette"]["value"])
    assert recorded_nan["measurements"]["silhouette"]["higher_is_better"] is True
    assert never["measurements"] == {}
