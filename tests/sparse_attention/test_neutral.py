"""The neutral generator plants nothing: heads agree on positions only by chance, pooled block scores
are not misled, and its attention is still concentrated enough for sparse methods to matter."""
from __future__ import annotations

import math
from functools import cache

import pytest
import torch

from harness import DataError
from methods.sparse_attention.data import neutral
from methods.sparse_attention.neutral import NeutralSpec, neutral_cases, smooth_gaussian
from methods.sparse_attention.fidelity import causal_pair_density
from methods.sparse_attention.oracle import OracleTopK
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.synthetic import PatternSpec, structured_cases
from methods.sparse_attention.true_attention import block_mass, expand_kv

BLOCK, TOP = 64, 4
NEUTRAL = NeutralSpec(seq_len=2048, layers=1)
PLANTED = PatternSpec(seq_len=2048, layers=1)


@cache
def _drawn(generator: str, seed: int) -> tuple[AttentionCase, torch.Tensor]:
    """A case of the neutral or the planted generator and its true block mass (shared by the tests)."""
    case = (neutral_cases(NEUTRAL, seed) if generator == "neutral" else structured_cases(PLANTED, seed))[0]
    return case, block_mass(case, BLOCK)


def _top_block_overlap(generator: str, seed: int) -> tuple[float, float]:
    """Mean share of TOP key blocks two query heads both rank highest (last query block, its diagonal and
    previous block left out: every causal model attends there), and what independent heads would share."""
    row = _drawn(generator, seed)[1][:, -1, :-2]
    top = [set(t.tolist()) for t in row.topk(TOP, dim=-1).indices]
    shares = [len(a & b) / TOP for i, a in enumerate(top) for b in top[i + 1:]]
    return sum(shares) / len(shares), TOP / row.shape[-1]


def _pooled_share(generator: str, seed: int) -> torch.Tensor:
    """Per (head, query block): the mass of the TOP key blocks ranked by block-mean Q . block-mean K
    (FlexPrefill's pooled score) over the mass of the TOP blocks ranked by their true mass."""
    case, mass = _drawn(generator, seed)
    heads, nb, _ = mass.shape
    keys = expand_kv(case.k, case.group_size).reshape(heads, nb, BLOCK, -1).mean(2)
    pooled = case.q.reshape(heads, nb, BLOCK, -1).mean(2) @ keys.transpose(1, 2)
    below = torch.ones(nb, nb, dtype=torch.bool).tril(-1)
    rows = range(2 * TOP, nb)
    found = torch.stack([mass[:, m].gather(-1, pooled[:, m].masked_fill(~below[m], -math.inf).topk(TOP).indices)
                         .sum(-1) for m in rows])
    best = torch.stack([mass[:, m].masked_fill(~below[m], -1.0).topk(TOP).values.sum(-1) for m in rows])
    return found / best


def test_neutral_patterns_are_deterministic_per_seed_with_gqa_shapes():
    a, b, c = (neutral_cases(NeutralSpec(seq_len=512, layers=2), seed) for seed in (0, 0, 1))
    assert [x.name for x in a] == ["seed0/layer0", "seed0/layer1"]
    assert torch.equal(a[0].q, b[0].q) and not torch.equal(a[0].q, c[0].q) and not torch.equal(a[0].k, a[1].k)
    assert (a[0].q_heads, a[0].kv_heads, a[0].seq_len, a[0].head_dim) == (8, 2, 512, 64)


def test_smooth_gaussian_has_unit_variance_and_correlation_exp_minus_lag_over_span():
    x = smooth_gaussian(4, 20000, 8, 16.0, torch.Generator().manual_seed(0)).double()
    assert x.var().item() == pytest.approx(1.0, abs=0.05)
    assert x[:, 0].var().item() == pytest.approx(1.0, abs=0.3)  # stationary from the first token
    for lag in (1, 16, 48):
        assert (x[:, lag:] * x[:, :-lag]).mean().item() == pytest.approx(math.exp(-lag / 16), abs=0.04)


@pytest.mark.parametrize("seed", [0, 1])
def test_heads_share_top_blocks_only_by_chance_unlike_planted_patterns(seed):
    overlap, chance = _top_block_overlap("neutral", seed)
    planted, _ = _top_block_overlap("planted", seed)
    assert overlap < chance + 0.15
    assert planted > 0.6  # the planted generator shares positions across heads by design


@pytest.mark.parametrize("seed", [0, 1])
def test_pooled_block_scores_are_not_misled_unlike_planted_distractor_blocks(seed):
    share = _pooled_share("neutral", seed)
    planted = _pooled_share("planted", seed)
    assert share.mean() > 0.9 and share.quantile(0.05) > 0.7
    assert planted.quantile(0.05) < share.quantile(0.05) - 0.1


def test_attention_is_concentrated_and_heads_differ_in_sparsity():
    case = _drawn("neutral", 0)[0]
    mask = OracleTopK(gamma=0.9).estimate(case, BLOCK).mask
    per_head = [causal_pair_density(mask[h:h + 1], case.seq_len, BLOCK) for h in range(case.q_heads)]
    assert max(per_head) < 0.8  # 90 % of the mass in under 80 % of the causal pairs, every head
    assert max(per_head) - min(per_head) > 0.1


@pytest.mark.parametrize("args, message", [
    ({"heads": 4}, "unknown argument 'heads'"),
    ({"sharpness_range": 2}, "list of 2 numbers"),
    ({"sharpness_range": [3, 1]}, "low <= high"),
    ({"q_heads": 6, "kv_heads": 4}, "multiple"),
    ({"span": 0}, "span"),
])
def test_bad_neutral_arguments_are_data_errors(args, message):
    with pytest.raises(DataError, match=message):
        neutral(**args)
