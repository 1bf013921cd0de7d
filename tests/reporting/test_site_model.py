"""The leaderboard site's model: which suites it shows, and each page's numbers read off the report model.

Expectations come from the suites' own report models (`load_report`, `layout.table`) and the store's
records, never from numbers typed here: the site must show what the reports show.
"""
from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.registry import load_plugin_file
from harness.reporting.layout import interval_note, table
from harness.reporting.load import load_report
from harness.reporting.site_model import build_site, method_name, method_page, suite_page
from harness.reporting.site_sources import committed_sources, find_suite_file, load_reports, stored_sources
from harness.store import Store
from harness.suite import MethodEntry
from tests.conftest import REPO
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD, TOY_PLUGIN
from tests.reporting.site_suites import NEVER_RUN, SHOWN, make_site_store


@pytest.fixture(scope="module")
def site_store(tmp_path_factory) -> tuple[Path, Path]:
    return make_site_store(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def site(site_store):
    suites, store = site_store
    load_plugin_file(TOY_PLUGIN)
    return build_site(load_reports(stored_sources(suites, store, []), store, None))


def test_committed_sources_are_every_suite_with_a_committed_export():
    sources = committed_sources(REPO / "suites", REPO / "reports", [])
    expected = {p.stem for p in (REPO / "suites").glob("*.yaml") if (REPO / "reports" / p.stem / "runs.csv").is_file()}
    assert {s.suite_file.stem for s in sources} == expected and len(expected) >= 20
    assert all(s.runs_file == REPO / "reports" / s.suite_file.stem / "runs.csv" for s in sources)


def test_a_named_suite_without_an_export_is_a_user_error():
    without = [p.stem for p in (REPO / "suites").glob("*.yaml") if not (REPO / "reports" / p.stem).is_dir()]
    assert without, "every committed suite has a report: pick another suite for this test"
    with pytest.raises(HarnessError, match=f"suite '{without[0]}' has no export"):
        committed_sources(REPO / "suites", REPO / "reports", [without[0]])


def test_an_unknown_suite_name_suggests_the_close_ones():
    with pytest.raises(HarnessError, match="unknown suite 'gad_apff'") as error:
        find_suite_file(REPO / "suites", "gad_apff")
    assert "'gad_apf'" in error.value.hint


def test_the_store_shows_every_suite_it_holds_runs_of(site_store, site):
    suites, store = site_store
    assert {s.suite_file.stem for s in stored_sources(suites, store, [])} == set(SHOWN)
    assert [s.name for s in site.suites] == sorted(SHOWN)  # one family: by name
    assert NEVER_RUN not in site.reports


def test_two_files_naming_one_suite_are_a_user_error(site_store):
    suites, store = site_store
    copy = suites.parent / "again.yaml"
    copy.write_text((suites / "toy-second.yaml").read_text())
    with pytest.raises(HarnessError, match="two suite files name the suite 'toy-second'"):
        load_reports(stored_sources(suites, store, ["toy-second", str(copy)]), store, None)


def test_last_run_is_when_the_newest_stored_run_finished(site_store, site):
    _, store = site_store
    with Store(store, read_only=True) as opened:
        for summary in site.suites:
            finished = sorted(datetime.fromisoformat(r["finished_at"]) for r in opened.records(suite=summary.name))
            assert finished[0] < finished[-1], "the toy runs finished at one instant: the test could not tell"
            assert summary.last_run == finished[-1] and summary.last_run.utcoffset() == timedelta(0)
            assert summary.last_run_text == finished[-1].strftime("%Y-%m-%d %H:%M UTC")


def test_last_run_is_not_recorded_when_no_run_says_when_it_finished(site):
    data = site.reports["toy-second"]
    undated = dataclasses.replace(data, records=tuple({**r, "finished_at": math.nan} for r in data.records))
    summary = next(s for s in build_site([undated]).suites)
    assert summary.last_run is None and summary.last_run_text == "not recorded" and math.isnan(summary.last_run_value)


def test_the_headline_is_the_report_metric_table_with_its_verdicts(site):
    for summary in site.suites:
        data = site.reports[summary.name]
        expected = table(data, data.main_metric)
        assert summary.metric.name == data.main_metric == "accuracy"
        assert summary.headline.rows == expected.rows and summary.headline.ranks == expected.ranks
        assert [summary.headline.text(*k) for k in expected.cells] == [expected.text(*k) for k in expected.cells]
        assert summary.claims == data.claims and summary.runs == data.provenance.runs
    report = next(s for s in site.suites if s.name == "toy-report")
    assert EVIL_DATASET in report.headline.cols and EVIL_METHOD in report.headline.rows


def test_a_method_page_gathers_a_registered_method_across_suites(site):
    pages = {page.name: page for page in site.methods}
    assert set(pages) == {"toy.threshold", "toy.vote", "toy.fail"}
    threshold = pages["toy.threshold"]
    assert [place.suite for place in threshold.suites] == ["toy-report", "toy-second"]
    assert [row.label for row in threshold.suites[1].rows] == ["cut[t=0.2]", "cut[t=0.4]"]
    assert EVIL_METHOD in [row.label for row in threshold.suites[0].rows]
    assert threshold.description == "toy method threshold" and threshold.page == method_page("toy.threshold")
    assert [place.suite for place in pages["toy.vote"].suites] == ["toy-second"]
    assert site.method_pages("toy-second") == {"toy.threshold": method_page("toy.threshold"),
                                               "toy.vote": method_page("toy.vote")}


def test_a_method_page_shows_each_suites_best_beside_its_own_cells(site):
    for page in site.methods:
        for place in page.suites:
            data = site.reports[place.suite]
            headline = table(data, data.main_metric)
            for row in place.rows:
                assert row.cells == tuple(headline.text(row.label, d) for d in data.datasets)
            assert place.cell_note == interval_note(data)
            for dataset, best in zip(data.datasets, place.best, strict=True):
                stats = [(m, data.cell(m, dataset, "accuracy").stats) for m in data.methods]
                means = {m: s.mean for m, s in stats if s.n and not s.n_nonfinite}  # what a report ranks
                top = max(means.values())
                assert set(best.by) == {m for m, v in means.items() if math.isclose(v, top)}
                assert best.text == headline.text(best.by[0], dataset)
                for row, is_best in ((r, r.best[data.datasets.index(dataset)]) for r in place.rows):
                    assert is_best == (row.label in best.by)


def test_a_method_page_lists_the_papers_numbers_cited_for_it(site):
    threshold = next(page for page in site.methods if page.name == "toy.threshold")
    cited = threshold.suites[0].references
    assert [(ref.method, ref.dataset, ref.value) for ref in cited] == [("thr", EVIL_DATASET, 80.0)]
    assert threshold.suites[1].references == ()
    assert all(place.references == () for page in site.methods if page.name != "toy.threshold" for place in page.suites)


def test_a_predictions_entry_is_a_method_of_its_own_suite(site):
    data = site.reports["toy-second"]
    theirs = MethodEntry(predictions="preds/{method}/{dataset}/{seed}.parquet")
    data = dataclasses.replace(data, suite=data.suite.model_copy(update={"methods": {**data.suite.methods,
                                                                                      "theirs": theirs}}))
    assert method_name(data, "theirs") == "theirs (predictions in toy-second)"
    assert method_name(data, "cut[t=0.2]") == "toy.threshold"


def test_pages_are_named_by_file_safe_names(site):
    assert suite_page("toy-report") == "suites/toy-report.html"
    assert all(page.page.startswith("methods/") and "/" not in page.page[len("methods/"):] for page in site.methods)


def test_the_site_reads_the_same_reports_as_harness_report(site_store, site):
    suites, store = site_store
    data = load_report(suites / "toy-second.yaml", store)
    assert site.reports["toy-second"].cells == data.cells
