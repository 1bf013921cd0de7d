"""MASA's extraction and reshaping: an exact low-rank source is reproduced, every reshaped matrix has the
student's shape and exactly orthonormal singular factors, and the two alignment terms behave as defined."""
from __future__ import annotations

import pytest
import torch

from methods.model_init.genes import (FFN, groups, learn_genes, orthonormal, reshape_ffn, reshape_matrix,
                                      resize_rows, spectral_term, svd_of_factors)


def _low_rank(rows: int, cols: int, rank: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, rank, generator=g, dtype=torch.float64) @ torch.randn(rank, cols, generator=g,
                                                                                  dtype=torch.float64) / rank


def _source(hidden: int = 12, ffn: int = 24, rank: int = 3, seed: int = 0) -> FFN:
    return FFN(_low_rank(ffn, hidden, rank, seed), _low_rank(ffn, hidden, rank, seed + 1),
               _low_rank(hidden, ffn, rank, seed + 2))


@pytest.mark.parametrize("rank", [3, 5, 12])
def test_reshaping_an_exact_low_rank_ffn_to_its_own_shape_reproduces_it(rank):
    source = _source()
    x = torch.randn(50, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
    student = reshape_ffn(source, torch.arange(12), torch.arange(24), rank)  # rank >= the true rank 3
    torch.testing.assert_close(student(x), source(x), atol=1e-5, rtol=0)
    for mine, theirs in zip(student.matrices(), source.matrices(), strict=True):
        torch.testing.assert_close(mine, theirs, atol=1e-10, rtol=0)


def test_a_rank_below_the_true_rank_does_not_reproduce_it():
    source = _source()
    student = reshape_ffn(source, torch.arange(12), torch.arange(24), 2)
    assert (student.gate - source.gate).norm() > 1e-3 * source.gate.norm()


def test_genes_learned_from_an_exact_low_rank_source_reproduce_its_ffn():
    layers = [_source(seed=0)]
    x = torch.randn(64, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    (gene,) = learn_genes(layers, [x], genes=1, rank=3, output_weight=1.0, spectral_weight=1.0, subspace_rank=2,
                          steps=20, lr=1e-3)
    student = reshape_ffn(gene, torch.arange(12), torch.arange(24), 3)
    torch.testing.assert_close(student(x), layers[0](x), atol=1e-5, rtol=0)


def test_output_alignment_moves_a_shared_gene_towards_its_layers_outputs():
    layers = [_source(seed=0, rank=6), _source(seed=10, rank=6)]
    x = [torch.randn(64, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(s)) for s in (1, 2)]

    def error(gene: FFN) -> float:
        return sum(float(((gene(xi) - f(xi)) ** 2).sum() / (f(xi) ** 2).sum()) for f, xi in zip(layers, x,
                                                                                               strict=True))

    (before,) = learn_genes(layers, x, 1, 4, 1.0, 0.0, 2, steps=0, lr=1e-2)
    (after,) = learn_genes(layers, x, 1, 4, 1.0, 0.0, 2, steps=60, lr=1e-2)
    assert error(after) < 0.9 * error(before)


def test_every_reshaped_matrix_has_the_students_shape_and_orthonormal_factors():
    gene = _source(hidden=12, ffn=24, rank=8)
    channels, neurons = torch.tensor([0, 2, 5, 7, 11]), torch.arange(0, 24, 3)
    student = reshape_ffn(gene, channels, neurons, rank=6)
    assert student.gate.shape == student.up.shape == (8, 5) and student.down.shape == (5, 8)
    grown = reshape_ffn(gene, 16, 30, rank=6)  # expansion: zero rows added, then orthonormalised
    assert grown.gate.shape == (30, 16) and grown.down.shape == (16, 30)
    for w in (*student.matrices(), *grown.matrices()):
        u, s, vh = torch.linalg.svd(w, full_matrices=False)
        assert int((s > 1e-9 * s[0]).sum()) <= 6
    factor = resize_rows(torch.linalg.svd(gene.gate, full_matrices=False)[0][:, :5], neurons)
    torch.testing.assert_close(factor.T @ factor, torch.eye(5, dtype=torch.float64), atol=1e-12, rtol=0)


def test_truncation_keeps_the_genes_top_singular_values_exactly():
    g = _low_rank(24, 12, 8, 4)
    w = reshape_matrix(g, torch.arange(0, 24, 2), torch.arange(6), rank=5)
    torch.testing.assert_close(torch.linalg.svdvals(w)[:5], torch.linalg.svdvals(g)[:5], atol=1e-10, rtol=0)


def test_orthonormal_keeps_orthonormal_columns_and_their_signs():
    q = torch.linalg.qr(torch.randn(10, 4, dtype=torch.float64))[0]
    torch.testing.assert_close(orthonormal(q), q, atol=1e-12, rtol=0)
    torch.testing.assert_close(orthonormal(-q), -q, atol=1e-12, rtol=0)


def test_the_factored_svd_and_the_spectral_term():
    a = torch.randn(9, 3, dtype=torch.float64)
    b = torch.randn(3, 7, dtype=torch.float64)
    u, s, v = svd_of_factors(a, b)
    torch.testing.assert_close((u * s) @ v.T, a @ b, atol=1e-10, rtol=0)
    torch.testing.assert_close(s, torch.linalg.svdvals(a @ b)[:3], atol=1e-10, rtol=0)
    target = svd_of_factors(a, b)
    assert float(spectral_term(a, b, target, 2)) == pytest.approx(0.0, abs=1e-10)
    assert float(spectral_term(2 * a, b, target, 2)) == pytest.approx(1.0, abs=1e-10)  # sigma doubled
    assert float(spectral_term(a, torch.randn(3, 7, dtype=torch.float64), target, 2)) > 0.01


def test_gene_groups_are_consecutive_layers():
    assert groups(4, 2) == [[0, 1], [2, 3]]
    assert groups(3, 5) == [[0], [1], [2]]
