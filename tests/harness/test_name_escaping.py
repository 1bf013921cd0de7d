"""Names from suites and plugins are data wherever they land: not mathtext in a plot, not a formula in a
spreadsheet opened on a CSV (quoted, and read back unchanged by the harness), not a terminal escape sequence."""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
import yaml

from harness.comparison.sources import read_export
from harness.spreadsheet_cells import quote_cell, quoted_text, read_harness_csv, unquote_cell, unquoted_text
from tests.conftest import TOY_SUITE

FORMULA_NAMES = ["=cmd", "+x", "-y", "@z"]
ESCAPE = "\x1b[2J\x1b[31m"  # clear the screen, then print in red


def _suite_of(write_suite, methods: list[str]) -> Path:
    suite = yaml.safe_load(TOY_SUITE)
    suite["defaults"]["seeds"] = [0]
    suite["methods"] = {name: {"impl": "threshold", "params": {"t": 0.1 * index}}
                        for index, name in enumerate(methods)}
    return write_suite(yaml.safe_dump(suite))


def _run(cli, suite: Path, store: Path) -> None:
    assert cli("run", str(suite), "--store", str(store), "--executor", "inline")[0] == 0


@pytest.mark.slow
def test_a_method_named_like_mathtext_is_drawn_as_text(cli, write_suite, store, tmp_path):
    suite = _suite_of(write_suite, ["$\\frac{a$", "thr"])
    _run(cli, suite, store)
    code, _, err = cli("report", str(suite), "--store", str(store), "--format", "png", "--out", str(tmp_path / "r"))
    assert code == 0, err
    assert list((tmp_path / "r").glob("bars_*.png"))


def test_names_that_look_like_formulas_are_quoted_in_csv_files_and_read_back_unchanged(cli, write_suite, store,
                                                                                      tmp_path):
    suite = _suite_of(write_suite, FORMULA_NAMES)
    _run(cli, suite, store)
    exported, report = tmp_path / "runs.csv", tmp_path / "report"
    assert cli("export", "--store", str(store), "--out", str(exported))[0] == 0
    assert cli("report", str(suite), "--store", str(store), "--format", "csv", "--out", str(report))[0] == 0
    for written in (exported, report / "runs.csv", report / "table.csv"):
        with written.open(newline="") as handle:
            methods = {row["method"] for row in csv.DictReader(handle)}
        assert methods == {"'" + name for name in FORMULA_NAMES}, written
    assert set(read_export(exported)["method"]) == set(FORMULA_NAMES)
    again = tmp_path / "again"
    assert cli("report", str(suite), "--runs", str(report / "runs.csv"), "--format", "csv", "--out", str(again))[0] == 0
    assert (again / "table.csv").read_text() == (report / "table.csv").read_text()
    for written in (report / "runs.csv", report / "table.csv"):  # as the families' table scripts read them
        assert set(read_harness_csv(written)["method"]) == set(FORMULA_NAMES), written


@pytest.mark.parametrize(("text", "written"), [
    ("=cmd", "'=cmd"), ("+x", "'+x"), ("-y", "'-y"), ("@z", "'@z"), ("\tz", "'\tz"),
    ("'=quoted by hand", "''=quoted by hand"), ("''-twice", "'''-twice"),
    ("'plain", "'plain"), ("plain", "plain"), ("", ""), ("a=b", "a=b"),
])
def test_a_cell_is_quoted_only_where_a_spreadsheet_sees_a_formula_and_reads_back_as_it_was(text, written):
    assert quote_cell(text) == written
    assert unquote_cell(written) == text


def test_numbers_are_never_quoted():
    frame = pd.DataFrame({"method": ["-y", "ok"], "mean": [-0.5, 1.0], "n": [3, 4]})
    assert quoted_text(frame)["mean"].tolist() == [-0.5, 1.0]
    assert quoted_text(frame)["method"].tolist() == ["'-y", "ok"]
    assert unquoted_text(quoted_text(frame)).equals(frame)


def test_an_escape_sequence_in_a_name_is_printed_escaped(cli, write_suite, store):
    suite = _suite_of(write_suite, [f"red{ESCAPE}name"])
    code, out, _ = cli("plan", str(suite), "--store", str(store))
    assert code == 0
    assert "\x1b" not in out and "red\\x1b[2J\\x1b[31mname" in out


def test_an_escape_sequence_in_an_error_message_is_printed_escaped(cli, write_suite):
    suite = yaml.safe_load(TOY_SUITE)
    suite["methods"]["thr"]["impl"] = f"thresh{ESCAPE}old"
    code, _, err = cli("validate", str(write_suite(yaml.safe_dump(suite))))
    assert code != 0
    assert "\x1b" not in err and "thresh\\x1b[2J" in err
