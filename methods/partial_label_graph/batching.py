"""Minibatches of graphs cut from the flat arrays by index arithmetic alone.

PyG's `DataLoader` builds a `Data` object per graph and collates them in Python; slicing
the flat tensors is what keeps an epoch of COIL-DEL (3,900 graphs) cheap on a CPU.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from methods.partial_label_graph.graphs import GraphSet


@dataclass(frozen=True)
class GraphBatch:
    """Graphs `graph_ids` renumbered into one disjoint union, PyG's `batch` vector included."""

    graph_ids: Tensor   # int64 [B]: ids in the GraphSet
    x: Tensor           # float32 [n, F]
    edge_index: Tensor  # int64 [2, e], local node ids
    batch: Tensor       # int64 [n]: position of each node's graph in graph_ids
    node_ids: Tensor    # int64 [n]: each node's global id in the GraphSet

    @property
    def num_graphs(self) -> int:
        return int(self.graph_ids.numel())


class GraphTensors:
    """A GraphSet's arrays on one device, cut into `GraphBatch`es."""

    def __init__(self, graphs: GraphSet, device: str | torch.device) -> None:
        def tensor(array: np.ndarray) -> Tensor:
            return torch.as_tensor(array, device=device)

        self.device = torch.device(device)
        self.num_graphs = graphs.num_graphs
        self.x = tensor(graphs.x).float()
        self.edge_index = tensor(graphs.edge_index).long()
        self.graph_ptr = tensor(graphs.graph_ptr).long()
        self.edge_ptr = tensor(graphs.edge_ptr).long()

    def batch(self, graph_ids: Tensor) -> GraphBatch:
        graph_ids = graph_ids.to(self.device).long()
        node_ids, batch = _concatenated_ranges(self.graph_ptr[graph_ids], self.graph_ptr[graph_ids + 1])
        edge_ids, edge_graph = _concatenated_ranges(self.edge_ptr[graph_ids], self.edge_ptr[graph_ids + 1])
        sizes = self.graph_ptr[graph_ids + 1] - self.graph_ptr[graph_ids]
        local_start = torch.cumsum(sizes, 0) - sizes
        shift = (local_start - self.graph_ptr[graph_ids])[edge_graph]
        return GraphBatch(graph_ids, self.x[node_ids], self.edge_index[:, edge_ids] + shift, batch, node_ids)

    def batches(self, graph_ids: Tensor, batch_size: int, generator: torch.Generator | None = None) -> list[GraphBatch]:
        """`graph_ids` in batches of `batch_size`, shuffled when a generator is given."""
        if generator is not None:
            graph_ids = graph_ids[torch.randperm(graph_ids.numel(), generator=generator).to(graph_ids.device)]
        return [self.batch(chunk) for chunk in torch.split(graph_ids, batch_size)]


def _concatenated_ranges(starts: Tensor, stops: Tensor) -> tuple[Tensor, Tensor]:
    """The concatenation of arange(start, stop) over pairs, and which pair each entry came from."""
    counts = stops - starts
    owner = torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device), counts)
    offsets = torch.cumsum(counts, 0) - counts
    position = torch.arange(int(counts.sum()), device=counts.device) - offsets[owner]
    return starts[owner] + position, owner
