"""Pre-registered claims: a suite's claims as they stood before any of its results existed.

The first time a run of a suite is stored in a store that held no result of it, the hashes of its claims' texts and
checks are registered in the store (`claim_registrations`, one row per suite, never rewritten). A claim whose text
and check hash as registered is *pre-registered*; one added, reworded or re-checked since is *post hoc*: it was
stated after results could be seen. Where no registration exists (runs stored before registrations were kept, a
store opened read-only that never had the table, an export without its `claims_registered.json`) a claim's
registration is *unknown*, never assumed.

Registration is relative to the store: a claim is pre-registered before the first result *in this store*. A report
rendered from an export reads the registration from `claims_registered.json` beside its `runs.csv`, which
`harness report` writes from the store's.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.suite import Claim, Suite

SCHEMA = """
CREATE TABLE IF NOT EXISTS claim_registrations (
    suite         TEXT PRIMARY KEY,
    registered_at TEXT NOT NULL,
    claims        TEXT NOT NULL
);
"""
REGISTRATION_FILE = "claims_registered.json"  # beside a report's runs.csv
PRE_REGISTERED, POST_HOC, UNKNOWN = "pre-registered", "post hoc", "registration unknown"
REGISTRATION_NOTE = ("pre-registered: its text and check were recorded when the suite's first run was stored; "
                     "post hoc: added or edited after results were stored; registration unknown: no such record "
                     f"(runs stored before records were kept, or an export without {REGISTRATION_FILE})")


@dataclass(frozen=True)
class ClaimRegistration:
    """A suite's claims when its first run was stored: (text sha256, check sha256) pairs, and when."""

    suite: str
    registered_at: str  # ISO 8601 UTC, the time the suite's first run was stored
    claims: frozenset[tuple[str, str]]

    @property
    def date(self) -> str:
        return self.registered_at[:10]

    def as_json(self) -> dict[str, object]:
        """The form kept in the store's row and in `claims_registered.json`: sorted, so equal registrations
        serialise alike."""
        return {"suite": self.suite, "registered_at": self.registered_at,
                "claims": [{"text_sha256": text, "check_sha256": check} for text, check in sorted(self.claims)]}


@dataclass(frozen=True)
class ClaimStanding:
    """Whether a claim was stated before its suite's results: `state` is PRE_REGISTERED, POST_HOC or UNKNOWN,
    `note` the words a report prints, `registration` the suite's (None: unknown)."""

    state: str = UNKNOWN
    note: str = UNKNOWN
    registration: ClaimRegistration | None = None


def claim_hashes(claim: "Claim") -> tuple[str, str]:
    """sha256 of the claim's text, and of its check as canonical JSON (sorted keys, no spaces, values left at
    their defaults omitted, so a field the harness adds later does not make every claim post hoc)."""
    check = json.dumps(claim.check.model_dump(mode="json", exclude_defaults=True), sort_keys=True,
                       separators=(",", ":"), ensure_ascii=False)
    return _sha256(claim.text), _sha256(check)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def registration_of(suite: "Suite", registered_at: str) -> ClaimRegistration:
    """The registration of `suite`'s claims as they stand now, dated `registered_at`."""
    return ClaimRegistration(suite.suite, registered_at, frozenset(claim_hashes(c) for c in suite.claims))


def standing(claim: "Claim", registration: ClaimRegistration | None) -> ClaimStanding:
    """`claim` judged against its suite's registration: pre-registered, post hoc (saying what changed), or unknown."""
    if registration is None:
        return ClaimStanding()
    text, check = claim_hashes(claim)
    when = f"after results were stored on {registration.date}"
    if (text, check) in registration.claims:
        return ClaimStanding(PRE_REGISTERED, f"pre-registered on {registration.date}", registration)
    if text in {t for t, _ in registration.claims}:
        return ClaimStanding(POST_HOC, f"post hoc: its check was edited {when}", registration)
    return ClaimStanding(POST_HOC, f"post hoc: added or reworded {when}", registration)


def suite_standings(suite: "Suite", registration: ClaimRegistration | None) -> list[ClaimStanding]:
    """Each of `suite`'s claims' standing, in the suite's order."""
    return [standing(claim, registration) for claim in suite.claims]


# --- the store's table (the connection is the store's: `harness.store.Store`) ---

def read_registration(db: sqlite3.Connection, suite: str) -> ClaimRegistration | None:
    """`suite`'s registration in the store, or None; a store without the table (opened read-only, written before
    registrations were kept) has none, and is not written to."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='claim_registrations'").fetchone():
        return None
    row = db.execute("SELECT registered_at, claims FROM claim_registrations WHERE suite = ?", (suite,)).fetchone()
    return None if row is None else ClaimRegistration(suite, row[0], _pairs(json.loads(row[1])))


def insert_registration(db: sqlite3.Connection, registration: ClaimRegistration) -> None:
    """Keep `registration` unless the suite has one already: the first one stands, whoever wrote it."""
    pairs = json.dumps(registration.as_json()["claims"], separators=(",", ":"))
    with db:
        db.execute("INSERT OR IGNORE INTO claim_registrations VALUES (?, ?, ?)",
                   (registration.suite, registration.registered_at, pairs))


def _pairs(claims: object) -> frozenset[tuple[str, str]]:
    if not isinstance(claims, list):
        raise ValueError("'claims' is not a list")
    return frozenset((str(c["text_sha256"]), str(c["check_sha256"])) for c in claims)


# --- the export's file ---

def write_registration_file(folder: Path, registration: ClaimRegistration | None) -> Path | None:
    """`claims_registered.json` in `folder` (beside a runs.csv); where the registration is unknown, a file left
    from an earlier report is removed, so it never vouches for runs it did not come with."""
    path = folder / REGISTRATION_FILE
    if registration is None:
        path.unlink(missing_ok=True)
        return None
    path.write_text(json.dumps(registration.as_json(), indent=1) + "\n", encoding="utf-8")
    return path


def read_registration_file(runs_file: Path, suite: str) -> ClaimRegistration | None:
    """The registration kept beside an export `runs_file`, if it has one for `suite`."""
    path = runs_file.with_name(REGISTRATION_FILE)
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("suite") != suite:
            return None
        return ClaimRegistration(suite, str(document["registered_at"]), _pairs(document["claims"]))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise HarnessError(f"not a claims registration ({exc})", file=path,
                           hint="Render the report again from its store, or delete the file: its claims' "
                                "registration is then unknown.") from None
