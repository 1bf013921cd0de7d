"""The family end to end: registration, the committed suites, and bring-your-own predictions."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import harness
from harness.registry import datasets, methods, metrics, tasks
from harness.suite import load_suite
from methods.driving.metrics import METRICS

REPO = Path(__file__).resolve().parents[2]
SUITES = ["driving_fcp.yaml", "driving_conventions.yaml"]


def test_every_metric_is_registered_under_the_family_and_loads():
    registered = {n.split(".", 1)[1] for n in metrics.names() if n.startswith("driving.")}
    assert registered == set(METRICS)
    for name in registered:
        assert metrics.get(f"driving.{name}") is METRICS[name]
    assert not metrics.get("driving.fcp").higher_is_better


def test_task_loaders_and_planners_resolve():
    assert tasks.get("driving.open_loop_planning")
    for name in ("driving.nuscenes", "driving.generated_scenes"):
        assert callable(datasets.get(name))
    for name in ("gt_copy", "constant_velocity", "command_lag", "lateral_noise", "lead_collider"):
        assert methods.entry(f"driving.{name}").meta["task"] == "driving.open_loop_planning"


@pytest.mark.parametrize("name", SUITES)
def test_committed_suites_validate(name):
    suite, _ = load_suite(REPO / "suites" / name)
    assert suite.task == "driving.open_loop_planning"


@pytest.mark.slow
def test_fcp_suite_runs_and_lag_k_scores_three_quarters_k(tmp_path):
    pytest.importorskip("nuscenes.nuscenes", reason="nuscenes-devkit is absent (see methods/driving/README.md)")
    frame = harness.run(REPO / "suites" / "driving_fcp.yaml", store=tmp_path / "results.sqlite", jobs=2)
    assert len(frame) == 48 and set(frame["status"]) == {"ok"}
    fcp = frame.groupby("method")["metric.fcp"].mean()
    assert fcp["gt_copy"] == 0.0
    for lag in (1, 2, 4):
        assert fcp[f"command_lag[lag={lag}]"] == pytest.approx(0.75 * lag)
    l2 = frame.groupby("method")["metric.l2_avg_stp3"].mean()
    assert l2["gt_copy"] == 0.0 and l2["constant_velocity"] > 0.5
    collision = frame.groupby("method")["metric.collision_avg_stp3_polygon"].mean()
    assert collision["gt_copy"] == 0.0 and collision["lead_collider"] > 10.0


METRIC_NAMES = ("fcp", "l2_avg_stp3", "collision_avg_uniad_raster")
BYO_SUITE = """\
schema_version: 1
suite: driving_byo
task: driving.open_loop_planning
defaults: {{seeds: [0], device: cpu, timeout: 2m}}
datasets:
  small: {{loader: generated_scenes, args: {{num_scenes: 2, keyframes: 12, seed: 3, cache_dir: "{cache}"}}}}
metrics: [{metrics}]
methods:
  mine: {{predictions: "preds/{{method}}-{{dataset}}-{{seed}}.{suffix}"}}
"""


def _their_plans(tmp_path: Path):  # noqa: ANN202
    """The logged futures shifted 1 m ahead, as a predictions table of the suite's log, and the log."""
    pytest.importorskip("nuscenes.nuscenes", reason="nuscenes-devkit is absent (see methods/driving/README.md)")
    from methods.driving.data import generated_scenes
    from methods.driving.predictions_io import plans_to_table

    log = generated_scenes(num_scenes=2, keyframes=12, seed=3, cache_dir=str(tmp_path / "cache"))
    plans = log.gt_trajectory.copy()
    plans[:, :, 1] += 1.0
    (tmp_path / "preds").mkdir()
    return plans_to_table(log.sample_token, plans), log


def _scored_file(tmp_path: Path, suffix: str) -> pd.Series:
    suite = tmp_path / "suite.yaml"
    suite.write_text(BYO_SUITE.format(cache=tmp_path / "cache", suffix=suffix, metrics=", ".join(METRIC_NAMES)))
    return harness.run(suite, store=tmp_path / "results.sqlite", executor="inline").iloc[0]


def test_bring_your_own_predictions_are_scored_from_the_parquet_file(tmp_path):
    table, log = _their_plans(tmp_path)
    table.to_parquet(tmp_path / "preds" / "mine-small-0.parquet")
    row = _scored_file(tmp_path, "parquet")
    assert row["status"] == "ok"
    assert row["metric.l2_avg_stp3"] == pytest.approx(1.0)
    assert row["metric.fcp"] == 0.0
    task = tasks.get("driving.open_loop_planning")()
    instance = task.instance(log, {}, 0)
    own = task.score(instance, task.checked(instance, table), {name: METRICS[name] for name in METRIC_NAMES})
    assert {name: row[f"metric.{name}"] for name in METRIC_NAMES} == pytest.approx(own)


def test_a_broken_predictions_file_is_named_with_its_line_and_column(tmp_path):
    table, _ = _their_plans(tmp_path)
    path = tmp_path / "preds" / "mine-small-0.csv"
    table.assign(x3=table["x3"].astype(object).where(table.index != 5, "left")).to_csv(path, index=False)
    row = _scored_file(tmp_path, "csv")
    assert row["status"] != "ok" and f"{path}:7: x3: 'left' is not a number" in row["error"]

