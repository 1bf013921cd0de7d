"""Training runs end to end: the diagnostic's MLP and a tiny agent through the task, and (slow) a short PPO
run that learns CartPole with and without SEM."""
import pytest

from harness import RunContext

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.agents import PPOAgent  # noqa: E402
from methods.rl_representations.classifier import PhasedClassifier  # noqa: E402
from methods.rl_representations.environments import load_classic  # noqa: E402
from methods.rl_representations.metrics import FINAL_RETURN, PHASE_ACCURACY, SRANK  # noqa: E402
from methods.rl_representations.nonstationary import NonStationaryTask  # noqa: E402
from methods.rl_representations.task import ControlTask  # noqa: E402


def context() -> RunContext:
    return RunContext(seed=0, device="cpu", threads=1)


@pytest.mark.parametrize("representation", ["none", "sem"])
def test_the_classifier_fits_the_first_phase_and_records_its_curves(representation):
    task = NonStationaryTask()
    instance = task.tiny_instance(0)
    ctx = context()
    table = task.predictions(instance, PhasedClassifier(representation=representation, hidden=32,
                                                        group_size=8).run(instance.inputs, ctx))
    scores = task.score(instance, table, {"phase_accuracy": PHASE_ACCURACY, "srank": SRANK})
    assert 0 <= scores["phase_accuracy"] <= 100 and scores["srank"] >= 1
    assert set(ctx.curves) == {"accuracy", "dormant", "srank"} and len(ctx.curves["accuracy"].steps) == 6


def test_a_tiny_agent_run_gives_one_row_per_checkpoint_and_its_curves():
    task = ControlTask()
    instance = task.tiny_instance(0)
    ctx = context()
    table = task.predictions(instance, PPOAgent(representation="sem", **PPOAgent.params_model.tiny).run(
        instance.inputs, ctx))
    assert list(table["step"]) == [128, 256]
    assert set(ctx.curves) == {"return", "dormant_actor", "dormant_critic", "srank_actor", "srank_critic"}


@pytest.mark.slow
@pytest.mark.parametrize("representation", ["none", "sem"])
def test_ppo_learns_cartpole_with_and_without_sem(representation):
    """A random policy's CartPole episode lasts about 22 steps; 20,000 steps of PPO reach well above 100."""
    task = ControlTask()
    instance = task.instance(load_classic("CartPole-v1", 20_000, 2_000), {}, 0)
    agent = PPOAgent(representation=representation, n_steps=512, batch_size=128, n_epochs=4, learning_rate=1e-3)
    table = task.predictions(instance, agent.run(instance.inputs, context()))
    assert task.score(instance, table, {"final": FINAL_RETURN})["final"] > 100
