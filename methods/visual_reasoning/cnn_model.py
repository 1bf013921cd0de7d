"""A small convolutional classifier on CPU: three strided convolutions, a pooled grid of features joined with a
condition vector (the question's facts: which object, which bar), two dense layers. Trained with Adam on
cross-entropy, full epochs over shuffled mini-batches, seeded."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

BATCH = 64
POOL = 6  # the pooled feature grid keeps coarse positions (quadrants, bars, maze cells)


def network(channels: int, condition: int, classes: int, width: int) -> Any:
    import torch
    from torch import nn

    class ConditionedCnn(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(channels, width // 2, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(width // 2, width, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
                nn.AdaptiveAvgPool2d(POOL), nn.Flatten())
            self.head = nn.Sequential(nn.Linear(width * POOL * POOL + condition, 128), nn.ReLU(),
                                      nn.Linear(128, classes))

        def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
            return self.head(torch.cat([self.features(x), c], dim=1))

    return ConditionedCnn()


@dataclass
class Examples:
    """Training or query examples: images (N, C, H, W) in [0, 1], conditions (N, D), labels (N,) or None."""

    x: np.ndarray
    condition: np.ndarray
    y: np.ndarray | None = None


class Classifier:
    """A trained `network`; `log_probabilities` of every class for query examples."""

    def __init__(self, examples: Examples, classes: int, width: int, epochs: int, lr: float, seed: int) -> None:
        import torch

        torch.manual_seed(seed)
        assert examples.y is not None
        self.model = network(examples.x.shape[1], examples.condition.shape[1], classes, width)
        optimiser = torch.optim.Adam(self.model.parameters(), lr=lr)
        x, c = torch.from_numpy(examples.x).float(), torch.from_numpy(examples.condition).float()
        y = torch.from_numpy(examples.y).long()
        generator = torch.Generator().manual_seed(seed)
        self.model.train()
        for _ in range(epochs):
            for batch in torch.randperm(len(y), generator=generator).split(BATCH):
                optimiser.zero_grad()
                loss = torch.nn.functional.cross_entropy(self.model(x[batch], c[batch]), y[batch])
                loss.backward()
                optimiser.step()
        self.model.eval()

    def log_probabilities(self, examples: Examples) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits = self.model(torch.from_numpy(examples.x).float(), torch.from_numpy(examples.condition).float())
            return torch.log_softmax(logits, dim=1).numpy().astype(np.float64)
