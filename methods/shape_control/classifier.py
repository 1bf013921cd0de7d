"""The small shape classifier whose features the Fréchet distance compares (the harness's stand-in for FID's
Inception network, which has no 3D furniture counterpart offline): two strided 3D convolutions and a
`features`-wide layer, trained to tell chairs, stools and tables apart on the generated training shapes."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.model_cache import TRAINING_THREADS
from methods.shape_control.furniture import KINDS
from methods.common.torch_cache import Trained, load_weights, prepared
from methods.shape_control.training_set import training_shapes


@dataclass(frozen=True)
class ClassifierConfig:
    data_version: int = 1
    resolution: int = 16
    train_shapes: int = 2000
    features: int = 16
    epochs: int = 4
    batch_size: int = 64
    learning_rate: float = 2e-3


def network(config: ClassifierConfig) -> Any:
    import torch
    from torch import nn

    side = config.resolution // 4

    class ShapeClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv3d(1, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv3d(8, 16, 3, stride=2, padding=1),
                nn.ReLU(), nn.Flatten(), nn.Linear(16 * side ** 3, config.features), nn.ReLU())
            self.head = nn.Linear(config.features, len(KINDS))

        def forward(self, grids: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(grids))

    return ShapeClassifier()


def train(config: ClassifierConfig, seed: int) -> Trained:
    """Adam on cross-entropy, full shuffled epochs; the record keeps the accuracy on 300 fresh shapes."""
    import torch

    torch.manual_seed(seed)
    started = time.perf_counter()
    grids, kinds = training_shapes(config.train_shapes, config.resolution)
    x, y = torch.from_numpy(grids.astype(np.float32)).unsqueeze(1), torch.from_numpy(kinds.copy())
    model = network(config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(config.epochs):
        for batch in torch.randperm(len(y), generator=generator).split(config.batch_size):
            loss = torch.nn.functional.cross_entropy(model(x[batch]), y[batch])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
    model.eval()
    held_out, held_kinds = training_shapes(config.train_shapes + 300, config.resolution)
    with torch.no_grad():
        guessed = model(torch.from_numpy(held_out[-300:].astype(np.float32)).unsqueeze(1)).argmax(1).numpy()
    record = {"config": asdict(config), "seed": seed, "train_wall_s": round(time.perf_counter() - started, 1),
              "held_out_accuracy": float((guessed == held_kinds[-300:]).mean())}
    return model, record


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: ClassifierConfig = ClassifierConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    return prepared("shape-classifier", config, seed, num_threads, cache_dir, train)


def load(root: Path, config: ClassifierConfig) -> Any:
    return load_weights(root, network(config))


def shape_features(model: Any, grids: np.ndarray) -> np.ndarray:
    """(N, features) float64: the classifier's penultimate activations of (N, R, R, R) occupancies."""
    import torch

    with torch.no_grad():
        return model.features(torch.from_numpy(grids.astype(np.float32)).unsqueeze(1)).numpy().astype(np.float64)
