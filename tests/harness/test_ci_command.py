"""`harness ci`: run a suite (resuming), compare it with a baseline export, exit as `compare` does."""
from __future__ import annotations

import subprocess

import pandas as pd

from tests.conftest import TOY_SUITE

GATED_SUITE = TOY_SUITE + "regression: {rules: [{metric: accuracy, max_drop: 2.0}]}\n"


def make_baseline(cli, suite: str, store, tmp_path) -> str:
    """Run the suite once and export its runs, as a project does to commit a baseline."""
    assert cli("run", suite, "--store", str(store))[0] == 0
    baseline = tmp_path / "baseline.csv"
    assert cli("export", "--store", str(store), "--suite", "toy", "--out", str(baseline))[0] == 0
    return str(baseline)


def test_ci_on_an_unchanged_suite_passes(cli, write_suite, store, tmp_path):
    suite = str(write_suite(GATED_SUITE))
    baseline = make_baseline(cli, suite, store, tmp_path)
    fresh = tmp_path / "ci" / "results.sqlite"
    code, out, _ = cli("ci", suite, "--baseline", baseline, "--store", str(fresh), "--format", "md",
                       "--out", str(tmp_path / "compare.md"))
    assert code == 0, out
    assert "4 runs executed (0 failed)" in out
    assert "2 unchanged -> exit 0" in (tmp_path / "compare.md").read_text()


def test_ci_fails_when_the_baseline_was_better(cli, write_suite, store, tmp_path):
    suite = str(write_suite(GATED_SUITE))
    baseline = make_baseline(cli, suite, store, tmp_path)
    frame = pd.read_csv(baseline)
    frame.loc[frame["method"] == "thr[t=0.5]", "metric.accuracy"] += 20.0
    frame.to_csv(baseline, index=False)
    code, out, _ = cli("ci", suite, "--baseline", baseline, "--store", str(store))
    assert code == 1
    assert "0 runs executed" in out  # resumed: the stored runs are the candidate
    assert "1 regressed, 1 unchanged -> exit 1" in out


def test_ci_with_a_missing_baseline_fails_before_running(cli, write_suite, store, tmp_path):
    code, _, err = cli("ci", str(write_suite(GATED_SUITE)), "--baseline", str(tmp_path / "none.csv"),
                       "--store", str(store))
    assert code == 3 and "does not exist" in err
    assert not store.exists()


CLAIMED_SUITE = TOY_SUITE.replace("seeds: [0, 1]", "seeds: [0, 1, 2, 3, 4, 5]").replace(
    "  thr: {impl: threshold, params: {t: [0.0, 0.5]}}\n",
    "  exact: {impl: threshold}\n  noisy: {impl: threshold, params: {noise: 2.0}}\n",
) + 'claims:\n  - {text: "noisy beats exact", check: {metric: accuracy, better: noisy, than: exact}}\n'


def test_ci_claims_gate_fails_when_a_claim_the_baseline_supports_loses_its_support(cli, write_suite, store,
                                                                                     tmp_path):
    suite = str(write_suite(CLAIMED_SUITE))
    baseline = make_baseline(cli, suite, store, tmp_path)
    frame = pd.read_csv(baseline)
    frame.loc[frame["method"] == "noisy", "metric.accuracy"] += 60.0  # a baseline where noisy won, every seed
    frame.to_csv(baseline, index=False)
    code, out, _ = cli("ci", suite, "--baseline", baseline, "--store", str(store), "--claims")
    assert code == 1
    assert "[LOST] noisy beats exact: supported -> contradicted" in out
    assert "1 of 1 claims lost their support, 0 changed" in out


def test_ci_claims_gate_passes_a_claim_the_baseline_never_supported(cli, write_suite, store, tmp_path):
    suite = str(write_suite(CLAIMED_SUITE))
    baseline = make_baseline(cli, suite, store, tmp_path)
    code, out, _ = cli("ci", suite, "--baseline", baseline, "--store", str(store), "--claims")
    assert code == 0, out
    assert "[ok] noisy beats exact: contradicted -> contradicted" in out
    assert "no claim lost its support (0 of 1 supported)" in out


def test_ci_claims_after_a_parameter_change_judges_the_baseline_on_its_own_runs_and_reports_the_claim_changed(
        cli, write_suite, store, tmp_path):
    """The baseline's runs were made with noise 2.0: its claim is judged on them (not 'not measurable' for want
    of the new run keys), and the claim is reported changed, failing the gate, since the two sides measure
    different things."""
    baseline = make_baseline(cli, str(write_suite(CLAIMED_SUITE)), store, tmp_path)
    changed = str(write_suite(CLAIMED_SUITE.replace("noise: 2.0", "noise: 3.0"), name="changed.yaml"))
    code, out, _ = cli("ci", changed, "--baseline", baseline, "--store", str(tmp_path / "fresh.sqlite"), "--claims")
    assert code == 1, out
    assert "[CHANGED] noisy beats exact: contradicted -> contradicted (6 of its 12 runs have run keys the " in out
    assert "0 of 1 claims lost their support, 1 changed" in out


def test_ci_claims_fails_on_a_claim_whose_check_differs_from_the_suite_file_the_baseline_was_made_with(
        cli, write_suite, store, tmp_path):
    """The suite is committed with the baseline; its claim's check is then edited (here narrowed to one dataset,
    the same runs): the claim is reported changed, since the baseline's verdict was for the old check."""
    suite = write_suite(CLAIMED_SUITE)
    baseline = make_baseline(cli, str(suite), store, tmp_path)
    git = ["git", "-c", "user.email=ci@example.invalid", "-c", "user.name=ci"]
    for command in (["init", "-q"], ["add", suite.name], ["commit", "-qm", "baseline"]):
        subprocess.run([*git, *command], cwd=tmp_path, check=True, capture_output=True)
    suite.write_text(suite.read_text().replace("than: exact}", "than: exact, dataset: easy}"))
    code, out, _ = cli("ci", str(suite), "--baseline", baseline, "--store", str(store), "--claims")
    assert code == 1, out
    assert "[CHANGED] noisy beats exact: contradicted -> contradicted (its check differs from the baseline's suite " \
           "file)" in out


TIED_SUITE = CLAIMED_SUITE.replace("noise: 2.0}", "t: 1.0e-9}")  # 'noisy' now ties 'exact' on every seed


def _baseline_with_gains(cli, write_suite, store, tmp_path, gains: list[float], numerics: str | None) -> str:
    """A baseline export of TIED_SUITE in which 'noisy' beat 'exact' by `gains` (one per seed), made on another
    machine whose numerics fingerprint is `numerics` (None: on this machine, as the runs were)."""
    baseline = make_baseline(cli, str(write_suite(TIED_SUITE)), store, tmp_path)
    frame = pd.read_csv(baseline)
    noisy = (frame["method"] == "noisy").to_numpy()
    frame.loc[noisy, "metric.accuracy"] += [gains[seed] for seed in frame.loc[noisy, "seed"]]
    if numerics is not None:
        frame["numerics_fingerprint"] = frame["hardware_fingerprint"] = numerics
    frame.to_csv(baseline, index=False)
    return baseline


def test_ci_claims_on_other_numerics_pass_a_claim_missed_within_the_baselines_seed_spread(cli, write_suite, store,
                                                                                          tmp_path):
    """A narrow baseline win (gains 1..6 points, spread ±7.4 at 99.9 %) re-run on another machine's numerics
    ties: not significant there, but a seed draw that far from the baseline is expected, so the gate says so
    and passes."""
    baseline = _baseline_with_gains(cli, write_suite, store, tmp_path, [1, 2, 3, 4, 5, 6], "0123456789ab")
    code, out, _ = cli("ci", str(tmp_path / "suite.yaml"), "--baseline", baseline, "--store", str(store),
                       "--claims")
    assert code == 0, out
    assert "[ok] noisy beats exact: supported -> not significant (other numerics (0123456789ab vs " in out
    assert "its gain stays within the baseline's seed spread (99.9 %), easy: mean gain +0, the baseline's +3.5 ± " \
           "7.42)" in out


def test_ci_claims_on_other_numerics_fail_a_claim_whose_gain_falls_beyond_the_baselines_seed_spread(
        cli, write_suite, store, tmp_path):
    baseline = _baseline_with_gains(cli, write_suite, store, tmp_path, [20, 20.5, 21, 21.5, 22, 22.5],
                                    "0123456789ab")
    code, out, _ = cli("ci", str(tmp_path / "suite.yaml"), "--baseline", baseline, "--store", str(store),
                       "--claims")
    assert code == 1, out
    assert "[LOST] noisy beats exact: supported -> not significant\n" in out


def test_ci_claims_on_the_same_numerics_fail_any_claim_that_lost_its_support(cli, write_suite, store, tmp_path):
    """On the baseline's own numerics the runs repeat bitwise: a verdict that moved is a change, however narrow."""
    baseline = _baseline_with_gains(cli, write_suite, store, tmp_path, [1, 2, 3, 4, 5, 6], None)
    code, out, _ = cli("ci", str(tmp_path / "suite.yaml"), "--baseline", baseline, "--store", str(store),
                       "--claims")
    assert code == 1, out
    assert "[LOST] noisy beats exact: supported -> not significant\n" in out
