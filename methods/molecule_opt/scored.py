"""Every answer of a run scored against its task: validity, similarity to the source, the gain on each
objective, and success (valid, every objective improved, similarity >= delta). The metrics are means of these."""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.property_values import prefetch, property_value


@dataclass(frozen=True)
class ScoredAnswers:
    """One entry per task: `similarity` and `gain` (the objectives' mean gain) are NaN for invalid answers."""

    valid: np.ndarray
    similarity: np.ndarray
    success: np.ndarray
    gain: np.ndarray
    objectives: int  # how many objectives each task has (1 for single-property tasks)


def task_outcome(task: OptTask, answer: str) -> tuple[bool, float, bool, float]:
    """(valid, similarity, success, mean gain) of `answer` to `task`."""
    from methods.molecule_opt.chem import profile, similarity  # RDKit on use: validating needs no extra

    source, mol = profile(task.source), profile(answer)
    if source is None or mol is None:
        return False, float("nan"), False, float("nan")
    sim = similarity(source, mol)
    gains = [o.gain(property_value(source, o.prop), property_value(mol, o.prop)) for o in task.objectives]
    return True, sim, bool(sim >= task.delta and min(gains) > 0), float(np.mean(gains))


def scored_answers(truth: Mapping[str, OptTask], predictions: pd.DataFrame) -> ScoredAnswers:
    from methods.molecule_opt.chem import profile  # RDKit on use: validating needs no extra

    answers = dict(zip(predictions["task"], predictions["smiles"], strict=True))
    tasks = list(truth.values())
    props = {o.prop for t in tasks for o in t.objectives}
    answered = (p.smiles for a in answers.values() if (p := profile(a)) is not None)  # read only for ADMET-AI
    prefetch(itertools.chain(answered, (t.source for t in tasks)), props)
    outcomes = [task_outcome(t, answers.get(t.id, "")) for t in tasks]
    valid, sim, success, gain = (np.array(column) for column in zip(*outcomes, strict=True))
    return ScoredAnswers(valid.astype(bool), sim.astype(float), success.astype(bool), gain.astype(float),
                         max(len(t.objectives) for t in tasks))
