"""What `harness` exits with, as scripts and CI read it.

0 success, 1 a regression (`compare`, `ci`), 2 some runs failed, 3 bad input (`harness.errors.USER_ERROR_EXIT`),
130 interrupted, 141 the reader of the output went away (`harness plan ... | head`), as for any Unix tool.
"""
from __future__ import annotations

import signal

RUNS_FAILED_EXIT = 2
INTERRUPTED_EXIT = 130
BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE
RESUME_HINT = "interrupted: finished runs are stored; run the same command again to resume"
