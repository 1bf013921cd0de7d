"""The family's metrics, pure functions of `ScoredAnswers`, under both success rules.

`sr_released`: per cent of tasks answered with a valid molecule that strictly improves every requested property,
the released RePO evaluate.py's rule (mumo_evaluate.py's for several properties); similarity is not part of it.
`sr_constrained`: improved and Morgan Tanimoto similarity >= delta (the task's constraint). `similarity`: mean
similarity of the valid answers to their sources (evaluate.py's `similarity_avg`; 0 with no valid answer).
`sr_x_sim_*`: the success rate times that similarity, the product of the two aggregates as the released cal.py
writes it (WSR = similarity x success_rate; here the rate in per cent).
"""
from __future__ import annotations

import numpy as np

from harness import Metric
from methods.molecule_opt.scored import ScoredAnswers


def sr_released(run: ScoredAnswers) -> float:
    return 100.0 * float(run.improved.mean())


def sr_constrained(run: ScoredAnswers) -> float:
    return 100.0 * float(run.constrained.mean())


def similarity(run: ScoredAnswers) -> float:
    return float(np.nanmean(run.similarity)) if run.valid.any() else 0.0


def sr_x_sim_released(run: ScoredAnswers) -> float:
    return sr_released(run) * similarity(run)


def sr_x_sim_constrained(run: ScoredAnswers) -> float:
    return sr_constrained(run) * similarity(run)


def validity(run: ScoredAnswers) -> float:
    return 100.0 * float(run.valid.mean())


def mean_gain(run: ScoredAnswers) -> float:
    """Mean change of the requested properties (in their direction) over the constrained successes; 0 if none."""
    return float(run.gain[run.constrained].mean()) if run.constrained.any() else 0.0


SR_RELEASED = Metric("sr_released", sr_released, higher_is_better=True, unit="%",
                     description="valid and every property improved (the released evaluate.py's success)")
SR_CONSTRAINED = Metric("sr_constrained", sr_constrained, higher_is_better=True, unit="%",
                        description="valid, every property improved and similarity >= delta")
SIMILARITY = Metric("similarity", similarity, higher_is_better=True,
                    description="mean Morgan Tanimoto similarity of the valid answers to their sources")
SR_X_SIM_RELEASED = Metric("sr_x_sim_released", sr_x_sim_released, higher_is_better=True,
                           description="sr_released (%) x similarity (the released cal.py's WSR)")
SR_X_SIM_CONSTRAINED = Metric("sr_x_sim_constrained", sr_x_sim_constrained, higher_is_better=True,
                              description="sr_constrained (%) x similarity")
VALIDITY = Metric("validity", validity, higher_is_better=True, unit="%",
                  description="per cent of answers RDKit parses")
MEAN_GAIN = Metric("mean_gain", mean_gain, higher_is_better=True,
                   description="mean property change in the requested direction over the constrained successes")
