"""The committed quick suite end to end: every run succeeds and the graph baselines beat random."""
from __future__ import annotations

from pathlib import Path

import pytest

import harness

SUITE = Path(__file__).resolve().parents[2] / "suites" / "quickstart.yaml"
GRAPH_AWARE = ("rayleigh", "gcn", "graphsage")


@pytest.mark.slow
def test_quickstart_suite_runs_and_graph_baselines_beat_random(tmp_path):
    frame = harness.run(SUITE, store=tmp_path / "results.sqlite", jobs=2)
    assert len(frame) == 30 and set(frame["status"]) == {"ok"}
    assert frame["metric.auroc"].notna().all()
    mean_auroc = frame.groupby(["method", "dataset"])["metric.auroc"].mean()
    for method in GRAPH_AWARE:
        for dataset in ("sbm_mixed", "sbm_contextual"):
            assert mean_auroc[(method, dataset)] > 60, (method, dataset, mean_auroc[(method, dataset)])
