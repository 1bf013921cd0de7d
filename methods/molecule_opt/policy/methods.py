"""The four policy methods of T-DePO-1: SFT, GRPO, SFT + GRPO and DePO, each from the same cached base policy
trained on the run's training tasks, then answering every test task with one sampled completion. With
`curve_every` they record validity, both success rates, similarity and plan length on held-out validation tasks
(MOSES-train sources used neither for training nor as test sources) as training goes (T-DePO-3), and `sft_validity`
is the validity there once the SFT stage ends; none of it feeds back into training."""
from __future__ import annotations

import copy
from typing import Any, ClassVar, TypeVar

import numpy as np
import torch

from harness import Method, RunContext
from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.params import DepoParams, GrpoParams, PolicyParams, SftGrpoParams, SftParams
from methods.molecule_opt.policy.pretrain import PretrainConfig, base_policy, load_policy
from methods.molecule_opt.policy.sampling import answer_tasks
from methods.molecule_opt.policy.trainer import RlSettings, reinforce, sft
from methods.molecule_opt.scored import task_outcome
from methods.molecule_opt.task import Answers, OptInputs


P = TypeVar("P", bound=PolicyParams)


class PolicyMethod(Method[P]):
    sft_stage: ClassVar[bool] = False
    rl_stage: ClassVar[bool] = False

    def run(self, inputs: OptInputs, ctx: RunContext) -> Answers:
        rng = np.random.default_rng(ctx.seed)
        recipe = PretrainConfig(steps=self.params.base_steps, anchors=self.params.base_anchors,
                                mutants=2 * self.params.base_anchors)
        model = copy.deepcopy(load_policy(base_policy(recipe, self.params.base_seed)).eval())
        torch.manual_seed(ctx.seed)  # after the base policy, whose training (on first use only) draws from torch
        tasks = inputs.training_tasks(self.params.train_tasks)
        validation = inputs.validation_tasks(self.params.curve_tasks) if self.params.curve_every or self.sft_stage \
            else []

        def hook(step: int) -> None:
            if self.params.curve_every and step % self.params.curve_every == 0:
                _curve_point(model, validation, self.params.temperature, step, ctx)

        hook(0)
        sft_steps = 0
        if self.sft_stage:
            p: Any = self.params
            sft(model, tasks, p.sft_steps, p.batch_size, p.learning_rate, rng, hook)
            sft_steps = p.sft_steps
            held_out, _ = answer_tasks(model, validation, p.temperature)
            ctx.record("sft_validity", 100.0 * float(np.mean([task_outcome(t, held_out[t.id]).valid
                                                              for t in validation])), "%", True)
        if self.rl_stage:
            p = self.params
            settings = RlSettings(p.rl_steps, p.batch_tasks, p.group, p.beta, getattr(p, "demo_weight", 0.0))
            rewards = reinforce(model, tasks, settings, p.learning_rate, rng, hook, sft_steps)
            ctx.record("final_train_reward", float(np.mean(rewards[-5:])), higher_is_better=True)
        answers, plans = answer_tasks(model, list(inputs.tasks), self.params.temperature)
        ctx.record("plan_length", float(np.mean(plans)), "tokens")
        return answers


def _curve_point(model: Any, tasks: list[OptTask], temperature: float, step: int, ctx: RunContext) -> None:
    answers, plans = answer_tasks(model, tasks, temperature)
    outcomes = [task_outcome(t, answers[t.id]) for t in tasks]
    sims = [o.similarity for o in outcomes if o.valid]
    constrained = [o.constrained(t.delta) for o, t in zip(outcomes, tasks, strict=True)]
    ctx.record_point("validity", step, 100.0 * float(np.mean([o.valid for o in outcomes])), "%", True)
    ctx.record_point("sr_released", step, 100.0 * float(np.mean([o.improved for o in outcomes])), "%", True)
    ctx.record_point("sr_constrained", step, 100.0 * float(np.mean(constrained)), "%", True)
    ctx.record_point("similarity", step, float(np.mean(sims)) if sims else 0.0, "", True)
    ctx.record_point("plan_length", step, float(np.mean(plans)), "tokens", None)


class Sft(PolicyMethod[SftParams]):
    sft_stage = True


class Grpo(PolicyMethod[GrpoParams]):
    rl_stage = True


class SftGrpo(PolicyMethod[SftGrpoParams]):
    sft_stage = rl_stage = True


class Depo(PolicyMethod[DepoParams]):
    rl_stage = True
