"""SEM in RL, one torch thread: 1,024 environment steps of PPO on CartPole (rollout and update, SB3's loop) with
and without SEM in the actor and critic, the per-step cost the "no runtime cost" claim is about; and the
dormant-ratio and srank probes on a checkpoint's 256 x 512 feature matrix."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("representation", ["none", "sem"])
def test_ppo_steps_on_cartpole(benchmark, one_thread, representation):
    from stable_baselines3 import PPO

    from methods.rl_representations.policies import RepresentedPPOPolicy
    from methods.rl_representations.representations import RepresentationSpec

    model = PPO(RepresentedPPOPolicy, "CartPole-v1", n_steps=512, batch_size=128, n_epochs=4, device="cpu", seed=0,
                policy_kwargs={"representation": RepresentationSpec(representation)})
    steps = 1024
    benchmark.pedantic(model.learn, args=(steps,), kwargs={"reset_num_timesteps": False}, rounds=3, iterations=1)
    if benchmark.stats is not None:  # None under --benchmark-disable, where nothing is timed
        benchmark.extra_info["ms_per_step"] = 1000 * benchmark.stats.stats.mean / steps


def test_dormant_ratio_and_srank_of_a_checkpoint(benchmark):
    from methods.rl_representations.diagnostics import dormant_ratio, srank

    features = np.random.default_rng(0).random((256, 512))
    benchmark(lambda: (dormant_ratio(features), srank(features)))
