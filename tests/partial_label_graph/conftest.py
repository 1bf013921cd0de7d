"""A tiny graph set the family's tests share: two classes told apart by a triangle."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from harness import RunContext
from methods.partial_label_graph.graphs import GraphSet
from methods.partial_label_graph.task import PartialLabelClassification


def tiny_graph_set(num_graphs: int = 48, num_classes: int = 3, seed: int = 0) -> GraphSet:
    """Paths of 5-9 nodes; class c closes c triangles on the path, features are noise."""
    rng = np.random.default_rng(seed)
    edges, ptr, y = [], [0], np.arange(num_graphs) % num_classes
    for g in range(num_graphs):
        n, start = int(rng.integers(5, 10)), ptr[-1]
        pairs = [(i, i + 1) for i in range(n - 1)] + [(2 * t, 2 * t + 2) for t in range(int(y[g]))]
        for a, b in pairs:
            edges += [(start + a, start + b), (start + b, start + a)]
        ptr.append(start + n)
    edge_index = np.array(sorted(edges), dtype=np.int64).T
    x = rng.normal(size=(ptr[-1], 4)).astype(np.float32)
    return GraphSet("tiny", x, edge_index, np.array(ptr, dtype=np.int64), y.astype(np.int64), num_classes)


@pytest.fixture
def tiny() -> GraphSet:
    return tiny_graph_set()


@pytest.fixture
def tiny_instance(tiny):
    return PartialLabelClassification().instance(tiny, {"q": 0.5, "train": 0.6, "val": 0.2}, seed=0)


@pytest.fixture
def context():
    torch.set_num_threads(1)
    return RunContext(seed=0, device="cpu", threads=1)
