"""4DMoT's quantiser: nearest codes with a straight-through gradient, EMA codes moving to their vectors' mean,
dead codes reset to batch vectors."""
from __future__ import annotations

import torch

from methods.motion_tokens.vqvae import Quantiser


def _quantiser(ema: bool, reset: bool, size: int = 8) -> Quantiser:
    quantiser = Quantiser(size, 2, ema=ema, reset=reset, decay=0.5)
    quantiser.initialised = True
    with torch.no_grad():
        quantiser.codebook.copy_(torch.arange(size * 2, dtype=torch.float32).reshape(size, 2))
    return quantiser


def test_lookup_picks_the_nearest_code_and_passes_gradients_straight_through():
    quantiser = _quantiser(ema=True, reset=False).eval()
    z = torch.tensor([[0.1, 0.9], [6.2, 7.1]], requires_grad=True)
    quantised, ids, _ = quantiser(z, torch.Generator().manual_seed(0))
    assert ids.tolist() == [0, 3] and quantised.tolist() == [[0.0, 1.0], [6.0, 7.0]]
    quantised.sum().backward()
    assert z.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_ema_moves_a_code_towards_the_mean_of_its_vectors():
    quantiser = _quantiser(ema=True, reset=False).train()
    z = torch.tensor([[0.4, 1.4], [0.2, 1.2]])
    for _ in range(30):
        quantiser(z, torch.Generator().manual_seed(0))
    assert torch.allclose(quantiser.codebook[0], torch.tensor([0.3, 1.3]), atol=1e-4)


def test_reset_revives_unused_codes_at_batch_vectors_and_plain_vq_does_not():
    z = torch.tensor([[0.1, 0.9], [0.2, 1.1]])
    kept, revived = _quantiser(ema=False, reset=False).train(), _quantiser(ema=False, reset=True).train()
    for quantiser in (kept, revived):
        for _ in range(5):  # counts of unused codes decay below 1
            quantiser(z, torch.Generator().manual_seed(0))
    assert torch.equal(kept.codebook[5], torch.tensor([10.0, 11.0]))
    near_batch = torch.cdist(revived.codebook.detach()[1:], z).min(dim=1).values
    assert (near_batch < 1e-6).all()
