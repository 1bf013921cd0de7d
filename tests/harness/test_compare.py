"""`harness compare`: each outcome class, the exit codes CI gates on, the three sources and outputs."""
from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.run_spec import RunSpec
from harness.record import RunRecord, utc_now
from harness.registry import load_plugin_file
from harness.runner import plan_suite
from harness.store import Store
from tests.conftest import TOY_PLUGIN

SUITE = """\
schema_version: 1
suite: toy
task: toy.sign
defaults: {{seeds: {seeds}}}
datasets:
  easy: {{loader: numbers, args: {{shift: 1.0}}}}
metrics: [accuracy]
methods:
  thr: {{impl: threshold, params: {{t: [0.0, 0.5, 1.0]}}}}
regression: {{rules: {rules}}}
"""
SIX_SEEDS = list(range(6))
WITHIN_NOISE = [-3.0, 2.0, -1.0, 2.0, -2.0, 0.5]  # mean -0.25, spread ~2: no evidence of a drop


@pytest.fixture
def toy(write_suite):
    """Write a toy suite (3 method variants) and return (suite path, its planned runs)."""

    def make(seeds: list[int] = SIX_SEEDS, rules: str = "[]") -> tuple[str, list[RunSpec]]:
        path = write_suite(SUITE.format(seeds=seeds, rules=rules))
        load_plugin_file(TOY_PLUGIN)
        return str(path), plan_suite(path)[1]

    return make


def put_runs(path, specs: list[RunSpec], accuracy: Callable[[RunSpec], float] = lambda s: 70.0 + s.seed,
             failed: Callable[[RunSpec], bool] = lambda s: False, hardware: str = "hw-a",
             wall_s: float = 1.0, measures: dict[str, float] | None = None) -> str:
    """Store one finished toy run per spec, as the runner would, with the given outcome."""
    with Store(path) as store:
        for spec in specs:
            if failed(spec):
                outcome = {"status": "failed", "error": "ValueError: planted failure"}
            else:
                figures = {"wall_s": wall_s} | (measures or {})
                outcome = {"status": "ok", "metrics": {"accuracy": accuracy(spec)},
                           "measurements": {name: {"value": value, "unit": "s"} for name, value in figures.items()}}
            store.put(RunRecord.of(spec, **outcome, started_at=utc_now(), finished_at=utc_now(),
                                   environment={"hardware_fingerprint": hardware}))
    return str(path)


def statuses(out: str) -> dict[tuple[str, str], str]:
    """(method, metric) -> status, from the JSON output."""
    return {(c["method"], c["metric"]): c["status"] for c in json.loads(out)["cells"]}


def test_identical_stores_compare_clean(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs)
    code, out, _ = cli("compare", base, cand, "--format", "json")
    assert code == 0
    assert set(statuses(out).values()) == {"unchanged"} and len(statuses(out)) == 3


def test_drop_on_every_seed_beyond_tolerance_is_a_regression(cli, toy, tmp_path):
    suite, specs = toy(rules="[{metric: accuracy, max_drop: 1.0}]")
    base = put_runs(tmp_path / "base.sqlite", specs)
    worse = put_runs(tmp_path / "cand.sqlite", specs, accuracy=lambda s: 50.0 + s.seed)
    code, out, _ = cli("compare", base, worse, "--suite", suite, "--format", "json")
    assert code == 1
    cell = json.loads(out)["cells"][0]
    assert cell["status"] == "regressed" and cell["test"] == "paired t" and cell["p_value"] < 0.05
    assert cell["delta"] == pytest.approx(-20.0) and cell["base"]["n"] == cell["candidate"]["n"] == 6
    assert cell["tolerance"] == "max_drop 1"


def test_drop_over_other_seeds_is_judged_by_welch_t_test(cli, toy, tmp_path):
    _, specs = toy()
    _, later_specs = toy(seeds=list(range(6, 12)))
    base = put_runs(tmp_path / "base.sqlite", specs)
    worse = put_runs(tmp_path / "cand.sqlite", later_specs, accuracy=lambda s: 50.0 + s.seed % 6)
    code, out, _ = cli("compare", base, worse, "--format", "json")
    assert code == 1
    assert {c["test"] for c in json.loads(out)["cells"]} == {"Welch t"}


def test_change_within_seed_noise_is_insignificant(cli, toy, tmp_path):
    suite, specs = toy(rules="[{metric: accuracy, max_drop: 0.1}]")
    base = put_runs(tmp_path / "base.sqlite", specs)
    noisy = put_runs(tmp_path / "cand.sqlite", specs, accuracy=lambda s: 70.0 + s.seed + WITHIN_NOISE[s.seed])
    code, out, _ = cli("compare", base, noisy, "--suite", suite, "--format", "json")
    assert code == 0
    cells = json.loads(out)["cells"]
    assert {c["status"] for c in cells} == {"insignificant"}
    assert all(c["p_value"] > 0.05 and c["delta"] == pytest.approx(-0.25) for c in cells)


def test_single_seed_drop_beyond_tolerance_regresses_without_a_test(cli, toy, tmp_path):
    _, specs = toy(seeds=[0])
    base = put_runs(tmp_path / "base.sqlite", specs)
    worse = put_runs(tmp_path / "cand.sqlite", specs, accuracy=lambda s: 69.5)
    code, out, _ = cli("compare", base, worse, "--format", "json")
    assert code == 1
    assert all(c["status"] == "regressed" and c["p_value"] is None for c in json.loads(out)["cells"])


def test_newly_failing_run_exits_2(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs, failed=lambda s: s.method == "thr[t=0.5]" and s.seed == 3)
    code, out, _ = cli("compare", base, cand, "--format", "json")
    assert code == 2
    assert statuses(out)[("thr[t=0.5]", "accuracy")] == "newly-failing"
    assert json.loads(out)["failed_candidate_runs"] == 1


def test_cells_on_one_side_are_new_or_missing_and_vanished_failures_are_fixed(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", [s for s in specs if s.method != "thr[t=1.0]"],
                    failed=lambda s: s.method == "thr[t=0.5]" and s.seed == 0)
    cand = put_runs(tmp_path / "cand.sqlite", [s for s in specs if s.method != "thr[t=0.0]"])
    code, out, _ = cli("compare", base, cand, "--format", "json")
    assert code == 0
    assert statuses(out) == {("thr[t=0.0]", "accuracy"): "missing", ("thr[t=0.5]", "accuracy"): "fixed",
                             ("thr[t=1.0]", "accuracy"): "new"}
    assert cli("compare", base, cand, "--strict")[0] == 1


def test_hardware_figure_from_other_hardware_is_incomparable_and_strict_fails(cli, toy, tmp_path):
    suite, specs = toy(rules="[{metric: wall_s, max_ratio: 1.2}]")
    base = put_runs(tmp_path / "base.sqlite", specs, hardware="hw-a")
    cand = put_runs(tmp_path / "cand.sqlite", specs, hardware="hw-b", wall_s=5.0)
    code, out, _ = cli("compare", base, cand, "--suite", suite, "--format", "json")
    assert code == 0
    assert statuses(out)[("thr[t=0.0]", "wall_s")] == "incomparable"
    assert statuses(out)[("thr[t=0.0]", "accuracy")] == "unchanged"
    assert cli("compare", base, cand, "--suite", suite, "--strict")[0] == 1


@pytest.mark.parametrize(("rule", "wall_s", "status"), [
    ("{metric: wall_s, max_ratio: 1.2}", 1.5, "regressed"),
    ("{metric: wall_s, max_ratio: 1.2}", 1.1, "unchanged"),
    ("{metric: wall_s, max_drop: 0.25}", 0.5, "improved"),
])
def test_time_on_the_same_hardware_is_judged_lower_is_better(cli, toy, tmp_path, rule, wall_s, status):
    suite, specs = toy(rules=f"[{rule}]")
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs, wall_s=wall_s)
    code, out, _ = cli("compare", base, cand, "--suite", suite, "--format", "json")
    assert code == (1 if status == "regressed" else 0)
    assert statuses(out)[("thr[t=0.0]", "wall_s")] == status


def test_hardware_figures_without_a_rule_are_not_compared(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs, wall_s=100.0)
    code, out, _ = cli("compare", base, cand, "--format", "json")
    assert code == 0 and {metric for _, metric in statuses(out)} == {"accuracy"}


def test_baseline_is_read_from_an_export_committed_at_a_git_ref(cli, toy, tmp_path, monkeypatch):
    _, specs = toy()
    store = put_runs(tmp_path / "store.sqlite", specs)
    repo = tmp_path / "repo"
    assert cli("export", "--store", store, "--out", str(repo / "reports" / "results.csv"))[0] == 0
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "baseline"], check=True)
    (repo / "reports" / "results.csv").unlink()  # only the committed copy is left
    monkeypatch.chdir(repo)
    code, out, _ = cli("compare", "HEAD:reports/results.csv", store)
    assert code == 0 and "3 unchanged" in out
    code, _, err = cli("compare", "no-such-ref:reports/results.csv", store)
    assert code == 3 and "cannot read no-such-ref:reports/results.csv from git" in err


def test_export_round_trip_compares_unchanged(cli, toy, tmp_path):
    _, specs = toy()
    store = put_runs(tmp_path / "store.sqlite", specs, accuracy=lambda s: 70.0 + s.seed / 3)
    for fmt in ("csv", "parquet"):
        export = str(tmp_path / f"results.{fmt}")
        cli("export", "--store", store, "--format", fmt, "--out", export)
        assert cli("compare", export, store)[0] == 0


@pytest.mark.parametrize(("make_side", "message"), [
    (lambda tmp: str(tmp / "absent.csv"), "does not exist"),
    (lambda tmp: _write(tmp / "other.csv", "a,b\n1,2\n"), "lacks the column(s) suite, method, dataset, seed, status"),
    (lambda tmp: _write(tmp / "notes.txt", "hello"), "not a harness results store"),
])
def test_unreadable_side_is_a_user_error(cli, toy, tmp_path, make_side, message):
    _, specs = toy()
    store = put_runs(tmp_path / "store.sqlite", specs)
    code, out, err = cli("compare", make_side(tmp_path), store)
    assert code == 3 and message in err and "Traceback" not in err


def test_rule_naming_a_metric_no_run_measures_is_a_user_error(cli, toy, tmp_path):
    suite, specs = toy(rules="[{metric: accuracy, max_drop: 1.0}]")
    store = put_runs(tmp_path / "store.sqlite", specs)
    Path(suite).write_text(Path(suite).read_text().replace("metric: accuracy,", "metric: acuracy,"))
    code, _, err = cli("compare", store, store, "--suite", suite)
    assert code == 3 and f"{suite}:" in err and "regression.rules.0.metric: 'acuracy' is neither a metric" in err
    assert "accuracy, wall_s" in err


def test_rule_may_name_a_figure_the_report_measures(cli, toy, tmp_path):
    """`validate` accepts a rule on a report measure (sparse_attention_speed's prefill_ms), so `compare` must too."""
    suite, specs = toy()
    text = Path(suite).read_text().replace("rules: []", "rules: [{metric: prefill_ms, max_ratio: 1.2}]")
    Path(suite).write_text(text + "report: {measures: [prefill_ms]}\n")
    base = put_runs(tmp_path / "base.sqlite", specs, measures={"prefill_ms": 10.0})
    cand = put_runs(tmp_path / "cand.sqlite", specs, measures={"prefill_ms": 20.0})
    code, out, _ = cli("compare", base, cand, "--suite", suite)
    assert code == 1 and "regressed" in out and "prefill_ms" in out


def test_metric_of_no_loaded_family_is_a_user_error(cli, toy, tmp_path):
    _, specs = toy()
    export = tmp_path / "results.csv"
    cli("export", "--store", put_runs(tmp_path / "store.sqlite", specs), "--out", str(export))
    export.write_text(export.read_text().replace("toy.accuracy", "elsewhere.accuracy"))
    code, _, err = cli("compare", str(export), str(export))
    assert code == 3 and "metric 'accuracy'" in err and "direction is unknown" in err and "--plugin" in err


def _write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_markdown_summarises_counts_and_lists_only_changed_cells(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs,
                    accuracy=lambda s: 50.0 + s.seed if s.method == "thr[t=1.0]" else 70.0 + s.seed)
    out_file = tmp_path / "out" / "compare.md"
    code, stdout, _ = cli("compare", base, cand, "--format", "md", "--out", str(out_file))
    markdown = out_file.read_text()
    assert code == 1 and f"wrote {out_file}" in stdout and "regressed" in stdout
    assert markdown.splitlines()[0].startswith("**Benchmark comparison:** 1 regressed, 2 unchanged -> exit 1")
    table = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| status | method |") and len(table) == 2
    assert table[1].startswith("| regressed | thr[t=1.0] | easy | accuracy ↑ | 72.5 ± 2.0 (n=6) | 52.5 ± 2.0 (n=6) |")


def test_json_carries_counts_exit_code_and_thresholds(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    cand = put_runs(tmp_path / "cand.sqlite", specs, accuracy=lambda s: 90.0 + s.seed)
    document = json.loads(cli("compare", base, cand, "--format", "json")[1])
    assert document["exit_code"] == 0 and document["alpha"] == 0.05
    assert document["counts"]["improved"] == 3 and document["counts"]["regressed"] == 0
    assert document["cells"][0]["relative_change"] == pytest.approx(20 / 72.5)


def test_text_table_is_aligned(cli, toy, tmp_path):
    _, specs = toy()
    base = put_runs(tmp_path / "base.sqlite", specs)
    code, out, _ = cli("compare", base, base)
    header, rule, *rows = [line for line in out.splitlines() if line.startswith(("status", "----", "unchanged"))]
    assert code == 0 and len(rows) == 3
    assert header.index("method") == rows[0].index("thr[") and set(rule) == {"-", " "}


def test_suite_name_selects_one_suite_of_a_mixed_store(cli, toy, write_suite, tmp_path):
    _, specs = toy()
    store = put_runs(tmp_path / "store.sqlite", specs)
    other_text = SUITE.format(seeds=SIX_SEEDS, rules="[]").replace("suite: toy", "suite: toy2")
    other = write_suite(other_text.replace("shift: 1.0", "shift: 2.0"), "other.yaml")  # same labels, other runs
    put_runs(tmp_path / "store.sqlite", plan_suite(other)[1], accuracy=lambda s: 0.0)
    code, _, err = cli("compare", store, store)
    assert code == 3 and "several suites (toy, toy2)" in err
    code, out, _ = cli("compare", store, store, "--suite-name", "toy2", "--format", "json")
    assert code == 0 and json.loads(out)["counts"]["unchanged"] == 3


def test_failed_runs_of_a_frame_do_not_count_as_values():
    from harness.comparison import Status, compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    rows = [("m", "d", seed, "ok", 70.0) for seed in range(3)] + [("m", "d", 3, "failed", float("nan"))]
    frame = pd.DataFrame(rows, columns=["method", "dataset", "seed", "status", "metric.acc"]).assign(
        metric_names=[{"acc": "x.acc"}] * 4, hardware_fingerprint="hw")
    criterion = Criterion("acc", "metric.acc", True, False, RegressionRule(metric="acc", max_drop=0.0))
    cell = compare_frames(frame, frame, [criterion]).cells[0]
    assert cell.status is Status.UNCHANGED and cell.base.n == 3


@pytest.mark.parametrize(("relative_change", "status"), [(1e-7, "unchanged"), (1e-5, "regressed")])
def test_a_change_at_float_noise_scale_is_unchanged_even_under_a_zero_tolerance(relative_change, status):
    """Another CPU sums in another order: the same runs can differ by 1e-7 on every seed, consistently enough for a
    paired test, which a zero tolerance must not call a regression; a change a hundred times larger still is."""
    from harness.comparison import compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    def frame(scale: float) -> pd.DataFrame:
        rows = [("m", "d", seed, "ok", (40.0 + seed) * scale) for seed in range(6)]
        return pd.DataFrame(rows, columns=["method", "dataset", "seed", "status", "metric.fd"]).assign(
            metric_names=[{"fd": "x.fd"}] * 6, hardware_fingerprint="hw")

    criterion = Criterion("fd", "metric.fd", False, False, RegressionRule(metric="fd", max_drop=0.0))
    cell = compare_frames(frame(1.0), frame(1.0 + relative_change), [criterion]).cells[0]
    assert cell.status == status


def test_a_threshold_reached_at_step_140_then_never_is_a_regression_not_incomparable():
    """`first_reaching` is +inf on a run that never reaches its threshold: worse than any step (lower is better)."""
    from harness.comparison import Status, compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    def frame(steps: list[float]) -> pd.DataFrame:
        rows = [("m", "d", seed, "ok", step) for seed, step in enumerate(steps)]
        return pd.DataFrame(rows, columns=["method", "dataset", "seed", "status", "metric.first"]).assign(
            metric_names=[{"first": "x.first"}] * len(steps), hardware_fingerprint="hw")

    criterion = Criterion("first", "metric.first", False, False, RegressionRule(metric="first", max_drop=20))
    reached, never = frame([140.0] * 6), frame([140.0] * 5 + [float("inf")])
    regressed = compare_frames(reached, never, [criterion]).cells[0]
    assert regressed.status is Status.REGRESSED and "never reached" in regressed.test
    assert compare_frames(never, reached, [criterion]).cells[0].status is Status.IMPROVED
    assert compare_frames(never, never, [criterion]).cells[0].status is Status.UNCHANGED


def _machine_frame(values: list[float], fingerprint: str) -> pd.DataFrame:
    rows = [("m", "d", seed, "ok", value) for seed, value in enumerate(values)]
    return pd.DataFrame(rows, columns=["method", "dataset", "seed", "status", "metric.acc"]).assign(
        metric_names=[{"acc": "x.acc"}] * len(values), hardware_fingerprint=fingerprint)


def test_a_baseline_from_another_machine_is_judged_within_its_seed_spread_and_the_cell_says_so():
    """plg_curves' PRODEN, trained on an AMD EPYC for the baseline and on an Intel Xeon here: 65.2 then 60.9 mean
    train accuracy over 10 seeds of spread 5.5 is what another machine's kernels do, not a regression; a drop of
    20 points is one on any machine."""
    from harness.comparison import Status, compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    rng = np.random.default_rng(0)
    base = 65.2 + rng.normal(0, 5.5, 10)
    criterion = Criterion("acc", "metric.acc", True, False, RegressionRule(metric="acc", max_drop=0.0))
    drifted = compare_frames(_machine_frame(list(base), "amd"), _machine_frame(list(base - 4.3), "intel"),
                             [criterion]).cells[0]
    assert drifted.status is Status.UNCHANGED
    assert drifted.reason.startswith("other numerics (hardware amd vs hardware intel): judged beyond the baseline's "
                                     "seed spread")
    same_machine = compare_frames(_machine_frame(list(base), "amd"), _machine_frame(list(base - 4.3), "amd"),
                                  [criterion]).cells[0]
    assert same_machine.status is Status.REGRESSED  # on one machine the same drop is a regression
    broken = compare_frames(_machine_frame(list(base), "amd"), _machine_frame(list(base - 20), "intel"),
                            [criterion]).cells[0]
    assert broken.status is Status.REGRESSED and "other numerics" in broken.reason
    one_seed = compare_frames(_machine_frame([65.0], "amd"), _machine_frame([60.0], "intel"), [criterion]).cells[0]
    assert one_seed.status is Status.INCOMPARABLE and "a single baseline seed" in one_seed.reason


def test_across_machines_equal_single_seeds_are_unchanged_and_a_deterministic_metric_keeps_its_rule():
    """zo_memory's analytic bytes, one seed, baseline from another machine: equal values are unchanged (not
    incomparable for want of spread), and a metric registered deterministic is judged by its rule alone."""
    from harness.comparison import Status, compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    rule = RegressionRule(metric="acc", max_drop=0.0)
    sampled, analytic = Criterion("acc", "metric.acc", True, False, rule), \
        Criterion("acc", "metric.acc", True, False, rule, deterministic=True)
    same = compare_frames(_machine_frame([512.0], "amd"), _machine_frame([512.0], "intel"), [sampled]).cells[0]
    assert same.status is Status.UNCHANGED
    drop = compare_frames(_machine_frame([512.0], "amd"), _machine_frame([500.0], "intel"), [analytic]).cells[0]
    assert drop.status is Status.REGRESSED and "other numerics" not in drop.reason


@pytest.mark.parametrize(("numerics", "determinism", "status"), [
    (("avx512-openblas", "avx512-openblas"), ("per_numerics", "per_numerics"), "regressed"),  # one numerics
    (("avx512-openblas", "avx2-openblas"), ("per_numerics", "per_numerics"), "unchanged"),  # within the spread
    (("avx512-openblas", "avx2-openblas"), ("everywhere", "everywhere"), "regressed"),  # bitwise on any CPU
    (("avx512-openblas", "avx2-openblas"), ("everywhere", "per_numerics"), "unchanged"),  # one side promises less
])
def test_runs_are_judged_exactly_where_the_numerics_agree_or_the_method_is_bitwise_everywhere(
        numerics, determinism, status):
    """Two machines of other models (other hardware fingerprints) with one vector ISA and BLAS repeat a
    deterministic method bitwise, so its 4.3-point drop is a regression; so is it across ISAs for a method that
    declares itself bitwise everywhere (a replay, integer arithmetic), but not for one that is so per numerics."""
    from harness.comparison import Status, compare_frames
    from harness.comparison.criteria import Criterion
    from harness.suite import RegressionRule

    base = 65.2 + np.random.default_rng(0).normal(0, 5.5, 10)
    sides = [_machine_frame(list(values), machine).assign(numerics_fingerprint=fingerprint, determinism=scope)
             for values, machine, fingerprint, scope in zip((base, base - 4.3), ("xeon-8", "xeon-2"), numerics,
                                                            determinism, strict=True)]
    criterion = Criterion("acc", "metric.acc", True, False, RegressionRule(metric="acc", max_drop=0.0))
    cell = compare_frames(*sides, [criterion]).cells[0]
    assert cell.status is Status(status)
    assert ("other numerics (avx512-openblas vs avx2-openblas)" in cell.reason) is (status == "unchanged")
