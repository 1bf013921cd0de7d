"""ProxyAttn's baselines (FlexPrefill, XAttention, MInference): valid masks, the forced blocks, planted
patterns found, hyperparameters that move density the right way, and small brute-force references."""
from __future__ import annotations

import math

import pytest
import torch

from kernels.block_layout import BlockLayout, causal_block_mask, num_blocks
from methods.sparse_attention.baselines import xattention
from methods.sparse_attention.baselines.flexprefill import FlexPrefill, score_cover_topk
from methods.sparse_attention.baselines.minference import MInference, vertical_slash_block_mask
from methods.sparse_attention.baselines.xattention import XAttention, antidiagonal_block_scores, threshold_blocks
from methods.sparse_attention.last_queries import diagonal_sums
from methods.sparse_attention.method import BlockSparseMethod, dense_attention_flops
from methods.sparse_attention.problem import AttentionCase
from tests.sparse_attention.conftest import random_case

B = 64
METHODS = {
    "flexprefill": lambda: FlexPrefill(min_budget=2 * B),
    "xattention": XAttention,
    "minference": lambda: MInference(vertical_size=40, slash_size=100),
}


def planted_column_case(n: int, column_block: int, q_heads: int = 4, kv_heads: int = 2, d: int = 32) -> AttentionCase:
    """Every query matches 8 keys of `column_block` (spaced 8 apart) with logit ~48; other logits have sd ~2."""
    g = torch.Generator().manual_seed(1)
    u = torch.randn(d, generator=g)
    u /= u.norm()
    q = 10 * u + 0.5 * torch.randn(q_heads, n, d, generator=g)
    k = torch.randn(kv_heads, n, d, generator=g)
    k[:, column_block * B + torch.arange(0, 64, 8)] = 27 * u
    return AttentionCase("planted", q, k, torch.randn(kv_heads, n, d, generator=g))


def vertical_and_block_case(n: int = 1024, d: int = 32) -> tuple[AttentionCase, torch.Tensor]:
    """Head 0: one key (position 300) takes nearly all attention: a vertical line that block means blur.
    Head 1: keys constant per block and query block m attends key block m // 2: block-structured.
    Returns the case and head 1's attended block per query block."""
    g = torch.Generator().manual_seed(2)
    nb = n // B
    u = torch.randn(d, generator=g)
    u /= u.norm()
    q_line = 4 * u + 0.3 * torch.randn(n, d, generator=g)
    k_line = 0.5 * torch.randn(n, d, generator=g)
    k_line[300] = 5 * math.sqrt(d) * u                       # logit ~20 against every query
    centres = torch.randn(nb, d, generator=g)
    attended = torch.arange(nb) // 2
    k_blocks = centres.repeat_interleave(B, 0) + 0.05 * torch.randn(n, d, generator=g)
    q_blocks = 2 * centres[attended].repeat_interleave(B, 0) + 0.05 * torch.randn(n, d, generator=g)
    k = torch.stack([k_line, k_blocks])
    return AttentionCase("vs-and-blocks", torch.stack([q_line, q_blocks]), k, k.clone()), attended


def assert_valid_mask(mask: torch.Tensor, case: AttentionCase, block_size: int = B) -> None:
    nb = num_blocks(case.seq_len, block_size)
    assert mask.dtype == torch.bool and tuple(mask.shape) == (case.q_heads, nb, nb)
    BlockLayout.from_mask(mask, case.seq_len, block_size)  # causal, every row non-empty


def forced_blocks(heads: int, nb: int) -> torch.Tensor:
    """Key block 0 and the diagonal of every row."""
    forced = torch.eye(nb, dtype=torch.bool)
    forced[:, 0] = True
    return forced.expand(heads, nb, nb)


def density(mask: torch.Tensor) -> float:
    """Share of the causal blocks the mask keeps."""
    nb = mask.shape[-1]
    return float(mask.sum()) / (mask.shape[0] * nb * (nb + 1) / 2)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize(("n", "q_heads", "kv_heads"), [(1024, 8, 2), (1000, 8, 2), (777, 4, 4)])
def test_mask_is_causal_bool_with_nonempty_rows_and_keeps_first_block_and_diagonal(name, n, q_heads, kv_heads):
    case = random_case(n, q_heads, kv_heads, head_dim=32)
    estimate = METHODS[name]().estimate(case, B)
    assert_valid_mask(estimate.mask, case)
    assert bool(estimate.mask[forced_blocks(q_heads, num_blocks(n, B))].all())
    assert estimate.fallback is None
    assert 0 < estimate.flops < dense_attention_flops(case)


@pytest.mark.parametrize("name", METHODS)
def test_gqa_mask_equals_the_mask_with_kv_heads_repeated(name):
    case = random_case(1000, 8, 2, head_dim=32)
    repeated = AttentionCase("repeated", case.q, case.k.repeat_interleave(4, 0), case.v.repeat_interleave(4, 0))
    method = METHODS[name]()
    assert torch.equal(method.estimate(case, B).mask, method.estimate(repeated, B).mask)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("n", [1024, 1000])
def test_planted_vertical_key_block_is_kept_in_every_causal_row(name, n):
    case = planted_column_case(n, column_block=5)
    mask = METHODS[name]().estimate(case, B).mask
    assert bool(mask[:, 5:, 5].all())
    assert density(mask) < 0.6


def test_xattention_keeps_only_the_forced_and_planted_blocks_past_a_dominant_column():
    mask = XAttention().estimate(planted_column_case(1024, column_block=5), B).mask
    planted = forced_blocks(4, 16).clone()
    planted[:, 5:, 5] = True
    assert torch.equal(mask[:, 7:], planted[:, 7:])


@pytest.mark.parametrize("name", METHODS)
def test_ragged_sequence_gives_a_valid_mask_with_the_ragged_block(name):
    case = random_case(1000 + 17, 4, 2, head_dim=32)  # last block holds 57 of 64 positions
    assert_valid_mask(METHODS[name]().estimate(case, B).mask, case)


# FlexPrefill

def test_flexprefill_labels_a_vertical_line_head_vs_and_a_block_structured_head_query_aware():
    case, _ = vertical_and_block_case()
    stats = FlexPrefill(min_budget=2 * B).head_statistics(case, B)
    assert stats.query_aware.tolist() == [False, True]
    assert float(stats.distance[0]) > 0.5 and float(stats.distance[1]) < 0.01   # sqrt-JS is at most sqrt(ln 2)


def test_flexprefill_vs_head_keeps_the_line_and_query_aware_head_the_attended_blocks():
    case, attended = vertical_and_block_case()
    mask = FlexPrefill(min_budget=2 * B).estimate(case, B).mask
    line_block = 300 // B
    assert bool(mask[0, line_block:, line_block].all())
    rows = torch.arange(len(attended))
    # The query-aware cover is global: gamma * nb of mass over the whole head, so one row may miss.
    assert int(mask[1, rows, attended].sum()) >= len(attended) - 1
    # min_budget = 2 blocks of each kind: block 0 and one more column, the diagonal and one more offset.
    assert int(mask[1].sum(-1).max()) <= 5


def test_flexprefill_gamma_one_vs_heads_are_dense_and_small_gamma_keeps_the_forced_blocks():
    case = random_case(1024, 8, 2, head_dim=32)
    nb = 16
    dense = FlexPrefill(gamma=1.0, tau=0.0, min_budget=0).estimate(case, B).mask
    assert torch.equal(dense, causal_block_mask(8, 1024, B))
    sparse = FlexPrefill(gamma=0.05, tau=0.0, min_budget=0).estimate(case, B).mask
    assert torch.equal(sparse, forced_blocks(8, nb))


def test_flexprefill_tau_one_makes_every_head_query_aware_and_gamma_one_nearly_dense():
    case = random_case(1024, 8, 2, head_dim=32)
    method = FlexPrefill(gamma=1.0, tau=1.0, min_budget=0)
    assert bool(method.head_statistics(case, B).query_aware.all())
    assert density(method.estimate(case, B).mask) > 0.9
    assert density(FlexPrefill(gamma=0.3, tau=1.0, min_budget=0).estimate(case, B).mask) < 0.5


def test_flexprefill_short_sequence_falls_back_to_dense_causal():
    case = random_case(1000, 8, 2, head_dim=32)
    estimate = FlexPrefill().estimate(case, B)   # min_budget 1024 tokens >= N
    assert torch.equal(estimate.mask, causal_block_mask(8, 1000, B))
    assert estimate.fallback == "dense: N=1000 <= max(2B, min_budget) = 1024" and estimate.flops == 0


def test_flexprefill_cover_count_is_one_more_than_the_prefix_within_gamma():
    scores = torch.tensor([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]])
    assert score_cover_topk(scores, 0.7).tolist() == [2, 1]   # 0.5 + 0.3 reaches 0.7; 0.9 alone does


# XAttention

def brute_force_antidiagonal_scores(case: AttentionCase, block_size: int, stride: int) -> torch.Tensor:
    """Tile (r, c) scores the sum of Q[rS + S-1-t] . K[cS + t] over t (positions past N contribute 0),
    softmax with scale 1/sqrt(d)/S over tiles c <= r, then each block sums its tiles."""
    n, d = case.seq_len, case.head_dim
    nb = num_blocks(n, block_size)
    tiles = nb * block_size // stride
    out = torch.zeros(case.q_heads, nb, nb, dtype=torch.float64)
    t = torch.arange(stride)
    for h in range(case.q_heads):
        logits = case.q[h].double() @ case.k[h // case.group_size].double().T
        logits = torch.nn.functional.pad(logits, (0, tiles * stride - n, 0, tiles * stride - n))
        for r in range(tiles):
            if r * stride >= n:
                continue
            tile = torch.full((tiles,), float("-inf"), dtype=torch.float64)
            for c in range(r + 1):
                tile[c] = logits[r * stride + stride - 1 - t, c * stride + t].sum() / math.sqrt(d) / stride
            probs = torch.softmax(tile, 0)
            for c in range(r + 1):
                out[h, r * stride // block_size, c * stride // block_size] += probs[c]
    return out


def test_xattention_antidiagonal_scores_equal_a_brute_force_sum_on_a_ragged_gqa_input():
    case = random_case(90, q_heads=4, kv_heads=2, head_dim=16)
    scores, flops = antidiagonal_block_scores(case, 32, 8, 0, 3)
    assert torch.allclose(scores.double(), brute_force_antidiagonal_scores(case, 32, 8), rtol=1e-5, atol=1e-6)
    assert flops == 2.0 * 4 * 12 * 12 * 8 * 16


def test_xattention_threshold_keeps_forced_blocks_then_descending_scores_until_the_share_is_reached():
    scores = torch.tensor([[[0.1, 0.5, 0.2, 0.15, 0.05]]])   # the row of query block 4
    assert threshold_blocks(scores, 4, 0.6)[0, 0].tolist() == [True, True, False, False, True]
    assert threshold_blocks(scores, 4, 0.7)[0, 0].tolist() == [True, True, True, False, True]
    assert threshold_blocks(scores, 4, 0.9)[0, 0].tolist() == [True] * 5


def test_xattention_chunking_does_not_change_the_mask(monkeypatch):
    case = random_case(1000, 8, 2, head_dim=32)
    whole = XAttention().estimate(case, B)
    monkeypatch.setattr(xattention, "SCORE_ELEMENTS_PER_CHUNK", 1)   # one query block per chunk
    chunked = XAttention().estimate(case, B)
    assert torch.equal(whole.mask, chunked.mask)


def test_xattention_threshold_one_is_nearly_dense_and_tiny_threshold_keeps_the_forced_blocks():
    case = random_case(1024, 8, 2, head_dim=32)
    assert density(XAttention(threshold=1.0).estimate(case, B).mask) > 0.95
    assert torch.equal(XAttention(threshold=0.01).estimate(case, B).mask, forced_blocks(8, 16))


def test_xattention_block_size_not_a_multiple_of_the_stride_is_refused():
    with pytest.raises(ValueError, match="multiple of XAttention's stride 8"):
        XAttention().estimate(random_case(256, 8, 2, head_dim=32), 60)


# MInference

def test_minference_diagonal_sums_equal_a_brute_force_sum_by_distance():
    probs = torch.rand(3, 5, 20)
    expected = torch.zeros(3, 20)
    for i in range(5):
        for j in range(20):
            distance = (20 - 5 + i) - j
            if 0 <= distance < 20:
                expected[:, distance] += probs[:, i, j]
    assert torch.allclose(diagonal_sums(probs), expected, atol=1e-6)


@pytest.mark.parametrize("n", [200, 192])
def test_minference_block_mask_is_the_covering_of_the_token_level_pattern(n):
    g = torch.Generator().manual_seed(3)
    block = 32
    columns = torch.stack([torch.randperm(n, generator=g)[:6] for _ in range(4)])
    distances = torch.stack([torch.randperm(n, generator=g)[:9] for _ in range(4)])
    pos = torch.arange(n)
    causal = pos[:, None] >= pos[None, :]
    nb = num_blocks(n, block)
    expected = torch.zeros(4, nb, nb, dtype=torch.bool)
    for h in range(4):
        tokens = torch.isin(pos, columns[h])[None, :] | torch.isin(pos[:, None] - pos[None, :], distances[h])
        tokens &= causal
        padded = torch.nn.functional.pad(tokens, (0, nb * block - n, 0, nb * block - n))
        expected[h] = padded.reshape(nb, block, nb, block).any(3).any(1)
    assert torch.equal(vertical_slash_block_mask(columns, distances, n, block), expected)


def test_minference_sizes_of_n_are_dense_and_zero_sizes_keep_the_forced_columns_and_diagonals():
    for n in (1024, 1000):
        case = random_case(n, 8, 2, head_dim=32)
        nb = num_blocks(n, B)
        assert torch.equal(MInference(vertical_size=n, slash_size=n).estimate(case, B).mask,
                           causal_block_mask(8, n, B))
        # 30 first columns -> block 0; 100 nearest diagonals (distance <= 99 = 64 + 35) -> offsets 0, 1, 2.
        m = torch.arange(nb)
        offsets = (m[:, None] - m[None, :])
        minimal = ((offsets >= 0) & (offsets <= 2)) | (m[None, :] == 0)
        assert torch.equal(MInference(vertical_size=0, slash_size=0).estimate(case, B).mask,
                           minimal.expand(8, nb, nb))


# Hyperparameters

@pytest.mark.parametrize(("make", "parameter"), [
    (lambda: FlexPrefill(gamma=0.0), "gamma"),
    (lambda: FlexPrefill(gamma=1.5), "gamma"),
    (lambda: FlexPrefill(tau=-0.1), "tau"),
    (lambda: FlexPrefill(min_budget=-1), "min_budget"),
    (lambda: FlexPrefill(min_budget=1.5), "min_budget"),
    (lambda: FlexPrefill(min_budget=512, max_budget=256), "max_budget"),
    (lambda: XAttention(stride=0), "stride"),
    (lambda: XAttention(threshold=0.0), "threshold"),
    (lambda: XAttention(threshold=1.1), "threshold"),
    (lambda: MInference(vertical_size=-1), "vertical_size"),
    (lambda: MInference(slash_size=-5), "slash_size"),
])
def test_bad_hyperparameter_raises_value_error_naming_it(make, parameter):
    with pytest.raises(ValueError, match=parameter):
        make()


def test_defaults_are_the_published_ones():
    flex, xattn, minfer = FlexPrefill().params, XAttention().params, MInference().params
    assert (flex.gamma, flex.tau, flex.min_budget, flex.max_budget) == (0.95, 0.1, 1024, None)
    assert (xattn.stride, xattn.threshold) == (8, 0.9)
    assert (minfer.vertical_size, minfer.slash_size) == (1000, 6096)
    assert all(issubclass(m, BlockSparseMethod) and m.params_model.version == "1"
               for m in (FlexPrefill, XAttention, MInference))
