"""`harness reproduce`: a stratified sample of a report's stored runs, run again into a scratch store, each
exact / within the stored seeds' prediction interval / outside / failed, the environment differences named,
and the report's footer citing the result."""
from __future__ import annotations

import json
import sqlite3

import pandas as pd

from harness.reproduce import prediction_interval, stratified_sample
from tests.conftest import TOY_SUITE

SIX_SEEDS = TOY_SUITE.replace("seeds: [0, 1]", "seeds: [0, 1, 2, 3, 4, 5]").replace(
    "params: {t: [0.0, 0.5]}", "params: {t: [0.0, 0.5], noise: 0.5}")  # seeded noise: the seeds spread


def _stored(cli, write_suite, store) -> str:
    suite = str(write_suite(SIX_SEEDS))
    assert cli("run", suite, "--store", str(store), "--executor", "inline")[0] == 0
    return suite


def test_unchanged_runs_come_back_exact_and_the_report_footer_cites_them(cli, write_suite, store, tmp_path):
    suite = _stored(cli, write_suite, store)
    result = tmp_path / "report" / "reproduce.json"
    code, out, _ = cli("reproduce", suite, "--store", str(store), "--sample", "3", "--out", str(result))
    assert code == 0 and "3 of 12 stored runs re-run: 3 exact, 0 within, 0 outside, 0 failed" in out
    drawn = json.loads(result.read_text())["runs"]
    assert {run["method"] for run in drawn} == {"thr[t=0.0]", "thr[t=0.5]"}  # both methods before either twice
    assert all(run["new_run_id"] and run["new_run_id"] != run["stored_run_id"] for run in drawn)
    assert cli("report", suite, "--store", str(store), "--out", str(tmp_path / "report"), "--format", "md")[0] == 0
    footer = (tmp_path / "report" / "report.md").read_text().replace("\\[", "[").replace("\\]", "]")
    assert "reproduced 3 sampled runs on" in footer and "exact: thr[t=0.0], thr[t=0.5]" in footer


def test_runs_that_come_back_other_are_within_or_outside_the_seed_interval(cli, write_suite, store, tmp_path):
    """An export edited as another machine might have made it: one run of t=0.0 a hair off (inside its seeds'
    interval), every run of t=0.5 twenty points lower than this machine gives (outside); exit 1."""
    suite = _stored(cli, write_suite, store)
    runs = tmp_path / "runs.csv"
    assert cli("export", "--store", str(store), "--suite", suite, "--format", "csv", "--out", str(runs))[0] == 0
    frame = pd.read_csv(runs)
    first = frame.index[frame["method"] == "thr[t=0.0]"][0]
    assert frame.loc[frame["method"] == "thr[t=0.0]", "metric.accuracy"].std() > 0  # the seeds give an interval
    frame.loc[first, "metric.accuracy"] += 1e-9
    frame.loc[frame["method"] == "thr[t=0.5]", "metric.accuracy"] -= 20 + 0.1 * frame["seed"]
    frame.to_csv(runs, index=False)
    code, out, _ = cli("reproduce", suite, "--runs", str(runs), "--store", str(store), "--sample", "12")
    assert code == 1
    assert "12 of 12 stored runs re-run: 5 exact, 1 within, 6 outside, 0 failed" in out
    assert out.count("outside  thr[t=0.5]") == 6 and "accuracy" in out


def test_the_environment_differences_are_named(cli, write_suite, store):
    suite = _stored(cli, write_suite, store)
    with sqlite3.connect(store) as db:  # as if stored under another numpy on another CPU
        for run_id, text in db.execute("select run_id, record from runs").fetchall():
            record = json.loads(text)
            record["environment"]["packages"]["numpy"] = "1.0.0"
            record["environment"]["numerics_fingerprint"] = "0123456789ab"
            db.execute("update runs set record = ? where run_id = ?", (json.dumps(record), run_id))
    code, out, _ = cli("reproduce", suite, "--store", str(store), "--sample", "1")
    assert code == 0 and "packages.numpy: 1.0.0 -> " in out and "numerics_fingerprint: 0123456789ab -> " in out


def test_a_stratified_sample_takes_every_method_before_any_twice_and_never_a_run_twice():
    records = [{"method": m, "run_key": f"{m}{i}"} for m, n in (("a", 5), ("b", 1), ("c", 3)) for i in range(n)]
    for seed in range(5):
        assert sorted(r["method"] for r in stratified_sample(records, 3, seed)) == ["a", "b", "c"]
        six = stratified_sample(records, 6, seed)
        assert len({r["run_key"] for r in six}) == 6 and sum(r["method"] == "b" for r in six) == 1
    assert len(stratified_sample(records, 50, 0)) == 9


def test_the_prediction_interval_of_one_more_seed():
    low, high = prediction_interval([1.0, 2.0, 3.0])  # mean 2, sd 1, t(0.975, 2) = 4.303, sqrt(4/3)
    assert abs(high - 2.0 - 4.302653 * 1.154701) < 1e-5 and abs(low + high - 4.0) < 1e-12
    assert prediction_interval([1.0, float("inf")]) is None  # one finite seed has no spread


def test_a_difference_in_the_last_digits_is_within_even_where_the_seeds_never_vary():
    """masa_ci's spectral distance is the same on every seed (an interval of width 0): a value 1e-9 apart, what
    another CPU's reduction order gives, is within; 1e-4 apart is outside."""
    from harness.reproduce import Outcome, compare_run

    seeds = {("m", "d", "distance"): [0.460785] * 6}
    stored = {"method": "m", "dataset": "d", "seed": 0, "run_id": "a", "metrics": {"distance": 0.460785}}
    def again(value: float) -> dict:
        return {"run_id": "b", "status": "ok", "metrics": {"distance": value}}
    assert compare_run(stored, again(0.460785), seeds).outcome is Outcome.EXACT
    assert compare_run(stored, again(0.460785 * (1 + 1e-9)), seeds).outcome is Outcome.WITHIN
    assert compare_run(stored, again(0.460785 * (1 + 1e-4)), seeds).outcome is Outcome.OUTSIDE


def test_a_figure_of_the_machine_is_left_out():
    """rl_sem_offpolicy's step_ms came back 12 times smaller on a quieter machine with every return bitwise equal:
    the run reproduced; its wall time per step is the machine's."""
    from harness.reproduce import Outcome, compare_run

    stored = {"method": "td3", "dataset": "pendulum", "seed": 1, "run_id": "a",
              "metrics": {"step_ms": 68.644, "final_return": -150.5}}
    again = {"run_id": "b", "status": "ok", "metrics": {"step_ms": 5.454, "final_return": -150.5}}
    seeds = {("td3", "pendulum", "step_ms"): [68.6, 70.1, 71.2]}
    assert compare_run(stored, again, seeds, frozenset({"step_ms"})).outcome is Outcome.EXACT
    assert compare_run(stored, again, seeds).outcome is Outcome.OUTSIDE


def test_curve_metrics_come_back_as_the_report_derives_them(cli, write_suite, store):
    """A curve metric is derived from the stored curves when a report reads the runs: the runs made again get theirs
    the same way, so an unchanged learner reproduces exactly (it came back NaN, 'outside', before)."""
    from tests.harness.test_curve_metrics import TWO_LEARNERS
    from tests.harness.test_curves import CURVE_PLUGIN

    suite = str(write_suite(TWO_LEARNERS))
    assert cli("run", suite, "--store", str(store), "--executor", "inline", "--plugin", CURVE_PLUGIN)[0] == 0
    code, out, _ = cli("reproduce", suite, "--store", str(store), "--sample", "2", "--plugin", CURVE_PLUGIN)
    assert code == 0 and "2 of 12 stored runs re-run: 2 exact" in out


def test_a_damaged_reproduce_json_beside_a_report_is_a_clear_error(cli, write_suite, store, tmp_path):
    suite = _stored(cli, write_suite, store)
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "reproduce.json").write_text('{"runs": [{"outcome": "exact"}]}')
    code, _, err = cli("report", suite, "--store", str(store), "--out", str(tmp_path / "report"), "--format", "md")
    assert code == 3 and "reproduce.json" in err and "not a harness reproduce result" in err
    assert "Traceback" not in err
