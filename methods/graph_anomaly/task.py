"""Node-level graph anomaly detection, the GADBench protocol (Tang et al., NeurIPS 2023).

A method sees the whole graph (transductive) and the labels of the training and
validation nodes, and returns one anomaly score per node; metrics use test nodes only.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task


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


@dataclass(frozen=True)
class NodeScoringInputs:
    """What a detector may see: the graph and the labels of train and validation nodes."""

    x: np.ndarray
    edge_index: np.ndarray
    train_idx: np.ndarray  # int64 node ids
    train_y: np.ndarray    # int64 labels of train_idx
    val_idx: np.ndarray
    val_y: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])


@dataclass(frozen=True)
class NodeScoringTruth:
    test_idx: np.ndarray
    test_y: np.ndarray
