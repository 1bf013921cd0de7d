"""The contract `protein_design.hp_lattice` (T-PA-3): design H/P sequences for 2D lattice targets, where
designability is exact. A dataset is a chain length n and its most designable structures; a method returns
`designs` sequences per target; scoring enumerates every walk, so a design's Boltzmann probability of folding
into the target and whether the target is its unique ground state are exact."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.protein_design.hp_lattice import MAX_LENGTH, designability, lattice


@dataclass(frozen=True)
class HPTargets:
    n: int
    targets: tuple[int, ...]  # contact-map indices of lattice(n), each designable
    designs: int              # sequences per target
    temperature: float        # of the Boltzmann fold probability


@dataclass(frozen=True)
class HPDesigns:
    sequences: dict[int, np.ndarray]  # target -> (designs, n) H(1)/P(0)


def load_hp_targets(n: int = 12, targets: int = 4, designs: int = 16, temperature: float = 0.3) -> HPTargets:
    """The `targets` most designable structures of n residues (ties broken by map order)."""
    if not 6 <= n <= MAX_LENGTH:
        raise DataError(f"n must be in 6..{MAX_LENGTH} (exact enumeration), got {n}", field="n")
    counts = designability(n)
    available = int((counts > 0).sum())
    if not 1 <= targets <= available or designs < 1 or temperature <= 0:
        raise DataError(f"n = {n} has {available} designable structures; need 1 <= targets <= {available}, "
                        f"designs >= 1 and temperature > 0, got {targets}, {designs}, {temperature}", field="targets")
    order = np.argsort(-counts, kind="stable")[:targets]
    return HPTargets(n, tuple(int(t) for t in order), designs, temperature)


class HPLatticeDesign(Task):
    """Exact inverse folding on the 2D HP lattice; the problem is fixed, a seed changes the methods' draws."""

    predictions_schema = PredictionsSchema(
        (Column("target", "integer", description="the target's contact-map index"),
         Column("design", "integer", description="the design's number within its target"),
         Column("sequence", "text", description="n letters of H and P")),
        sample="target", repeat="design")

    def test_samples(self, instance: Instance) -> tuple[int, ...]:
        return instance.truth.targets

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "hp_lattice", "the targets and sizes are dataset arguments")

    def instance(self, data: HPTargets, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(data, data)

    def tiny_instance(self, seed: int) -> Instance:
        return self.instance(load_hp_targets(n=8, targets=2, designs=4), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        data: HPTargets = instance.inputs
        if not isinstance(output, HPDesigns):
            raise ValueError(f"an HP lattice method returns HPDesigns, got {type(output).__name__}")
        rows = []
        for target in data.targets:
            sequences = np.asarray(output.sequences.get(target, np.zeros((0, data.n))))
            if sequences.shape != (data.designs, data.n) or not np.isin(sequences, (0, 1)).all():
                raise ValueError(f"target {target}: ({data.designs}, {data.n}) H/P sequences of 0 and 1 expected, "
                                 f"got shape {sequences.shape}")
            rows += [{"target": target, "design": i, "sequence": "".join("HP"[1 - int(v)] for v in s)}
                     for i, s in enumerate(sequences)]
        return pd.DataFrame(rows)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_hp(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}


@dataclass(frozen=True)
class ScoredHP:
    fold_probability: np.ndarray  # (targets, designs)
    designs_target: np.ndarray    # (targets, designs) bool
    hydrophobic: np.ndarray       # (targets, designs) H fraction
    designability: np.ndarray     # (targets,) exact


def encode_hp(sequence: str) -> np.ndarray:
    return np.array([1 if c == "H" else 0 for c in sequence], dtype=np.int64)


def scored_hp(data: HPTargets, predictions: pd.DataFrame) -> ScoredHP:
    grid = lattice(data.n)
    folds, unique, hydrophobic = [], [], []
    for target in data.targets:
        rows = predictions[predictions["target"] == target].sort_values("design")
        if any(len(s) != data.n or set(s) - {"H", "P"} for s in rows["sequence"]):
            raise DataError(f"target {target}: designs must be {data.n} letters of H and P", field="sequence")
        sequences = np.stack([encode_hp(s) for s in rows["sequence"]])
        folds.append(grid.fold_probability(sequences, target, data.temperature))
        unique.append(grid.designs(sequences, target))
        hydrophobic.append(sequences.mean(axis=1))
    return ScoredHP(np.array(folds), np.array(unique), np.array(hydrophobic),
                    designability(data.n)[list(data.targets)])


FOLD_PROBABILITY = Metric("fold_probability", lambda r: 100 * r.fold_probability.mean(), True, unit="%")
LOG_FOLD_PROBABILITY = Metric("log_fold_probability", lambda r: np.log(r.fold_probability).mean(), True,
                              unit="nats")
DESIGNS_TARGET = Metric("designs_target", lambda r: 100 * r.designs_target.mean(), True, unit="%")
POLAR_FRACTION = Metric("polar_fraction", lambda r: 100 * (1 - r.hydrophobic.mean()), True, unit="%")
TARGET_DESIGNABILITY = Metric("target_designability", lambda r: float(r.designability.mean()), True,
                              deterministic=True)
