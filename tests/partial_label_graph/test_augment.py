"""GraphCL's four augmentations and its pools against their definitions (augment.py's docstring):
how many nodes or edges each one touches per graph, what it keeps, and how the result is renumbered.

Every check maps the augmented batch back to the GraphSet's global node ids (`node_ids`), so it
compares against the original graphs rather than against the implementation's own bookkeeping."""
from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest
import torch

from methods.partial_label_graph.augment import (
    AUGMENTATIONS,
    POOLS,
    attribute_masking,
    augment,
    edge_perturbation,
    node_dropping,
    subgraph,
)
from methods.partial_label_graph.batching import GraphBatch, GraphTensors
from methods.partial_label_graph.graphs import GraphSet
from tests.partial_label_graph.conftest import tiny_graph_set

RATIOS = [0.2, 0.5]


@pytest.fixture(scope="module")
def batch() -> GraphBatch:
    """48 tiny graphs (5-9 nodes, 4-11 undirected edges) in a shuffled order, so local and global ids differ."""
    torch.set_num_threads(1)
    graphs = GraphTensors(tiny_graph_set(), "cpu")
    order = torch.randperm(graphs.num_graphs, generator=torch.Generator().manual_seed(7))
    return graphs.batch(order)


def _generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _global_edges(b: GraphBatch) -> set[tuple[int, int]]:
    """Directed edges as pairs of GraphSet node ids."""
    ids = b.node_ids[b.edge_index]
    return set(zip(ids[0].tolist(), ids[1].tolist(), strict=True))


def _nodes_per_graph(b: GraphBatch) -> list[set[int]]:
    return [set(b.node_ids[b.batch == g].tolist()) for g in range(b.num_graphs)]


def _undirected_per_graph(b: GraphBatch) -> list[set[tuple[int, int]]]:
    owner = {int(v): int(g) for v, g in zip(b.node_ids, b.batch, strict=True)}
    per_graph: list[set[tuple[int, int]]] = [set() for _ in range(b.num_graphs)]
    for u, v in _global_edges(b):
        per_graph[owner[u]].add((min(u, v), max(u, v)))
    return per_graph


def _induced(edges: set[tuple[int, int]], nodes: set[int]) -> set[tuple[int, int]]:
    return {(u, v) for u, v in edges if u in nodes and v in nodes}


def _connected(nodes: set[int], edges: set[tuple[int, int]]) -> bool:
    """Breadth-first search over `edges` restricted to `nodes`."""
    if not nodes:
        return False
    neighbours: dict[int, list[int]] = {v: [] for v in nodes}
    for u, v in edges:
        if u in nodes and v in nodes:
            neighbours[u].append(v)
    start = next(iter(nodes))
    seen, queue = {start}, deque([start])
    while queue:
        for w in neighbours[queue.popleft()]:
            if w not in seen:
                seen.add(w)
                queue.append(w)
    return seen == nodes


def _assert_well_formed(original: GraphBatch, result: GraphBatch) -> None:
    """Graph ids and node order kept, features and graph membership carried with each node,
    local edge ids within range."""
    assert torch.equal(result.graph_ids, original.graph_ids)
    position = {int(v): i for i, v in enumerate(original.node_ids)}
    kept = torch.tensor([position[int(v)] for v in result.node_ids], dtype=torch.long)
    assert bool((kept[1:] > kept[:-1]).all())                      # a subsequence of the original nodes, in order
    assert torch.equal(result.batch, original.batch[kept])
    assert result.x.shape == (len(kept), original.x.shape[1])
    if result.edge_index.numel():
        assert int(result.edge_index.min()) >= 0 and int(result.edge_index.max()) < len(kept)
    assert set(result.batch.tolist()) == set(range(original.num_graphs))   # every graph keeps a node


def _assert_same(a: GraphBatch, b: GraphBatch) -> None:
    for field in ("graph_ids", "x", "edge_index", "batch", "node_ids"):
        assert torch.equal(getattr(a, field), getattr(b, field)), field


# --- node dropping ------------------------------------------------------------------------------

@pytest.mark.parametrize("ratio", RATIOS)
def test_node_dropping_removes_floor_ratio_of_each_graphs_nodes(batch, ratio):
    result = node_dropping(batch, _generator(), ratio)
    _assert_well_formed(batch, result)
    removed = 0
    for before, after in zip(_nodes_per_graph(batch), _nodes_per_graph(result), strict=True):
        assert after <= before and len(after) == len(before) - math.floor(ratio * len(before))
        assert len(after) >= 1
        removed += len(before) - len(after)
    assert removed > 0


@pytest.mark.parametrize("ratio", RATIOS)
def test_node_dropping_keeps_exactly_the_edges_between_kept_nodes_with_their_features(batch, ratio):
    result = node_dropping(batch, _generator(1), ratio)
    kept = set(result.node_ids.tolist())
    expected = _induced(_global_edges(batch), kept)
    assert _global_edges(result) == expected
    assert result.edge_index.shape[1] == len(expected)            # renumbering merged no two edges
    assert 0 < len(expected) < len(_global_edges(batch))
    x_by_id = {int(v): row for v, row in zip(batch.node_ids, batch.x, strict=True)}
    assert all(torch.equal(row, x_by_id[int(v)]) for v, row in zip(result.node_ids, result.x, strict=True))


# --- edge perturbation --------------------------------------------------------------------------

@pytest.mark.parametrize("ratio", RATIOS)
def test_edge_perturbation_drops_floor_ratio_of_each_graphs_undirected_edges(batch, ratio):
    result = edge_perturbation(batch, _generator(), ratio)
    _assert_well_formed(batch, result)
    assert torch.equal(result.node_ids, batch.node_ids) and torch.equal(result.x, batch.x)
    dropped = 0
    for before, after in zip(_undirected_per_graph(batch), _undirected_per_graph(result), strict=True):
        assert after <= before                                    # only drops, never adds
        assert len(before) - len(after) == math.floor(ratio * len(before))
        dropped += len(before) - len(after)
    assert dropped > 0


def test_edge_perturbation_drops_both_directions_of_an_edge_together(batch):
    result = edge_perturbation(batch, _generator(2), 0.5)
    edges = _global_edges(result)
    assert edges and all((v, u) in edges for u, v in edges)
    assert result.edge_index.shape[1] == 2 * sum(map(len, _undirected_per_graph(result)))


# --- attribute masking --------------------------------------------------------------------------

@pytest.mark.parametrize("ratio", RATIOS)
def test_attribute_masking_replaces_floor_ratio_of_nodes_by_the_graphs_mean_feature(batch, ratio):
    result = attribute_masking(batch, _generator(), ratio)
    total = 0
    for g in range(batch.num_graphs):
        rows = batch.batch == g
        mean = batch.x[rows].mean(dim=0)
        changed = ~(result.x[rows] == batch.x[rows]).all(dim=1)
        assert int(changed.sum()) == math.floor(ratio * int(rows.sum()))
        assert torch.allclose(result.x[rows][changed], mean.expand(int(changed.sum()), -1), atol=1e-6)
        total += int(changed.sum())
    assert total > 0


def test_attribute_masking_leaves_the_structure_unchanged(batch):
    result = attribute_masking(batch, _generator(3), 0.5)
    for field in ("graph_ids", "edge_index", "batch", "node_ids"):
        assert torch.equal(getattr(result, field), getattr(batch, field)), field
    assert not torch.equal(result.x, batch.x)


# --- subgraph -----------------------------------------------------------------------------------

@pytest.mark.parametrize("ratio", RATIOS)
def test_subgraph_keeps_a_connected_set_of_n_minus_floor_ratio_n_nodes(batch, ratio):
    result = subgraph(batch, _generator(), ratio)
    _assert_well_formed(batch, result)
    kept_edges = _global_edges(result)
    for before, after in zip(_nodes_per_graph(batch), _nodes_per_graph(result), strict=True):
        assert _connected(before, _global_edges(batch))           # the tiny graphs are connected ...
        assert after <= before and len(after) == len(before) - math.floor(ratio * len(before))
        assert _connected(after, kept_edges)                      # ... and so is each kept set
    assert _global_edges(result) == _induced(_global_edges(batch), set(result.node_ids.tolist()))


def test_subgraph_stops_at_a_component_smaller_than_its_budget():
    # one graph: a path of 6 nodes and a separate edge; budget 8 - floor(0.25 * 8) = 6
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 7)]
    edges = sorted([p for a, b in pairs for p in ((a, b), (b, a))])
    graphs = GraphSet("two-parts", np.random.default_rng(0).normal(size=(8, 2)).astype(np.float32),
                      np.array(edges, dtype=np.int64).T, np.array([0, 8]), np.array([0]), 1)
    one = GraphTensors(graphs, "cpu").batch(torch.tensor([0]))
    outcomes = set()
    for seed in range(20):
        kept = frozenset(subgraph(one, _generator(seed), 0.25).node_ids.tolist())
        assert kept in ({0, 1, 2, 3, 4, 5}, {6, 7})               # grown inside the seed node's component
        outcomes.add(kept)
    assert len(outcomes) == 2                                      # both components were drawn as seeds


# --- all of them --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [*AUGMENTATIONS, *POOLS])
def test_ratio_zero_changes_nothing(batch, name):
    _assert_same(augment(batch, name, _generator(), 0.0), batch)


@pytest.mark.parametrize("name", [*AUGMENTATIONS, *POOLS])
def test_augmentations_are_deterministic_under_the_same_generator_seed(batch, name):
    first, again = augment(batch, name, _generator(5), 0.5), augment(batch, name, _generator(5), 0.5)
    _assert_same(first, again)
    other = augment(batch, name, _generator(6), 0.5)
    assert not all(torch.equal(getattr(first, f), getattr(other, f)) for f in ("x", "edge_index", "node_ids"))


def test_the_named_wrappers_are_augment_under_their_name(batch):
    for name, wrapper in [("node_dropping", node_dropping), ("edge_perturbation", edge_perturbation),
                          ("attribute_masking", attribute_masking), ("subgraph", subgraph)]:
        _assert_same(wrapper(batch, _generator(4), 0.3), augment(batch, name, _generator(4), 0.3))


def test_none_returns_the_batch_unchanged(batch):
    assert augment(batch, "none", _generator()) is batch


@pytest.mark.parametrize("name", list(POOLS))
def test_each_graph_under_a_pool_gets_exactly_one_members_edit(batch, name):
    ratio = 0.5   # every graph has >= 5 nodes and >= 4 edges, so every member visibly edits every graph
    result = augment(batch, name, _generator(8), ratio)
    _assert_well_formed(batch, result)
    before_nodes, after_nodes = _nodes_per_graph(batch), _nodes_per_graph(result)
    before_edges, after_edges = _undirected_per_graph(batch), _undirected_per_graph(result)
    seen = set()
    for g in range(batch.num_graphs):
        rows, kept_rows = batch.batch == g, result.batch == g
        n, m = len(before_nodes[g]), len(before_edges[g])
        nodes_removed = after_nodes[g] != before_nodes[g]
        x_by_id = dict(zip(batch.node_ids[rows].tolist(), batch.x[rows], strict=True))
        kept_features = zip(result.node_ids[kept_rows].tolist(), result.x[kept_rows], strict=True)
        masked = sum(not torch.equal(row, x_by_id[v]) for v, row in kept_features)
        edges_dropped = after_edges[g] != _induced(before_edges[g], after_nodes[g])
        edits = []
        if nodes_removed:      # node dropping or subgraph: fewer nodes, induced edges, features intact
            assert len(after_nodes[g]) == n - math.floor(ratio * n)
            edits.append("nodes")
        if edges_dropped:
            assert len(before_edges[g]) - len(after_edges[g]) == math.floor(ratio * m)
            edits.append("edge_perturbation")
        if masked:
            assert masked == math.floor(ratio * n)
            edits.append("attribute_masking")
        assert len(edits) == 1, (g, edits)
        seen.add(edits[0])
    allowed = {"nodes"} | set(POOLS[name]) - {"node_dropping", "subgraph"}
    assert seen == allowed                                         # every member's kind drawn, nothing else


def _graph_part(b: GraphBatch, g: int) -> tuple[list[int], set[tuple[int, int]], torch.Tensor]:
    """Graph `g` of a batch: its global node ids in order, its global edges, its feature rows."""
    rows = b.batch == g
    ids = b.node_ids[rows].tolist()
    members = set(ids)
    return ids, {(u, v) for u, v in _global_edges(b) if u in members}, b.x[rows]


@pytest.mark.parametrize("name", list(POOLS))
def test_each_graph_under_a_pool_is_one_members_own_result(batch, name, monkeypatch):
    """Replays every member from the generator state it started from (the pool draws each member's
    edit for the whole batch): each graph's result is some member's result on that graph, and
    every member is drawn by some graph."""
    from methods.partial_label_graph import augment as module

    starts: dict[str, torch.Tensor] = {}
    for member in POOLS[name]:
        def spy(b, generator, ratio, _member=member, _edit=module._EDITS[member]):
            starts[_member] = generator.get_state()
            return _edit(b, generator, ratio)
        monkeypatch.setitem(module._EDITS, member, spy)
    result = augment(batch, name, _generator(9), 0.5)
    monkeypatch.undo()
    assert set(starts) == set(POOLS[name])
    alone = {}
    for member, state in starts.items():
        generator = torch.Generator()
        generator.set_state(state)
        alone[member] = augment(batch, member, generator, 0.5)
    drawn = set()
    for g in range(batch.num_graphs):
        ids, edges, x = _graph_part(result, g)
        matches = []
        for member, member_result in alone.items():
            member_ids, member_edges, member_x = _graph_part(member_result, g)
            if member_ids == ids and member_edges == edges and torch.equal(member_x, x):
                matches.append(member)
        assert matches, g
        drawn.update(matches)
    assert drawn == set(POOLS[name])


@pytest.mark.parametrize("kwargs, key", [
    ({"name": "dropout"}, "augmentation"), ({"name": "Random2"}, "augmentation"),
    ({"name": "node_dropping", "ratio": 1.0}, "ratio"), ({"name": "node_dropping", "ratio": -0.1}, "ratio"),
    ({"name": "node_dropping", "ratio": True}, "ratio"), ({"name": "node_dropping", "ratio": "0.2"}, "ratio"),
])
def test_bad_names_and_ratios_raise_value_errors_naming_the_key(batch, kwargs, key):
    with pytest.raises(ValueError, match=f"^{key} must"):
        augment(batch, generator=_generator(), **kwargs)


def test_the_declared_augmentation_names_are_the_ones_augment_applies():
    from typing import get_args

    from methods.partial_label_graph.augment import IDENTITY
    from methods.partial_label_graph.params import Augmentation

    assert set(get_args(Augmentation)) == {*AUGMENTATIONS, *POOLS, IDENTITY}
