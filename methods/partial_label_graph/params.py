"""Every partial-label method's parameters: types, ranges and defaults (PRISM's suggested grid, the baselines'
papers). Torch-free, so `harness validate` and `harness plan` check a suite without importing a method."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from harness import MethodParams

ViewChange = Literal["node_dropping", "edge_perturbation", "attribute_masking", "subgraph",
                     "random2", "random3", "random4"]  # one augmentation, or a GraphCL pool drawn per graph
Augmentation = Literal[ViewChange, "none"]


class GINParams(MethodParams):
    """The family's shared GIN and loop, in PRISM's suggested grid: 3 layers, hidden 64, Adam lr 0.01, batch 64,
    100 epochs."""

    tiny = {"hidden": 16, "epochs": 2, "batch_size": 16}
    hidden: int = Field(64, ge=1)
    layers: int = Field(3, ge=1)
    dropout: float = Field(0.0, ge=0, lt=1)
    lr: float = Field(0.01, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    epochs: int = Field(100, ge=1)
    batch_size: int = Field(64, ge=1)


class LWSParams(GINParams):
    """LWS-1 (beta = 1, the paper's default); lr 0.001, chosen on validation (baselines/lws.py)."""

    version = "2"  # 2: lr 0.001, confidences start at zero off the candidates
    beta: float = Field(1.0, ge=0)
    lr: float = Field(0.001, gt=0)


class PiCOParams(GINParams):
    """PiCO's defaults (Wang et al., ICLR 2022), its views drawn by the family's graph augmentations."""

    tiny = {**GINParams.tiny, "embedding_dim": 16, "queue_size": 32}
    embedding_dim: int = Field(128, ge=1)
    temperature: float = Field(0.07, gt=0)
    contrastive_weight: float = Field(0.5, ge=0)
    key_momentum: float = Field(0.999, ge=0, le=1)
    prototype_momentum: float = Field(0.99, ge=0, le=1)
    confidence_ema_start: float = Field(0.95, ge=0, le=1)
    confidence_ema_end: float = Field(0.8, ge=0, le=1)
    prototype_start: int = Field(1, ge=0, description="first epoch of prototype-based disambiguation")
    queue_size: int = Field(512, ge=1)
    query_augmentation: Augmentation = "attribute_masking"
    key_augmentation: Augmentation = "random4"
    augmentation_ratio: float = Field(0.2, ge=0, lt=1)


class GraphCLParams(GINParams):
    """GraphCL's unsupervised TU setting (baselines/graphcl.py); 'none' is refused: the two views would match."""

    tiny = {**GINParams.tiny, "pretrain_epochs": 1, "pretrain_batch_size": 16}
    pretrain_on: Literal["all", "train"] = "all"
    pretrain_epochs: int = Field(20, ge=1)
    pretrain_batch_size: int = Field(128, ge=1)
    pretrain_lr: float = Field(0.01, gt=0)
    temperature: float = Field(0.2, gt=0)
    augmentation: ViewChange = "random2"
    augmentation_ratio: float = Field(0.2, ge=0, lt=1)


class PRISMParams(GINParams):
    """PRISM's open points, each with its default from the spec's grid (prism/method.py says why)."""

    version = "2"  # 2: propagation keeps a row the round would leave empty (mu = 0)
    tiny = {**GINParams.tiny, "eigenpairs": 4, "warmup_epochs": 0, "k_spatial": 3, "k_spectral": 3}
    prototype_momentum: float = Field(0.9, ge=0, lt=1)
    k_spatial: int = Field(10, ge=1)
    k_spectral: int = Field(10, ge=1)
    eigenpairs: int = Field(8, ge=1)
    harmonics: int = Field(4, ge=1)
    mu: float = Field(0.5, ge=0, lt=1)
    propagation_steps: int = Field(5, ge=1)
    confidence_momentum: float = Field(0.99, ge=0, lt=1)
    head_layers: int = Field(1, ge=1)
    attention_temperature: float = Field(0.1, gt=0)
    warmup_epochs: int = Field(5, ge=0)
    propagation_start: Literal["predictions", "confidence"] = "predictions"
    random_sign_flips: bool = True
    spatial_input: Literal["graph+substructures", "substructures"] = "graph+substructures"
    spectral_node_states: bool = True
    prototype_filter: Literal["argmax", "candidates"] = "argmax"
    weighted_edges: bool = True
    inference: Literal["sum", "spatial", "spectral"] = "sum"
    substructure: bool = True
    spatial: bool = True
    spectral: bool = True
    propagation: bool = True

    @model_validator(mode="after")
    def _views_exist(self) -> "PRISMParams":
        if not (self.spatial or self.spectral):
            raise ValueError("PRISM needs at least one view: spatial and spectral cannot both be false")
        if (self.inference == "spatial" and not self.spatial) or (self.inference == "spectral" and not self.spectral):
            raise ValueError(f"inference '{self.inference}' reads a view this variant switches off")
        if self.spatial_input == "substructures" and not (self.spatial and self.substructure):
            raise ValueError("spatial_input 'substructures' needs the spatial view with substructure: true")
        return self
