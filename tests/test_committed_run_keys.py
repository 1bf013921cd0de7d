"""Every committed report's suite still plans exactly the run keys of its committed runs.csv: a refactoring that
changed a run key (a parameter default, a version, a dataset fingerprint) would orphan the report's runs, and
`harness run` would silently run them again. A change meant to change results bumps a version and commits the
reports it makes."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.errors import DataError
from harness.extras import family_unavailable
from harness.runner import plan_suite
from harness.suite import load_suite

REPO = Path(__file__).resolve().parents[1]
REPORTED = sorted(path.parent.name for path in (REPO / "reports").glob("*/runs.csv"))


def test_every_committed_report_is_checked():
    assert len(REPORTED) >= 50


@pytest.mark.parametrize("name", REPORTED)
def test_the_suite_plans_the_run_keys_of_its_committed_runs(name):
    suite_path = REPO / "suites" / f"{name}.yaml"
    if reason := family_unavailable(load_suite(suite_path)[0].family):
        pytest.skip(reason)
    try:
        _, planned = plan_suite(suite_path)
    except DataError as exc:  # a real dataset absent here (shared/data)
        pytest.skip(f"cannot plan {name} here: {exc}")
    committed = set(pd.read_csv(REPO / "reports" / name / "runs.csv", usecols=["run_key"])["run_key"])
    planned_keys = {spec.run_key for spec in planned}
    assert planned_keys == committed, (f"{len(planned_keys - committed)} planned run keys are not in the "
                                       f"committed runs.csv, {len(committed - planned_keys)} committed ones are "
                                       "no longer planned")
