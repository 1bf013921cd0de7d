"""Aggregates across datasets in reports: normalisation (lower-is-better flipped), the Aggregates section in
every format, and claims over an aggregate decided by bootstrap intervals."""
from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import numpy as np
import pytest

from harness.reporting.aggregates import aggregate_report, task_scores
from harness.reporting.claim_sides import CONTRADICTED, NOT_MEASURABLE, NOT_SIGNIFICANT, SUPPORTED, UNDECIDABLE
from harness.reporting.claims import check_claim
from harness.reporting.latex import render_latex
from harness.reporting.load import load_report
from harness.reporting.markdown import render_markdown
from harness.reporting.model import Cell, MetricInfo
from harness.reporting.render import write_report
from harness.stats import summarize
from harness.suite import Aggregates, ClaimCheck, Normalisation
from tests.reporting.fixed_store import EVIL_NAME, write_fixed_store
from tests.reporting.latex_build import assert_latex_compiles

SCORE = MetricInfo("score", True, "quality")
ERROR = MetricInfo("error", False, "quality")


def _data(values: dict[tuple[str, str], list[float]], info: MetricInfo = SCORE, reps: int = 1000, **block):
    """A report model stand-in: (method label, dataset) -> the metric's value per seed; every dataset is
    normalised from 0 to 100 (from 100 to 0 for a lower-is-better metric) unless `normalise` says otherwise."""
    datasets = tuple(dict.fromkeys(d for _, d in values))
    bounds = (0.0, 100.0) if info.higher_is_better else (100.0, 0.0)
    normalise = block.pop("normalise", {d: Normalisation(low=bounds[0], high=bounds[1]) for d in datasets})
    cells = {}
    for (method, dataset), per_seed in values.items():
        seeds = tuple(range(len(per_seed)))
        cells[(method, dataset, info.name)] = Cell(method, dataset, info.name, summarize(per_seed), seeds,
                                                   tuple(per_seed), tuple(f"{method}-{dataset}-{s}" for s in seeds))
    suite = SimpleNamespace(aggregates=Aggregates(metric=info.name, normalise=normalise, reps=reps, **block))
    return SimpleNamespace(suite=suite, methods=tuple(dict.fromkeys(m for m, _ in values)), datasets=datasets,
                           metrics={info.name: info}, cell=lambda m, d, k: cells.get((m, d, k)))


def _runs(center: float, runs: int = 8, spread: float = 2.0, seed: int = 0) -> list[float]:
    return list(center + np.random.default_rng(seed).normal(0, spread, runs))


def test_normalisation_maps_low_to_zero_and_high_to_one():
    bounds = Normalisation(low=50, high=100)
    assert (bounds.apply(50), bounds.apply(75), bounds.apply(100)) == (0.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="low and high are both 50"):
        Normalisation(low=50, high=50)


def test_a_lower_is_better_metric_is_flipped_so_normalised_scores_rise_with_quality():
    data = _data({("good", "d1"): [10.0, 20.0], ("bad", "d1"): [80.0, 90.0],
                  ("good", "d2"): [5.0, 5.0], ("bad", "d2"): [95.0, 95.0]}, ERROR,
                 normalise={"d1": Normalisation(low=100, high=0), "d2": Normalisation(low=100, high=0)})
    good = task_scores(data, {"d1": "good", "d2": "good"})
    np.testing.assert_allclose(np.concatenate(good), [0.9, 0.8, 0.95, 0.95])
    report = aggregate_report(data)
    assert report.flipped and "lower-is-better" in report.method_note
    means = {row.method: row.estimates["mean"].point for row in report.rows}
    gaps = {row.method: row.estimates["optimality_gap"].point for row in report.rows}
    assert means["good"] > means["bad"] and gaps["good"] < gaps["bad"]


def test_the_report_gives_each_method_its_statistics_and_the_own_method_its_improvements():
    data = _data({("mine", "d1"): _runs(70), ("mine", "d2"): _runs(60, seed=1),
                  ("base", "d1"): _runs(50, seed=2), ("base", "d2"): _runs(40, seed=3),
                  ("partial", "d1"): _runs(50, seed=4)}, method="mine")
    report = aggregate_report(data)
    rows = {row.method: row for row in report.rows}
    assert set(rows["mine"].estimates) == {"iqm", "mean", "median", "optimality_gap"}
    assert rows["partial"].estimates == {} and "no measured runs of 'partial' on 'd2'" in rows["partial"].missing
    improvements = {i.rival: i for i in report.improvements}
    assert set(improvements) == {"base", "partial"}
    assert improvements["base"].estimate.low > 0.5 and improvements["partial"].estimate is None


def test_each_methods_intervals_do_not_depend_on_the_other_methods():
    alone = _data({("a", "d1"): _runs(70), ("a", "d2"): _runs(60, seed=1)})
    beside = _data({("z", "d1"): _runs(10), ("a", "d1"): _runs(70),
                    ("z", "d2"): _runs(20), ("a", "d2"): _runs(60, seed=1)})
    first = next(r for r in aggregate_report(alone).rows if r.method == "a")
    second = next(r for r in aggregate_report(beside).rows if r.method == "a")
    assert first == second


def _claim(data, **check):
    return check_claim(data, "claim", ClaimCheck(metric=data.suite.aggregates.metric, **check))


@pytest.mark.parametrize("aggregate", ["iqm", "mean", "median", "optimality_gap", "probability_of_improvement"])
def test_a_clear_gain_across_datasets_supports_the_claim_and_its_reverse_is_contradicted(aggregate):
    values = {("a", "d1"): _runs(80), ("a", "d2"): _runs(70, seed=1), ("a", "d3"): _runs(75, seed=2),
              ("b", "d1"): _runs(60, seed=3), ("b", "d2"): _runs(50, seed=4), ("b", "d3"): _runs(55, seed=5)}
    data = _data(values)
    supported = _claim(data, better="a", than="b", aggregate=aggregate)
    assert supported.verdict == SUPPORTED, supported.statistic
    assert "holds against 1 of 1 rival(s)" in supported.statistic and len(supported.run_ids) == 48
    assert _claim(data, better="b", than="a", aggregate=aggregate).verdict == CONTRADICTED


def test_overlapping_methods_are_not_significant_and_single_runs_are_undecidable():
    overlapping = _data({("a", "d1"): _runs(60.5, spread=5), ("b", "d1"): _runs(60, spread=5, seed=1),
                         ("a", "d2"): _runs(50.5, spread=5, seed=2), ("b", "d2"): _runs(50, spread=5, seed=3)})
    assert _claim(overlapping, better="a", than="b", aggregate="iqm").verdict == NOT_SIGNIFICANT
    single = _data({("a", "d1"): [90.0], ("b", "d1"): [10.0], ("a", "d2"): [90.0], ("b", "d2"): [10.0]})
    result = _claim(single, better="a", than="b", aggregate="mean")
    assert result.verdict == UNDECIDABLE and "more seeds" in result.statistic


def test_best_over_an_aggregate_must_beat_every_rival_variant():
    values = {("x", "d1"): _runs(80), ("x", "d2"): _runs(80, seed=1),
              ("y[k=1]", "d1"): _runs(50, seed=2), ("y[k=1]", "d2"): _runs(50, seed=3),
              ("y[k=2]", "d1"): _runs(79.8), ("y[k=2]", "d2"): _runs(79.8, seed=1)}  # x's runs, 0.2 lower
    result = _claim(_data(values), best="x", aggregate="iqm")
    assert result.verdict == NOT_SIGNIFICANT and "holds against 1 of 2 rival(s)" in result.statistic
    values |= {("y[k=2]", "d1"): _runs(60, seed=4), ("y[k=2]", "d2"): _runs(60, seed=5)}
    assert _claim(_data(values), best="x", aggregate="iqm").verdict == SUPPORTED


def test_an_aggregate_claim_over_a_method_missing_a_dataset_is_not_measurable():
    data = _data({("a", "d1"): _runs(80), ("a", "d2"): _runs(80, seed=1), ("b", "d1"): _runs(50, seed=2)})
    result = _claim(data, better="a", than="b", aggregate="iqm")
    assert result.verdict == NOT_MEASURABLE and "'b' on 'd2'" in result.statistic


AGGREGATES_BLOCK = """
aggregates:
  metric: accuracy
  normalise: {easy: {low: 50, high: 100}, hard_set: {low: 50, high: 100}}
  method: thr
  reps: 500
"""


@pytest.fixture
def aggregate_report_data(tmp_path):
    """The fixed store's report with aggregates and two aggregate claims; `noisy` is the evil name."""
    suite, store = write_fixed_store(tmp_path, evil=True)
    text = suite.read_text().replace("claims:\n", "claims:\n  - {text: thr's IQM beats the rest, check: "
                                                  "{metric: accuracy, best: 'thr[t=0.0]', aggregate: iqm}}\n")
    suite.write_text(text + AGGREGATES_BLOCK)
    return load_report(suite, store, root=tmp_path)


def test_every_format_shows_the_aggregates_with_names_escaped(aggregate_report_data, tmp_path):
    markdown = render_markdown(aggregate_report_data)
    section = markdown.split("## Aggregates across datasets (accuracy, normalised)", 1)[1].split("\n## ", 1)[0]
    assert "| method | IQM ↑ | Mean ↑ | Median ↑ | Optimality gap ↓ |" in section
    assert "evil\\<script\\>" in section and "<script>" not in markdown
    assert "| thr\\[t=0.0\\] | " in section and "P(X \\> Y)" in section
    assert "claims over an aggregate" in markdown.split("## Claims checked", 1)[1]
    latex = render_latex(aggregate_report_data)
    assert "aggregates across datasets" in latex and EVIL_NAME not in latex and "↓" not in latex
    written = write_report(aggregate_report_data, tmp_path / "out", ("csv", "png"))
    names = {path.name for path in written}
    assert {"aggregates.csv", "aggregates_accuracy.png"} <= names
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "aggregates.csv").read_text())))
    iqm = next(r for r in rows if r["method"] == "thr[t=0.0]" and r["statistic"] == "iqm")
    assert float(iqm["ci_low"]) <= float(iqm["estimate"]) <= float(iqm["ci_high"])
    assert {r["versus"] for r in rows if r["statistic"] == "probability_of_improvement"} == {EVIL_NAME}


def test_a_claim_over_an_aggregate_is_reported_with_its_verdict(aggregate_report_data):
    claim = next(c for c in aggregate_report_data.claims if "IQM" in c.text)
    assert claim.verdict == UNDECIDABLE  # the evil method has one run on hard_set: its seeds 1 and 2 failed
    assert claim.statistic.startswith("IQM of normalised accuracy over 2 datasets")


def test_latex_with_aggregates_compiles_with_pdflatex(aggregate_report_data, tmp_path):
    assert_latex_compiles(render_latex(aggregate_report_data), tmp_path)
