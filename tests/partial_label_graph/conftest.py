"""What the family's tests share: a tiny graph set whose classes are told apart by triangles,
a writer of TU text files, and where the real TU files are."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from harness import RunContext
from methods.partial_label_graph.graphs import GraphSet
from methods.partial_label_graph.task import PartialLabelClassification
from tests.conftest import data_root

TU = data_root() / "tu"


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


def write_tu_raw(
    folder: Path, name: str, edge_index: np.ndarray, graph_ptr: np.ndarray, graph_labels: np.ndarray,
    node_labels: np.ndarray | None = None, attributes: np.ndarray | None = None,
) -> Path:
    """The TU collection's text files for arrays in the npz layout (0-based ids become 1-based)."""
    folder.mkdir(parents=True, exist_ok=True)
    np.savetxt(folder / f"{name}_A.txt", edge_index.T + 1, fmt="%d", delimiter=", ")
    np.savetxt(folder / f"{name}_graph_indicator.txt", np.repeat(np.arange(graph_ptr.size - 1), np.diff(graph_ptr)) + 1,
               fmt="%d")
    np.savetxt(folder / f"{name}_graph_labels.txt", graph_labels, fmt="%d")
    if node_labels is not None:
        np.savetxt(folder / f"{name}_node_labels.txt", node_labels, fmt="%d")
    if attributes is not None:
        np.savetxt(folder / f"{name}_node_attributes.txt", attributes, fmt="%.9g", delimiter=", ")
    return folder
