"""The contract `protein_design.inverse_folding`: design sequences for backbones (ProtAlign / MoMPNN, arXiv
2603.06748), scored by in-silico oracles on developability and designability.

Each seed splits the dataset's backbones into `train` backbones (an alignment method may fine-tune on them) and
test backbones, for which a method returns `designs` sequences each (`Designs`). The task draws ProteinMPNN's
own samples (T = 0.1) on the test backbones as the reference for the win rate. Predictions table: one row per
(backbone, design) with `sequence`, `policy_logp` (the method's mean per-residue log-probability, or empty),
`policy_kl` (its KL to the reference policy, from the weights, or empty) and `predicted_structure` (a predicted
structure's file, or empty); scoring reads that table alone (plus the truth's backbones), so a user's designs,
a suite's `predictions:` file, are scored like a method's.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.protein_design import mpnn
from methods.protein_design.backbone import Backbone, decode
from methods.protein_design.backbone_pool import split_pool
from methods.protein_design.objectives import ObjectiveScores, score_objectives
from methods.protein_design.problem import BackboneSet, DesignInputs, Designs, DesignTruth, hidden
from methods.protein_design.scored import scored_designs

REFERENCE_TEMPERATURE = 0.1


@dataclass(frozen=True)
class Split:
    """A suite's `split:` block. `stratified` (opt-in; the first pass's suites use the plain permutation) draws
    the training backbones with `backbone_pool.split_pool`, real and generated chains on both sides;
    `train_max_length` keeps longer backbones out of training (they are still designed), since a DPO round costs
    CPU in proportion to the training residues."""

    train: int
    designs: int
    stratified: bool = False
    train_max_length: int | None = None


def split_spec(split: Mapping[str, Any]) -> Split:
    unknown = set(split) - {"train", "designs", "stratified", "train_max_length"}
    if unknown:
        raise ValueError(f"unknown split key {sorted(unknown)[0]!r}; the keys are train, designs, stratified and "
                         "train_max_length")
    train, designs = split.get("train", 4), split.get("designs", 8)
    stratified, longest = split.get("stratified", False), split.get("train_max_length")
    if not isinstance(train, int) or train < 0 or not isinstance(designs, int) or designs < 1:
        raise ValueError(f"train is a count >= 0 and designs one >= 1, got {train!r} and {designs!r}")
    if not isinstance(stratified, bool) or (stratified and train < 1):
        raise ValueError(f"stratified is true or false and needs train >= 1, got {stratified!r} with train={train}")
    if longest is not None and (not stratified or not isinstance(longest, int) or longest < 1):
        raise ValueError(f"train_max_length is a residue count >= 1 and needs stratified: true, got {longest!r}")
    return Split(train, designs, stratified, longest)


def split_backbones(backbones: tuple[Backbone, ...], split: Split, seed: int
                    ) -> tuple[tuple[Backbone, ...], tuple[Backbone, ...]]:
    """(train, test) for one seed: the plain seeded permutation (the first pass's suites), or the stratified
    draw among the backbones short enough to train on, the rest designed in dataset order."""
    if not split.stratified:
        order = np.random.default_rng(seed).permutation(len(backbones))
        return (tuple(backbones[i] for i in order[:split.train]), tuple(backbones[i] for i in order[split.train:]))
    limit = split.train_max_length or max(b.length for b in backbones)
    eligible = tuple(b for b in backbones if b.length <= limit)
    if split.train >= len(eligible):
        raise DataError(f"{len(eligible)} backbones have at most {limit} residues; train={split.train} leaves "
                        "none of them to design", field="split.train")
    train, _ = split_pool(eligible, split.train, seed)
    chosen = {b.name for b in train}
    return train, tuple(b for b in backbones if b.name not in chosen)


_REFERENCE_CACHE: dict[str, dict[str, ObjectiveScores]] = {}
_REFERENCE_CACHE_SIZE = 16


def reference_objectives(test: tuple[Backbone, ...], designs: int, seed: int) -> dict[str, ObjectiveScores]:
    """ProteinMPNN's own samples (T = 0.1) on the test backbones, scored by the oracles: the win rate's reference.
    Cached by content within a worker, since every method's run of a seed builds the same instance (a third of
    a sampling baseline's CPU time on `pool`); the computation is seeded, so a cached value is the same."""
    key = hashlib.sha256(repr((designs, seed, [(b.name, b.numbering.tolist(), b.chain.tolist()) for b in test]))
                         .encode() + b"".join(np.ascontiguousarray(b.coords).tobytes() for b in test)).hexdigest()
    if key not in _REFERENCE_CACHE:
        model = mpnn.load("vanilla", "020")
        _REFERENCE_CACHE[key] = {
            b.name: score_objectives(b, [decode(t) for t in mpnn.sample(model, mpnn.features(b), designs,
                                                                        REFERENCE_TEMPERATURE,
                                                                        seed * 1000 + k + 500)], seed)
            for k, b in enumerate(test)}
        while len(_REFERENCE_CACHE) > _REFERENCE_CACHE_SIZE:
            _REFERENCE_CACHE.pop(next(iter(_REFERENCE_CACHE)))
    return _REFERENCE_CACHE[key]


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
         Column("policy_kl", "number", may_be_empty=True,
                description="KL(designer || vanilla ProteinMPNN at the design temperature) per residue from "
                            "the full per-position distributions (kl.policy_kl), or empty"),
         Column("predicted_structure", "text", may_be_empty=True,
                description="a PDB/mmCIF file of the design's predicted structure (scTM, RMSD): absolute, or "
                            "relative to the folder harness runs in; or empty")),
        sample="backbone", repeat="design")

    def test_samples(self, instance: Instance) -> list[str]:
        return [backbone.name for backbone in instance.truth.backbones]

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_spec(split)

    def instance(self, data: BackboneSet, split: Mapping[str, Any], seed: int) -> Instance:
        spec = split_spec(split)
        designs = spec.designs
        if spec.train >= len(data.backbones):
            raise DataError(f"dataset '{data.name}' has {len(data.backbones)} backbones; train={spec.train} "
                            "leaves none to design", field="split.train")
        chosen, test = split_backbones(data.backbones, spec, seed)
        train = tuple(hidden(b) for b in chosen)
        inputs = DesignInputs(train, tuple(hidden(b) for b in test), designs, seed)
        return Instance(inputs, DesignTruth(test, reference_objectives(test, designs, seed), seed))

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
            kl = None if output.policy_kl is None else output.policy_kl[backbone.name]
            predicted = (output.predicted or {}).get(backbone.name) or [""] * len(sequences)
            rows += [{"backbone": backbone.name, "design": i, "sequence": s,
                      "policy_logp": float("nan") if logp is None else float(logp[i]),
                      "policy_kl": float("nan") if kl is None else float(kl[i]),
                      "predicted_structure": predicted[i]}
                     for i, s in enumerate(sequences)]
        return pd.DataFrame(rows)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_designs(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
