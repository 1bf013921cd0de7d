"""GraphCL's four graph augmentations (You et al., "Graph Contrastive Learning with Augmentations",
NeurIPS 2020, Sec. 3.1) on a `GraphBatch`, vectorised over the batch.

`ratio` is the share of each graph that an augmentation touches, 0.2 by default (GraphCL's
augmentation strength; its unsupervised TU code uses 0.1 for three of them):
- node dropping removes floor(ratio * n) random nodes and their edges;
- edge perturbation drops floor(ratio * m) of the m undirected edges, both directions together
  (GraphCL's TU code only drops; the edges it draws to add are never used);
- attribute masking replaces floor(ratio * n) nodes' features by the graph's mean feature vector
  (the mask token of GraphCL's semi-supervised TU code);
- subgraph keeps n - floor(ratio * n) nodes grown from a random seed node by breadth-first growth,
  each layer of new neighbours taken in random order until the budget is met. GraphCL samples
  neighbours of the growing set; in a component smaller than the budget it stops, as GraphCL does.
Every graph keeps at least one node. Results keep `graph_ids` and node order; local node ids and
`batch` are renumbered. A GraphCL pool ("random2": node dropping or subgraph, "random3": + edge
perturbation, "random4": all four) lets each graph draw its own augmentation.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch_geometric.nn import global_mean_pool

from methods.partial_label_graph.batching import GraphBatch

AUGMENTATIONS = ("node_dropping", "edge_perturbation", "attribute_masking", "subgraph")
POOLS = {
    "random2": ("node_dropping", "subgraph"),
    "random3": ("node_dropping", "subgraph", "edge_perturbation"),
    "random4": ("node_dropping", "subgraph", "edge_perturbation", "attribute_masking"),
}
IDENTITY = "none"


@dataclass(frozen=True)
class _Edit:
    """What an augmentation does to a batch, before it is applied."""

    node_keep: Tensor  # bool [n]
    edge_keep: Tensor  # bool [e]; an edge also goes when either end node goes
    masked: Tensor     # bool [n]: features replaced by the graph's mean


def check_augmentation(key: str, name: object) -> None:
    """`ValueError` naming `key` unless `name` is an augmentation, a GraphCL pool or "none"."""
    allowed = (*AUGMENTATIONS, *POOLS, IDENTITY)
    if name not in allowed:
        raise ValueError(f"{key} must be one of {', '.join(allowed)}, got {name!r}")


def check_ratio(key: str, ratio: object) -> None:
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0.0 <= ratio < 1.0:
        raise ValueError(f"{key} must be a fraction in [0, 1), got {ratio!r}")


def augment(batch: GraphBatch, name: str, generator: torch.Generator, ratio: float = 0.2) -> GraphBatch:
    """`batch` under augmentation `name`; under a pool each graph draws one member uniformly."""
    check_augmentation("augmentation", name)
    check_ratio("ratio", ratio)
    if name == IDENTITY:
        return batch
    if name in POOLS:
        return _apply(batch, _pooled_edit(batch, POOLS[name], generator, ratio))
    return _apply(batch, _EDITS[name](batch, generator, ratio))


def node_dropping(batch: GraphBatch, generator: torch.Generator, ratio: float = 0.2) -> GraphBatch:
    return augment(batch, "node_dropping", generator, ratio)


def edge_perturbation(batch: GraphBatch, generator: torch.Generator, ratio: float = 0.2) -> GraphBatch:
    return augment(batch, "edge_perturbation", generator, ratio)


def attribute_masking(batch: GraphBatch, generator: torch.Generator, ratio: float = 0.2) -> GraphBatch:
    return augment(batch, "attribute_masking", generator, ratio)


def subgraph(batch: GraphBatch, generator: torch.Generator, ratio: float = 0.2) -> GraphBatch:
    return augment(batch, "subgraph", generator, ratio)


def _uniform(count: int, generator: torch.Generator, device: torch.device) -> Tensor:
    return torch.rand(count, generator=generator, device=generator.device).to(device)


def _random_ranks(group: Tensor, num_groups: int, generator: torch.Generator, eligible: Tensor | None = None) -> Tensor:
    """Each entry's position in a uniformly random order of its group, eligible entries first.

    One sort of group * 2 + u (u uniform in [0, 1), plus 1 when not eligible) orders the groups
    and, within each, shuffles; float64 keeps it exact for any batch size.
    """
    key = _uniform(group.numel(), generator, group.device).double()
    if eligible is not None:
        key = key + (~eligible).double()
    order = torch.argsort(group.double() * 2.0 + key)
    counts = torch.bincount(group, minlength=num_groups)
    start = torch.cumsum(counts, 0) - counts
    ranks = torch.empty_like(group)
    ranks[order] = torch.arange(group.numel(), device=group.device) - start[group[order]]
    return ranks


def _share(sizes: Tensor, ratio: float) -> Tensor:
    """floor(ratio * size) per graph: never a whole graph, since ratio < 1."""
    return torch.floor(sizes.double() * ratio).long()


def _unchanged(batch: GraphBatch) -> _Edit:
    n, e = batch.x.shape[0], batch.edge_index.shape[1]
    device = batch.x.device
    return _Edit(torch.ones(n, dtype=torch.bool, device=device), torch.ones(e, dtype=torch.bool, device=device),
                 torch.zeros(n, dtype=torch.bool, device=device))


def _node_dropping(batch: GraphBatch, generator: torch.Generator, ratio: float) -> _Edit:
    sizes = torch.bincount(batch.batch, minlength=batch.num_graphs)
    ranks = _random_ranks(batch.batch, batch.num_graphs, generator)
    edit = _unchanged(batch)
    return _Edit(ranks >= _share(sizes, ratio)[batch.batch], edit.edge_keep, edit.masked)


def _edge_perturbation(batch: GraphBatch, generator: torch.Generator, ratio: float) -> _Edit:
    n = batch.x.shape[0]
    src, dst = batch.edge_index
    pair = torch.minimum(src, dst) * n + torch.maximum(src, dst)
    undirected, which = torch.unique(pair, return_inverse=True)
    graph = batch.batch[undirected // n]
    per_graph = torch.bincount(graph, minlength=batch.num_graphs)
    ranks = _random_ranks(graph, batch.num_graphs, generator)
    kept = ranks >= _share(per_graph, ratio)[graph]
    edit = _unchanged(batch)
    return _Edit(edit.node_keep, kept[which], edit.masked)


def _attribute_masking(batch: GraphBatch, generator: torch.Generator, ratio: float) -> _Edit:
    sizes = torch.bincount(batch.batch, minlength=batch.num_graphs)
    ranks = _random_ranks(batch.batch, batch.num_graphs, generator)
    edit = _unchanged(batch)
    return _Edit(edit.node_keep, edit.edge_keep, ranks < _share(sizes, ratio)[batch.batch])


def _subgraph(batch: GraphBatch, generator: torch.Generator, ratio: float) -> _Edit:
    group, num_graphs = batch.batch, batch.num_graphs
    sizes = torch.bincount(group, minlength=num_graphs)
    budget = sizes - _share(sizes, ratio)
    inside = _random_ranks(group, num_graphs, generator) == 0   # one seed node per graph
    src, dst = batch.edge_index
    while True:
        need = budget - torch.bincount(group[inside], minlength=num_graphs)
        reached = torch.zeros_like(inside)
        reached[dst[inside[src]]] = True
        frontier = reached & ~inside & (need[group] > 0)
        if not bool(frontier.any()):
            break
        if bool((torch.bincount(group[frontier], minlength=num_graphs) <= need).all()):
            inside |= frontier   # a whole breadth-first layer fits every budget: no draw needed
            continue
        ranks = _random_ranks(group, num_graphs, generator, eligible=frontier)
        inside |= frontier & (ranks < need[group])
    edit = _unchanged(batch)
    return _Edit(inside, edit.edge_keep, edit.masked)


_EDITS = {
    "node_dropping": _node_dropping,
    "edge_perturbation": _edge_perturbation,
    "attribute_masking": _attribute_masking,
    "subgraph": _subgraph,
}


def _pooled_edit(batch: GraphBatch, names: tuple[str, ...], generator: torch.Generator, ratio: float) -> _Edit:
    """Every member's edit, each graph taking the one it drew."""
    edits = [_EDITS[name](batch, generator, ratio) for name in names]
    choice = torch.randint(len(names), (batch.num_graphs,), generator=generator, device=generator.device)
    choice = choice.to(batch.x.device)
    node_choice, edge_choice = choice[batch.batch], choice[batch.batch[batch.edge_index[0]]]

    def pick(field: str, chosen: Tensor) -> Tensor:
        stacked = torch.stack([getattr(edit, field) for edit in edits])
        return stacked.gather(0, chosen.unsqueeze(0)).squeeze(0)

    return _Edit(pick("node_keep", node_choice), pick("edge_keep", edge_choice), pick("masked", node_choice))


def _apply(batch: GraphBatch, edit: _Edit) -> GraphBatch:
    x = batch.x
    if bool(edit.masked.any()):
        token = global_mean_pool(x, batch.batch, size=batch.num_graphs)
        x = torch.where(edit.masked.unsqueeze(1), token[batch.batch], x)
    keep = edit.node_keep
    local = torch.cumsum(keep.long(), 0) - 1
    src, dst = batch.edge_index
    edges = edit.edge_keep & keep[src] & keep[dst]
    return GraphBatch(batch.graph_ids, x[keep], local[batch.edge_index[:, edges]], batch.batch[keep],
                      batch.node_ids[keep])
