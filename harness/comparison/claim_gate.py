"""Claims as a CI gate: a claim that the baseline's runs support must stay supported by the candidate's.

`harness ci --claims` checks the suite's claims (`harness.reporting.claims`, the verdicts the report prints,
derived curve metrics and aggregates included) twice, on the baseline and on the runs just made, and fails
when a claim the baseline supports is no longer supported. A claim the baseline does not support (a paper's
claim our runs contradict, say) is reported, never gated: the gate guards what was measured, not the paper.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.comparison.sources import git_show, side_kind
from harness.reporting.claims import SUPPORTED
from harness.reporting.load import load_report
from harness.reporting.model import ClaimResult

@dataclass(frozen=True)
class ClaimChange:
    text: str
    baseline: str  # the verdict on the baseline's runs
    candidate: str  # the verdict on the runs just made

    @property
    def lost(self) -> bool:
        return self.baseline == SUPPORTED and self.candidate != SUPPORTED


def claim_changes(suite_path: Path, baseline: str, store: Path, data_root: Path | None) -> list[ClaimChange]:
    """Each claim's verdict on the baseline (a store, an export, or REF:PATH) and on the store's runs."""
    candidate = load_report(suite_path, store, data_root).claims
    return [ClaimChange(base.text, base.verdict, cand.verdict)
            for base, cand in zip(_baseline_claims(suite_path, baseline, data_root), candidate, strict=True)]


def _baseline_claims(suite_path: Path, baseline: str, data_root: Path | None) -> tuple[ClaimResult, ...]:
    kind = side_kind(baseline)
    if kind == "git":  # REF:PATH, an export at a git commit
        ref, _, inner = baseline.partition(":")
        with tempfile.TemporaryDirectory(prefix="harness-claims-") as folder:
            export = Path(folder) / Path(inner).name
            export.write_bytes(git_show(ref, inner, Path.cwd()))
            return load_report(suite_path, export, data_root, runs_file=export).claims
    path = Path(baseline)
    return load_report(suite_path, path, data_root, runs_file=path if kind == "export" else None).claims


def render_claim_changes(changes: list[ClaimChange]) -> str:
    """One line per claim, then the gate's verdict line."""
    lines = ["claims (baseline -> candidate):"]
    for change in changes:
        mark = "LOST" if change.lost else "ok"
        lines.append(f"  [{mark}] {change.text}: {change.baseline} -> {change.candidate}")
    lost = sum(change.lost for change in changes)
    lines.append(f"{lost} of {len(changes)} claims lost their support" if lost else
                 f"no claim lost its support ({sum(c.candidate == SUPPORTED for c in changes)} of {len(changes)} "
                 "supported)")
    return "\n".join(lines) + "\n"
