"""The environments a run trains on, as a dataset of the `rl_representations.control` task: gymnasium's
classic control, MinAtar (flattened 10 x 10 x C boolean frames as floats) and MuJoCo through the `mujoco`
package. A dataset names the environment, the step budget and the checkpoint interval; nothing is downloaded."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from harness import DataError

if TYPE_CHECKING:
    import gymnasium as gym

Suite = Literal["classic", "minatar", "mujoco"]
CLASSIC = ("CartPole-v1", "Acrobot-v1", "Pendulum-v1", "MountainCarContinuous-v0")
MINATAR = ("Breakout", "Freeway", "SpaceInvaders", "Asterix", "Seaquest")
MUJOCO = ("HalfCheetah-v5", "Hopper-v5", "Walker2d-v5", "Ant-v5")


@dataclass(frozen=True)
class Environment:
    """A gymnasium id with its step budget: what the task hands a method."""

    suite: Suite
    env_id: str
    steps: int
    every: int  # environment steps between checkpoints
    probe_batch: int = 256  # recent observations the dormant ratio and srank are computed on

    @property
    def name(self) -> str:
        return self.env_id

    def make(self, seed: int) -> gym.Env:
        """A new environment, with its action and observation spaces seeded (gymnasium is imported here, so
        validating and planning a suite need not have the `rl` extra)."""
        import gymnasium as gym

        if self.suite == "minatar":
            import minatar.gym

            name = f"MinAtar/{self.env_id}-v1"
            if name not in gym.registry:
                minatar.gym.register_envs()
            env: gym.Env = gym.make(name)
            env = gym.wrappers.FlattenObservation(env)
            env = gym.wrappers.TransformObservation(
                env, lambda obs: obs.astype(np.float32),
                gym.spaces.Box(0.0, 1.0, env.observation_space.shape, np.float32))
        else:
            env = gym.make(self.env_id)
        env.action_space.seed(seed)
        env.observation_space.seed(seed)
        return env

    @property
    def discrete(self) -> bool:
        import gymnasium as gym

        return isinstance(self.make(0).action_space, gym.spaces.Discrete)


def environment(suite: Suite, env_id: str, steps: int, every: int, probe_batch: int = 256) -> Environment:
    """The loaders' common checks: a known environment of its suite, a budget of whole checkpoints."""
    known = {"classic": CLASSIC, "minatar": MINATAR, "mujoco": MUJOCO}[suite]
    if env_id not in known:
        raise DataError(f"'{env_id}' is not a {suite} environment here", field="env",
                        hint=f"Use one of: {', '.join(known)}.")
    if steps < every or every < 1:
        raise DataError(f"a budget of {steps} steps holds no checkpoint every {every} steps", field="steps",
                        hint="Give steps >= every >= 1.")
    if probe_batch < 2:
        raise DataError("the dormant ratio and srank need at least 2 observations", field="probe_batch")
    return Environment(suite, env_id, steps, every, probe_batch)


def load_classic(env: str, steps: int = 20_000, every: int = 1_000, probe_batch: int = 256) -> Environment:
    return environment("classic", env, steps, every, probe_batch)


def load_minatar(game: str, steps: int = 100_000, every: int = 5_000, probe_batch: int = 256) -> Environment:
    return environment("minatar", game, steps, every, probe_batch)


def load_mujoco(env: str, steps: int = 50_000, every: int = 5_000, probe_batch: int = 256) -> Environment:
    try:
        import mujoco  # noqa: F401
    except ImportError as exc:
        raise DataError("the mujoco suite needs the `mujoco` package", hint="pip install mujoco") from exc
    return environment("mujoco", env, steps, every, probe_batch)
