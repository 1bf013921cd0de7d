"""Live progress of a suite: a rich bar on a terminal, plain lines elsewhere (CI logs)."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from harness.run_spec import RunSpec
from harness.record import RunRecord


class Progress:
    """Counts planned, running, done and failed runs and shows an ETA."""

    def __init__(self, total: int, skipped: int, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total, self.skipped = total, skipped
        self.running = self.done = self.failed = 0
        self._start = time.monotonic()
        self._live = self.stream.isatty() if live is None else live
        self._bar: Any = None
        if self._live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeRemainingColumn(), console=Console(file=self.stream), transient=False)
            self._task = self._bar.add_task(self._describe(), total=total)
            self._bar.start()
        else:
            self._line(f"{total} runs planned, {skipped} already stored")

    def started(self, spec: RunSpec) -> None:
        self.running += 1
        self._refresh()

    def finished(self, spec: RunSpec, record: RunRecord, elsewhere: bool = False) -> None:
        """A run this coordinator executed, or (`elsewhere`) one another coordinator on the store did."""
        self.running -= not elsewhere
        self.done += 1
        ok = record.status == "ok"
        self.failed += not ok
        wall = record.measurements.get("wall_s")
        took = f" in {wall.value:.1f}s" if wall is not None else ""
        run = f"{spec.method} on {spec.dataset.name} seed {spec.seed}"
        line = f"[{self.done}/{self.total}] {record.status:<7} {run}{took}"
        if elsewhere:
            line += " (by another coordinator)"
        if not ok:
            line += ": " + ((record.error or '').strip().splitlines() or [''])[-1]
        if self._live:
            self._bar.console.print(line, markup=False, highlight=False)
        else:
            self._line(line + f" (eta {self._eta()})")
        self._refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()

    def _describe(self) -> str:
        return f"running {self.running} · done {self.done} · failed {self.failed}"

    def _refresh(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, description=self._describe())

    def _eta(self) -> str:
        if self.done == 0:
            return "?"
        remaining = (time.monotonic() - self._start) / self.done * (self.total - self.done)
        return f"{remaining:.0f}s"

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
