"""Exact attention per query block, and the fidelity figures computed from it."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from kernels.block_layout import causal_block_mask, num_blocks
from methods.sparse_attention.fidelity import (FidelityEvaluation, case_fidelity, causal_block_density,
                                               causal_pair_density)
from methods.sparse_attention.true_attention import block_mass, expand_kv, query_block_attention
from tests.sparse_attention.conftest import random_case


def _dense_probs(case):
    k = expand_kv(case.k, case.group_size)
    logits = torch.einsum("hqd,hkd->hqk", case.q, k) / math.sqrt(case.head_dim)
    n = case.seq_len
    logits.masked_fill_(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(logits, -1)


@pytest.mark.parametrize("seq_len", [128, 200])
def test_query_block_attention_equals_the_full_softmax_block_by_block(seq_len):
    case = random_case(seq_len=seq_len)
    probs = _dense_probs(case)
    v = expand_kv(case.v, case.group_size)
    for block in query_block_attention(case, 32):
        rows = slice(32 * block.index, 32 * block.index + block.output.shape[1])
        torch.testing.assert_close(block.output, probs[:, rows] @ v, atol=1e-5, rtol=1e-5)
        expected = torch.nn.functional.pad(probs[:, rows], (0, 32 * num_blocks(seq_len, 32) - seq_len))
        expected = expected.reshape(case.q_heads, -1, num_blocks(seq_len, 32), 32).sum(-1)
        torch.testing.assert_close(block.block_mass, expected, atol=1e-6, rtol=1e-5)


def test_block_mass_rows_are_distributions_over_causal_blocks(case):
    mass = block_mass(case, 32)
    torch.testing.assert_close(mass.sum(-1), torch.ones(mass.shape[:2]), atol=1e-5, rtol=0)
    assert bool((torch.triu(mass, diagonal=1) == 0).all())


def test_the_dense_mask_recalls_everything_with_no_error(case):
    fidelity = case_fidelity(case, causal_block_mask(case.q_heads, case.seq_len, 32), 32)
    assert fidelity.density == pytest.approx(1.0)
    np.testing.assert_allclose(fidelity.row_recall, 1.0, atol=1e-5)
    assert fidelity.output_rel_error < 1e-5


def test_density_counts_causal_pairs_of_ragged_and_diagonal_blocks():
    n, b = 100, 32  # blocks of 32, 32, 32, 4 tokens
    diagonal = torch.eye(4, dtype=torch.bool)[None]
    computed = 3 * 32 * 33 / 2 + 4 * 5 / 2
    assert causal_pair_density(diagonal, n, b) == pytest.approx(computed / (n * (n + 1) / 2))


def test_block_density_counts_causal_blocks_whole_and_exceeds_pair_density_by_under_one_over_nb():
    n, b, nb = 1024, 64, 16
    assert causal_block_density(causal_block_mask(2, n, b)) == pytest.approx(1.0)
    diagonal = torch.eye(nb, dtype=torch.bool)[None]
    assert causal_block_density(diagonal) == pytest.approx(nb / (nb * (nb + 1) / 2))
    assert 0.5 / nb < causal_block_density(diagonal) - causal_pair_density(diagonal, n, b) < 1 / nb


def test_recall_of_a_row_is_its_mass_in_the_selected_blocks(case):
    mask = causal_block_mask(case.q_heads, case.seq_len, 32)
    mask[:, :, 0] = False
    mask.diagonal(dim1=1, dim2=2).fill_(True)
    fidelity = case_fidelity(case, mask, 32)
    probs = _dense_probs(case)
    expected = 1.0 - probs[:, :, :32].sum(-1)
    expected[:, :32] = 1.0  # query block 0 keeps its diagonal block, which is block 0
    np.testing.assert_allclose(fidelity.row_recall, expected.reshape(-1).double().numpy(), atol=1e-5)
    assert 0 < fidelity.output_rel_error < 2


def test_evaluation_pools_rows_of_every_case_and_averages_case_figures():
    cases = [random_case(seed=0, name="a"), random_case(seed=1, name="b", seq_len=96)]
    masks = [causal_block_mask(4, 200, 32), torch.eye(3, dtype=torch.bool).expand(4, 3, 3).clone()]
    evaluation = FidelityEvaluation(cases, masks, 32)
    assert evaluation.rows.size == 4 * 200 + 4 * 96
    assert evaluation.density() == pytest.approx((1.0 + evaluation.cases[1].density) / 2)
    assert evaluation.recall_quantile(0.0) == pytest.approx(evaluation.rows.min())
