"""Leases on runs, so that coordinators sharing one store never execute a run twice.

A coordinator claims a run in the store before it executes it: one IMMEDIATE transaction
checks that no live peer holds the run and that no peer stored it since this coordinator
planned, then writes the lease (run key, owner, run id, expiry). A heartbeat thread renews
the owner's leases; a coordinator that dies stops renewing, and its runs are free again
once its leases expire, or at once when it ran on this machine and its process is gone.
N coordinators (CI jobs, terminals) on one store therefore share its runs.
"""
from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

LEASE_S = 60.0  # a dead coordinator on another machine holds its runs this long; renewed every quarter of it

SCHEMA = """
CREATE TABLE IF NOT EXISTS claims (
    run_key    TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    machine    TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    run_id     TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Claimant:
    """A coordinator: a token of its own, and where its pid can be checked (`machine`, '' if unknown)."""

    owner: str
    machine: str
    pid: int

    @classmethod
    def this_process(cls) -> "Claimant":
        return cls(uuid.uuid4().hex, machine_id(), os.getpid())


def machine_id() -> str:
    """The kernel boot and PID namespace of this process: where a peer's pid means the same process.

    Containers on one host share a boot id but not a PID namespace, so both are needed; where
    /proc is absent, '' says a peer's liveness is unknown and only its lease's expiry frees its runs.
    """
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@dataclass
class ClaimRound:
    """One claiming pass over the runs a coordinator still needs."""

    claimed: list[str] = field(default_factory=list)   # now leased to us
    held: list[str] = field(default_factory=list)      # leased to a live peer
    done: list[str] = field(default_factory=list)      # stored by a peer since we planned


class RunClaims:
    """The claims of one coordinator in one store (`db`, the store's connection)."""

    def __init__(self, db: sqlite3.Connection, claimant: Claimant, lease_s: float = LEASE_S,
                 clock: Callable[[], float] = time.time) -> None:
        self._db, self.claimant, self.lease_s, self._clock = db, claimant, lease_s, clock

    def claim(self, runs: Iterable[tuple[str, str]], seen: dict[str, str | None], limit: int) -> ClaimRound:
        """Lease up to `limit` of `runs` ((run key, run id) pairs, in order) in one transaction; the runs
        after the `limit`-th claimed one are left for the next call.

        `seen` maps each run key to the run id stored when this coordinator planned (None: none);
        a different one now means a peer executed the run meanwhile, so it is `done`, not ours to run.
        """
        result = ClaimRound()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._expire()
            for run_key, run_id in runs:
                if len(result.claimed) == limit:
                    break
                stored = self._db.execute("SELECT run_id FROM runs WHERE run_key = ?", (run_key,)).fetchone()
                if (stored and stored[0]) != seen.get(run_key):
                    result.done.append(run_key)
                elif self._holder(run_key) not in (None, self.claimant.owner):
                    result.held.append(run_key)
                else:
                    c = self.claimant
                    self._db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?)",
                                     (run_key, c.owner, c.machine, c.pid, run_id, self._clock() + self.lease_s))
                    result.claimed.append(run_key)
        return result

    def release(self, run_keys: Iterable[str] | None = None) -> None:
        """Drop our leases on `run_keys` (stored, or given up), or all of ours."""
        with self._db:
            if run_keys is None:
                self._db.execute("DELETE FROM claims WHERE owner = ?", (self.claimant.owner,))
            else:
                self._db.executemany("DELETE FROM claims WHERE run_key = ? AND owner = ?",
                                     [(key, self.claimant.owner) for key in run_keys])

    def renew(self) -> None:
        with self._db:
            self._db.execute("UPDATE claims SET expires_at = ? WHERE owner = ?",
                             (self._clock() + self.lease_s, self.claimant.owner))

    def _holder(self, run_key: str) -> str | None:
        row = self._db.execute("SELECT owner FROM claims WHERE run_key = ?", (run_key,)).fetchone()
        return row and row[0]

    def _expire(self) -> None:
        """Free the runs of coordinators whose lease ran out or whose process on this machine is gone."""
        self._db.execute("DELETE FROM claims WHERE expires_at < ?", (self._clock(),))
        if not self.claimant.machine:
            return
        peers = self._db.execute("SELECT DISTINCT owner, pid FROM claims WHERE machine = ? AND owner != ?",
                                 (self.claimant.machine, self.claimant.owner)).fetchall()
        dead = [(owner,) for owner, pid in peers if not _alive(pid)]
        self._db.executemany("DELETE FROM claims WHERE owner = ?", dead)


@contextmanager
def heartbeat(store: Path, claimant: Claimant, lease_s: float = LEASE_S) -> Iterator[None]:
    """Renew `claimant`'s leases every quarter lease from a thread with its own connection, while the
    coordinator waits on its workers (a run may take hours without an event)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease_s / 4):
            try:
                with closing(sqlite3.connect(store, timeout=lease_s / 4, isolation_level=None)) as db:
                    RunClaims(db, claimant, lease_s).renew()
            except sqlite3.Error:
                pass  # busy or damaged: the next beat tries again, the coordinator meets real damage itself

    thread = threading.Thread(target=beat, name="harness-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
