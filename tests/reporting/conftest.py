"""Report fixtures: a real toy-family store made by `harness run`, and its report model.

The suite's names carry markup on purpose (a method and a dataset with `<script>` and `"`),
so every renderer is tested against hostile input. One method has a stored run for seed 0
only (n=1: a partial run, the other seeds never ran), one always fails, and one has its
accuracy replaced by NaN (toy metrics are never NaN, so that cell is set by hand).
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.reporting.load import load_report
from harness.reporting.model import ReportData
from harness.stats import summarize

TOY_PLUGIN = str(Path(__file__).resolve().parents[1] / "plugins" / "toy_family.py")

EVIL_METHOD = 'evil<script>window.__pwned=1</script>"'
EVIL_DATASET = 'hard<script>alert(1)</script>"'
SINGLE_SEED_METHOD = "single"
NAN_METHOD = "undefined"

SUITE = {
    "schema_version": 1,
    "suite": "toy-report",
    "task": "toy.sign",
    "description": 'Toy suite for reports: <b>not bold</b> & "quoted"',
    "defaults": {"seeds": [0, 1, 2], "timeout": "20s"},
    "datasets": {"easy": {"loader": "numbers", "args": {"shift": 1.0}},
                 EVIL_DATASET: {"loader": "numbers", "args": {"shift": 0.2}}},
    "metrics": ["accuracy"],
    "methods": {"thr": {"impl": "threshold", "params": {"t": 0.1}},
                EVIL_METHOD: {"impl": "threshold", "params": {"t": 0.5}},
                SINGLE_SEED_METHOD: {"impl": "threshold", "params": {"t": 0.25}},
                NAN_METHOD: {"impl": "threshold", "params": {"t": 0.3}},
                "broken": {"impl": "fail"}},
    "references": [{"method": "thr", "dataset": EVIL_DATASET, "metric": "accuracy", "value": 80.0, "std": 1.5,
                    "source": 'Doe <i>et al.</i> 2026, "Table 2"'}],
    "claims": [{"text": f"thr beats {EVIL_METHOD}", "check": {"metric": "accuracy", "better": "thr",
                                                            "than": EVIL_METHOD}}],
}


@pytest.fixture(scope="session")
def toy_store(tmp_path_factory) -> tuple[Path, Path]:
    """(suite path, store path): every method run on 3 seeds, except `single` on seed 0 only."""
    folder = tmp_path_factory.mktemp("toy_report")
    store = folder / "results.sqlite"
    full = folder / "suite.yaml"
    full.write_text(yaml.safe_dump(SUITE, sort_keys=False, allow_unicode=True))
    others = {k: v for k, v in SUITE["methods"].items() if k != SINGLE_SEED_METHOD}
    partial = {**SUITE, "methods": {SINGLE_SEED_METHOD: SUITE["methods"][SINGLE_SEED_METHOD]},
               "defaults": {**SUITE["defaults"], "seeds": [0]}, "claims": []}
    # `broken` fails on purpose: exit code 2 (some runs failed) for the first suite, 0 for the second.
    for name, suite, expected in (("most.yaml", {**SUITE, "methods": others}, 2), ("single.yaml", partial, 0)):
        path = folder / name
        path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True))
        code = main(["run", str(path), "--store", str(store), "--executor", "inline", "--plugin", TOY_PLUGIN])
        assert code == expected, f"harness run {name} exited {code}, expected {expected}"
    return full, store


@pytest.fixture
def toy_report(toy_store) -> ReportData:
    """The toy suite's report, with `undefined`'s accuracy set to NaN on every seed."""
    data = load_report(*toy_store)
    cells = dict(data.cells)
    for dataset in data.datasets:
        cell = cells[(NAN_METHOD, dataset, "accuracy")]
        values = tuple(math.nan for _ in cell.values)
        cells[(NAN_METHOD, dataset, "accuracy")] = dataclasses.replace(cell, values=values, stats=summarize(values))
    return dataclasses.replace(data, cells=cells)

