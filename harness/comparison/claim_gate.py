"""Claims as a CI gate: a claim that the baseline's runs support must stay supported by the candidate's.

`harness ci --claims` checks the suite's claims (`harness.reporting.claims`, the verdicts the report prints,
derived curve metrics and aggregates included) twice: on the baseline's own runs (by name, whatever their run
keys) and on the runs just made. It fails when a claim the baseline supports is no longer supported, and when a
claim *changed*: its check differs from the suite file the baseline was made with (the file at the baseline's git
ref, else at HEAD), or the runs behind it have other run keys (a parameter or a version changed). A changed claim
compares two different things; the baseline must be made again for it, never passed silently. A claim the
baseline does not support (a paper's claim our runs contradict, say) is reported, never gated: the gate guards
what was measured, not the paper.

On other numerics (another vector ISA or BLAS: the same run key trains another model) a claim's verdict is a draw
of its seeds, and one the baseline supported narrowly may miss alpha on a re-run with nothing wrong. There, as
`harness compare` does for a cell, a claim that is no longer supported (but not contradicted) fails only when its
mean per-seed gain falls below the baseline's by more than the baseline's seed spread (99.9 %,
`harness.comparison.classify.seed_spread`) on some dataset; otherwise it passes with a note saying so.
"""
from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any


from harness.comparison.classify import seed_spread
from harness.comparison.errors import ComparisonError
from harness.comparison.sources import git_show, side_kind
from harness.contracts import Determinism
from harness.record_json import RecordJson
from harness.suite_extends import suite_document
from harness.reporting.claim_sides import CONTRADICTED, SUPPORTED
from harness.reporting.claims import claim_differences
from harness.reporting.load import load_report
from harness.reporting.model import ClaimResult, ReportData
from harness.suite import ClaimCheck


@dataclass(frozen=True)
class ClaimChange:
    text: str
    baseline: str  # the verdict on the baseline's runs
    candidate: str  # the verdict on the runs just made
    changed: str = ""  # why the two verdicts judge different things, if they do
    within_spread: str = ""  # on other numerics: why a claim no longer supported still passes, if it does

    @property
    def lost(self) -> bool:
        return (not self.changed and not self.within_spread and self.baseline == SUPPORTED
                and self.candidate != SUPPORTED)

    @property
    def fails(self) -> bool:
        return self.lost or bool(self.changed)


def claim_changes(suite_path: Path, baseline: str, store: Path, data_root: Path | None) -> list[ClaimChange]:
    """Each claim's verdict on the baseline (a store, an export, or REF:PATH) and on the store's runs."""
    candidate = load_report(suite_path, store, data_root)
    base = _baseline_report(suite_path, baseline, data_root)
    checks = _baseline_checks(suite_path, baseline)
    current = _claim_checks(suite_document(suite_path.read_text(encoding="utf-8"),
                                           lambda name: (suite_path.parent / name).read_text(encoding="utf-8")))
    changes = []
    for claim, old, cand in zip(candidate.suite.claims, base.claims, candidate.claims, strict=True):
        changed = _why_changed(cand.text, checks, current, _run_keys(base, old), _run_keys(candidate, cand))
        missed = not changed and old.verdict == SUPPORTED and cand.verdict not in (SUPPORTED, CONTRADICTED)
        within = _within_seed_spread(claim.check, base, old, candidate, cand) if missed else ""
        changes.append(ClaimChange(cand.text, old.verdict, cand.verdict, changed, within))
    return changes


def _baseline_report(suite_path: Path, baseline: str, data_root: Path | None) -> ReportData:
    kind = side_kind(baseline)
    if kind == "git":  # REF:PATH, an export at a git commit
        ref, _, inner = baseline.partition(":")
        with tempfile.TemporaryDirectory(prefix="harness-claims-") as folder:
            export = Path(folder) / Path(inner).name
            export.write_bytes(git_show(ref, inner, Path.cwd()))
            return load_report(suite_path, export, data_root, runs_file=export, by_name=True)
    path = Path(baseline)
    return load_report(suite_path, path, data_root, runs_file=path if kind == "export" else None, by_name=True)


def _baseline_checks(suite_path: Path, baseline: str) -> dict[str, Any] | None:
    """Claim text -> check of the suite file as of the baseline: at its git ref, else as committed at HEAD; None
    where git has no such file (a suite outside a repository)."""
    ref = baseline.partition(":")[0] if side_kind(baseline) == "git" else "HEAD"
    folder = suite_path.resolve().parent
    try:
        inside = Path(subprocess.run(["git", "ls-files", "--full-name", "--error-unmatch", suite_path.name],
                                     cwd=folder, capture_output=True, text=True, check=True).stdout.strip())
        return _claim_checks(suite_document(git_show(ref, str(inside), folder).decode(),
                                            lambda name: git_show(ref, str(inside.parent / name), folder).decode()))
    except (subprocess.CalledProcessError, OSError, ComparisonError):
        return None


def _claim_checks(document: Any) -> dict[str, Any]:
    claims = document.get("claims", []) if isinstance(document, dict) else []
    return {str(claim.get("text")): claim.get("check") for claim in claims if isinstance(claim, dict)}


def _behind(data: ReportData, claim: ClaimResult) -> list[RecordJson]:
    """The stored runs `claim`'s verdict was decided on."""
    run_ids = set(claim.run_ids)
    return [r for r in data.records if r["run_id"] in run_ids]


def _run_keys(data: ReportData, claim: ClaimResult) -> set[str]:
    return {r["run_key"] for r in _behind(data, claim)}


def _within_seed_spread(check: ClaimCheck, base: ReportData, old: ClaimResult, candidate: ReportData,
                        cand: ClaimResult) -> str:
    """The note that excuses a claim no longer supported, or '' when none does: the two sides' runs share one
    numerics fingerprint (or repeat bitwise everywhere), no rank test decides the claim, or on some dataset the
    candidate's mean gain falls below the baseline's by more than the baseline's seed spread."""
    base_runs, cand_runs = _behind(base, old), _behind(candidate, cand)
    base_machines, cand_machines = _machines(base_runs), _machines(cand_runs)
    bitwise = all(r["environment"].get("determinism") == Determinism.EVERYWHERE for r in base_runs + cand_runs)
    if len(base_machines | cand_machines) == 1 or bitwise:
        return ""
    base_gains, cand_gains = claim_differences(base, check), claim_differences(candidate, check)
    notes = []
    for dataset, gains in base_gains.items():
        now = cand_gains.get(dataset, [])
        if len(gains) < 2 or not now:
            return ""
        spread = seed_spread(gains, len(now))
        if fmean(now) < fmean(gains) - spread:
            return ""
        notes.append(f"{dataset}: mean gain {fmean(now):+.3g}, the baseline's {fmean(gains):+.3g} ± {spread:.3g}")
    if not notes:
        return ""
    return (f"other numerics ({'+'.join(sorted(base_machines))} vs {'+'.join(sorted(cand_machines))}): its gain "
            f"stays within the baseline's seed spread (99.9 %), {'; '.join(notes)}")


def _machines(runs: list[RecordJson]) -> set[str]:
    """The runs' numerics fingerprints (the hardware one for a run recorded before numerics were)."""
    return {r["environment"].get("numerics_fingerprint") or f"hardware {r['environment'].get('hardware_fingerprint')}"
            for r in runs}


def _why_changed(text: str, baseline_checks: dict[str, Any] | None, current: dict[str, Any], base_keys: set[str],
                 cand_keys: set[str]) -> str:
    if baseline_checks is not None and text in baseline_checks and baseline_checks[text] != current.get(text):
        return "its check differs from the baseline's suite file"
    if base_keys and cand_keys and base_keys != cand_keys:
        return (f"{len(cand_keys - base_keys)} of its {len(cand_keys)} runs have run keys the baseline lacks (a "
                "parameter or a version changed): make the baseline again")
    return ""


def render_claim_changes(changes: list[ClaimChange]) -> str:
    """One line per claim, then the gate's verdict line."""
    lines = ["claims (baseline -> candidate):"]
    for change in changes:
        mark = "CHANGED" if change.changed else "LOST" if change.lost else "ok"
        note = f" ({change.changed or change.within_spread})" if change.changed or change.within_spread else ""
        lines.append(f"  [{mark}] {change.text}: {change.baseline} -> {change.candidate}{note}")
    lost, changed = sum(change.lost for change in changes), sum(bool(change.changed) for change in changes)
    if lost or changed:
        lines.append(f"{lost} of {len(changes)} claims lost their support, {changed} changed")
    else:
        lines.append(f"no claim lost its support ({sum(c.candidate == SUPPORTED for c in changes)} of "
                     f"{len(changes)} supported)")
    return "\n".join(lines) + "\n"
