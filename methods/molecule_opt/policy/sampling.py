"""Drawing completions from the policy (transformers' `generate`, left-padded prompts) and reading answers."""
from __future__ import annotations

from typing import Any

import torch

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.policy.model import MAX_LENGTH
from methods.molecule_opt.policy.tokens import EOS, INDEX, PAD, prompt, split_completion

MAX_NEW_TOKENS = 96


@torch.no_grad()
def sample(model: Any, prompts: list[list[int]], temperature: float) -> list[list[int]]:
    """One completion per prompt, drawn at `temperature` (0: greedy), cut after its `<eos>`."""
    width = max(map(len, prompts))
    ids = torch.full((len(prompts), width), INDEX[PAD], dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, tokens in enumerate(prompts):
        ids[row, width - len(tokens):] = torch.tensor(tokens)
        mask[row, width - len(tokens):] = 1
    drawn = model.generate(input_ids=ids, attention_mask=mask, do_sample=temperature > 0,
                           temperature=temperature if temperature > 0 else None, top_k=0, top_p=None,
                           max_new_tokens=min(MAX_NEW_TOKENS, MAX_LENGTH - width), pad_token_id=INDEX[PAD],
                           eos_token_id=INDEX[EOS])
    completions = []
    for row in drawn[:, width:].tolist():
        completions.append(row[:row.index(INDEX[EOS]) + 1] if INDEX[EOS] in row else row)
    return completions


def task_prompt(task: OptTask) -> list[int]:
    return prompt(task.objectives, task.source)


def answer_tasks(model: Any, tasks: list[OptTask], temperature: float, chunk: int = 64
                 ) -> tuple[dict[str, str], list[int]]:
    """Each task's answer SMILES and the length of the plan written before it."""
    answers, plan_lengths = {}, []
    for start in range(0, len(tasks), chunk):
        part = tasks[start:start + chunk]
        for task, completion in zip(part, sample(model, [task_prompt(t) for t in part], temperature), strict=True):
            plan, answers[task.id] = split_completion(task.source, completion)
            plan_lengths.append(len(plan))
    return answers, plan_lengths
