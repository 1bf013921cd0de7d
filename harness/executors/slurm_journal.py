"""`slurm/submitted.json` in a suite's run folder: which cluster job runs which run key.

A coordinator writes it as it submits, so that after its own restart it re-attaches to
jobs still queued or running instead of submitting them a second time. Runs that finished
meanwhile need nothing from it: their record files are ingested by the runner first. (A job
that ends between that ingest and the look at its entry is submitted again; its second
record, finishing later, is the one kept.)
"""
from __future__ import annotations

import json
import os
from pathlib import Path


class SubmissionJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries = _read(path)

    def job_id(self, run_key: str, cluster: str) -> str | None:
        """The job last submitted for `run_key` on this kind of cluster (a local job's pid means
        nothing to Slurm, and the other way round)."""
        entry = self._entries.get(run_key)
        return entry["job_id"] if entry is not None and entry.get("cluster") == cluster else None

    def add(self, job_ids: dict[str, str], cluster: str) -> None:
        """Remember run key -> job id, written atomically (a temporary file renamed over the old)."""
        self._entries.update({key: {"cluster": cluster, "job_id": job_id} for key, job_id in job_ids.items()})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(self._entries, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)


def _read(path: Path) -> dict[str, dict[str, str]]:
    """The journal's entries; an unreadable journal only costs re-submissions, so it reads as empty."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return entries if isinstance(entries, dict) else {}
