"""A suite's runs among the stored ones, as `plan`, `report` and `export` all count them.

Runs are shared between suites: a run key hashes what changes a run's answer, not the suite that asked
for it, so a run that two suites plan alike (plg_prism_ablation's Letter-high runs are plg_prism's) is
executed and stored once and belongs to both. A suite's runs are therefore its planned run keys,
labelled as it plans them, whichever suite executed them; only when its data files are absent (no plan
can be made) are they matched by (method, dataset, seed) among the runs stored under its own name.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.dataset_files import data_root
from harness.errors import DataError
from harness.planner import RunSpec, plan
from harness.store import Store
from harness.suite import Suite
from harness.yaml_source import YamlSource

def stored_selection(suite: Suite, source: YamlSource, root: str | Path | None,
                     store: Store) -> tuple[list[dict[str, Any]], list[str], str]:
    """`select_suite_runs` among the runs of `store`."""
    return select_suite_runs(suite, source, root, store.planned_records, lambda: list(store.records(suite=suite.suite)))


def select_suite_runs(suite: Suite, source: YamlSource, root: str | Path | None,
                      by_key: Callable[[list[RunSpec]], list[dict[str, Any]]],
                      everything: Callable[[], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], list[str], str]:
    """The suite's runs among the stored ones: by run key when the plan can be made, else by name."""
    try:
        planned = plan(suite, source, data_root(root))
    except DataError:
        records, methods = _by_name(suite, everything())
        return records, methods, "names (data files absent, run keys unchecked)"
    return by_key(planned), list(dict.fromkeys(r.method for r in planned)), "run keys"


def _by_name(suite: Suite, stored: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    newest: dict[tuple[str, str, int], dict[str, Any]] = {}
    for record in sorted(stored, key=lambda r: r.get("finished_at") or ""):
        if record["dataset"] in suite.datasets and record.get("method_entry") in suite.methods:
            newest[(record["method"], record["dataset"], record["seed"])] = record
    records = list(newest.values())
    order = {name: i for i, name in enumerate(suite.methods)}
    methods = sorted({(order[r["method_entry"]], r["method"]) for r in records})
    return records, [method for _, method in methods]
