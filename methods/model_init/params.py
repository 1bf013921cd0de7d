"""Every model-init method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method.

The spec fixes the dual alignment (output + spectral) and SVD reshaping; everything else is inferred and named
as such: the gene rank and count, lambda, the subspace rank, the extraction's optimiser and calibration size,
what MASA does with the non-FFN weights, the students' training recipe and KD's alpha and temperature."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness import MethodParams


class InitParams(MethodParams):
    """What every initialiser shares: the student's training budget (equal across methods) on the corpus."""

    tiny = {"steps": 4, "batch_size": 4, "eval_every": 2}
    steps: int = Field(100, ge=1, description="AdamW steps of the student (the fixed budget)")
    batch_size: int = Field(16, ge=1, description="lines per step")
    learning_rate: float = Field(2e-3, gt=0, description="peak rate: 5 % warm-up, cosine to 10 % [inferred]")
    eval_every: int = Field(5, ge=1, description="steps between dev-loss evaluations (the learning curve)")


class CalibratedParams(InitParams):
    """An initialiser that reads the source's activations on calibration text (training lines)."""

    tiny = {"steps": 4, "batch_size": 4, "eval_every": 2, "calib_tokens": 64}
    calib_tokens: int = Field(512, ge=16, description="tokens of training lines run through the source [inferred]")


class MasaParams(CalibratedParams):
    """MASA: gene matrices learned from the source FFNs by output + lambda x spectral alignment, then SVD
    reshaping into the student's FFNs."""

    tiny = {"steps": 4, "batch_size": 4, "eval_every": 2, "calib_tokens": 64, "rank": 8, "extract_steps": 3,
            "subspace_rank": 4}
    rank: int = Field(128, ge=1, description="rank of each gene matrix (truncated to the student's) [inferred]")
    genes: int = Field(2, ge=1, description="gene groups: consecutive source layers share one gene set; student "
                                            "layer j takes group floor(j * genes / layers) [inferred]")
    output_weight: float = Field(1.0, ge=0, description="weight of the output alignment "
                                                        "||FFN_G(X) - FFN_W(X)||^2 / ||FFN_W(X)||^2 (0: spectral-only)")
    spectral_weight: float = Field(1.0, ge=0, description="lambda: weight of the spectral alignment (0: output-only)")
    subspace_rank: int = Field(16, ge=1, description="top-r singular subspaces the spectral term aligns [inferred]")
    extract_steps: int = Field(60, ge=0, description="Adam steps learning the genes from their SVD init [inferred]")
    extract_lr: float = Field(1e-3, gt=0, description="the gene extraction's Adam rate [inferred]")
    ffn: Literal["genes", "random"] = Field(
        "genes", description="the FFNs: reshaped genes, or left random (an ablation isolating the genes: the same "
                             "inherited non-FFN weights with random FFNs)")
    rest: Literal["selection", "magnitude", "random"] = Field(
        "selection", description="the non-FFN weights: inherited by uniform selection or by magnitude pruning's "
                                 "choice of channels and heads (the FFNs are cut to the same channels), or left "
                                 "random [inferred: the spec initialises the FFNs]")


class DistillParams(InitParams):
    """Knowledge distillation from the source into a randomly initialised student."""

    tiny = {"steps": 4, "batch_size": 4, "eval_every": 2}
    alpha: float = Field(0.5, ge=0, le=1, description="weight of the KL term; 1 - alpha on the data [inferred]")
    temperature: float = Field(2.0, gt=0, description="softmax temperature of both sides (the KL scaled by T^2)")
