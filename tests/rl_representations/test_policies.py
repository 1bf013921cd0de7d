"""The SB3 policies with SEM placed through their hooks: which networks carry it, that the optimisers hold the
new parameters, that the targets mirror the online networks, and that one update runs."""
import pytest
import torch

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.representations import RepresentationSpec  # noqa: E402
from methods.rl_representations.sem import SimNormLinear  # noqa: E402


def has_sem(module: torch.nn.Module) -> bool:
    return any(isinstance(m, SimNormLinear) for m in module.modules())


@pytest.mark.parametrize("placement", ["actor", "critic", "both"])
def test_ppo_places_sem_in_the_policy_or_value_network(placement):
    from stable_baselines3 import PPO

    from methods.rl_representations.policies import RepresentedPPOPolicy

    model = PPO(RepresentedPPOPolicy, "CartPole-v1", n_steps=32, batch_size=16, n_epochs=1, device="cpu", seed=0,
                policy_kwargs={"representation": RepresentationSpec("sem", placement)})
    extractor = model.policy.mlp_extractor
    assert has_sem(extractor.policy_net) == (placement != "critic")
    assert has_sem(extractor.value_net) == (placement != "actor")
    optimised = {id(p) for group in model.policy.optimizer.param_groups for p in group["params"]}
    assert {id(p) for p in model.policy.parameters()} <= optimised
    model.learn(64)
    features = model.policy.penultimate_features(torch.zeros(3, 4))
    assert features["actor"].shape[1] == (512 if placement != "critic" else 64)


@pytest.mark.parametrize("algorithm", ["SAC", "TD3"])
def test_off_policy_agents_place_sem_and_their_targets_mirror_it(algorithm):
    import stable_baselines3

    from methods.rl_representations import policies

    model = getattr(stable_baselines3, algorithm)(
        getattr(policies, f"Represented{algorithm}Policy"), "Pendulum-v1", learning_starts=16, batch_size=16,
        buffer_size=200, device="cpu", seed=0, policy_kwargs={"representation": RepresentationSpec("sem", "critic")})
    assert has_sem(model.policy.critic) and has_sem(model.policy.critic_target) and not has_sem(model.policy.actor)
    optimised = {id(p) for group in model.policy.critic.optimizer.param_groups for p in group["params"]}
    assert {id(p) for p in model.policy.critic.parameters()} <= optimised
    model.learn(48)
    features = model.policy.penultimate_features(torch.zeros(2, 3))
    assert features["critic"].shape == (2, 512)
    assert len(model.policy.output_layers()) >= 3
