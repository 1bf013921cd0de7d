"""Select a suite's runs from the store (or from an export of them) and build its report model."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from harness.claim_registry import read_registration_file
from harness.comparison.sources import read_export
from harness.curves import CURVES_FILE, Curve, curves_of_export, read_curves
from harness.dataset_files import data_root
from harness.errors import HarnessError
from harness.planner import plan
from harness.record_json import RecordJson
from harness.reporting.build import build_report
from harness.reporting.claims import with_registration
from harness.reporting.model import ReportData
from harness.results import records_of_export
from harness.run_folders import stored_file
from harness.store import Store, as_planned
from harness.suite import Suite, load_suite
from harness.suite_runs import select_by_name, select_suite_runs, stored_selection
from harness.yaml_source import YamlSource


def load_report(suite_path: str | Path, store_path: str | Path, root: str | Path | None = None,
                interval: str = "t", bootstrap_resamples: int = 0, runs_file: str | Path | None = None,
                by_name: bool = False) -> ReportData:
    """The report of a suite from the store alone, or from an export of its runs (`runs_file`); nothing runs.

    Runs are matched by run key when the suite's data files are at hand; otherwise by
    (method, dataset, seed) name, newest first, and the report's provenance says so. An export
    (a report's committed `runs.csv`) renders a report again without the store it came from, its learning
    curves from the `curves.csv` beside it. The suite's curve metrics are computed here, from the stored
    curves, as its runs are selected (`harness.curve_metrics`); an export carries them already. `by_name` takes
    the runs stored under the suite's name as they are, whatever their run keys (a baseline's own runs, made
    before a parameter or a version changed). Claims are marked pre-registered or post hoc by the store's
    registration, or an export's `claims_registered.json` (`harness.claim_registry`); without one, unknown.
    """
    suite, source = load_suite(suite_path)
    if runs_file is not None:
        if bootstrap_resamples:
            raise HarnessError("the within-run bootstrap needs the stored predictions, which an export lacks",
                               field="--bootstrap", hint="Render from the store, or leave out --bootstrap.")
        stored = records_of_export(read_export(Path(runs_file)), str(runs_file))  # shared runs keep their suite
        own = [r for r in stored if r["suite"] == suite.suite]
        if by_name:
            records, methods = select_by_name(suite, own)
            selection = "names (the runs as stored, whatever their run keys)"
        else:
            records, methods, selection = select_suite_runs(
                suite, source, root, lambda planned: as_planned(planned, stored), lambda: own)
        selection += f", from {runs_file}"
        bootstrap = None
        curves = _exported_curves(Path(runs_file))
        registration = read_registration_file(Path(runs_file), suite.suite)
    else:
        with Store(store_path, read_only=True) as store:
            if by_name:
                records, methods = select_by_name(suite, list(store.records(suite=suite.suite)))
                selection = "names (the runs as stored, whatever their run keys)"
            else:
                records, methods, selection = stored_selection(suite, source, root, store)
            bootstrap = _bootstrap(suite, source, root, records, store, bootstrap_resamples)
            curves = _stored_curves(records, store.path)
            registration = store.claim_registration(suite.suite)
    if not records:
        where = runs_file or f"the store {store_path}"
        raise HarnessError(f"{where} holds no runs of suite '{suite.suite}'",
                           hint=f"Run it first: harness run {suite_path} --store {store_path}")
    data = build_report(suite, Path(suite_path), records, methods, interval, bootstrap, selection)
    return dataclasses.replace(data, curves=curves, claims=with_registration(data.claims, suite, registration))


def _stored_curves(records: list[RecordJson], store: Path) -> dict[str, dict[str, Curve]]:
    """Run id -> learning curves of the runs that recorded any."""
    return {r["run_id"]: read_curves(stored_file(store, r["curves"])) for r in records if r.get("curves")}


def _exported_curves(runs_file: Path) -> dict[str, dict[str, Curve]]:
    """The curves a rendered report keeps beside its runs file (`curves.csv`), if it has any."""
    table = runs_file.with_name(CURVES_FILE)
    return curves_of_export(table) if table.is_file() else {}


def _bootstrap(suite: Suite, source: YamlSource, root: str | Path | None, records: list[RecordJson],
               store: Store, resamples: int) -> dict[str, dict[str, float]] | None:
    if not resamples:
        return None
    from harness.reporting.bootstrap import within_run_stderr

    return within_run_stderr(plan(suite, source, data_root(root)), records, store, resamples)

