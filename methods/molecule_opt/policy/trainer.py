"""The training objectives on the run's training tasks, from the pretrained base policy.

- SFT (answer-only): NLL of `<ans> script(y_ref) <eos>` right after the prompt: no plan, as the paper's baseline.
- GRPO: G completions per prompt, rewards `reward.reward`, advantages (r - mean_G) / (std_G + 1e-4) with the
  sample standard deviation (ddof 1: torch's `std`, as the released x_repo_trainer.py), one policy update per
  batch (so the clipped ratio is 1 and the clip inactive), plus the k3 KL estimate to the anchor weighted by beta;
  token losses averaged per completion, then over the batch. The anchor is a frozen copy of the policy as RL
  starts: the SFT model for SFT + GRPO, the base policy for GRPO and DePO. So does the released code
  (tmlr-group/RePO at c2f026f): DePO's RL starts from the instruction-tuned model, not an SFT checkpoint
  (recipes/OpenMolIns_3B_config.yaml and MulProp_3B_config.yaml line 2, `model_name_or_path:
  Qwen/Qwen2.5-3B-Instruct`, passed as `model=` in src/x_r1/repo.py line 488), and its `ref_model` is that
  model (x_repo_trainer.py lines 193-205: reloaded from `model_id` under ZeRO-3, the launcher's default,
  `create_reference_model(model)` otherwise, the disabled LoRA adapter for the 8B recipe; the first commit's
  x_depo_trainer.py lines 215-228 alike). The release has no SFT stage, so SFT + GRPO's anchor is inferred
  the same way: the model its RL starts from.
- DePO: GRPO plus, for every sampled completion, the NLL of the reference answer after the completion's own plan
  (`prefix <ans> script(y_ref) <eos>`, only the answer tokens scored), weighted `demo_weight` (1 in the spec:
  L = L_GRPO + L_demo). The plan tokens are the miniature's reasoning (`tokens`).
"""
from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.policy.model import mean_nll, sequences, token_logprobs
from methods.molecule_opt.policy.sampling import sample, task_prompt
from methods.molecule_opt.policy.tokens import (ANS, EOS, INDEX, PLAN_LIMIT, completion, ids, script,
                                               split_completion)
from methods.molecule_opt.reward import reward

Hook = Callable[[int], None]  # called with the step count after every step (for learning curves)


@dataclass(frozen=True)
class RlSettings:
    steps: int
    batch_tasks: int
    group: int
    beta: float
    demo_weight: float  # 0: GRPO; > 0: DePO
    temperature: float = 1.0


def sft(model: Any, tasks: list[OptTask], steps: int, batch_size: int, learning_rate: float,
        rng: np.random.Generator, hook: Hook) -> None:
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    model.train()
    for step in range(1, steps + 1):
        chosen = [tasks[i] for i in rng.choice(len(tasks), size=batch_size)]
        pairs = [(task_prompt(t), completion(t.source, str(t.reference), [])) for t in chosen]
        loss = mean_nll(model, sequences(pairs))
        _update(optimiser, model, loss)
        hook(step)
    model.eval()


def frozen_copy(model: Any) -> Any:
    """The KL anchor: a copy of `model` as it is now, in eval mode, never updated."""
    anchor = copy.deepcopy(model).eval()
    anchor.requires_grad_(False)
    return anchor


def reinforce(model: Any, tasks: list[OptTask], settings: RlSettings, learning_rate: float,
              rng: np.random.Generator, hook: Hook, step_offset: int = 0) -> list[float]:
    """GRPO (or DePO when `settings.demo_weight` > 0) anchored to the policy as it enters; returns the mean reward
    of every step's samples."""
    anchor = frozen_copy(model)
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    rewards_seen = []
    for step in range(1, settings.steps + 1):
        chosen = [tasks[i] for i in rng.choice(len(tasks), size=settings.batch_tasks, replace=False)]
        group = [t for t in chosen for _ in range(settings.group)]
        prompts = [task_prompt(t) for t in group]
        model.eval()
        drawn = sample(model, prompts, settings.temperature)
        rewards = np.array([reward(t, split_completion(t.source, c)[1]) for t, c in zip(group, drawn, strict=True)])
        rewards_seen.append(float(rewards.mean()))
        model.train()
        loss = _grpo_loss(model, anchor, prompts, drawn, _advantages(rewards, settings.group), settings.beta)
        if settings.demo_weight > 0:
            loss = loss + settings.demo_weight * _demo_loss(model, group, prompts, drawn)
        _update(optimiser, model, loss)
        hook(step_offset + step)
    model.eval()
    return rewards_seen


def _advantages(rewards: np.ndarray, group: int) -> torch.Tensor:
    grouped = rewards.reshape(-1, group)
    normalised = (grouped - grouped.mean(axis=1, keepdims=True)) / (grouped.std(axis=1, ddof=1, keepdims=True) + 1e-4)
    return torch.tensor(normalised.reshape(-1), dtype=torch.float32)


def _grpo_loss(model: Any, anchor: Any, prompts: list[list[int]], drawn: list[list[int]], advantages: torch.Tensor,
               beta: float) -> torch.Tensor:
    batch = sequences(list(zip(prompts, drawn, strict=True)))
    weights = batch.scored[:, 1:]
    logp = token_logprobs(model, batch)
    with torch.no_grad():
        anchor_logp = token_logprobs(anchor, batch)
    ratio = torch.exp(logp - logp.detach())  # 1 in value: one update per batch (TRL's num_iterations = 1)
    gap = anchor_logp - logp
    per_token = -advantages[:, None] * ratio + beta * (torch.exp(gap) - gap - 1.0)
    per_completion = (per_token * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
    return per_completion.mean()


def _demo_loss(model: Any, group: list[OptTask], prompts: list[list[int]], drawn: list[list[int]]) -> torch.Tensor:
    """NLL of each task's reference answer after the policy's own plan from each sampled completion."""
    pairs, starts = [], []
    for task, prompt, tokens in zip(group, prompts, drawn, strict=True):
        prefix = [t for t in split_completion(task.source, tokens)[0] if t != INDEX[EOS]][:PLAN_LIMIT]  # not a run-on
        pairs.append((prompt, [*prefix, *ids([ANS, *script(task.source, str(task.reference)), EOS])]))
        starts.append(len(prefix) + 1)
    return mean_nll(model, sequences(pairs, starts))


def _update(optimiser: torch.optim.Optimizer, model: Any, loss: torch.Tensor) -> None:
    optimiser.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimiser.step()
