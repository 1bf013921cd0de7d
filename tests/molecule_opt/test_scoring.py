"""Task outcomes and the metrics: success needs validity, every objective improved and similarity >= delta."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.metrics import mean_gain, similarity, sr_x_sim, success_rate, validity  # noqa: E402
from methods.molecule_opt.objectives import OptTask, parse_objectives  # noqa: E402
from methods.molecule_opt.reward import reward  # noqa: E402
from methods.molecule_opt.scored import scored_answers, task_outcome  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def _task(objective: str, delta: float = 0.4, name: str = "t") -> OptTask:
    return OptTask(name, ASPIRIN, parse_objectives(objective), delta)


def test_the_methyl_ester_raises_logp_at_two_thirds_similarity_but_not_qed():
    valid, sim, success, gain = task_outcome(_task("logp+"), METHYL_ESTER)
    assert valid and sim == pytest.approx(2 / 3) and success and gain > 0
    assert not task_outcome(_task("qed+"), METHYL_ESTER)[2]
    assert not task_outcome(_task("logp+", delta=0.7), METHYL_ESTER)[2]  # too far from the source
    assert task_outcome(_task("logp+,qed-"), METHYL_ESTER)[2]  # every objective improved


def test_copies_and_invalid_answers_never_succeed_and_invalid_ones_have_no_similarity():
    assert task_outcome(_task("logp+"), ASPIRIN)[2:] == (False, 0.0)
    valid, sim, success, _ = task_outcome(_task("logp+"), "C1CC(")
    assert (valid, success) == (False, False) and np.isnan(sim)


def test_the_reward_is_zero_below_delta_and_a_success_beats_a_copy():
    assert reward(_task("logp+", 0.7), METHYL_ESTER) == 0.0 and reward(_task("logp+"), "xx") == 0.0
    assert reward(_task("logp+"), METHYL_ESTER) == pytest.approx(1 + 2 / 3) and reward(_task("logp+"), ASPIRIN) == 1.0


def test_metrics_of_a_run_with_a_success_a_copy_and_an_invalid_answer():
    truth = {name: _task("logp+", name=name) for name in ("a", "b", "c")}
    run = scored_answers(truth, pd.DataFrame({"task": ["a", "b", "c"], "smiles": [METHYL_ESTER, ASPIRIN, "(("]}))
    assert success_rate(run) == pytest.approx(100 / 3) and validity(run) == pytest.approx(200 / 3)
    assert similarity(run) == pytest.approx((2 / 3 + 1) / 2)
    assert sr_x_sim(run) == pytest.approx(success_rate(run) * similarity(run)) and mean_gain(run) > 0


@pytest.mark.parametrize("text", ["qed", "qed*", "weight+", "qed+,qed-"])
def test_bad_objectives_are_data_errors(text):
    with pytest.raises(DataError):
        parse_objectives(text)
