"""The contract `protein_design.inverse_folding`: design sequences for backbones (ProtAlign / MoMPNN, arXiv
2603.06748), scored by in-silico oracles on developability and designability.

Each seed splits the dataset's backbones into `train` backbones (an alignment method may fine-tune on them) and
test backbones, for which a method returns `designs` sequences each (`Designs`). The task draws ProteinMPNN's
own samples (T = 0.1) on the test backbones as the reference for the win rate. Predictions table: one row per
(backbone, design) with `sequence`, `policy_logp` (the method's mean per-residue log-probability, or empty) and
`predicted_structure` (a predicted structure's file, or empty); scoring reads that table alone (plus the truth's
backbones), so a user's designs, a suite's `predictions:` file, are scored like a method's.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.protein_design import mpnn
from methods.protein_design.backbone import Backbone, decode
from methods.protein_design.objectives import score_objectives
from methods.protein_design.problem import DesignInputs, Designs, DesignTruth, hidden
from methods.protein_design.scored import scored_designs

REFERENCE_TEMPERATURE = 0.1


@dataclass(frozen=True)
class BackboneSet:
    name: str
    backbones: tuple[Backbone, ...]


def split_spec(split: Mapping[str, Any]) -> tuple[int, int]:
    unknown = set(split) - {"train", "designs"}
    if unknown:
        raise ValueError(f"unknown split key {sorted(unknown)[0]!r}; the keys are train and designs")
    train, designs = split.get("train", 4), split.get("designs", 8)
    if not isinstance(train, int) or train < 0 or not isinstance(designs, int) or designs < 1:
        raise ValueError(f"train is a count >= 0 and designs one >= 1, got {train!r} and {designs!r}")
    return train, designs


class InverseFolding(Task):
    """Backbones in, sequences out; a new train/test split of the backbones per seed."""

    tiny_instance_is_slow = True

    # Several designs per test backbone, numbered by `design`; every backbone needs at least one.
    predictions_schema = PredictionsSchema(
        (Column("backbone", "text", description="the backbone's name (a pdb_folder file's stem)"),
         Column("design", "integer", description="the design's number within its backbone"),
         Column("sequence", "text", description="one of the 20 amino-acid letters per position"),
         Column("policy_logp", "number", may_be_empty=True,
                description="mean per-residue log-probability under the designer (for the KL), or empty"),
         Column("predicted_structure", "text", may_be_empty=True,
                description="a PDB/mmCIF file of the design's predicted structure (scTM, RMSD): absolute, or "
                            "relative to the folder harness runs in; or empty")),
        sample="backbone", repeat="design")

    def test_samples(self, instance: Instance) -> list[str]:
        return [backbone.name for backbone in instance.truth.backbones]

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_spec(split)

    def instance(self, data: BackboneSet, split: Mapping[str, Any], seed: int) -> Instance:
        train_count, designs = split_spec(split)
        if train_count >= len(data.backbones):
            raise DataError(f"dataset '{data.name}' has {len(data.backbones)} backbones; train={train_count} "
                            "leaves none to design", field="split.train")
        order = np.random.default_rng(seed).permutation(len(data.backbones))
        train = tuple(hidden(data.backbones[i]) for i in order[:train_count])
        test = tuple(data.backbones[i] for i in order[train_count:])
        reference_model = mpnn.load("vanilla", "020")
        reference = {}
        for k, backbone in enumerate(test):
            tokens = mpnn.sample(reference_model, mpnn.features(backbone), designs, REFERENCE_TEMPERATURE,
                                 seed * 1000 + k + 500)
            reference[backbone.name] = score_objectives(backbone, [decode(t) for t in tokens], seed)
        inputs = DesignInputs(train, tuple(hidden(b) for b in test), designs, seed)
        return Instance(inputs, DesignTruth(test, reference, seed))

    def tiny_instance(self, seed: int) -> Instance:
        """Two short helices and a hairpin, one of them for training, two designs each."""
        from methods.protein_design.generators import hairpin, helix

        backbones = (helix(12), helix(14, 1), hairpin(6))
        return self.instance(BackboneSet("tiny", backbones), {"train": 1, "designs": 2}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        inputs: DesignInputs = instance.inputs
        if not isinstance(output, Designs):
            raise ValueError(f"a protein design method returns Designs, got {type(output).__name__}")
        rows = []
        for backbone in inputs.test:
            sequences = output.sequences.get(backbone.name, [])
            if len(sequences) != inputs.designs:
                raise ValueError(f"backbone {backbone.name}: {inputs.designs} designs expected, got {len(sequences)}")
            logp = None if output.policy_logp is None else output.policy_logp[backbone.name]
            predicted = (output.predicted or {}).get(backbone.name) or [""] * len(sequences)
            rows += [{"backbone": backbone.name, "design": i, "sequence": s,
                      "policy_logp": float("nan") if logp is None else float(logp[i]),
                      "predicted_structure": predicted[i]}
                     for i, s in enumerate(sequences)]
        return pd.DataFrame(rows)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_designs(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
