"""The RDKit reward every learning method and the best-of-N search use: 1 + similarity for a constrained success
(a valid answer improving every objective at similarity >= delta), else 0 [inferred]. The released rewards.py
gives 0.3 x similarity + 0.7 x the signed property change above a similarity of 0.1 (OpenMolIns recipe), which
pays an unchanged copy 0.3, more than most QED edits earn; our first form (success + similarity, copies paid 1)
made the pilot's DePO policy collapse to copies within 50 steps (validation similarity 0.95, success 1 %). Here
nothing but a success is paid, so the reward is sparse, as the paper describes RLVR under similarity
constraints, and a closer success outscores a farther one."""
from __future__ import annotations

from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.scored import task_outcome


def reward(task: OptTask, answer: str) -> float:
    outcome = task_outcome(task, answer)
    return 1.0 + outcome.similarity if outcome.constrained(task.delta) else 0.0
