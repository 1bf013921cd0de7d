"""Block selection rules: top-k per row and cumulative-mass cover, always causal."""
from __future__ import annotations

import torch

from methods.sparse_attention.selection import block_ranks, cover_count, cover_per_row, force_blocks, top_k_per_row


def test_top_k_keeps_the_k_best_causal_blocks_and_clips_k_to_the_row():
    scores = torch.tensor([[[5.0, 9.0, 9.0], [1.0, 3.0, 9.0], [4.0, 2.0, 3.0]]])
    mask = top_k_per_row(scores, torch.tensor([[2, 1, 2]]))
    assert mask.tolist() == [[[True, False, False], [False, True, False], [True, False, True]]]


def test_ranks_ignore_blocks_above_the_diagonal():
    scores = torch.tensor([[1.0, 100.0], [2.0, 1.0]])
    assert block_ranks(scores).tolist() == [[0, 1], [0, 1]]


def test_cover_takes_the_fewest_blocks_reaching_gamma():
    mass = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    assert cover_count(mass, 0.5).tolist() == [1]
    assert cover_count(mass, 0.8).tolist() == [2]
    assert cover_count(mass, 0.81).tolist() == [3]
    assert cover_count(mass, 1.0).tolist() == [4]


def test_cover_per_row_normalises_each_row_by_its_own_total():
    scores = torch.tensor([[[2.0, 0, 0], [1.0, 3.0, 0], [1.0, 1.0, 8.0]]])
    assert cover_per_row(scores, 0.7).tolist() == [[[True, False, False], [False, True, False],
                                                    [False, False, True]]]


def test_forced_sink_and_diagonal_rank_first():
    scores = torch.tensor([[[1.0, 0, 0], [0.0, 0.0, 0], [0.0, 9.0, 0.0]]])
    mask = top_k_per_row(force_blocks(scores, sink=True, diagonal=True), torch.tensor([[1, 2, 2]]))
    assert mask.tolist() == [[[True, False, False], [True, True, False], [True, False, True]]]
