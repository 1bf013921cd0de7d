"""stable-baselines3 policies that place a representation (methods.rl_representations.representations) in the
actor, the critic or both, through SB3's own hooks: `ActorCriticPolicy._build_mlp_extractor` for PPO and
`make_actor` / `make_critic` for SAC and TD3, which SB3 calls before it builds the optimisers and copies the
target networks, so the algorithms' training loops are untouched. Each policy also exposes what the probes and
the plasticity callbacks need: the penultimate features of its actor and critic, its output layers, and the
networks that train."""
from __future__ import annotations

from abc import abstractmethod
from typing import Any, TypeVar

import torch
from stable_baselines3.common.policies import ActorCriticPolicy, ContinuousCritic
from stable_baselines3.sac.policies import Actor as SACActor
from stable_baselines3.sac.policies import SACPolicy
from stable_baselines3.td3.policies import Actor as TD3Actor
from stable_baselines3.td3.policies import TD3Policy
from torch import nn

from methods.rl_representations.representations import RepresentationSpec, represented


PLAIN = RepresentationSpec()
M = TypeVar("M", bound=nn.Module)


class Represented:
    """Takes `representation` from `policy_kwargs` before SB3's policy builds its networks."""

    def __init__(self, *args: Any, representation: RepresentationSpec = PLAIN, **kwargs: Any) -> None:
        self.representation = representation
        super().__init__(*args, **kwargs)

    @abstractmethod
    def penultimate_features(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """The actor's and the critic's inputs to their output layers, keyed "actor" and "critic"."""

    @abstractmethod
    def output_layers(self) -> list[nn.Linear]:
        """The actor heads and the Q / value heads."""

    @abstractmethod
    def trained_networks(self) -> list[nn.Module]:
        """The networks the optimisers train (target networks excluded)."""


def represented_policy(policy: object) -> Represented:
    """An agent's policy as one of these (SB3 types `model.policy` as its base policy)."""
    if not isinstance(policy, Represented):
        raise TypeError(f"expected a represented policy, got {type(policy).__name__}")
    return policy


def built(kind: type[M], module: object) -> M:
    """`module` as the `kind` SB3 builds there: its attributes are typed as any module (or the gSDE Parameter)."""
    if not isinstance(module, kind):
        raise TypeError(f"expected SB3 to have built a {kind.__name__}, got {type(module).__name__}")
    return module


class RepresentedPPOPolicy(Represented, ActorCriticPolicy):
    """PPO's actor-critic MLP (discrete or continuous actions) with the representation in its policy and/or
    value network; pass `representation=RepresentationSpec(...)` in `policy_kwargs`."""

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        extractor, spec = self.mlp_extractor, self.representation
        if spec.applies_to("actor"):
            extractor.policy_net, extractor.latent_dim_pi = represented(extractor.policy_net, spec, has_output=False)
        if spec.applies_to("critic"):
            extractor.value_net, extractor.latent_dim_vf = represented(extractor.value_net, spec, has_output=False)

    def penultimate_features(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        features = self.extract_features(obs)
        pi_features, vf_features = features if isinstance(features, tuple) else (features, features)
        return {"actor": self.mlp_extractor.forward_actor(pi_features),
                "critic": self.mlp_extractor.forward_critic(vf_features)}

    def output_layers(self) -> list[nn.Linear]:
        return [built(nn.Linear, self.action_net), self.value_net]

    def trained_networks(self) -> list[nn.Module]:
        return [self]


def _represented_critic(critic: ContinuousCritic, spec: RepresentationSpec) -> ContinuousCritic:
    """Each Q-network of `critic` with the representation (the target critic gets the same structure)."""
    if spec.applies_to("critic"):
        for index, q_net in enumerate(critic.q_networks):
            new, _ = represented(built(nn.Sequential, q_net), spec, has_output=True)
            setattr(critic, f"qf{index}", new)
            critic.q_networks[index] = new
    return critic


def _critic_features(critic: ContinuousCritic, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """The first Q-network's input to its output layer."""
    features = critic.extract_features(obs, critic.features_extractor)
    return built(nn.Sequential, critic.q_networks[0])[:-1](torch.cat([features, actions], dim=1))


def _q_output_layers(critic: ContinuousCritic) -> list[nn.Linear]:
    return [built(nn.Linear, built(nn.Sequential, q_net)[-1]) for q_net in critic.q_networks]


class RepresentedSACPolicy(Represented, SACPolicy):
    """SAC's Gaussian actor and twin Q critic with the representation in either or both."""

    def make_actor(self, features_extractor: Any = None) -> SACActor:
        actor = super().make_actor(features_extractor)
        if self.representation.applies_to("actor"):
            if actor.use_sde:
                raise ValueError("a represented SAC actor supports the plain Gaussian policy, not gSDE")
            actor.latent_pi, width = represented(actor.latent_pi, self.representation, has_output=False)
            actor.mu = nn.Linear(width, built(nn.Linear, actor.mu).out_features)
            # SB3 types log_std as gSDE's Parameter; without gSDE it builds this Linear (and ignores the same error)
            actor.log_std = nn.Linear(width, built(nn.Linear, actor.log_std).out_features)  # type: ignore[assignment]
        return actor

    def make_critic(self, features_extractor: Any = None) -> ContinuousCritic:
        return _represented_critic(super().make_critic(features_extractor), self.representation)

    def penultimate_features(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        latent = self.actor.latent_pi(self.actor.extract_features(obs, self.actor.features_extractor))
        actions = self.actor(obs, deterministic=True)
        return {"actor": latent, "critic": _critic_features(self.critic, obs, actions)}

    def output_layers(self) -> list[nn.Linear]:
        return [built(nn.Linear, self.actor.mu), built(nn.Linear, self.actor.log_std), *_q_output_layers(self.critic)]

    def trained_networks(self) -> list[nn.Module]:
        return [self.actor, self.critic]


class RepresentedTD3Policy(Represented, TD3Policy):
    """TD3's deterministic actor and twin Q critic with the representation in either or both."""

    def make_actor(self, features_extractor: Any = None) -> TD3Actor:
        actor = super().make_actor(features_extractor)
        if self.representation.applies_to("actor"):
            actor.mu, _ = represented(actor.mu, self.representation, has_output=True)
        return actor

    def make_critic(self, features_extractor: Any = None) -> ContinuousCritic:
        return _represented_critic(super().make_critic(features_extractor), self.representation)

    def penultimate_features(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        features = self.actor.extract_features(obs, self.actor.features_extractor)
        return {"actor": self.actor.mu[:-2](features), "critic": _critic_features(self.critic, obs, self.actor(obs))}

    def output_layers(self) -> list[nn.Linear]:
        return [built(nn.Linear, self.actor.mu[-2]), *_q_output_layers(self.critic)]

    def trained_networks(self) -> list[nn.Module]:
        return [self.actor, self.critic]
