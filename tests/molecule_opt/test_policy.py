"""The policy miniature's pieces: the sequence layout, the SELFIES edit script, the plan, the scored tokens of each
loss, the advantages (sample standard deviation, as the released trainer) and the KL anchor (the policy RL
starts from)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from harness import RunContext

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from rdkit import Chem  # noqa: E402

from methods.molecule_opt.objectives import OptTask, parse_objectives  # noqa: E402
from methods.molecule_opt.policy import trainer  # noqa: E402
from methods.molecule_opt.policy.model import mean_nll, new_model, sequences, token_logprobs  # noqa: E402
from methods.molecule_opt.policy.tokens import (ANS, COPY, EOS, INDEX, SKIP, THINK, apply_script,  # noqa: E402
                                               completion, molecule_tokens, plan, prompt, script, split_completion)
from methods.molecule_opt.policy.trainer import RlSettings, _advantages, _demo_loss, reinforce  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def _same(a: str, b: str) -> bool:
    return Chem.CanonSmiles(a) == Chem.CanonSmiles(b)


def test_a_completion_reads_back_as_its_plan_and_answer():
    steps = plan(ASPIRIN, "CC(=O)Oc1ccccc1C(=O)N")
    assert sorted(steps) == ["+N", "-O"]
    tokens = completion(ASPIRIN, METHYL_ESTER, steps)
    found_plan, answer = split_completion(ASPIRIN, tokens)
    assert found_plan == tokens[:2] and _same(answer, METHYL_ESTER)
    assert split_completion(ASPIRIN, [INDEX["+C"], INDEX["[C]"]]) == ([INDEX["+C"], INDEX["[C]"]], "")  # no <ans>
    assert split_completion(ASPIRIN, [INDEX[ANS], INDEX[COPY]]) == ([], "")  # cut before <eos>: no answer
    assert _same(split_completion(ASPIRIN, [INDEX[ANS], INDEX[EOS]])[1], ASPIRIN)  # <eos> copies the rest


@pytest.mark.parametrize("answer", [METHYL_ESTER, ASPIRIN, "c1ccccc1", "CC(=O)Nc1ccccc1C(=O)O", "C"])
def test_every_answer_has_an_edit_script_over_the_source(answer):
    steps = script(ASPIRIN, answer)
    assert _same(apply_script(ASPIRIN, steps), answer) and (not steps or steps[-1] != COPY)
    assert script(ASPIRIN, METHYL_ESTER) == [COPY] * len(molecule_tokens(ASPIRIN)) + ["[C]"]
    assert apply_script("CO", [SKIP, SKIP, SKIP, COPY, "[N]"]) == "N"  # past the end nothing is copied
    head = prompt(parse_objectives("qed+,logp+"), ASPIRIN)
    assert head[1:3] == [INDEX["<qed+>"], INDEX["<logp+>"]] and head[-1] == INDEX[THINK]


def test_any_script_of_edits_and_selfies_tokens_decodes_to_a_molecule_others_are_invalid():
    rng = np.random.default_rng(0)
    inserts = ["[C]", "[=O]", "[Ring1]", "[Branch1]", "[N]", "[#C]"]
    for _ in range(50):
        steps = list(rng.choice([COPY, SKIP, *inserts], size=int(rng.integers(1, 30))))
        answer = apply_script(ASPIRIN, steps)
        assert answer == "" or Chem.MolFromSmiles(answer) is not None
    assert apply_script("C", [SKIP]) == "" and apply_script(ASPIRIN, ["+O"]) == ""  # empty; a plan token


def test_only_the_completion_or_the_answer_after_the_plan_is_scored():
    batch = sequences([([1, 2, 3], [4, 5, 6]), ([1, 2], [7, 8, 9, 10])], score_from=[0, 2])
    assert batch.scored[0].tolist() == [0, 0, 0, 1, 1, 1] and batch.scored[1].tolist() == [0, 0, 0, 0, 1, 1]
    assert batch.mask.tolist() == [[1] * 6] * 2 and batch.ids[0].tolist() == [1, 2, 3, 4, 5, 6]


def test_advantages_use_the_sample_standard_deviation_within_each_group():
    """As torch's `std` (ddof 1) in the released x_repo_trainer.py: rewards 0, 1, 2 have std 1, not 0.816."""
    found = _advantages(np.array([0.0, 1.0, 2.0, 5.0, 5.0, 5.0]), group=3).numpy()
    assert np.allclose(found[:3], np.array([-1.0, 0.0, 1.0]) / (1.0 + 1e-4)) and np.allclose(found[3:], 0.0)


def test_the_kl_anchor_is_the_policy_as_rl_starts_frozen_while_the_policy_moves(monkeypatch):
    torch.manual_seed(0)
    model = new_model(1, 16, 2)
    with torch.no_grad():  # stands for the SFT stage: the policy entering RL is not the freshly built model
        for weight in model.parameters():
            weight.add_(0.1)
    entering = {k: v.clone() for k, v in model.state_dict().items()}
    anchors = []

    def spy(policy, anchor, *args):  # noqa: ANN001, ANN202
        anchors.append(anchor)
        return original(policy, anchor, *args)

    original = trainer._grpo_loss
    monkeypatch.setattr(trainer, "_grpo_loss", spy)
    task = OptTask("t", ASPIRIN, parse_objectives("logp+"), 0.4, METHYL_ESTER)
    reinforce(model, [task], RlSettings(2, 1, 2, 0.04, 0.0), 1e-2, np.random.default_rng(0), lambda step: None)
    assert len(anchors) == 2 and anchors[0] is anchors[1] and anchors[0] is not model
    assert all(torch.equal(anchors[0].state_dict()[k], v) for k, v in entering.items())  # never updated
    assert not all(torch.equal(model.state_dict()[k], v) for k, v in entering.items())  # the policy moved
    assert not any(weight.requires_grad for weight in anchors[0].parameters())


class _Inputs:
    """One task for everything: test, training and validation (the anchor test needs no data)."""

    def __init__(self, task: OptTask) -> None:
        self.tasks = (task,)

    def training_tasks(self, count: int) -> list[OptTask]:
        return [self.tasks[0]]

    def validation_tasks(self, count: int) -> list[OptTask]:
        return [self.tasks[0]]


@pytest.mark.parametrize(("name", "anchored_to", "demo_weight"),
                         [("grpo", "base", 0.0), ("depo", "base", 1.0), ("sft_grpo", "sft", 0.0), ("sft", None, None)])
def test_each_method_anchors_its_kl_to_the_model_it_starts_rl_from(monkeypatch, name, anchored_to, demo_weight):
    """GRPO and DePO start RL from the base policy and anchor to it, as the released RePO recipes start from the
    instruction-tuned model and take it as `ref_model`; SFT + GRPO anchors to its SFT model; SFT has no anchor."""
    from methods.molecule_opt.policy import methods

    torch.manual_seed(0)
    base = new_model(1, 16, 2).eval()
    base_state = {k: v.clone() for k, v in base.state_dict().items()}
    monkeypatch.setattr(methods, "base_policy", lambda recipe, seed: "unused")
    monkeypatch.setattr(methods, "load_policy", lambda folder: base)
    seen: dict = {}
    real_sft, real_copy = methods.sft, trainer.frozen_copy

    def spy_sft(model, *args):  # noqa: ANN001, ANN202
        real_sft(model, *args)
        seen["after_sft"] = {k: v.clone() for k, v in model.state_dict().items()}

    def spy_copy(model):  # noqa: ANN001, ANN202
        seen["anchor"] = real_copy(model)
        return seen["anchor"]

    def spy_reinforce(model, tasks, settings, *args, **kwargs):  # noqa: ANN001, ANN202
        seen["demo_weight"] = settings.demo_weight
        return real_reinforce(model, tasks, settings, *args, **kwargs)

    real_reinforce = methods.reinforce
    monkeypatch.setattr(methods, "sft", spy_sft)
    monkeypatch.setattr(methods, "reinforce", spy_reinforce)
    monkeypatch.setattr(trainer, "frozen_copy", spy_copy)
    method = {"grpo": methods.Grpo, "depo": methods.Depo, "sft_grpo": methods.SftGrpo, "sft": methods.Sft}[name]
    budget = {"sft_steps": 2, "batch_size": 2} if name.startswith("sft") else {}
    budget |= {"rl_steps": 2, "batch_tasks": 1, "group": 2} if name != "sft" else {}
    task = OptTask("t", ASPIRIN, parse_objectives("logp+"), 0.4, METHYL_ESTER)
    method(train_tasks=8, learning_rate=5e-2, **budget).run(_Inputs(task), RunContext(seed=0, device="cpu", threads=1))
    if anchored_to is None:
        assert "anchor" not in seen and "demo_weight" not in seen
        return
    expected = base_state if anchored_to == "base" else seen["after_sft"]
    assert all(torch.equal(seen["anchor"].state_dict()[k], v) for k, v in expected.items())
    assert seen["demo_weight"] == demo_weight
    if anchored_to == "sft":  # the SFT model, not the base it was trained from
        assert not all(torch.equal(seen["anchor"].state_dict()[k], v) for k, v in base_state.items())


def test_the_demonstration_term_is_the_reference_answers_nll_after_the_policys_own_plan():
    torch.manual_seed(0)
    model = new_model(1, 16, 2)
    task = OptTask("t", ASPIRIN, parse_objectives("logp+"), 0.4, METHYL_ESTER)
    head = prompt(task.objectives, task.source)
    drawn = [[INDEX["+C"], INDEX["-O"], INDEX[ANS], INDEX["[C]"], INDEX[EOS]]]  # the policy's own plan, another answer
    demo = completion(ASPIRIN, METHYL_ESTER, ["+C", "-O"])
    expected = mean_nll(model, sequences([(head, demo)], score_from=[3]))
    assert torch.isclose(_demo_loss(model, [task], [head], drawn), expected)
    assert token_logprobs(model, sequences([(head, demo)])).shape[1] == len(head) + len(demo) - 1
