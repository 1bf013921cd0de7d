"""The attributed graph every loader of the family returns and the task splits (`Graph`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Graph:
    """An attributed graph with binary node labels (1 = anomaly)."""

    name: str
    x: np.ndarray           # float32 [N, F]
    edge_index: np.ndarray  # int64 [2, E], both directions, no self loops
    y: np.ndarray           # int64 [N]

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])
