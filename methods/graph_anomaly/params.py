"""Every graph-anomaly method's parameters: types, ranges and defaults (GADBench's, SAGAD's, the papers').

Torch-free, so `harness validate` and `harness plan` check a suite without importing a detector.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from harness import MethodParams

Activation = Literal["elu", "prelu"]
Summary = Literal["mrq", "global", "random"]
FusionKind = Literal["low", "high", "mean", "concat", "scalar", "vector", "gated"]


class TrainingParams(MethodParams):
    """GADBench's runner defaults: full-batch Adam, lr 0.01, no weight decay, 200 epochs, patience 50."""

    tiny = {"epochs": 5, "patience": 5}
    lr: float = Field(0.01, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    epochs: int = Field(200, ge=1)
    patience: int = Field(50, ge=1)


class SpectralParams(TrainingParams):
    """BWGNN, BernNet, AMNet: GADBench's width 32 and dropout 0; `order` is the polynomial's (GADBench: 2)."""

    hidden: int = Field(32, ge=1)
    order: int = Field(2, ge=1)
    dropout: float = Field(0.0, ge=0, lt=1)


class GHRNParams(SpectralParams):
    del_ratio: float = Field(0.015, ge=0, lt=1, description="share of edges pruned as heterophilous")


class LayeredParams(TrainingParams):
    """MLP, GCN: GADBench's width 32, 2 layers, dropout 0."""

    hidden: int = Field(32, ge=1)
    layers: int = Field(2, ge=1)
    dropout: float = Field(0.0, ge=0, lt=1)


class GATParams(LayeredParams):
    heads: int = Field(4, ge=1, description="concatenated heads of width hidden / heads")

    @model_validator(mode="after")
    def _heads_divide_hidden(self) -> "GATParams":
        if self.hidden % self.heads:
            raise ValueError(f"heads must divide hidden so concatenated heads are hidden wide, got {self.heads} "
                             f"and {self.hidden}")
        return self


class GraphSAGEParams(LayeredParams):
    aggr: Literal["mean", "sum"] = "mean"  # "max" is left out: PyG's sparse path lacks it on CUDA


class ChebNetIIParams(LayeredParams):
    tiny = {**TrainingParams.tiny, "K": 3}
    K: int = Field(10, ge=1, description="Chebyshev interpolation order")


class LogisticRegressionParams(MethodParams):
    tiny = {"c_grid": [1.0], "max_iter": 200}
    c_grid: Annotated[tuple[Annotated[float, Field(gt=0)], ...], Field(strict=False, min_length=1)] = (
        0.01, 0.1, 1.0, 10.0, 100.0)
    max_iter: int = Field(1000, ge=1)


class RayleighParams(MethodParams):
    variant: Literal["star", "mrq"] = "mrq"


class DGIProbeParams(MethodParams):
    """DGI's optimiser and stopping rule (lr 0.001, patience 20), Pretrain-GAD's cap of 1000 epochs."""

    tiny = {"epochs": 5, "probe_epochs": 5}
    probe: Literal["linear", "mlp"] = "linear"
    hidden: int = Field(32, ge=1)
    lr: float = Field(0.001, gt=0)
    epochs: int = Field(1000, ge=1)
    patience: int = Field(20, ge=1)
    probe_epochs: int = Field(200, ge=1)
    probe_patience: int = Field(30, ge=1)


class TreeGraphParams(MethodParams):
    """GADBench's `GIN_noparam` features: 2 hops of mean aggregation."""

    hops: int = Field(2, ge=1)
    aggr: Literal["mean", "sum", "max"] = "mean"


class RFGraphParams(TreeGraphParams):
    tiny = {"n_estimators": 10}
    n_estimators: int = Field(100, ge=1)
    max_features_grid: Annotated[tuple[Literal["sqrt", "log2"] | None, ...], Field(strict=False, min_length=1)] = (
        "sqrt", "log2", None)


class XGBGraphParams(TreeGraphParams):
    tiny = {"max_rounds": 10}
    max_rounds: int = Field(200, ge=1)
    learning_rate: float = Field(0.3, gt=0, le=1)
    max_depth: int = Field(6, ge=1)


def check_gate_targets(p_a: float, p_n: float) -> None:
    """`ValueError` unless 0 ≤ p_a ≤ p_n ≤ 1: anomalies should lean on the high-pass view."""
    if not 0.0 <= p_a <= p_n <= 1.0:
        raise ValueError(f"gate targets need 0 <= p_a <= p_n <= 1, got p_a={p_a!r}, p_n={p_n!r}")


class APFParams(MethodParams):
    """APF's parameters; their sources are in `APFDetector`'s docstring."""

    tiny = {"pretrain_epochs": 2, "epochs": 5, "patience": 5}

    K: int = Field(5, ge=1)
    hidden: int = Field(32, ge=1)
    activation: Activation = "elu"
    batchnorm: bool = True
    dropout: float = Field(0.0, ge=0, lt=1)
    share_linear: bool = True
    shared_discriminator: bool = True
    summary: Summary = "mrq"
    pretrain: bool = True
    pretrain_epochs: int = Field(300, ge=1)
    pretrain_patience: int = Field(20, ge=1)
    pretrain_lr: float = Field(1e-3, gt=0)
    pretrain_wd: float = Field(1e-4, ge=0)
    feature_norm: Literal["none", "l1", "l2", "standard"] = "none"
    fusion: FusionKind = "gated"
    gate_layers: int = Field(1, ge=1, le=2)
    head_hidden: Annotated[tuple[Annotated[int, Field(ge=1)], ...], Field(strict=False)] = (32, 32)
    lr: float = Field(1e-2, gt=0)
    weight_decay: float = Field(1e-4, ge=0)
    epochs: int = Field(500, ge=1)
    patience: int = Field(50, ge=1)
    p_a: float = 0.8  # gate targets: 0 <= p_a <= p_n <= 1 (`_gate_targets`)
    p_n: float = 1.0
    reg_weight: float = Field(1.0, ge=0)
    regularise: bool = True
    reg_class_weighted: bool = True
    select_on: Literal["auroc", "auprc"] = "auroc"

    @model_validator(mode="after")
    def _gate_targets(self) -> "APFParams":
        check_gate_targets(self.p_a, self.p_n)
        return self
