"""PPO (discrete or continuous actions), SAC and TD3 from stable-baselines3 with a representation placed by the
policies of methods.rl_representations.policies and the plasticity baselines as callbacks. A run trains for the
environment's budget and returns its checkpoints (methods.rl_representations.probes); it also records the
return, dormant-ratio and srank curves for the report's plots."""
from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, TypeVar

from harness import Method, RunContext
from methods.rl_representations.environments import Environment
from methods.rl_representations.params import AgentParams, OffPolicyParams, PPOParams, TD3Params
from methods.rl_representations.checkpoints import Checkpoints
from methods.rl_representations.representations import RepresentationSpec

CURVES = {"return": True, "dormant_actor": False, "dormant_critic": False, "srank_actor": True,
          "srank_critic": True}  # name -> higher is better


def representation_spec(params: Any, placement: Any = "both") -> RepresentationSpec:
    return RepresentationSpec(params.representation, placement, params.groups, params.group_size,
                              params.temperature, params.dropout)


P = TypeVar("P", bound=AgentParams)
OP = TypeVar("OP", bound=OffPolicyParams)


class Agent(Method[P]):
    """What the three agents share: the environment, seeding, callbacks, curves; `algorithm` builds the SB3 model."""

    # PER_NUMERICS (the default): one torch thread, seeded SB3, the same numbers on one CPU; on another the
    # policy's first rounding differences grow (final return 204 on AVX2, 249 on AVX-512 under one run key).

    @abstractmethod
    def algorithm(self, env: Any, policy_kwargs: dict[str, Any], seed: int) -> Any:
        """The SB3 model (PPO, SAC or TD3) on `env` with the representation in `policy_kwargs`."""

    def run(self, inputs: Environment, ctx: RunContext) -> Checkpoints:
        import torch

        if not isinstance(inputs, Environment):
            raise ValueError("an agent trains on an environment dataset (classic, minatar, mujoco); replay logs "
                             "with the method `logged`")
        from methods.rl_representations.probes import TrainingProbe

        torch.set_num_threads(max(1, ctx.threads))
        spec = representation_spec(self.params, self.params.placement)
        model = self.algorithm(inputs.make(ctx.seed), {"representation": spec}, ctx.seed)
        checkpoints = Checkpoints()
        callbacks = [TrainingProbe(inputs.every, inputs.probe_batch, checkpoints), *self.plasticity_callbacks()]
        model.learn(inputs.steps, callback=callbacks)
        steps = checkpoints.columns["step"]
        for name, higher in CURVES.items():
            ctx.record_curve(name, steps, checkpoints.columns[name], higher_is_better=higher)
        return checkpoints

    def plasticity_callbacks(self) -> list[Any]:
        from methods.rl_representations.plasticity import ResetOutputLayers, ShrinkAndPerturb

        if self.params.plasticity == "reset":
            return [ResetOutputLayers(self.params.plasticity_every)]
        if self.params.plasticity == "shrink_perturb":
            return [ShrinkAndPerturb(self.params.plasticity_every, self.params.shrink)]
        return []


class PPOAgent(Agent[PPOParams]):
    def algorithm(self, env: Any, policy_kwargs: dict[str, Any], seed: int) -> Any:
        from stable_baselines3 import PPO

        from methods.rl_representations.policies import RepresentedPPOPolicy

        p = self.params
        return PPO(RepresentedPPOPolicy, env, learning_rate=p.learning_rate, n_steps=p.n_steps,
                   batch_size=p.batch_size, n_epochs=p.n_epochs, ent_coef=p.ent_coef, policy_kwargs=policy_kwargs,
                   seed=seed, device="cpu")


class OffPolicyAgent(Agent[OP]):
    """SAC or TD3 (`name`), one update per environment step as SB3 does by default; TD3 explores with Gaussian
    action noise of std 0.1 (the RL Zoo's setting), since SB3's TD3 adds none unless told."""

    name: ClassVar[str]

    def algorithm(self, env: Any, policy_kwargs: dict[str, Any], seed: int) -> Any:
        import numpy as np
        import stable_baselines3
        from stable_baselines3.common.noise import NormalActionNoise

        from methods.rl_representations import policies

        p = self.params
        extra: dict[str, Any] = {}
        if self.name == "TD3":
            size = env.action_space.shape[-1]
            extra["action_noise"] = NormalActionNoise(np.zeros(size), 0.1 * np.ones(size))
        return getattr(stable_baselines3, self.name)(
            getattr(policies, f"Represented{self.name}Policy"), env, learning_rate=p.learning_rate,
            learning_starts=p.learning_starts, batch_size=p.batch_size, buffer_size=p.buffer_size,
            policy_kwargs=policy_kwargs, seed=seed, device="cpu", **extra)


class SACAgent(OffPolicyAgent[OffPolicyParams]):
    name = "SAC"


class TD3Agent(OffPolicyAgent[TD3Params]):
    name = "TD3"
