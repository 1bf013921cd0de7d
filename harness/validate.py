"""`harness validate`: everything that can be checked without data files or running."""
from __future__ import annotations

from pathlib import Path

from harness.planner import check_split, method_variants
from harness.suite import load_suite


def validate_suite(path: str | Path) -> int:
    """Raise `SuiteError` at the first problem; return the number of method variants."""
    suite, source = load_suite(path)
    for name in suite.datasets:
        check_split(suite, source, name)
    return sum(1 for name, entry in suite.methods.items() for _ in method_variants(suite, source, name, entry))
