"""Pre-registered claims: the claims a suite states when its first run is stored are registered in the store;
one added or edited afterwards is post hoc in the report (every format, from the store or from its export) and
in `harness validate`; where no registration exists, a claim's registration is unknown, never assumed."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harness.claim_registry import POST_HOC, PRE_REGISTERED, REGISTRATION_FILE, UNKNOWN, claim_hashes
from harness.reporting.load import load_report
from harness.store import Store
from harness.suite import load_suite
from tests.conftest import TOY_SUITE

SUITE = TOY_SUITE + """\
claims:
  - {text: "low beats high", check: {metric: accuracy, better: "thr[t=0.0]", than: "thr[t=0.5]"}}
  - {text: "low is best", check: {metric: accuracy, best: "thr[t=0.0]"}}
"""
ANOTHER_SEED = ("seeds: [0, 1]", "seeds: [0, 1, 2]")


def _run(cli, suite: Path, store: Path) -> None:
    code, _, err = cli("run", str(suite), "--store", str(store), "--executor", "inline")
    assert code in (0, 2), err


def _standings(suite: Path, store: Path, **kwargs: object) -> dict[str, tuple[str, str]]:
    data = load_report(suite, store, root=suite.parent, **kwargs)  # type: ignore[arg-type]
    return {c.text: (c.registration.state, c.registration.note) for c in data.claims}


def _edit(path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


def test_claims_stated_when_the_first_run_is_stored_are_pre_registered(cli, write_suite, store):
    suite = write_suite(SUITE)
    _run(cli, suite, store)
    standings = _standings(suite, store)
    assert {state for state, _ in standings.values()} == {PRE_REGISTERED}
    with Store(store, read_only=True) as results:
        registration = results.claim_registration("toy")
        first = min(r["finished_at"] for r in results.records())
    assert registration is not None and registration.registered_at >= first  # stored with the first run
    assert registration.claims == {claim_hashes(c) for c in load_suite(suite)[0].claims}
    assert standings["low beats high"][1] == f"pre-registered on {registration.date}"


@pytest.mark.parametrize(("old", "new", "note"), [
    ("text: \"low beats high\"", "text: \"low clearly beats high\"", "added or reworded"),
    ("than: \"thr[t=0.5]\"}", "than: \"thr[t=0.5]\", dataset: easy}", "its check was edited"),
])
def test_a_claim_edited_after_results_were_stored_is_post_hoc(cli, write_suite, store, old, new, note):
    suite = write_suite(SUITE)
    _run(cli, suite, store)
    _edit(suite, old, new)
    _run(cli, _edit(suite, *ANOTHER_SEED), store)  # more runs stored later change nothing: the first stands
    standings = _standings(suite, store)
    (edited,) = [text for text, (state, _) in standings.items() if state == POST_HOC]
    with Store(store, read_only=True) as results:
        date = results.claim_registration("toy").date  # type: ignore[union-attr]
    assert standings[edited][1] == f"post hoc: {note} after results were stored on {date}"
    assert standings["low is best"][0] == PRE_REGISTERED


def test_a_claim_added_after_results_were_stored_is_post_hoc_in_report_and_validate(cli, write_suite, store):
    suite = write_suite(SUITE)
    _run(cli, suite, store)
    _edit(suite, "claims:\n", 'claims:\n  - {text: "high is best", check: {metric: accuracy, best: "thr[t=0.5]"}}\n')
    assert _standings(suite, store)["high is best"][0] == POST_HOC
    out = store.parent.parent / "report"
    assert cli("report", str(suite), "--store", str(store), "--out", str(out), "--format", "md,html")[0] == 0
    row = next(line for line in (out / "report.md").read_text().splitlines() if "high is best" in line)
    assert "| post hoc: added or reworded after results were stored on " in row
    page = (out / "leaderboard.html").read_text()
    assert 'data-registration="post hoc">post hoc: added or reworded' in page
    assert page.count('data-registration="pre-registered"') == 2
    code, _, err = cli("validate", str(suite), "--store", str(store))
    assert code == 0
    (warning,) = [line for line in err.splitlines() if "post hoc" in line]
    assert f"{suite}:11:" in warning and "claim 'high is best' is post hoc: added or reworded" in warning


def test_validate_warns_of_no_claim_where_every_one_is_pre_registered(cli, write_suite, store):
    suite = write_suite(SUITE)
    _run(cli, suite, store)
    code, _, err = cli("validate", str(suite), "--store", str(store))
    assert code == 0 and "post hoc" not in err and "registration" not in err


def _old_store(cli, suite: Path, store: Path) -> None:
    """A store as written before registrations were kept: its runs, no registration table."""
    _run(cli, suite, store)
    with sqlite3.connect(store) as db:
        db.execute("DROP TABLE claim_registrations")
    db.close()


def test_an_old_store_is_migrated_and_its_claims_registration_stays_unknown(cli, write_suite, store):
    suite = write_suite(SUITE)
    _old_store(cli, suite, store)
    before = _standings(suite, store)
    _run(cli, _edit(suite, *ANOTHER_SEED), store)  # opened for writing: the table is added, runs kept
    with Store(store, read_only=True) as results:
        assert results.count() == 6
        assert results.claim_registration("toy") is None  # its results predate the table: nothing to vouch for
    assert before == _standings(suite, store) == {"low beats high": (UNKNOWN, UNKNOWN),
                                                  "low is best": (UNKNOWN, UNKNOWN)}
    code, _, err = cli("validate", str(suite), "--store", str(store))
    assert code == 0 and "no registration of its claims" in err and "is post hoc" not in err


def test_a_read_only_store_without_the_table_is_read_and_never_written(cli, write_suite, store):
    suite = write_suite(SUITE)
    _old_store(cli, suite, store)
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA journal_mode=DELETE")  # no WAL file: every byte of the store is in the file
    db.close()
    before = store.read_bytes()
    out = store.parent.parent / "report"
    assert {s for s, _ in _standings(suite, store).values()} == {UNKNOWN}
    assert cli("report", str(suite), "--store", str(store), "--out", str(out), "--format", "md,csv")[0] == 0
    assert cli("validate", str(suite), "--store", str(store))[0] == 0
    assert store.read_bytes() == before
    assert not (out / REGISTRATION_FILE).exists()  # no registration: nothing beside runs.csv vouches for it
    assert "| registration unknown |" in (out / "report.md").read_text()


def test_a_suite_whose_runs_were_stored_by_another_suite_is_not_registered_later(cli, write_suite, store):
    """Runs are shared by run key: results existed before this suite's first own run, so its claims are unknown."""
    _run(cli, write_suite(SUITE.replace("suite: toy", "suite: first").split("claims:")[0], "first.yaml"), store)
    wider = write_suite(SUITE.replace("suite: toy", "suite: wider").replace(*ANOTHER_SEED), "wider.yaml")
    _run(cli, wider, store)
    assert {s for s, _ in _standings(wider, store).values()} == {UNKNOWN}


def test_an_export_carries_the_registration_and_a_later_edit_is_post_hoc_from_it(cli, write_suite, store, tmp_path):
    suite = write_suite(SUITE)
    _run(cli, suite, store)
    out = tmp_path / "report"
    assert cli("report", str(suite), "--store", str(store), "--out", str(out), "--format", "csv")[0] == 0
    kept = json.loads((out / REGISTRATION_FILE).read_text())
    with Store(store, read_only=True) as results:
        assert kept == results.claim_registration("toy").as_json()  # type: ignore[union-attr]
    runs = out / "runs.csv"
    assert _standings(suite, store, runs_file=runs) == _standings(suite, store)
    _edit(suite, "best: \"thr[t=0.0]\"}", "best: \"thr[t=0.0]\", dataset: easy}")
    assert _standings(suite, store, runs_file=runs)["low is best"][0] == POST_HOC
    (out / REGISTRATION_FILE).unlink()
    assert {s for s, _ in _standings(suite, store, runs_file=runs).values()} == {UNKNOWN}


def test_a_check_hashes_alike_however_its_yaml_is_written():
    """Key order, flow or block style and defaults spelt out do not change a check's hash; its values do."""
    from harness.suite import Claim

    plain = Claim.model_validate({"text": "t", "check": {"metric": "m", "better": "a", "than": "b"}})
    spelt = Claim.model_validate({"text": "t", "check": {"than": "b", "dataset": None, "better": "a", "metric": "m"}})
    other = Claim.model_validate({"text": "t", "check": {"metric": "m", "better": "b", "than": "a"}})
    assert claim_hashes(plain) == claim_hashes(spelt) != claim_hashes(other)
