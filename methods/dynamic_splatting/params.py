"""Every dynamic-splatting method's parameters: types, ranges and defaults. Torch-free, so `harness validate`
and `harness plan` check a suite without importing a method. The spec gives r_z = 5 and nothing else: eta, phi,
the key-node share, k and the loss weights are ours (README, "inferred parameters")."""
from __future__ import annotations

from pydantic import Field

from harness import MethodParams


class MotionParams(MethodParams):
    """The photometric motion optimisation every method starts with (the 'pretrained' base model)."""

    tiny = {"pretrain_steps": 8, "refine_steps": 8}
    pretrain_steps: int = Field(40, ge=1, description="Adam steps of uniform optimisation before any refinement")
    refine_steps: int = Field(40, ge=0, description="Adam steps after it (the same budget for every method)")
    lr: float = Field(0.01, gt=0, description="Adam's step size on positions (world units)")
    prior_weight: float = Field(0.5, ge=0, description="weight of the squared deviation from the motion prior")


class USplat4DParams(MotionParams):
    eta: float = Field(0.1, gt=0, description="Eq. 5: L1 error every touched pixel must stay below")
    phi: float = Field(100.0, gt=0, description="Eq. 5: the uncertainty of an unconverged or unseen Gaussian")
    depth_ratio: float = Field(5.0, gt=0, description="Eq. 6: r_z, the depth axis's extra uncertainty")
    key_share: float = Field(0.5, gt=0, le=1, description="share of Gaussians (least uncertain) made key nodes")
    neighbours: int = Field(6, ge=1, description="k of the key-key kNN graph (Eq. 7)")
    skinning: int = Field(4, ge=1, description="key nodes each non-key Gaussian follows (Eq. 8, blended)")
    isometry_weight: float = Field(10.0, ge=0, description="weight of Eq. 9's isometry term on key-key edges")
    deviation_weight: float = Field(1.0, ge=0, description="weight of the U^-1 deviation from the pretrained motion")
    graph: bool = Field(True, description="False: the no-graph ablation, every Gaussian free")
    weighting: bool = Field(True, description="False: the no-uncertainty-weighting ablation, U^-1 replaced by I "
                                              "(and the kNN Euclidean)")
    segment_aware: bool = Field(False, description="True: keys, key-key edges and skinning inside each object "
                                                   "segment of the canonical model (the spec's graph ignores them)")


class RecordedParams(MethodParams):
    run: str = Field("default", min_length=1, description="the folder under renders/ holding your run's renders")
