"""The policy miniature's pieces: the sequence layout, the plan, the scored tokens of each loss, the advantages."""
from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.objectives import parse_objectives  # noqa: E402
from methods.molecule_opt.policy.model import mean_nll, new_model, sequences, token_logprobs  # noqa: E402
from methods.molecule_opt.policy.tokens import (ANS, COPY, EOS, INDEX, SKIP, THINK, apply_script, completion, plan,  # noqa: E402
                                               prompt, script, split_completion)
from methods.molecule_opt.policy.trainer import _advantages, _demo_loss  # noqa: E402
from methods.molecule_opt.objectives import OptTask  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def test_a_completion_reads_back_as_its_plan_and_answer():
    steps = plan(ASPIRIN, "CC(=O)Oc1ccccc1C(=O)N")
    assert sorted(steps) == ["+N", "-O"]
    tokens = completion(ASPIRIN, METHYL_ESTER, steps)
    assert split_completion(ASPIRIN, tokens) == (tokens[:2], METHYL_ESTER)
    assert split_completion(ASPIRIN, [INDEX["+C"], INDEX["C"]]) == ([INDEX["+C"], INDEX["C"]], "")  # no <ans>
    assert split_completion(ASPIRIN, [INDEX[ANS], INDEX[COPY]]) == ([], "")  # cut before <eos>: no answer
    assert split_completion(ASPIRIN, [INDEX[ANS], INDEX[EOS]]) == ([], ASPIRIN)  # <eos> copies the rest


@pytest.mark.parametrize("answer", [METHYL_ESTER, ASPIRIN, "c1ccccc1", "CC(=O)Nc1ccccc1C(=O)O", "C"])
def test_every_answer_has_an_edit_script_over_the_source(answer):
    steps = script(ASPIRIN, answer)
    assert apply_script(ASPIRIN, steps) == answer and (not steps or steps[-1] != COPY)
    assert script(ASPIRIN, METHYL_ESTER) == [COPY] * 21 + ["C"]
    assert apply_script("CO", [SKIP, SKIP, SKIP, COPY, "N"]) == "N"  # past the end nothing is copied
    head = prompt(parse_objectives("qed+,logp+"), ASPIRIN)
    assert head[1:3] == [INDEX["<qed+>"], INDEX["<logp+>"]] and head[-1] == INDEX[THINK]


def test_only_the_completion_or_the_answer_after_the_plan_is_scored():
    batch = sequences([([1, 2, 3], [4, 5, 6]), ([1, 2], [7, 8, 9, 10])], score_from=[0, 2])
    assert batch.scored[0].tolist() == [0, 0, 0, 1, 1, 1] and batch.scored[1].tolist() == [0, 0, 0, 0, 1, 1]
    assert batch.mask.tolist() == [[1] * 6] * 2 and batch.ids[0].tolist() == [1, 2, 3, 4, 5, 6]


def test_advantages_are_normalised_within_each_group():
    found = _advantages(np.array([0.0, 1.0, 2.0, 5.0, 5.0, 5.0]), group=3).numpy()
    assert np.allclose(found[:3], [-1.2247, 0.0, 1.2247], atol=1e-3) and np.allclose(found[3:], 0.0)


def test_the_demonstration_term_is_the_reference_answers_nll_after_the_policys_own_plan():
    torch.manual_seed(0)
    model = new_model(1, 16, 2)
    task = OptTask("t", ASPIRIN, parse_objectives("logp+"), 0.4, METHYL_ESTER)
    head = prompt(task.objectives, task.source)
    drawn = [[INDEX["+C"], INDEX["-O"], INDEX[ANS], INDEX["C"], INDEX[EOS]]]  # the policy's own plan, another answer
    demo = completion(ASPIRIN, METHYL_ESTER, ["+C", "-O"])
    expected = mean_nll(model, sequences([(head, demo)], score_from=[3]))
    assert torch.isclose(_demo_loss(model, [task], [head], drawn), expected)
    assert token_logprobs(model, sequences([(head, demo)])).shape[1] == len(head) + len(demo) - 1
