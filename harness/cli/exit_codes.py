"""What `harness` exits with, as scripts and CI read it.

0 success, 1 a regression (`compare`, `ci`), 2 some runs failed, 3 bad input (`harness.errors.USER_ERROR_EXIT`),
74 stdout or stderr could not be written (a full disk, a closed stream; sysexits' EX_IOERR), 130 interrupted
(Ctrl-C, or SIGTERM, which takes the same path: `harness.entry_point`), 141 the reader of the output went away
(`harness plan ... | head`), as for any Unix tool.
"""
from __future__ import annotations

import signal

RUNS_FAILED_EXIT = 2
STREAM_FAILED_EXIT = 74
INTERRUPTED_EXIT = 128 + signal.SIGINT
BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE
RESUME_HINT = "interrupted: finished runs are stored; run the same command again to resume"
