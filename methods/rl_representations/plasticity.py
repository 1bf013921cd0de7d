"""The plasticity baselines of the paper's rebuttal set as stable-baselines3 callbacks, so the algorithms'
training loops stay SB3's own: periodic resets of the output layers (Nikishin et al., "The Primacy Bias in
Deep RL", ICML 2022, which resets the last layers) and shrink-and-perturb (Ash and Adams, NeurIPS 2020:
theta <- alpha theta + (1 - alpha) theta_fresh, a fresh initialisation as the noise, on every Linear layer).
The optimiser's moments are kept [inferred]."""
from __future__ import annotations

import copy
from abc import abstractmethod

import torch
from stable_baselines3.common.callbacks import BaseCallback
from torch import nn

from methods.rl_representations.policies import represented_policy


class PeriodicCallback(BaseCallback):
    """Calls `apply` once every `every` environment steps."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.next_at = every, every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            with torch.no_grad():
                self.apply()
        return True

    @abstractmethod
    def apply(self) -> None:
        """The intervention, under no_grad (a reset, a shrink-and-perturb)."""


class ResetOutputLayers(PeriodicCallback):
    """Re-initialises the policy's output layers (actor heads and Q / value heads)."""

    def apply(self) -> None:
        for layer in represented_policy(self.model.policy).output_layers():
            layer.reset_parameters()


def shrink_and_perturb(network: nn.Module, alpha: float) -> None:
    """Every Linear layer of `network` becomes alpha x itself + (1 - alpha) x a fresh initialisation of it."""
    for module in network.modules():
        if isinstance(module, nn.Linear):
            fresh = copy.deepcopy(module)
            fresh.reset_parameters()
            for param, new in zip(module.parameters(), fresh.parameters(), strict=True):
                param.mul_(alpha).add_(new, alpha=1.0 - alpha)


class ShrinkAndPerturb(PeriodicCallback):
    def __init__(self, every: int, alpha: float) -> None:
        super().__init__(every)
        self.alpha = alpha

    def apply(self) -> None:
        for network in represented_policy(self.model.policy).trained_networks():
            shrink_and_perturb(network, self.alpha)
