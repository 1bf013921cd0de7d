"""A predictions table read back against the truth and scored once by the oracles: every metric of the
family reads the resulting `ScoredDesigns`. The engine has checked the table against the task's
`predictions_schema` (its columns and kinds, every test backbone designed, no design twice); what is left here
is the designs' own sense: each sequence fits its backbone, and a predicted structure's file is one of it."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from harness import DataError
from methods.protein_design import mpnn
from methods.protein_design.backbone import AMINO_ACIDS, Backbone
from methods.protein_design.contact_potential import packaged_specificity_z, threading_energy, threading_z
from methods.protein_design.objectives import (PROTPARAM, ObjectiveScores, mean_log_likelihood, protparam,
                                               score_objectives)
from methods.protein_design.problem import DesignTruth
from methods.protein_design.structure_files import read_backbone


@dataclass(frozen=True)
class BackboneDesigns:
    name: str
    sequences: list[str]
    native: str | None
    objectives: ObjectiveScores
    reference: ObjectiveScores
    protparam: dict[str, np.ndarray]
    kl: float  # mean over designs of policy_logp - reference logp (per residue); NaN without policy_logp
    self_consistency: np.ndarray  # (designs, 2) scTM and RMSD of the predicted structures; NaN where none
    kl_full: float = float("nan")  # mean over designs of policy_kl; NaN where a design has none
    threading: dict[str, np.ndarray] = field(default_factory=dict)  # per design: THREADING's judges


# The independent judges (contact_potential.py): sequence and backbone only, so your designs get them too.
THREADING = ("shuffle_z", "sp_z", "contact_energy")
SHUFFLES = 1000


def threading_scores(backbone: Backbone, sequences: list[str], seed: int) -> dict[str, np.ndarray]:
    """Per design: the shuffle z (the task seed's 1000 shuffles), the fold-specificity z against the packaged
    real chains and the MJ contact energy per residue; all lower is better."""
    return {"shuffle_z": threading_z(backbone, sequences, SHUFFLES, seed),
            "sp_z": packaged_specificity_z(backbone, sequences),
            "contact_energy": threading_energy(backbone, sequences)}


@dataclass(frozen=True)
class ScoredDesigns:
    backbones: tuple[BackboneDesigns, ...]


def self_consistency(backbone: Backbone, predicted: Path) -> tuple[float, float]:
    """(scTM normalised by the designed backbone, CA RMSD in angstrom) of a predicted structure, both from
    tmtools' TM-align."""
    from tmtools import tm_align

    model = read_backbone(predicted)
    if model.length != backbone.length:
        raise DataError(f"the prediction has {model.length} residues, backbone {backbone.name} {backbone.length}",
                        file=predicted)
    result = tm_align(model.coords[:, 1].astype(np.float64), backbone.coords[:, 1].astype(np.float64),
                      "A" * model.length, "A" * backbone.length)
    return float(result.tm_norm_chain2), float(result.rmsd)


def scored_designs(truth: DesignTruth, predictions: pd.DataFrame) -> ScoredDesigns:
    reference_model = mpnn.load("vanilla", "020")
    scored = []
    for backbone in truth.backbones:
        rows = predictions[predictions["backbone"] == backbone.name].sort_values("design")
        sequences = list(rows["sequence"])
        for sequence in sequences:
            if len(sequence) != backbone.length or set(sequence) - set(AMINO_ACIDS):
                raise DataError(f"backbone {backbone.name} has {backbone.length} positions; design {sequence!r} "
                                "is not that many of the 20 amino-acid letters", field="sequence")
        kl = float("nan")
        if rows["policy_logp"].notna().all():
            ref = mean_log_likelihood(reference_model, backbone, sequences, truth.order_seed)
            kl = float(np.mean(rows["policy_logp"].to_numpy(dtype=np.float64) - ref))
        kl_full = float(np.mean(rows["policy_kl"].to_numpy(dtype=np.float64))) \
            if "policy_kl" in rows and rows["policy_kl"].notna().all() else float("nan")
        figures = [protparam(s) for s in sequences]
        consistency = np.array([self_consistency(backbone, Path(p)) if p else (np.nan, np.nan)
                                for p in rows["predicted_structure"].fillna("")], dtype=np.float64).reshape(-1, 2)
        scored.append(BackboneDesigns(backbone.name, sequences, backbone.native,
                                      score_objectives(backbone, sequences, truth.order_seed),
                                      truth.reference[backbone.name],
                                      {k: np.array([f[k] for f in figures]) for k in PROTPARAM}, kl,
                                      consistency, kl_full,
                                      threading_scores(backbone, sequences, truth.order_seed)))
    return ScoredDesigns(tuple(scored))
