"""Learning curves: what `ctx.record_curve` and `ctx.record_point` accept, and how a run stores them."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from harness.context import RunContext
from harness.curves import Curve, CurveError, read_curves, write_curves
from harness.record import RunRecord
from harness.store import Store
from tests.conftest import TOY_PLUGIN, TOY_SUITE
from tests.harness.records import V1_FILES, record_json

CURVE_PLUGIN = str(Path(TOY_PLUGIN).with_name("curve_method.py"))
LEARNER_SUITE = TOY_SUITE.replace("suite: toy", "suite: learn").replace(
    "  thr: {impl: threshold, params: {t: [0.0, 0.5]}}", "  learner: {impl: learner, params: {crash_at: CRASH}}")


def _context() -> RunContext:
    return RunContext(seed=0, device="cpu", threads=1)


def test_record_curve_keeps_steps_values_unit_and_direction():
    ctx = _context()
    ctx.record_curve("val_acc", [1, 2, 4], [0.5, 0.6, 0.7], "%", higher_is_better=True)
    assert ctx.curves["val_acc"] == Curve("val_acc", "%", True, [1.0, 2.0, 4.0], [0.5, 0.6, 0.7])


@pytest.mark.parametrize(("steps", "values", "problem"), [
    ([1, 2], [0.5], "2 steps but 1 values"),
    ([1, 1], [0.5, 0.6], "step 1 does not follow step 1"),
    ([2, 1], [0.5, 0.6], "step 1 does not follow step 2"),
    ([1, math.nan], [0.5, 0.6], "step nan is not a finite number"),
    ([1, math.inf], [0.5, 0.6], "step inf is not a finite number"),
])
def test_record_curve_refuses_a_malformed_curve_naming_it(steps, values, problem):
    with pytest.raises(CurveError, match=f"curve 'loss'.*{problem}"):
        _context().record_curve("loss", steps, values)


def test_record_point_builds_a_curve_and_refuses_a_step_that_goes_back():
    ctx = _context()
    for step, value in [(0, 3.0), (10, 2.0), (20, math.nan)]:
        ctx.record_point("loss", step, value, higher_is_better=False)
    assert ctx.curves["loss"].steps == [0.0, 10.0, 20.0]
    assert math.isnan(ctx.curves["loss"].values[-1])  # a diverged value is a result, kept as it is
    with pytest.raises(CurveError, match="step 15 does not follow step 20"):
        ctx.record_point("loss", 15, 1.0, higher_is_better=False)


def test_record_point_refuses_a_change_of_unit_or_direction():
    ctx = _context()
    ctx.record_point("loss", 0, 3.0, "nats", higher_is_better=False)
    with pytest.raises(CurveError, match="cannot change them"):
        ctx.record_point("loss", 1, 2.0, "nats", higher_is_better=True)


def test_curves_survive_a_parquet_round_trip(tmp_path):
    curves = {"val": Curve.of("val", [1, 2, 3], [0.1, math.nan, math.inf], "%", True),
              "loss": Curve.of("loss", [0.5, 1.5], [2.0, 1.0], "", False),
              "lr": Curve.of("lr", [0], [0.01])}
    write_curves(curves, tmp_path / "curves.parquet")
    back = read_curves(tmp_path / "curves.parquet")
    assert list(back) == ["val", "loss", "lr"]
    assert back["loss"] == curves["loss"] and back["lr"] == curves["lr"]
    assert back["val"].steps == [1.0, 2.0, 3.0] and back["val"].higher_is_better is True
    assert back["val"].values[0] == 0.1 and math.isnan(back["val"].values[1]) and back["val"].values[2] == math.inf


def test_an_old_record_without_curves_still_loads_and_writes_unchanged():
    for path in V1_FILES:
        record = RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
        assert record.curves is None
        assert "curves" not in record.as_json()  # an old record's text, and so its file, stays as it was
    assert RunRecord.model_validate(record_json(curves="runs/s/curves/k.i.parquet")).curves is not None


def _run_learner(cli, write_suite, store, crash_at: str = "null") -> dict[str, dict]:
    suite = write_suite(LEARNER_SUITE.replace("CRASH", crash_at))
    cli("run", str(suite), "--store", str(store), "--plugin", CURVE_PLUGIN)
    with Store(store) as opened:
        return {r["run_id"]: r for r in opened.records()}


def test_a_run_stores_its_curves_beside_its_predictions_named_by_its_record(cli, write_suite, store):
    records = _run_learner(cli, write_suite, store)
    assert len(records) == 2
    for record in records.values():
        assert record["status"] == "ok"
        path = store.parent / record["curves"]
        assert path.parent.name == "curves" and path.stem == f"{record['run_key']}.{record['run_id']}"
        curves = read_curves(path)
        assert curves["val_score"].steps == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert curves["val_score"].values[0] == pytest.approx(0.5 + 0.01 * record["seed"])


def test_a_run_that_fails_midway_keeps_the_curve_it_had_recorded(cli, write_suite, store):
    records = _run_learner(cli, write_suite, store, crash_at="3")
    for record in records.values():
        assert record["status"] == "failed" and "the loss diverged" in record["error"]
        assert read_curves(store.parent / record["curves"])["train_loss"].steps == [1.0, 2.0]


def test_a_reports_curves_table_reads_back_per_run(tmp_path):
    from harness.curves import curves_export, curves_of_export

    by_run = {"aaa": {"val": Curve.of("val", [1, 2], [0.5, math.nan], "%", True)},
              "bbb": {"val": Curve.of("val", [1, 3], [0.4, 0.6], "%", True),
                      "lr": Curve.of("lr", [0], [0.1])}}
    curves_export(by_run).to_csv(tmp_path / "curves.csv", index=False)
    back = curves_of_export(tmp_path / "curves.csv")
    assert back["bbb"] == by_run["bbb"]
    assert back["aaa"]["val"].steps == [1.0, 2.0] and math.isnan(back["aaa"]["val"].values[1])
