"""A sampling policy: a ProteinMPNN at a temperature with an optional per-amino-acid logit bias, which draws
designs and gives each its mean per-residue log-probability in the task's scoring order (for the KL)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from methods.protein_design import mpnn
from methods.protein_design.backbone import ALPHABET, Backbone, decode, encode

POLAR, HYDROPHOBIC = "DEKRNQST", "AVILMFWC"


def solubility_bias(strength: float) -> np.ndarray:
    """(21,) logit bias: +strength on polar and charged residues, -strength on hydrophobic ones."""
    bias = np.zeros(21, dtype=np.float64)
    bias[[ALPHABET.index(a) for a in POLAR]] = strength
    bias[[ALPHABET.index(a) for a in HYDROPHOBIC]] = -strength
    return bias


@dataclass
class Policy:
    model: Any
    temperature: float
    bias: np.ndarray | None = None

    def sample(self, backbone: Backbone, count: int, seed: int, temperature: float | None = None) -> list[str]:
        tokens = mpnn.sample(self.model, mpnn.features(backbone), count, temperature or self.temperature, seed,
                             self.bias)
        return [decode(t) for t in tokens]

    def mean_logp(self, backbone: Backbone, sequences: Sequence[str], order_seed: int) -> np.ndarray:
        """Mean per-residue log-probability under the tempered, biased policy (X excluded, as in sampling)."""
        import torch

        tokens = torch.as_tensor(np.stack([encode(s) for s in sequences]))
        feats = mpnn.features(backbone)
        batch = feats.repeat(len(sequences))
        order = mpnn.decoding_order(backbone.length, order_seed).expand(len(sequences), -1)
        with torch.no_grad():
            log_probs = self.model(batch.x, tokens, batch.mask, batch.mask, batch.residue, batch.chain, order)
            bias = torch.zeros(21) if self.bias is None else torch.as_tensor(self.bias, dtype=torch.float32)
            logits = (log_probs + bias) / self.temperature
            logits[..., 20] = -torch.inf
            tempered = torch.log_softmax(logits, dim=-1).gather(2, tokens[..., None])[..., 0]
        return tempered.mean(dim=1).numpy().astype(np.float64)

    def design(self, backbones: Sequence[Backbone], count: int, seed: int, order_seed: int
               ) -> tuple[dict[str, list[str]], dict[str, np.ndarray]]:
        sequences = {b.name: self.sample(b, count, seed * 1000 + k) for k, b in enumerate(backbones)}
        logp = {b.name: self.mean_logp(b, sequences[b.name], order_seed) for b in backbones}
        return sequences, logp
