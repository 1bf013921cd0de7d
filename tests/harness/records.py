"""Run records for tests that need one without running a suite: the version-1 files in `fixtures/records_v1`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.record import RunRecord

V1_FILES = sorted((Path(__file__).parent / "fixtures" / "records_v1").glob("*.json"))
_OK_RUN = next(path for path in V1_FILES if path.name == "6d77fea70adcf8d4.a71e4fefbecb.json")


def record_json(**changes: Any) -> dict[str, Any]:
    """A finished ok run's record as the harness writes it, with `changes`."""
    return json.loads(_OK_RUN.read_text(encoding="utf-8")) | changes


def a_record(**changes: Any) -> RunRecord:
    return RunRecord.model_validate(record_json(**changes))
