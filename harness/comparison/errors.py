"""The user mistake of `harness compare` and `harness ci`: a side that cannot be read or judged."""
from __future__ import annotations

from harness.errors import HarnessError


class ComparisonError(HarnessError):
    """A results file, git ref, rule or metric of a comparison is unusable (exit code 3)."""
