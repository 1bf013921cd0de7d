"""Which suites a leaderboard site shows, and where each one's runs are read from: a store, or its committed export.

A suite is named by its file (`suites/<name>.yaml`); its committed export is `reports/<name>/runs.csv`,
as `reports/regenerate.sh` writes them. Left unnamed, the site shows every suite that has runs: each
committed suite with an export, or each suite the store holds runs of.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.reporting.load import load_report
from harness.reporting.model import ReportData
from harness.store import Store
from harness.suite import load_suite

EXPORT_NAME = "runs.csv"


@dataclass(frozen=True)
class SuiteSource:
    suite_file: Path
    runs_file: Path | None  # its export; None: its runs are read from the store


def committed_sources(suites_dir: Path, reports_dir: Path, names: list[str]) -> list[SuiteSource]:
    """The named suites (default: every suite file with an export) with their exports beside them."""
    if not names:
        files = [f for f in _suite_files(suites_dir) if _export(reports_dir, f).is_file()]
        if not files:
            raise HarnessError(f"no suite in {suites_dir}/ has an export {reports_dir}/<suite>/{EXPORT_NAME}",
                               hint="Run from the repository root, or pass --store.")
        return [SuiteSource(f, _export(reports_dir, f)) for f in files]
    sources = []
    for name in names:
        suite_file = find_suite_file(suites_dir, name)
        export = _export(reports_dir, suite_file)
        if not export.is_file():
            raise HarnessError(f"suite '{name}' has no export {export}", field="SUITE",
                               hint="Pass --store to read its runs from a results database.")
        sources.append(SuiteSource(suite_file, export))
    return sources


def stored_sources(suites_dir: Path, store_path: Path, names: list[str]) -> list[SuiteSource]:
    """The named suites (default: every suite file whose runs the store holds), read from the store."""
    if names:
        return [SuiteSource(find_suite_file(suites_dir, name), None) for name in names]
    with Store(store_path, read_only=True) as store:  # a missing store is a StoreError here, exit 3
        files = [f for f in _suite_files(suites_dir)
                 if next(store.records(suite=load_suite(f)[0].suite), None) is not None]
    if not files:
        raise HarnessError(f"the store {store_path} holds no runs of any suite in {suites_dir}/",
                           hint="Name the suite files to show, or run one first: harness run SUITE")
    return [SuiteSource(f, None) for f in files]


def find_suite_file(suites_dir: Path, name: str) -> Path:
    """A suite file given by path, or by name in `suites_dir`; an unknown one is a `HarnessError` naming the known."""
    path = Path(name) if name.endswith((".yaml", ".yml")) else suites_dir / f"{name}.yaml"
    if path.is_file():
        return path
    known = [f.stem for f in _suite_files(suites_dir)]
    close = difflib.get_close_matches(path.stem, known, n=3, cutoff=0.6)
    hint = (f"Did you mean {' or '.join(repr(c) for c in close)}?" if close
            else f"Suites in {suites_dir}/: {', '.join(known) or 'none'}.")
    raise HarnessError(f"unknown suite '{name}': no file {path}", field="SUITE", hint=hint)


def load_reports(sources: list[SuiteSource], store_path: Path, root: Path | None) -> list[ReportData]:
    """Each source's report model, as `harness report` builds it (sources without an export read `store_path`);
    two files naming one suite are a mistake."""
    reports: dict[str, ReportData] = {}
    for source in sources:
        data = load_report(source.suite_file, store_path, root, runs_file=source.runs_file)
        if data.suite.suite in reports:
            raise HarnessError(f"two suite files name the suite '{data.suite.suite}' (one is {source.suite_file})",
                               field="SUITE", hint="Name only one of them.")
        reports[data.suite.suite] = data
    return list(reports.values())


def _suite_files(suites_dir: Path) -> list[Path]:
    return sorted(suites_dir.glob("*.yaml"))


def _export(reports_dir: Path, suite_file: Path) -> Path:
    return reports_dir / suite_file.stem / EXPORT_NAME
