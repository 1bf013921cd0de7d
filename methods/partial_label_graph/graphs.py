"""A set of small graphs stored flat, the way TU datasets ship: one node array, one edge
array and a pointer giving each graph's node range."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GraphSet:
    """Labelled graphs for graph classification, optionally with user-supplied candidate sets.

    Edges never cross graphs, are stored in both directions and sorted by source, so the
    edges of graph g are one contiguous slice (`edge_ptr`).
    """

    name: str
    x: np.ndarray           # float32 [N, F]
    edge_index: np.ndarray  # int64 [2, E], global node ids, both directions, sorted by (source, target)
    graph_ptr: np.ndarray   # int64 [G + 1]: graph g holds nodes graph_ptr[g] .. graph_ptr[g + 1] - 1
    y: np.ndarray           # int64 [G], classes 0 .. num_classes - 1
    num_classes: int
    candidates: np.ndarray | None = None  # bool [G, num_classes]: user-supplied candidate sets, else generated

    @property
    def num_graphs(self) -> int:
        return int(self.y.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.x.shape[1])

    @property
    def edge_ptr(self) -> np.ndarray:
        """int64 [G + 1]: graph g's edges are edge_index[:, edge_ptr[g] : edge_ptr[g + 1]]."""
        return np.searchsorted(self.edge_index[0], self.graph_ptr).astype(np.int64)

    def sizes(self) -> np.ndarray:
        """Nodes per graph, int64 [G]."""
        return np.diff(self.graph_ptr)

    def without_labels(self) -> GraphSet:
        """The same graphs with every label hidden (y = -1): what a method is handed."""
        return GraphSet(
            self.name, self.x, self.edge_index, self.graph_ptr,
            np.full_like(self.y, -1), self.num_classes, candidates=None,
        )
