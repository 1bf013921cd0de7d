"""The contract `molecule_opt.optimise`: improve properties of source molecules while keeping them similar
(DePO/RePO's TOMG-Bench MolOpt and MuMO tasks, arXiv 2603.05900, in miniature over MOSES molecules).

A method sees each test task without its reference answer, can draw training tasks (with references) from a
separate stream and search the reference pool, and returns one SMILES per task. The predictions table holds the
raw strings: scoring parses them, so stored and user-supplied answers (a suite's `predictions:` file) are scored
by the same code.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.molecule_opt.data import TRAIN_STREAM, VALID_STREAM, TaskSource, draw_tasks, seed_tasks
from methods.molecule_opt.objectives import OptTask
from methods.molecule_opt.references import Pool
from methods.molecule_opt.scored import scored_answers

Answers = dict[str, str]  # task id -> the answer SMILES (any text; unparsable ones score invalid)


@dataclass(frozen=True)
class OptInputs:
    """The seed's test tasks with `reference` blanked, and where to draw training and validation tasks from."""

    source: TaskSource
    seed: int
    tasks: tuple[OptTask, ...]

    def training_tasks(self, count: int) -> list[OptTask]:
        """`count` tasks with references over MOSES-train sources (never the test set), cycling through the
        dataset's training objectives."""
        return draw_tasks(self.source, self.seed, TRAIN_STREAM, count, self.source.train_objectives)

    def validation_tasks(self, count: int) -> list[OptTask]:
        """`count` tasks of the test objective over held-out MOSES-train sources (neither the training sources
        nor the test set), for learning curves and choosing budgets."""
        return draw_tasks(self.source, self.seed, VALID_STREAM, count, (self.source.objectives,))

    def pool(self) -> Pool:
        return self.source.pool()


class MoleculeOptimisation(Task):
    """Each seed draws new source molecules (a prompts file's tasks are the same for every seed)."""

    tiny_instance_is_slow = True  # the policy methods pretrain a small language model on first use

    # One answer per task. A task left out is answered by nothing and scores invalid, as TOMG-Bench counts it.
    predictions_schema = PredictionsSchema(
        (Column("task", "text", description="the task's id (a prompts file's `id`)"),
         Column("smiles", "text", description="the answer, any text: one RDKit cannot parse scores invalid")),
        sample="task", every_sample=False)

    def test_samples(self, instance: Instance) -> list[str]:
        return list(instance.truth)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "molecule_opt.optimise", "the task set's size is the loader's count")

    def instance(self, data: TaskSource, split: Mapping[str, Any], seed: int) -> Instance:
        tasks = seed_tasks(data, seed)
        return Instance(inputs=OptInputs(data, seed, tuple(replace(t, reference=None) for t in tasks)),
                        truth={t.id: t for t in tasks})

    def tiny_instance(self, seed: int) -> Instance:
        """Four QED tasks with references from a 3,000-molecule pool."""
        from methods.molecule_opt.data import moses_tasks

        return self.instance(moses_tasks("qed+", delta=0.3, count=4, pool_size=3000), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: dict[str, OptTask] = instance.truth
        if not isinstance(output, dict):
            raise ValueError(f"a molecule_opt method returns {{task id: SMILES}}, got {type(output).__name__}")
        missing = [name for name in truth if name not in output]
        if missing:
            raise ValueError(f"{len(missing)} task(s) have no answer, e.g. '{missing[0]}'")
        return pd.DataFrame({"task": list(truth), "smiles": [str(output[name]) for name in truth]})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_answers(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
