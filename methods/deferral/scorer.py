"""The learned scorer r(x) over entities (or over actions), trained with the deferral surrogate: a linear map
or a one-hidden-layer MLP, full-batch Adam on CPU. Trained scorers are kept in a small per-process cache keyed
by their training data and settings, so runs that differ only in k (or in how they use the scores) reuse one."""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from methods.deferral.surrogate import Surrogate, deferral_surrogate

if TYPE_CHECKING:
    import torch

_CACHE_SIZE = 64  # linear scorers are small; a suite cycles through 8 cost scales per (data, seed)


@dataclass(frozen=True)
class ScorerConfig:
    hidden: int = 0           # 0: a linear scorer
    epochs: int = 300
    lr: float = 0.01
    weight_decay: float = 1e-4
    surrogate: Surrogate = "log_softmax"
    q: float = 0.7            # generalised cross-entropy's exponent


class Scorer:
    """A trained scorer: `scores(features)` gives (n, outputs) scores; higher means consult first."""

    def __init__(self, network: torch.nn.Module) -> None:
        self._network = network

    def scores(self, features: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            return self._network(torch.as_tensor(features, dtype=torch.float32)).numpy().astype(np.float64)


def train_scorer(features: np.ndarray, costs: np.ndarray, config: ScorerConfig, seed: int) -> Scorer:
    """Minimise the surrogate over (n, d) features and (n, outputs) costs."""
    import torch

    torch.manual_seed(seed)
    inputs = torch.as_tensor(features, dtype=torch.float32)
    targets = torch.as_tensor(costs, dtype=torch.float32)
    width = costs.shape[1]
    layers: list[torch.nn.Module] = ([torch.nn.Linear(features.shape[1], width)] if config.hidden == 0 else
                                     [torch.nn.Linear(features.shape[1], config.hidden), torch.nn.ReLU(),
                                      torch.nn.Linear(config.hidden, width)])
    network = torch.nn.Sequential(*layers)
    optimiser = torch.optim.Adam(network.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    for _ in range(config.epochs):
        optimiser.zero_grad()
        deferral_surrogate(network(inputs), targets, config.surrogate, config.q).backward()
        optimiser.step()
    network.eval()
    return Scorer(network)


_trained: OrderedDict[str, Scorer] = OrderedDict()


def shared_scorer(features: np.ndarray, costs: np.ndarray, config: ScorerConfig, seed: int) -> Scorer:
    """`train_scorer`'s result for these exact inputs, trained once per process (least recently used out)."""
    key = hashlib.sha256(b"".join([np.ascontiguousarray(features, np.float64).tobytes(), str(features.shape).encode(),
                                   np.ascontiguousarray(costs, np.float64).tobytes(), str(costs.shape).encode(),
                                   repr(sorted(asdict(config).items())).encode(), str(seed).encode()])).hexdigest()
    if key in _trained:
        _trained.move_to_end(key)
        return _trained[key]
    scorer = _trained[key] = train_scorer(features, costs, config, seed)
    if len(_trained) > _CACHE_SIZE:
        _trained.popitem(last=False)
    return scorer
