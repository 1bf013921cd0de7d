"""Task outcomes and the metrics under both success rules: the released RePO evaluate.py's (valid and every
property strictly improved; similarity reported apart, averaged over valid answers) and the constrained one
(also similarity >= delta)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.metrics import (mean_gain, similarity, sr_constrained, sr_released,  # noqa: E402
                                          sr_x_sim_constrained, sr_x_sim_released, validity)
from methods.molecule_opt.objectives import OptTask, parse_objectives  # noqa: E402
from methods.molecule_opt.reward import reward  # noqa: E402
from methods.molecule_opt.scored import scored_answers, task_outcome  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"
CARBON_TETRACHLORIDE = "ClC(Cl)(Cl)Cl"  # Crippen logP 2.55 > aspirin's 1.31; no Morgan environment in common


def _task(objective: str, delta: float = 0.4, name: str = "t") -> OptTask:
    return OptTask(name, ASPIRIN, parse_objectives(objective), delta)


def test_the_methyl_ester_raises_logp_at_two_thirds_similarity_but_not_qed():
    outcome = task_outcome(_task("logp+"), METHYL_ESTER)
    assert outcome.valid and outcome.similarity == pytest.approx(2 / 3) and outcome.improved and outcome.gain > 0
    assert outcome.constrained(0.4) and not outcome.constrained(0.7)  # too far from the source at delta 0.7
    assert not task_outcome(_task("qed+"), METHYL_ESTER).improved
    assert task_outcome(_task("logp+,qed-"), METHYL_ESTER).improved  # every objective improved
    assert not task_outcome(_task("logp+,qed+"), METHYL_ESTER).improved  # one of two is not


def test_copies_and_invalid_answers_never_succeed_and_invalid_ones_have_no_similarity():
    copy = task_outcome(_task("logp+"), ASPIRIN)
    assert (copy.improved, copy.gain, copy.similarity) == (False, 0.0, 1.0)
    invalid = task_outcome(_task("logp+"), "C1CC(")
    assert (invalid.valid, invalid.improved) == (False, False) and np.isnan(invalid.similarity)


def test_the_reward_pays_only_a_constrained_success_and_more_for_a_closer_one():
    assert reward(_task("logp+", 0.7), METHYL_ESTER) == 0.0 and reward(_task("logp+"), "xx") == 0.0
    assert reward(_task("logp+"), ASPIRIN) == 0.0  # an unchanged copy earns nothing
    assert reward(_task("logp+"), METHYL_ESTER) == pytest.approx(1 + 2 / 3)
    assert reward(_task("logp+", 0.0), CARBON_TETRACHLORIDE) == 1.0  # improved at similarity 0


def test_both_success_rules_on_a_fixture_computed_by_hand_from_the_released_evaluate_py():
    """Four logP+ tasks on aspirin at delta 0.4, by evaluate.py's MolOpt branch: success += 1 when the answer is
    valid and its logP is above the source's; similarities appended for valid answers only; SR = successes / 4,
    Sim = mean of those similarities, WSR = Sim x SR (cal.py). Answers: the methyl ester (logP 1.40 > 1.31, Sim
    2/3), CCl4 (logP 2.55, Sim 0: no shared atom environment), aspirin itself (Sim 1, not improved), unparsable.
    Released: SR 2/4 = 50 %, Sim (2/3 + 0 + 1) / 3 = 5/9, SR x Sim 250/9 = 27.78. Constrained (Sim >= 0.4): only
    the methyl ester, SR 25 %, SR x Sim 125/9 = 13.89. Validity 3/4."""
    answers = [METHYL_ESTER, CARBON_TETRACHLORIDE, ASPIRIN, "C1CC("]
    truth = {f"t{i}": _task("logp+", name=f"t{i}") for i in range(4)}
    run = scored_answers(truth, pd.DataFrame({"task": list(truth), "smiles": answers}))
    assert sr_released(run) == 50.0 and sr_constrained(run) == 25.0 and validity(run) == 75.0
    assert similarity(run) == pytest.approx(5 / 9)
    assert sr_x_sim_released(run) == pytest.approx(250 / 9) and sr_x_sim_constrained(run) == pytest.approx(125 / 9)
    assert mean_gain(run) == pytest.approx(1.3985 - 1.3101, abs=1e-4)  # the constrained success's logP gain


def test_a_run_without_a_valid_answer_has_zero_similarity_and_success():
    run = scored_answers({"a": _task("qed+", name="a")}, pd.DataFrame({"task": ["a"], "smiles": ["(("]}))
    assert (similarity(run), sr_released(run), sr_x_sim_released(run), mean_gain(run)) == (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("text", ["qed", "qed*", "weight+", "qed+,qed-"])
def test_bad_objectives_are_data_errors(text):
    with pytest.raises(DataError):
        parse_objectives(text)
