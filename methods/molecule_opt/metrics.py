"""The family's metrics, pure functions of `ScoredAnswers` (TOMG-Bench / DePO's reporting).

`success_rate`: per cent of tasks whose answer is valid, improves every objective and keeps Tanimoto similarity
>= delta (for a multi-property task this is the all-constraints success). `similarity`: mean Tanimoto similarity
of the valid answers to their sources. `sr_x_sim`: success rate x similarity, the paper's headline product of
the two aggregates [inferred: the product of the means, not a per-task mean].
"""
from __future__ import annotations

import numpy as np

from harness import Metric
from methods.molecule_opt.scored import ScoredAnswers


def success_rate(run: ScoredAnswers) -> float:
    return 100.0 * float(run.success.mean())


def similarity(run: ScoredAnswers) -> float:
    return float(np.nanmean(run.similarity)) if run.valid.any() else 0.0


def sr_x_sim(run: ScoredAnswers) -> float:
    return success_rate(run) * similarity(run)


def validity(run: ScoredAnswers) -> float:
    return 100.0 * float(run.valid.mean())


def mean_gain(run: ScoredAnswers) -> float:
    """Mean change of the requested properties (in their direction) over the successful answers; 0 if none."""
    return float(run.gain[run.success].mean()) if run.success.any() else 0.0


SUCCESS_RATE = Metric("success_rate", success_rate, higher_is_better=True, unit="%",
                      description="valid, every objective improved, similarity >= delta")
SIMILARITY = Metric("similarity", similarity, higher_is_better=True,
                    description="mean Morgan Tanimoto similarity of the valid answers to their sources")
SR_X_SIM = Metric("sr_x_sim", sr_x_sim, higher_is_better=True,
                  description="success rate (%) x similarity")
VALIDITY = Metric("validity", validity, higher_is_better=True, unit="%",
                  description="per cent of answers RDKit parses")
MEAN_GAIN = Metric("mean_gain", mean_gain, higher_is_better=True,
                   description="mean property change in the requested direction over successful answers")
