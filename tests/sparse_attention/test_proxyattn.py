"""ProxyAttn: proxy groups, per-head budgets, the row-budget rules, forced blocks and the dense fallback."""
from __future__ import annotations

import math

import pytest
import torch

from kernels.block_layout import BlockLayout, causal_block_mask, num_blocks
from methods.sparse_attention.fidelity import causal_pair_density
from methods.sparse_attention.proxyattn import ProxyAttn
from methods.sparse_attention.synthetic import PatternSpec, structured_cases
from tests.sparse_attention.conftest import random_case


@pytest.fixture(scope="module")
def planted():
    return structured_cases(PatternSpec(seq_len=1024, q_heads=8, kv_heads=2, head_dim=32, layers=1, spans=4), 0)[0]


def test_masks_are_valid_layouts_with_sink_and_diagonal(planted):
    estimate = ProxyAttn(gamma=0.9, min_budget=0).estimate(planted, 64)
    BlockLayout.from_mask(estimate.mask, planted.seq_len, 64)
    assert bool(estimate.mask[:, :, 0].all())
    assert bool(estimate.mask.diagonal(dim1=1, dim2=2).all())
    assert estimate.fallback is None and estimate.flops > 0


def test_literal_rule_keeps_ceil_of_budget_times_blocks_per_row_clipped_to_the_row(planted):
    method = ProxyAttn(gamma=0.9, min_budget=0)
    nb = num_blocks(planted.seq_len, 64)
    budgets = method.head_budgets(planted, 64)
    counts = method.estimate(planted, 64).mask.sum(-1)
    expected = torch.minimum(torch.ceil(budgets * nb)[:, None].long().clamp(min=1), torch.arange(1, nb + 1)[None])
    assert torch.equal(counts, expected)


def test_proportional_rule_scales_each_rows_budget_with_its_length(planted):
    method = ProxyAttn(gamma=0.9, min_budget=0, row_budget_rule="proportional")
    nb = num_blocks(planted.seq_len, 64)
    budgets = method.head_budgets(planted, 64)
    rows = torch.arange(1, nb + 1, dtype=torch.float64)
    expected = torch.minimum(torch.ceil(budgets[:, None] * rows).long().clamp(min=1), rows.long())
    assert torch.equal(method.estimate(planted, 64).mask.sum(-1), expected)


def test_min_budget_raises_every_row_to_its_block_count(planted):
    counts = ProxyAttn(gamma=0.1, min_budget=256).estimate(planted, 64).mask.sum(-1)
    assert bool((counts >= torch.clamp(torch.arange(1, 17), max=4)).all())


def test_heads_differ_in_budget_under_dynamic_and_share_the_mean_under_static(planted):
    dynamic = ProxyAttn(gamma=0.9, min_budget=0)
    static = ProxyAttn(gamma=0.9, min_budget=0, budget="static")
    budgets = dynamic.head_budgets(planted, 64)
    assert budgets.unique().numel() > 1
    static_counts = static.estimate(planted, 64).mask.sum(-1)
    assert bool((static_counts == static_counts[0]).all())
    nb = num_blocks(planted.seq_len, 64)
    assert static_counts[0, -1] == min(nb, math.ceil(float(budgets.mean()) * nb))


def test_budget_is_the_share_of_blocks_covering_gamma_of_the_last_query_block(planted):
    method = ProxyAttn(gamma=0.8, min_budget=0)
    n, b = planted.seq_len, 64
    q = planted.q[:, -b:]
    k = planted.k.repeat_interleave(planted.group_size, 0)
    logits = q @ k.transpose(1, 2) / math.sqrt(planted.head_dim)
    logits.masked_fill_(torch.arange(n)[None, :] > torch.arange(n - b, n)[:, None], float("-inf"))
    per_block = torch.softmax(logits, -1).mean(1).reshape(planted.q_heads, -1, b).sum(-1)
    expected = [int((per_block[h].sort(descending=True).values.cumsum(0) < 0.8).sum()) + 1 for h in range(8)]
    nb = n // b
    assert method.head_budgets(planted, b).tolist() == pytest.approx([e / nb for e in expected])


def test_groups_pool_within_gqa_groups_only():
    case = random_case(seq_len=512, q_heads=8, kv_heads=4, head_dim=16)
    one = ProxyAttn(gamma=0.5, groups=1, min_budget=0)._proxy_scores(case, 64)
    four = ProxyAttn(gamma=0.5, groups=4, min_budget=0)._proxy_scores(case, 64)
    assert one.shape == (1, 8, 8) and four.shape == (4, 8, 8)
    q_group0 = case.q[:2, ::4].mean(0, keepdim=True)
    k_group0 = case.k[:1, ::4]
    from kernels.proxy_scores import proxy_block_scores

    expected = proxy_block_scores(q_group0, k_group0, 512, 64, 4, 0.25, "max")
    torch.testing.assert_close(four[:1], expected)


def test_short_sequences_fall_back_to_dense_and_say_so():
    case = random_case(seq_len=300)
    estimate = ProxyAttn(min_budget=2048).estimate(case, 64)
    assert torch.equal(estimate.mask, causal_block_mask(case.q_heads, 300, 64))
    assert "dense" in estimate.fallback


def test_higher_gamma_never_lowers_density(planted):
    densities = [causal_pair_density(ProxyAttn(gamma=g, min_budget=0).estimate(planted, 64).mask, 1024, 64)
                 for g in (0.5, 0.8, 0.95, 1.0)]
    assert densities == sorted(densities)


@pytest.mark.parametrize("bad", [{"gamma": 0.0}, {"gamma": 1.5}, {"stride": 3}, {"groups": 0}, {"min_budget": -1},
                                 {"budget": "fixed"}, {"row_budget_rule": "other"}, {"tile_reduce": "sum"}])
def test_bad_parameters_are_rejected_at_construction(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        ProxyAttn(**bad)


def test_groups_that_do_not_divide_the_kv_heads_are_an_error():
    with pytest.raises(ValueError, match="groups=3"):
        ProxyAttn(groups=3, min_budget=0).estimate(random_case(seq_len=512, kv_heads=2), 64)
