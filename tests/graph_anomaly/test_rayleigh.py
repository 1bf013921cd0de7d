"""Star Rayleigh quotient and the vectorised MRQ subgraph, against per-node references and the spec's figures."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from harness import RunContext
from methods.graph_anomaly.baselines.rayleigh import (
    EPS, RayleighQuotientScore, mrq_subgraph, node_signal, star_rayleigh_quotient,
)
from methods.graph_anomaly.metrics import auroc
from methods.graph_anomaly.task import NodeScoringInputs


def _random_graph(num_nodes: int, p: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Erdos-Renyi edges in both directions, plus features with a constant column, one node whose
    scaled features are all zero (s = 0) and, at random densities, some isolated nodes."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((num_nodes, num_nodes)) < p, k=1)
    src, dst = np.nonzero(upper | upper.T)
    x = rng.normal(size=(num_nodes, 5))
    x[:, 2] = 3.0
    x[0] = x.min(axis=0)
    return x.astype(np.float32), np.stack([src, dst]).astype(np.int64)


def _reference_signal(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    s = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        total = 0.0
        for f in range(x.shape[1]):
            low, high = x[:, f].min(), x[:, f].max()
            total += ((x[i, f] - low) / (high - low)) ** 2 if high > low else 0.0
        s[i] = total**0.5
    return s


def _neighbours(edge_index: np.ndarray, num_nodes: int) -> list[list[int]]:
    lists: list[list[int]] = [[] for _ in range(num_nodes)]
    for i, j in edge_index.T:
        lists[i].append(int(j))
    return lists


def _star_rq(s: np.ndarray, i: int, subset) -> float:
    num = sum((s[i] - s[j]) ** 2 for j in subset)
    return num / (s[i] ** 2 + EPS + sum(s[j] ** 2 for j in subset))


def _reference_mrq(x: np.ndarray, edge_index: np.ndarray) -> tuple[set[tuple[int, int]], np.ndarray]:
    """The spec's greedy loop, one node at a time: visit neighbours by descending a_j/b_j and
    add j while a_j/b_j exceeds the current num/den."""
    s = _reference_signal(x)
    kept, rq = set(), np.zeros(s.size)
    for i, nbrs in enumerate(_neighbours(edge_index, s.size)):
        def ratio(j: int, i: int = i) -> float:
            a, b = (s[i] - s[j]) ** 2, s[j] ** 2
            return a / b if b > 0 else (np.inf if a > 0 else 0.0)

        num, den = 0.0, s[i] ** 2 + EPS
        for j in sorted(nbrs, key=ratio, reverse=True):
            if not ratio(j) > num / den:
                break
            num, den = num + (s[i] - s[j]) ** 2, den + s[j] ** 2
            kept.add((i, j))
        rq[i] = num / den
    return kept, rq


@pytest.mark.parametrize(("num_nodes", "p", "seed"), [(40, 0.05, 0), (60, 0.1, 1), (80, 0.3, 2), (30, 0.9, 3)])
def test_vectorised_mrq_equals_the_per_node_greedy_loop(num_nodes, p, seed):
    x, edge_index = _random_graph(num_nodes, p, seed)
    subgraph = mrq_subgraph(x, edge_index)
    want_kept, want_rq = _reference_mrq(x, edge_index)
    assert {(int(i), int(j)) for i, j in edge_index[:, subgraph.kept].T} == want_kept
    np.testing.assert_allclose(subgraph.rq, want_rq, rtol=1e-9, atol=1e-12)
    want_counts = np.bincount(edge_index[0][subgraph.kept], minlength=num_nodes)
    np.testing.assert_array_equal(subgraph.neighbours_kept, want_counts)


def test_mrq_is_the_maximum_star_rq_over_all_neighbour_subsets():
    x, edge_index = _random_graph(50, 0.12, seed=4)
    s = _reference_signal(x)
    rq = mrq_subgraph(x, edge_index).rq
    checked = 0
    for i, nbrs in enumerate(_neighbours(edge_index, s.size)):
        if len(nbrs) > 9:
            continue
        best = max(_star_rq(s, i, c) for k in range(len(nbrs) + 1) for c in itertools.combinations(nbrs, k))
        assert rq[i] == pytest.approx(best, rel=1e-9, abs=1e-12)
        checked += 1
    assert checked >= 25


def test_star_rq_sums_over_every_neighbour():
    x, edge_index = _random_graph(60, 0.1, seed=5)
    s = _reference_signal(x)
    np.testing.assert_allclose(node_signal(x), s, rtol=1e-12)
    want = [_star_rq(s, i, nbrs) for i, nbrs in enumerate(_neighbours(edge_index, s.size))]
    np.testing.assert_allclose(star_rayleigh_quotient(x, edge_index), want, rtol=1e-9, atol=1e-12)
    assert np.all(mrq_subgraph(x, edge_index).rq >= star_rayleigh_quotient(x, edge_index) - 1e-12)


def test_rayleigh_score_records_neighbours_kept_and_seconds():
    x, edge_index = _random_graph(60, 0.1, seed=6)
    empty = np.zeros(0, dtype=np.int64)
    inputs = NodeScoringInputs(x, edge_index, empty, empty, empty, empty)  # label-free: no labels needed
    ctx = RunContext(seed=0, device="cpu", threads=1)
    scores = RayleighQuotientScore(variant="mrq").run(inputs, ctx)
    np.testing.assert_array_equal(scores, mrq_subgraph(x, edge_index).rq)
    want_mean = mrq_subgraph(x, edge_index).neighbours_kept.mean()
    assert ctx.measurements["mean_neighbours_kept"].value == pytest.approx(want_mean)
    assert "score_seconds" in ctx.measurements


@pytest.mark.real_data
@pytest.mark.parametrize(("name", "star_auroc", "mrq_auroc"), [("reddit", 0.559, 0.565), ("tolokers", 0.612, 0.618)])
def test_label_free_rq_matches_the_spec_sanity_figures(real_graph_path, name, star_auroc, mrq_auroc):
    archive = np.load(real_graph_path(name))
    x, edge_index, y = archive["x"], archive["edge_index"], archive["y"]
    subgraph = mrq_subgraph(x, edge_index)
    star = auroc(y, star_rayleigh_quotient(x, edge_index)) / 100
    mrq = auroc(y, subgraph.rq) / 100
    assert star == pytest.approx(star_auroc, abs=0.02)
    assert mrq == pytest.approx(mrq_auroc, abs=0.02)
