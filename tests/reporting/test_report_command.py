"""`harness report` end to end, and its bad inputs (each exit 3 with a message)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from harness.cli import main
from harness.store import Store
from tests.reporting.fixed_store import TOY_PLUGIN, write_fixed_store


def _report(*args: str) -> int:
    return main(["report", *args, "--plugin", TOY_PLUGIN])


def _rewrite_report_start(suite: Path, start: str) -> None:
    """Replace the fixed suite's `report: {metric: accuracy` with `start`; fail loudly if it is not there."""
    text = suite.read_text()
    assert "report: {metric: accuracy" in text
    suite.write_text(text.replace("report: {metric: accuracy", start))


def test_report_writes_every_format(tmp_path, capsys):
    suite, store = write_fixed_store(tmp_path)
    out = tmp_path / "out"
    assert _report(str(suite), "--store", str(store), "--data-root", str(tmp_path), "--out", str(out)) == 0
    names = {p.name for p in out.iterdir()}
    assert {"report.md", "report.tex", "table.csv", "runs.csv", "leaderboard.html"} <= names
    assert {"bars_accuracy.png", "bars_accuracy.pdf", "pareto_accuracy_wall_s.png", "curve_thr_t.png"} <= names
    assert (out / "bars_accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "written to" in capsys.readouterr().out


def test_report_of_a_missing_store_is_a_user_error(tmp_path, capsys):
    suite, _ = write_fixed_store(tmp_path)
    assert _report(str(suite), "--store", str(tmp_path / "nope.sqlite")) == 3
    assert "does not exist" in capsys.readouterr().err


def test_report_of_an_unknown_suite_file_is_a_user_error(tmp_path, capsys):
    assert _report(str(tmp_path / "missing.yaml"), "--store", str(tmp_path / "s.sqlite")) == 3
    assert "suite file does not exist" in capsys.readouterr().err


def test_report_of_an_empty_store_says_to_run_first(tmp_path, capsys):
    suite, _ = write_fixed_store(tmp_path)
    empty = tmp_path / "empty.sqlite"
    Store(empty).close()
    assert _report(str(suite), "--store", str(empty), "--data-root", str(tmp_path)) == 3
    assert "holds no runs of suite 'fixed'" in capsys.readouterr().err


def test_report_of_a_store_from_a_newer_schema_is_refused(tmp_path, capsys):
    suite, store = write_fixed_store(tmp_path)
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA user_version=7")
    assert _report(str(suite), "--store", str(store)) == 3
    assert "newer" in capsys.readouterr().err


def test_unknown_format_is_a_user_error(tmp_path, capsys):
    suite, store = write_fixed_store(tmp_path)
    assert _report(str(suite), "--store", str(store), "--format", "md,docx") == 3
    assert "docx" in capsys.readouterr().err


def test_report_block_naming_a_metric_the_suite_lacks_is_a_suite_error(tmp_path, capsys):
    suite, store = write_fixed_store(tmp_path)
    _rewrite_report_start(suite, "report: {metric: f1")
    assert _report(str(suite), "--store", str(store)) == 3
    assert "metric 'f1' is not in this suite's metrics" in capsys.readouterr().err


def test_report_without_the_data_files_matches_runs_by_name(tmp_path):
    suite, store = write_fixed_store(tmp_path)
    text = suite.read_text().replace("easy: {loader: numbers, args: {shift: 1.0}}",
                                     "easy: {loader: numbers_file, args: {path: absent.txt}}")
    from harness.reporting.load import load_report

    suite.write_text(text)
    data = load_report(suite, store, root=tmp_path)
    assert "names" in data.provenance.selection
    assert data.cell("thr[t=0.0]", "easy", "accuracy").stats.n == 3


def test_report_tabulates_the_method_recorded_figures_it_is_asked_for(tmp_path):
    suite, store = write_fixed_store(tmp_path)
    from harness.reporting.load import load_report

    plain = load_report(suite, store, root=tmp_path)
    assert "samples" not in plain.metrics
    _rewrite_report_start(suite, "report: {measures: [samples, rate, absent], metric: accuracy")
    data = load_report(suite, store, root=tmp_path)
    info = data.metrics["samples"]
    assert (info.kind, info.higher_is_better, info.unit) == ("hardware", None, "count")  # recorded with no direction
    assert "absent" not in data.metrics  # asked for but recorded by no run: no empty table
    assert data.cell("thr[t=0.0]", "easy", "samples").stats.mean == 100.0
    from harness.reporting.layout import table

    assert "noisy" in table(data, "samples").rows  # it records the figure on the seeds that ran
    assert table(data, "samples").ranks == {}  # a descriptive figure is never marked best
    rate = table(data, "rate")
    assert data.metrics["rate"].higher_is_better is True
    assert rate.ranks[("thr[t=0.0]", "easy")] == 1 and rate.ranks[("thr[t=0.5]", "easy")] == 2  # the largest is best


def test_equal_means_share_a_mark(tmp_path):
    from dataclasses import replace

    from harness.reporting.layout import table
    from harness.reporting.load import load_report

    suite, store = write_fixed_store(tmp_path)
    _rewrite_report_start(suite, "report: {measures: [samples], metric: accuracy")
    data = load_report(suite, store, root=tmp_path)
    lower_is_better = replace(data.metrics["samples"], higher_is_better=False)
    ranked = replace(data, metrics={**data.metrics, "samples": lower_is_better})
    assert set(table(ranked, "samples").ranks.values()) == {1}  # every method records 100 samples: all share best


def test_report_says_std_when_the_cell_template_shows_std(tmp_path):
    from harness.reporting.layout import interval_note
    from harness.reporting.load import load_report

    suite, store = write_fixed_store(tmp_path)
    assert interval_note(load_report(suite, store, root=tmp_path)).startswith("mean ± 95% CI half-width (Student t)")
    suite.write_text(suite.read_text().replace('cell: "{mean:.1f} ± {ci95:.1f}"', 'cell: "{mean:.1f} ± {std:.1f}"'))
    assert interval_note(load_report(suite, store, root=tmp_path)).startswith("mean ± standard deviation over seeds")


def test_a_report_rendered_again_from_its_runs_csv_says_the_same(tmp_path):
    from harness.reporting.load import load_report
    from harness.reporting.markdown import render_markdown

    suite, store = write_fixed_store(tmp_path)
    _rewrite_report_start(suite, "report: {measures: [rate], metric: accuracy")
    first = tmp_path / "first"
    assert _report(str(suite), "--store", str(store), "--data-root", str(tmp_path), "--out", str(first),
                   "--format", "md,csv") == 0
    again = load_report(suite, tmp_path / "no-store.sqlite", root=tmp_path, runs_file=first / "runs.csv")
    body = render_markdown(again).split("\n---\n")[0]  # all but the footer, which names the export
    assert body == (first / "report.md").read_text().split("\n---\n")[0]
    assert again.metrics["rate"].higher_is_better is True and again.metrics["rate"].unit == "1/s"
    assert f"from {first / 'runs.csv'}" in again.provenance.selection


def test_an_export_with_an_unreadable_cell_names_its_line(tmp_path, capsys):
    suite, store = write_fixed_store(tmp_path)
    out = tmp_path / "out"
    assert _report(str(suite), "--store", str(store), "--data-root", str(tmp_path), "--out", str(out),
                   "--format", "csv") == 0
    lines = (out / "runs.csv").read_text().splitlines()
    header = lines[0].split(",")
    row = lines[2].split(",")
    row[header.index("seed")] = "three"
    lines[2] = ",".join(row)
    (out / "runs.csv").write_text("\n".join(lines) + "\n")
    assert _report(str(suite), "--runs", str(out / "runs.csv"), "--data-root", str(tmp_path)) == 3
    err = capsys.readouterr().err
    assert f"{out / 'runs.csv'}:3:" in err and "cannot be read" in err and "Traceback" not in err


def test_an_export_with_a_bad_column_is_a_user_error(tmp_path, capsys):
    suite, _ = write_fixed_store(tmp_path)
    bad = tmp_path / "runs.csv"
    bad.write_text("method,seed\nx,0\n")
    assert _report(str(suite), "--runs", str(bad), "--data-root", str(tmp_path)) == 3
    assert "lacks the column(s)" in capsys.readouterr().err


def test_the_terminal_table_shows_each_cell_as_the_report_does(tmp_path):
    from harness.planner import plan
    from harness.reporting.layout import table
    from harness.reporting.load import load_report
    from harness.suite import load_suite
    from harness.summary_table import summary_markdown

    suite_path, store_path = write_fixed_store(tmp_path)
    report = table(load_report(suite_path, store_path, root=tmp_path), "accuracy")
    suite, source = load_suite(suite_path)
    with Store(store_path) as store:
        terminal = summary_markdown(suite, plan(suite, source, tmp_path), store)
    assert "95% CI half-width" in terminal.splitlines()[0]
    for row in report.rows:
        assert f"| {row} | " + " | ".join(report.text(row, col) for col in report.cols) + " |" in terminal


def test_a_metric_can_have_its_own_cell_format(tmp_path):
    from harness.reporting.layout import table
    from harness.reporting.load import load_report

    suite, store = write_fixed_store(tmp_path)
    _rewrite_report_start(suite, "report: {cells: {accuracy: auto}, metric: accuracy")
    accuracy = table(load_report(suite, store, root=tmp_path), "accuracy")
    assert accuracy.text("thr[t=0.0]", "easy") == "99.0 ± 2.5"  # the interval (2.48) sets one decimal
