"""A suite's runs among the stored ones, as `plan`, `report` and `export` all count them.

Runs are shared between suites: a run key hashes what changes a run's answer, not the suite that asked
for it, so a run that two suites plan alike (plg_prism_ablation's Letter-high runs are plg_prism's) is
executed and stored once and belongs to both. A suite's runs are therefore its planned run keys,
labelled as it plans them, whichever suite executed them; only when its data files are absent (no plan
can be made) are they matched by (method, dataset, seed) among the runs stored under its own name.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from harness.dataset_files import data_root
from harness.errors import DataError
from harness.planner import plan
from harness.record_json import RecordJson
from harness.run_spec import RunSpec
from harness.store import Store
from harness.suite import Suite
from harness.yaml_source import YamlSource

CELL = ("suite", "method", "dataset", "seed")
Row = TypeVar("Row", bound=Mapping[str, Any])


def newest_per_cell(rows: Iterable[Row]) -> list[Row]:
    """The newest record (latest `finished_at`) of each (suite, method, dataset, seed), in the order given.

    A cell has several records when its runs' keys differ (a changed dataset file, a new metric version):
    the last to finish is the one that counts. Of two that finished alike (or say nothing, as an export
    written before it had the column), the later one given wins.
    """
    rows = list(rows)
    return [rows[position] for position in newest_positions(rows)]


def newest_positions(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """The positions in `rows` of `newest_per_cell`'s records, ascending (for a frame's `iloc`)."""
    newest: dict[tuple[Any, ...], int] = {}
    for position, row in sorted(enumerate(rows), key=lambda item: _finished_at(item[1])):
        newest[tuple(row[c] for c in CELL)] = position
    return sorted(newest.values())


def _finished_at(row: Mapping[str, Any]) -> str:
    value = row.get("finished_at")
    return value if isinstance(value, str) else ""  # an export's empty cell reads as NaN


def stored_selection(suite: Suite, source: YamlSource, root: str | Path | None,
                     store: Store) -> tuple[list[RecordJson], list[str], str]:
    """`select_suite_runs` among the runs of `store`, with the suite's curve metrics (`harness.curve_metrics`)."""
    from harness.curve_metrics import with_curve_metrics

    records, methods, selection = select_suite_runs(suite, source, root, store.planned_records,
                                                    lambda: list(store.records(suite=suite.suite)))
    return with_curve_metrics(suite, records, store.path), methods, selection


def select_suite_runs(suite: Suite, source: YamlSource, root: str | Path | None,
                      by_key: Callable[[list[RunSpec]], list[RecordJson]],
                      everything: Callable[[], list[RecordJson]]) -> tuple[list[RecordJson], list[str], str]:
    """The suite's runs among the stored ones: by run key when the plan can be made, else by name."""
    try:
        planned = plan(suite, source, data_root(root))
    except DataError:
        records, methods = select_by_name(suite, everything())
        return records, methods, "names (data files absent, run keys unchecked)"
    return by_key(planned), list(dict.fromkeys(r.method for r in planned)), "run keys"


def select_by_name(suite: Suite, stored: list[RecordJson]) -> tuple[list[RecordJson], list[str]]:
    """The newest stored run per (method, dataset, seed) the suite names, whatever its run key, and the methods
    in the suite's order."""
    records = newest_per_cell(r for r in stored
                              if r["dataset"] in suite.datasets and r.get("method_entry") in suite.methods)
    order = {name: i for i, name in enumerate(suite.methods)}
    methods = sorted({(order[r["method_entry"]], r["method"]) for r in records})
    return records, [method for _, method in methods]
