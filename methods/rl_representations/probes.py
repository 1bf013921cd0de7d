"""What a training run records every `every` environment steps, as an SB3 callback: the return (the mean of
the last 10 finished training episodes; before the first finishes, the running episode's return so far), the
tau-dormant ratio and srank of the actor's and critic's penultimate features on the most recent observations,
and the wall time. The checkpoints are the run's predictions table."""
from __future__ import annotations

import time
from collections import deque

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from methods.rl_representations.checkpoints import RETURN_WINDOW, Checkpoints
from methods.rl_representations.diagnostics import dormant_ratio, srank
from methods.rl_representations.policies import represented_policy


class TrainingProbe(BaseCallback):
    def __init__(self, every: int, batch: int, checkpoints: Checkpoints) -> None:
        super().__init__()
        self.every, self.next_at, self.checkpoints = every, every, checkpoints
        self.recent: deque[np.ndarray] = deque(maxlen=batch)
        self.running = 0.0
        self.started = time.perf_counter()

    def _on_step(self) -> bool:
        self.recent.extend(np.asarray(self.locals["new_obs"], dtype=np.float32))
        self.running += float(np.sum(self.locals["rewards"]))
        if np.any(self.locals["dones"]):
            self.running = 0.0
        if self.num_timesteps >= self.next_at:
            self.next_at += self.every
            self.checkpoint()
        return True

    def checkpoint(self) -> None:
        episodes = [info["r"] for info in self.model.ep_info_buffer or ()][-RETURN_WINDOW:]
        score = float(np.mean(episodes)) if episodes else self.running
        policy = self.model.policy
        was_training = policy.training
        policy.set_training_mode(False)
        with torch.no_grad():
            recent = torch.as_tensor(np.stack(self.recent), device=policy.device)
            features = represented_policy(policy).penultimate_features(recent)
        policy.set_training_mode(was_training)
        row = {"step": self.num_timesteps, "return": score, "seconds": time.perf_counter() - self.started}
        for network, values in features.items():
            array = values.cpu().numpy()
            row |= {f"dormant_{network}": dormant_ratio(array), f"srank_{network}": srank(array)}
        self.checkpoints.add(**row)
