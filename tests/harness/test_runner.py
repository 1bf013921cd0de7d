"""The runner: isolation of misbehaving methods, resume, provenance, measurements."""
from __future__ import annotations

import json
import sqlite3

from harness.store import Store

MISBEHAVING = """\
schema_version: 1
suite: bad
task: toy.sign
defaults: {seeds: [0], timeout: 3s}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods:
  good: {impl: threshold}
  fail: {impl: fail}
  hang: {impl: hang}
  segv: {impl: segfault}
  kill: {impl: selfkill}
  oom: {impl: oom}
  after: {impl: threshold, params: {t: 0.1}}
"""


def _records(store_path):
    with Store(store_path) as store:
        return {r["method"]: r for r in store.records()}


def test_each_failure_kind_is_recorded_and_the_suite_goes_on(cli, write_suite, store):
    code, out, _ = cli("run", str(write_suite(MISBEHAVING)), "--store", str(store), "--jobs", "2")
    assert code == 2  # some runs failed
    records = _records(store)
    assert {m: r["status"] for m, r in records.items()} == {
        "good": "ok", "fail": "failed", "hang": "timeout", "segv": "crashed", "kill": "crashed",
        "oom": "oom", "after": "ok",
    }
    assert "this method always fails" in records["fail"]["error"]
    assert "SIGSEGV" in records["segv"]["error"]
    assert "SIGKILL" in records["kill"]["error"]
    assert "timeout of 3 s" in records["hang"]["error"]
    assert "| good |" in out


def test_rerun_skips_stored_runs_and_force_reruns_them(cli, write_suite, store):
    suite = str(write_suite())
    assert cli("run", suite, "--store", str(store))[0] == 0
    first = {r["run_key"]: r["run_id"] for r in Store(store).records()}
    code, out, _ = cli("run", suite, "--store", str(store))
    assert code == 0 and "0 runs executed" in out and "4 already stored" in out
    assert cli("run", suite, "--store", str(store), "--force")[0] == 0
    again = {r["run_key"]: r["run_id"] for r in Store(store).records()}
    assert again.keys() == first.keys()
    assert all(again[k] != first[k] for k in first)


def test_retry_failed_reruns_only_failures(cli, write_suite, store):
    suite = str(write_suite(MISBEHAVING.replace("timeout: 3s", "timeout: 1s")))
    cli("run", suite, "--store", str(store), "--jobs", "2")
    ok_before = {m: r["run_id"] for m, r in _records(store).items() if r["status"] == "ok"}
    code, out, _ = cli("run", suite, "--store", str(store), "--retry-failed", "--jobs", "2")
    assert "5 runs executed" in out
    ok_after = {m: r["run_id"] for m, r in _records(store).items() if r["status"] == "ok"}
    assert ok_after == ok_before


def test_record_holds_provenance_and_measurements(cli, write_suite, store):
    cli("run", str(write_suite()), "--store", str(store))
    record = next(iter(Store(store).records()))
    env = record["environment"]
    assert env["python"] and env["hardware_fingerprint"] and "numpy" in env["packages"]
    assert len(env["numerics_fingerprint"]) == 12 and env["numerics"]["blas"]
    assert "git_sha" in env and "hostname" not in json.dumps(record).lower()
    measures = record["measurements"]
    assert measures["wall_s"]["value"] >= 0 and measures["peak_rss_mb"]["value"] > 10
    assert measures["samples"] == {"value": 200.0, "unit": "count"}  # ctx.record
    log = (store.parent / record["log"]).read_text()
    assert "threshold method writes to stdout" in log
    assert (store.parent / record["predictions"]).is_file()


def test_same_seed_gives_the_same_metrics_in_both_executors(cli, write_suite, store, tmp_path):
    suite = str(write_suite(TOY_NOISY))
    cli("run", suite, "--store", str(store))
    other = tmp_path / "inline.sqlite"
    cli("run", suite, "--store", str(other), "--executor", "inline")
    local = {r["run_key"]: r["metrics"] for r in Store(store).records()}
    inline = {r["run_key"]: r["metrics"] for r in Store(other).records()}
    assert local == inline


TOY_NOISY = """\
schema_version: 1
suite: noisy
task: toy.sign
defaults: {seeds: [0, 1, 2]}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods:
  noisy: {impl: threshold, params: {noise: 1.0}}
"""


def test_store_that_is_not_a_harness_database_is_refused(cli, write_suite, tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello")
    code, _, err = cli("run", str(write_suite()), "--store", str(text_file))
    assert code == 3 and "not a harness results store" in err
    assert text_file.read_text() == "hello"
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE things (x)")
    code, _, err = cli("run", str(write_suite()), "--store", str(foreign))
    assert code == 3 and "not a harness results store" in err


def test_store_from_a_newer_schema_is_refused(cli, write_suite, store):
    cli("run", str(write_suite()), "--store", str(store))
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA user_version=99")
    code, _, err = cli("run", str(write_suite()), "--store", str(store))
    assert code == 3 and "newer" in err


def test_export_writes_csv_and_parquet(cli, write_suite, store, tmp_path):
    import pandas as pd

    cli("run", str(write_suite()), "--store", str(store))
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"runs.{fmt}"
        assert cli("export", "--store", str(store), "--format", fmt, "--out", str(out))[0] == 0
        frame = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
        assert len(frame) == 4 and "metric.accuracy" in frame and "measure.wall_s" in frame


def test_python_api_returns_a_frame_of_the_planned_runs(write_suite, store):
    import harness
    from harness.registry import load_plugin_file
    from tests.conftest import TOY_PLUGIN

    frame = harness.run(write_suite(), store=store, plugins=(TOY_PLUGIN,))
    load_plugin_file(TOY_PLUGIN)
    assert len(frame) == 4 and set(frame["status"]) == {"ok"}
    assert frame.groupby("method")["metric.accuracy"].mean()["thr[t=0.0]"] == 100.0


def test_a_stored_run_takes_its_new_label_when_its_grid_widens(write_suite, store):
    import harness
    from harness.reporting.load import load_report
    from tests.conftest import TOY_PLUGIN, TOY_SUITE

    single = write_suite(TOY_SUITE.replace("t: [0.0, 0.5]", "t: 0.5"))
    assert set(harness.run(single, store=store, plugins=(TOY_PLUGIN,))["method"]) == {"thr"}
    widened = write_suite(TOY_SUITE.replace("seeds: [0, 1]", "seeds: [0, 1, 2]"), name="widened.yaml")
    frame = harness.run(widened, store=store, plugins=(TOY_PLUGIN,))
    assert len(frame) == 6 and frame.groupby("method").size().to_dict() == {"thr[t=0.0]": 3, "thr[t=0.5]": 3}
    report = load_report(widened, store)
    assert report.cell("thr[t=0.5]", "easy", "accuracy").seeds == (0, 1, 2)


def test_plan_lists_runs_and_their_stored_status(cli, write_suite, store):
    suite = str(write_suite())
    code, out, _ = cli("plan", suite, "--store", str(store))
    assert code == 0 and "4 runs, 0 stored" in out
    cli("run", suite, "--store", str(store))
    assert "4 runs, 4 stored" in cli("plan", suite, "--store", str(store))[1]


def test_malformed_dataset_file_is_a_user_error_before_any_run(cli, write_suite, store, tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "n.txt").write_text("1 2 x")
    suite = write_suite(
        "schema_version: 1\nsuite: f\ntask: toy.sign\n"
        "datasets: {f: {loader: numbers_file, args: {path: n.txt}}}\n"
        "metrics: [accuracy]\nmethods: {thr: {impl: threshold}}\n"
    )
    code, _, err = cli("run", str(suite), "--store", str(store), "--data-root", str(tmp_path / "root"))
    assert code == 3 and "dataset 'f' cannot be loaded" in err
    assert "Traceback" not in err
    assert not store.exists() or Store(store).count() == 0


HELD_BEHIND_FAILURES = MISBEHAVING.replace("  good: {impl: threshold}\n", "") + "  last: {impl: vote}\n"


def test_a_run_held_behind_a_dying_one_starts_on_a_fresh_worker_with_its_whole_timeout(cli, write_suite, store):
    """One worker holds two runs at once (the next one waits in its pipe); when the first hangs or kills its
    worker, the second never started there: it runs later on a new worker, its clock starting then."""
    assert cli("run", str(write_suite(HELD_BEHIND_FAILURES)), "--store", str(store), "--jobs", "1")[0] == 2
    records = sorted(_records(store).values(), key=lambda record: record["started_at"])
    assert [r["method"] for r in records] == ["fail", "hang", "segv", "kill", "oom", "after", "last"]
    assert [r["status"] for r in records] == ["failed", "timeout", "crashed", "crashed", "oom", "ok", "ok"]
    for before, after in zip(records, records[1:], strict=False):
        assert after["started_at"] >= before["finished_at"]


def test_a_run_that_writes_nothing_leaves_no_log_file_and_a_failure_leaves_its_traceback(cli, write_suite, store):
    suite = MISBEHAVING.split("methods:")[0] + "methods:\n  quiet: {impl: vote}\n  fail: {impl: fail}\n"
    cli("run", str(write_suite(suite)), "--store", str(store))
    records = _records(store)
    assert records["quiet"]["status"] == "ok" and records["quiet"]["log"] is None
    assert not list((Store(store).artifacts_dir / "bad" / "logs").glob("*quiet*"))
    log = (store.parent / records["fail"]["log"]).read_text()
    assert "failed:" in log and "ValueError: this method always fails" in log
