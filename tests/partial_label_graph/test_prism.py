"""PRISM's parts against their definitions: eigenpairs, similarities, top-k graphs,
candidate-projected propagation, and the method end to end with its ablations."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st

from methods.partial_label_graph.prism import PRISM
from methods.partial_label_graph.prism.model import PRISMNet
from methods.partial_label_graph.prism.relational import (
    band_similarity, candidates_overlap, propagate, row_normalised, substructure_similarity, top_k_graph,
)
from methods.partial_label_graph.prism.spectral import normalised_laplacian, smallest_eigenpairs


def _random_candidates(rows: int, classes: int, seed: int = 0) -> torch.Tensor:
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, classes)) < 0.4
    mask[np.arange(rows), rng.integers(0, classes, rows)] = True
    return torch.as_tensor(mask, dtype=torch.float32)


def test_eigenpairs_solve_the_normalised_laplacian_and_pad_small_graphs(tiny):
    pairs = smallest_eigenpairs(tiny, count=8)
    ptr, edge_ptr = tiny.graph_ptr, tiny.edge_ptr
    for g in range(tiny.num_graphs):
        n = ptr[g + 1] - ptr[g]
        laplacian = normalised_laplacian(n, tiny.edge_index[:, edge_ptr[g]:edge_ptr[g + 1]] - ptr[g])
        t = min(8, n)
        vectors = pairs.vectors[ptr[g]:ptr[g + 1], :t].astype(np.float64)
        np.testing.assert_allclose(laplacian @ vectors, vectors * pairs.values[g, :t], atol=1e-4)
        assert pairs.valid[g].sum() == t and (pairs.vectors[ptr[g]:ptr[g + 1], t:] == 0).all()
        assert pairs.values[g, 0] == pytest.approx(0.0, abs=1e-5)       # connected: one zero eigenvalue
        # canonical signs: a largest-magnitude entry is positive (ties within float32 rounding)
        assert (vectors.max(axis=0) >= np.abs(vectors).max(axis=0) - 1e-5).all()


def test_substructure_similarity_matches_its_definition_pair_by_pair():
    torch.manual_seed(0)
    r, prototypes = torch.randn(5, 4, 3), torch.randn(4, 3)
    candidates = _random_candidates(5, 4)
    fast = substructure_similarity(r, prototypes, candidates)
    for i in range(5):
        for j in range(5):
            shared = [c for c in range(4) if candidates[i, c] and candidates[j, c]]
            expected = max(
                (float(F.cosine_similarity(r[i, c], r[j, c], dim=0)
                       * F.cosine_similarity((r[i, c] + r[j, c]) / 2, prototypes[c], dim=0)) for c in shared),
                default=float("-inf"),
            )
            assert float(fast[i, j]) == pytest.approx(expected, abs=1e-5)


def test_band_similarity_uses_only_bands_both_graphs_have():
    z = torch.randn(3, 4, 6)
    valid = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 1, 1]], dtype=torch.bool)
    s = band_similarity(z, valid)
    expected = max(float(F.cosine_similarity(z[0, p], z[1, p], dim=0)) for p in (0, 1))
    assert float(s[0, 1]) == pytest.approx(expected, abs=1e-6)
    assert s[0, 2] == float("-inf")                                      # no common band


def test_top_k_keeps_k_allowed_neighbours_per_row():
    torch.manual_seed(1)
    similarity = torch.rand(8, 8)
    candidates = _random_candidates(8, 5, seed=3)
    allowed = candidates_overlap(candidates)
    adjacency = top_k_graph(similarity, allowed, k=3)
    assert not adjacency[~allowed].any()                                 # only overlapping candidate sets
    assert ((adjacency > 0).sum(dim=1) <= 3).all() and not adjacency.diagonal().any()
    for i in range(8):
        kept = allowed[i].nonzero().flatten()
        best = kept[similarity[i, kept].argsort(descending=True)[:3]]
        assert set((adjacency[i] > 0).nonzero().flatten().tolist()) == set(best.tolist())


def test_propagation_rows_stay_distributions_supported_on_the_candidates():
    torch.manual_seed(2)
    candidates = _random_candidates(10, 6, seed=4)
    initial = torch.rand(10, 6)
    adjacencies = [top_k_graph(torch.rand(10, 10), candidates_overlap(candidates), 3) for _ in range(2)]
    labels = propagate(initial, adjacencies, candidates, mu=0.5, iterations=5)
    assert torch.allclose(labels.sum(dim=1), torch.ones(10), atol=1e-6)
    assert (labels >= 0).all() and not labels[candidates == 0].any()


def test_propagation_without_neighbours_is_the_projected_start():
    candidates = _random_candidates(4, 3)
    initial = torch.rand(4, 3)
    labels = propagate(initial, [torch.zeros(4, 4)], candidates, mu=0.5, iterations=3)
    assert torch.allclose(labels, row_normalised(initial * candidates))


def test_propagation_moves_mass_toward_the_label_neighbours_share():
    candidates = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    ring = torch.ones(3, 3) - torch.eye(3)
    labels = propagate(torch.ones(3, 3), [ring], candidates, mu=0.5, iterations=3)
    assert labels[0, 0] > 0.5                                            # class 0: the one label all three share


def _run(method: PRISM, instance, context) -> np.ndarray:
    return method.run(instance.inputs, context)


def test_prism_returns_class_probabilities_and_keeps_q_on_the_candidates(tiny_instance, context):
    method = PRISM(epochs=3, warmup_epochs=1, eigenpairs=4, batch_size=16)
    scores = _run(method, tiny_instance, context)
    assert scores.shape == (tiny_instance.inputs.graphs.num_graphs, 3) and np.isfinite(scores).all()
    q, candidates = method.confidence, torch.as_tensor(tiny_instance.inputs.train_candidates, dtype=torch.float32)
    assert torch.allclose(q.sum(dim=1), torch.ones(len(q)), atol=1e-5) and not q[candidates == 0].any()
    assert "eigen_seconds" in context.measurements and "best_val_accuracy" in context.measurements


@pytest.mark.parametrize("ablation", [
    {}, {"substructure": False}, {"spatial": False}, {"spectral": False}, {"propagation": False},
    {"propagation_start": "confidence"}, {"spatial_input": "substructures"}, {"spectral_node_states": False},
    {"prototype_filter": "candidates"}, {"weighted_edges": False}, {"inference": "spatial"}, {"inference": "spectral"},
])
def test_every_ablation_trains(tiny_instance, context, ablation):
    scores = _run(PRISM(epochs=2, warmup_epochs=0, eigenpairs=4, batch_size=16, **ablation), tiny_instance, context)
    assert np.isfinite(scores).all()


def test_prism_needs_a_view_and_valid_parameters():
    with pytest.raises(ValueError, match="at least one view"):
        PRISM(spatial=False, spectral=False)
    with pytest.raises(ValueError, match=r"mu must be < 1"):
        PRISM(mu=1.5)
    with pytest.raises(ValueError, match="propagation_start"):
        PRISM(propagation_start="labels")
    with pytest.raises(ValueError, match="inference 'spectral' reads a view this variant switches off"):
        PRISM(spectral=False, inference="spectral")
    with pytest.raises(ValueError, match="spatial_input 'substructures' needs"):
        PRISM(substructure=False, spatial_input="substructures")


def test_unweighted_top_k_keeps_the_same_edges_with_weight_one():
    torch.manual_seed(3)
    similarity = torch.randn(8, 8)
    allowed = candidates_overlap(_random_candidates(8, 5, seed=5))
    weighted, binary = top_k_graph(similarity, allowed, 3), top_k_graph(similarity, allowed, 3, weighted=False)
    kept = binary > 0
    assert set(binary[kept].tolist()) == {1.0} and not binary[~allowed].any()
    assert ((weighted > 0) <= kept).all()                      # weighting only zeroes negative similarities
    assert torch.equal(weighted[kept], similarity[kept].clamp_min(0))


@pytest.mark.parametrize("prototype_filter, expected_members", [("argmax", [[0], [1]]), ("candidates", [[0], [0, 1]])])
def test_prototypes_move_toward_the_graphs_the_filter_admits(prototype_filter, expected_members):
    net = PRISMNet(3, 2, hidden=4, layers=1, dropout=0.0, harmonics=2, head_layers=1, attention_temperature=0.1,
                   spatial=True, spectral=False, substructure=True, prototype_filter=prototype_filter)
    embeddings = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    confidence = torch.tensor([[0.9, 0.1], [0.0, 1.0]])        # graph 0 leans to class 0, graph 1 is class 1
    candidates = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    net.update_prototypes(embeddings, confidence, candidates, momentum=0.5)
    for c, members in enumerate(expected_members):
        assert torch.allclose(net.prototypes[c], 0.5 * embeddings[members].mean(dim=0))


def test_one_propagation_round_is_the_restart_mix_projected_onto_the_candidates():
    candidates = _random_candidates(6, 4, seed=7)
    initial, adjacency = torch.rand(6, 4), torch.rand(6, 6)
    y0 = row_normalised(initial * candidates)
    expected = row_normalised((0.3 * y0 + 0.7 * row_normalised(adjacency @ y0)) * candidates)
    assert torch.allclose(propagate(initial, [adjacency], candidates, mu=0.3, iterations=1), expected, atol=1e-6)


def test_without_restart_a_row_whose_neighbours_hold_none_of_its_candidates_keeps_its_value():
    candidates = torch.tensor([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    initial = torch.tensor([[0.7, 0.3, 0.0], [0.0, 0.0, 1.0]])     # graph 1 is sure of class 2, outside S_0
    edge = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    labels = propagate(initial, [edge], candidates, mu=0.0, iterations=1)
    assert torch.allclose(labels[0], initial[0])                   # nothing on {0, 1} arrives: kept
    assert torch.allclose(labels[1], torch.tensor([0.0, 1.0, 0.0]))  # graph 0's class-1 mass, projected


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, 12), classes=st.integers(2, 7), mu=st.floats(0.0, 0.99), rounds=st.integers(1, 6),
       seed=st.integers(0, 10_000))
@example(rows=2, classes=2, mu=1.401298464324817e-45, rounds=1, seed=0)   # a denormal restart weight
def test_any_propagation_keeps_rows_distributions_on_their_candidates(rows, classes, mu, rounds, seed):
    torch.manual_seed(seed)
    candidates = _random_candidates(rows, classes, seed=seed)
    adjacencies = [top_k_graph(torch.randn(rows, rows), candidates_overlap(candidates), k=3) for _ in range(2)]
    labels = propagate(torch.rand(rows, classes), adjacencies, candidates, mu=mu, iterations=rounds)
    assert torch.allclose(labels.sum(dim=1), torch.ones(rows), atol=1e-5)
    assert (labels >= 0).all() and not labels[candidates == 0].any()
