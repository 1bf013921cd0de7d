"""Every answer of a run scored against its task: validity, similarity to the source, the gain on each
objective, and the two success rules. `improved` is the released RePO evaluate.py's success (a valid molecule
that strictly improves every requested property; similarity is reported apart, as the mean over valid answers);
`constrained` adds similarity >= delta, the task's own constraint (TOMG-Bench's instruction and the reward's
threshold). The metrics are means of these."""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.property_values import prefetch, property_value


@dataclass(frozen=True)
class Outcome:
    """One answer to one task; `similarity` and `gain` (the objectives' mean gain) are NaN when invalid."""

    valid: bool
    similarity: float
    improved: bool  # valid and every objective strictly improved (the released rule)
    gain: float

    def constrained(self, delta: float) -> bool:
        """Improved at similarity >= delta."""
        return self.improved and self.similarity >= delta


INVALID = Outcome(False, float("nan"), False, float("nan"))


@dataclass(frozen=True)
class ScoredAnswers:
    """One entry per task; `similarity` and `gain` are NaN for invalid answers."""

    valid: np.ndarray
    similarity: np.ndarray
    improved: np.ndarray  # the released success
    constrained: np.ndarray  # improved and similarity >= delta
    gain: np.ndarray
    objectives: int  # how many objectives each task has (1 for single-property tasks)


def task_outcome(task: OptTask, answer: str) -> Outcome:
    from methods.molecule_opt.chem import profile, similarity  # RDKit on use: validating needs no extra

    source, mol = profile(task.source), profile(answer)
    if source is None or mol is None:
        return INVALID
    gains = [o.gain(property_value(source, o.prop), property_value(mol, o.prop)) for o in task.objectives]
    return Outcome(True, similarity(source, mol), min(gains) > 0, float(np.mean(gains)))


def scored_answers(truth: Mapping[str, OptTask], predictions: pd.DataFrame) -> ScoredAnswers:
    from methods.molecule_opt.chem import profile  # RDKit on use: validating needs no extra

    answers = dict(zip(predictions["task"], predictions["smiles"], strict=True))
    tasks = list(truth.values())
    props = {o.prop for t in tasks for o in t.objectives}
    answered = (p.smiles for a in answers.values() if (p := profile(a)) is not None)  # read only for ADMET-AI
    prefetch(itertools.chain(answered, (t.source for t in tasks)), props)
    outcomes = [task_outcome(t, answers.get(t.id, "")) for t in tasks]
    return ScoredAnswers(np.array([o.valid for o in outcomes], dtype=bool),
                         np.array([o.similarity for o in outcomes], dtype=float),
                         np.array([o.improved for o in outcomes], dtype=bool),
                         np.array([o.constrained(t.delta) for o, t in zip(outcomes, tasks, strict=True)], dtype=bool),
                         np.array([o.gain for o in outcomes], dtype=float),
                         max(len(t.objectives) for t in tasks))
