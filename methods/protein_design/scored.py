"""A predictions table read back against the truth and scored once by the oracles: every metric of the
family reads the resulting `ScoredDesigns`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from harness import DataError
from methods.protein_design import mpnn
from methods.protein_design.backbone import AMINO_ACIDS
from methods.protein_design.byo import self_consistency
from methods.protein_design.objectives import (PROTPARAM, ObjectiveScores, mean_log_likelihood, protparam,
                                               score_objectives)
from methods.protein_design.problem import DesignTruth

COLUMNS = ("backbone", "design", "sequence", "policy_logp", "predicted_structure")


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


@dataclass(frozen=True)
class ScoredDesigns:
    backbones: tuple[BackboneDesigns, ...]


def scored_designs(truth: DesignTruth, predictions: pd.DataFrame) -> ScoredDesigns:
    missing = [c for c in COLUMNS[:3] if c not in predictions.columns]
    if missing:
        raise DataError(f"predictions lack column {missing[0]!r}", field=missing[0],
                        hint="A protein design predictions table has columns " + ", ".join(COLUMNS) + ".")
    reference_model = mpnn.load("vanilla", "020")
    scored = []
    for backbone in truth.backbones:
        rows = predictions[predictions["backbone"] == backbone.name].sort_values("design")
        sequences = [str(s) for s in rows["sequence"]]
        if not sequences:
            raise DataError(f"no designs for backbone {backbone.name}", field="backbone")
        for sequence in sequences:
            if len(sequence) != backbone.length or set(sequence) - set(AMINO_ACIDS):
                raise DataError(f"backbone {backbone.name} has {backbone.length} positions; design {sequence!r} "
                                "is not that many of the 20 amino-acid letters", field="sequence")
        kl = float("nan")
        if "policy_logp" in rows and rows["policy_logp"].notna().all():
            ref = mean_log_likelihood(reference_model, backbone, sequences, truth.order_seed)
            kl = float(np.mean(rows["policy_logp"].to_numpy(dtype=np.float64) - ref))
        figures = [protparam(s) for s in sequences]
        paths = (rows["predicted_structure"].fillna("").astype(str) if "predicted_structure" in rows
                 else [""] * len(rows))
        consistency = np.array([self_consistency(backbone, Path(p)) if p else (np.nan, np.nan) for p in paths],
                               dtype=np.float64).reshape(-1, 2)
        scored.append(BackboneDesigns(backbone.name, sequences, backbone.native,
                                      score_objectives(backbone, sequences, truth.order_seed),
                                      truth.reference[backbone.name],
                                      {k: np.array([f[k] for f in figures]) for k in PROTPARAM}, kl,
                                      consistency))
    return ScoredDesigns(tuple(scored))
