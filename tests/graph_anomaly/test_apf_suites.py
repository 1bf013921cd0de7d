"""The APF suites: they plan on the real graphs, share APF's runs, and run end to end into a report with claims."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import harness
from harness.planner import plan
from harness.suite import load_suite
from tests.conftest import REPO

MAIN = REPO / "suites" / "gad_apf.yaml"
ABLATION = REPO / "suites" / "gad_apf_ablation.yaml"


@pytest.mark.real_data
def test_both_suites_plan_ten_trials_and_share_apf_runs(real_graph_path):
    root = real_graph_path("reddit").parents[1]
    for name in ("tolokers", "cora"):
        real_graph_path(name)
    main_runs = plan(*load_suite(MAIN), root)
    ablation_runs = plan(*load_suite(ABLATION), root)
    assert len(main_runs) == 13 * 4 * 10 and len(ablation_runs) == 11 * 3 * 10  # no Cora: CPU budget
    main_apf = {r.run_key for r in main_runs if r.method == "apf"}
    assert {r.run_key for r in ablation_runs if r.method == "apf"} <= main_apf  # stored once, reported in both
    tolokers = next(r for r in main_runs if r.method == "apf" and r.dataset.name == "tolokers")
    reddit = next(r for r in main_runs if r.method == "apf" and r.dataset.name == "reddit")
    assert (tolokers.params["head_hidden"], tolokers.params["p_a"]) == ([64, 64], 0.7)  # SAGAD's Tolokers row
    assert reddit.params["p_a"] == 0.8


def _mini(suite: Path, folder: Path, methods: list[str]) -> Path:
    """The suite on one small generated graph, 3 seeds, with only `methods` (their suite settings kept)."""
    spec = yaml.safe_load(suite.read_text())
    spec["defaults"]["seeds"] = [0, 1, 2]
    spec["datasets"] = {"sbm": {"loader": "injected_sbm", "args": {"num_nodes": 600, "seed": 0}, "split": {}}}
    spec["methods"] = {name: spec["methods"][name] for name in methods}
    spec["references"] = []  # they name Reddit
    if "aggregates" in spec:  # normalised per dataset: the one graph left
        spec["aggregates"]["normalise"] = {"sbm": {"low": 50, "high": 100}}
    for entry in spec["methods"].values():
        entry.pop("dataset_params", None)
    path = folder / suite.name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


@pytest.mark.slow
def test_mini_main_suite_runs_and_reports_its_claims(tmp_path):
    suite = _mini(MAIN, tmp_path, ["gcn", "bwgnn", "xgbgraph", "dgi", "apf"])  # the methods its claims name
    frame = harness.run(suite, store=tmp_path / "results.sqlite", jobs=2)
    assert len(frame) == 15 and set(frame["status"]) == {"ok"}
    assert frame["metric.auprc"].notna().all()
    assert frame.loc[frame["method"] == "apf", "measure.pretrain_epoch_seconds"].gt(0).all()
    out = tmp_path / "report"
    assert harness.cli.main(["report", str(suite), "--store", str(tmp_path / "results.sqlite"),
                             "--out", str(out), "--format", "md"]) == 0
    report = (out / "report.md").read_text()
    assert "APF's mean AUPRC exceeds every baseline's on each dataset" in report
    assert "## Aggregates across datasets (auroc, normalised)" in report and "| apf | gcn | " in report
    assert "auprc\\_h80\\_100" in report and "pretrain\\_epoch\\_seconds" in report
