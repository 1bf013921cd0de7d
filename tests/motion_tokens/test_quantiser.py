"""4DMoT's quantiser: nearest codes with a straight-through gradient, EMA codes moving to their vectors' mean with
Laplace-smoothed counts, dead codes (unused over a window) revived at batch vectors a capped share at a time and only
early in training, and the per-step usage and perplexity it reports."""
from __future__ import annotations

import math

import pytest
import torch

from methods.motion_tokens.vqvae import RESET_EVERY, Quantiser, laplace_smoothed


def _quantiser(ema: bool, reset: bool, size: int = 8, **rule) -> Quantiser:
    """Codes (0, 1), (2, 3), ... with statistics of one assignment each, as if initialised from a batch."""
    quantiser = Quantiser(size, 2, ema=ema, reset=reset, decay=0.5, **rule)
    quantiser.initialised = True
    with torch.no_grad():
        quantiser.codebook.copy_(torch.arange(size * 2, dtype=torch.float32).reshape(size, 2))
        quantiser.sums.copy_(quantiser.codebook)
    return quantiser


def _steps(quantiser: Quantiser, z: torch.Tensor, count: int) -> list[int]:
    """Codes reset at each of `count` training steps on the batch z."""
    resets = []
    for _ in range(count):
        quantiser(z, torch.Generator().manual_seed(0))
        resets.append(quantiser.last_step.reset)
    return resets


def test_lookup_picks_the_nearest_code_and_passes_gradients_straight_through():
    quantiser = _quantiser(ema=True, reset=False).eval()
    z = torch.tensor([[0.1, 0.9], [6.2, 7.1]], requires_grad=True)
    quantised, ids, _ = quantiser(z, torch.Generator().manual_seed(0))
    assert ids.tolist() == [0, 3] and quantised.tolist() == [[0.0, 1.0], [6.0, 7.0]]
    quantised.sum().backward()
    assert z.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_ema_moves_a_code_towards_the_mean_of_its_vectors_and_keeps_unused_codes_finite():
    quantiser = _quantiser(ema=True, reset=False).train()
    z = torch.tensor([[0.4, 1.4], [0.2, 1.2], [6.5, 7.5], [6.1, 7.3]])
    _steps(quantiser, z, 30)
    assert torch.allclose(quantiser.codebook[0], torch.tensor([0.3, 1.3]), atol=1e-4)
    assert torch.allclose(quantiser.codebook[3], torch.tensor([6.3, 7.4]), atol=1e-4)
    # an unused code's count decays to nothing; the smoothed count keeps it finite (it shrinks until reset)
    assert torch.isfinite(quantiser.codebook).all() and quantiser.codebook[5].norm() < 10


def test_laplace_smoothing_keeps_the_total_and_lifts_zero_counts():
    counts = torch.tensor([3.0, 0.0, 1.0])
    smoothed = laplace_smoothed(counts, epsilon=0.5)
    assert smoothed.sum().item() == pytest.approx(4.0)
    assert smoothed.tolist() == pytest.approx([3.5 / 5.5 * 4, 0.5 / 5.5 * 4, 1.5 / 5.5 * 4])


def test_codes_unused_over_the_window_are_revived_at_batch_vectors_and_plain_vq_keeps_them():
    z = torch.tensor([[0.1, 0.9], [0.2, 1.1]])
    kept = _quantiser(ema=False, reset=False).train()
    revived = _quantiser(ema=False, reset=True, reset_window=20, reset_cap=1.0).train()
    resets = _steps(revived, z, 20)
    _steps(kept, z, 20)
    assert torch.equal(kept.codebook[5], torch.tensor([10.0, 11.0]))
    assert resets[RESET_EVERY - 1] == 0 and resets[19] == 7  # unused for 20 steps at step 20, not at step 10
    assert (torch.cdist(revived.codebook.detach()[1:], z).min(dim=1).values < 1e-6).all()


def test_one_check_resets_at_most_the_cap_and_the_longest_unused_first():
    quantiser = _quantiser(ema=False, reset=True, size=10, reset_window=10, reset_cap=0.2).train()
    quantiser.last_used.copy_(torch.tensor([0, 0, 5, 3, 0, 0, 0, 0, 0, 0]))
    quantiser.step = 9
    quantiser(torch.tensor([[0.1, 0.9]]), torch.Generator().manual_seed(0))  # step 10: code 0 used
    assert quantiser.last_step.reset == 2
    assert quantiser.last_used.tolist()[:4] == [10, 10, 5, 3]  # code 0 used; code 1 the first of the longest idle


def test_resets_stop_after_reset_until_so_the_codebook_settles():
    quantiser = _quantiser(ema=True, reset=True, reset_window=10, reset_cap=1.0, reset_until=30).train()
    resets = _steps(quantiser, torch.tensor([[0.1, 0.9], [0.2, 1.1]]), 80)
    assert sum(resets[:30]) > 0 and sum(resets[30:]) == 0


def test_the_reported_perplexity_is_the_exp_entropy_of_the_batch_codes():
    quantiser = _quantiser(ema=True, reset=False).train()
    z = torch.tensor([[0.0, 1.0], [0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])  # codes 0, 0, 1, 2
    quantiser(z, torch.Generator().manual_seed(0))
    shares = torch.tensor([0.5, 0.25, 0.25])
    assert quantiser.last_step.used == 3
    assert quantiser.last_step.perplexity == pytest.approx(math.exp(-(shares * shares.log()).sum().item()))
