"""The RDKit reward every learning method and the best-of-N search use (after the released `rewards.py`: zero
unless the answer is a valid molecule with similarity >= delta to the source). Above that threshold
[inferred: the exact combination is in the repository's rewards.py, not extracted]: 1 for improving every
objective, plus the similarity, so a success always outscores a near-copy and a closer success a farther one."""
from __future__ import annotations

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.scored import task_outcome


def reward(task: OptTask, answer: str) -> float:
    outcome = task_outcome(task, answer)
    if not outcome.valid or outcome.similarity < task.delta:
        return 0.0
    return float(outcome.improved) + outcome.similarity
