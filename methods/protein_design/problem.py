"""What a design method sees (`DesignInputs`), what it returns (`Designs`) and what it is scored against
(`DesignTruth`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from methods.protein_design.backbone import Backbone
from methods.protein_design.objectives import ObjectiveScores


@dataclass(frozen=True)
class BackboneSet:
    """A dataset: named backbones with their natives (a loader's return value)."""

    name: str
    backbones: tuple[Backbone, ...]


@dataclass(frozen=True)
class DesignInputs:
    train: tuple[Backbone, ...]  # backbones an alignment method may fine-tune on (natives hidden)
    test: tuple[Backbone, ...]   # backbones to design (natives hidden)
    designs: int                 # sequences per test backbone
    order_seed: int              # the fixed decoding order the task scores in (for policy_logp)


@dataclass(frozen=True)
class Designs:
    """Per test backbone (by name), its designed sequences and, optionally, the mean per-residue
    log-probability of each under the method's own sampling policy in the task's scoring order (for the KL
    to the reference policy; None where the method has no likelihood), each one's KL to the reference policy
    from the full per-position distributions (`kl.policy_kl`; None without weights) and the path of each one's
    predicted structure ('' for none; scTM and RMSD are scored where given)."""

    sequences: dict[str, list[str]]
    policy_logp: dict[str, np.ndarray] | None = None
    predicted: dict[str, list[str]] | None = None
    policy_kl: dict[str, np.ndarray] | None = None


@dataclass(frozen=True)
class DesignTruth:
    backbones: tuple[Backbone, ...]          # the test backbones with their natives
    reference: dict[str, ObjectiveScores]    # ProteinMPNN's own samples' objectives, per backbone (win rate)
    order_seed: int


def hidden(backbone: Backbone) -> Backbone:
    return Backbone(backbone.name, backbone.coords, backbone.chain, None, backbone.residue_index)
