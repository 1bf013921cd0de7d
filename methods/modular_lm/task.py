"""The contract `modular_lm.domain_qa`: answer each test question of the four-domain corpus (or a user's
questions, whose generations are a predictions file) and score the answers per domain, with the routing and
ablation analyses (MiCRo, arXiv 2506.13331, in miniature).

A method sees the test questions without their answers and the dataset's recipe of the seed's dense base; it
returns `Answer`s: for a mixture, the test set answered as trained (with per-layer expert counts of each
prompt's tokens), with each expert removed and with each expert steered. The predictions table (condition,
id, generation, routing) is scored by the same checkers (`scoring.py`) whether a method or a user wrote it.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.modular_lm.inputs import Truth
from methods.modular_lm.metrics import ScoredRun
from methods.modular_lm.scoring import is_correct


class DomainQA(Task):
    """Generated four-domain questions (the same test set for every seed; the seed trains the models) or a
    user's questions (`byo`)."""

    # Every test question answered once under each condition the table holds (a dense model's only `full`).
    predictions_schema = PredictionsSchema(
        (Column("condition", "text", description="full (as trained), remove:E (expert E ablated) or steer:E"),
         Column("id", "text", description="the question's id"),
         Column("generation", "text", may_be_empty=True, description="the model's answer (empty: none)"),
         Column("routing", "text", may_be_empty=True,
                description="full condition of a mixture: JSON per-layer token counts per expert; else empty")),
        sample="id", per=("condition",))

    tiny_instance_is_slow = True  # it pre-trains a tiny base (a few seconds)

    def test_samples(self, instance: Instance) -> list[str]:
        return list(instance.truth)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "modular_lm.domain_qa", "the corpus's splits are the loader's")

    def instance(self, data: Any, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data.inputs(), truth=data.truth())

    def tiny_instance(self, seed: int) -> Instance:
        """A corpus of 40 training questions per domain and a two-layer d = 16 base trained for 20 steps."""
        from methods.modular_lm.data import generated

        corpus = {"train_per_domain": 40, "dev_per_domain": 8, "test_per_domain": 8, "ood_per_domain": 4,
                  "entities": 20}
        config = {"corpus": corpus, "hidden_size": 16, "intermediate_size": 32, "num_heads": 2, "steps": 20,
                  "batch_size": 8}
        return self.instance(generated({"config": config}), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, list):
            raise ValueError(f"a modular_lm method returns a list of Answer, got {type(output).__name__}")
        rows = [(a.condition, a.id, a.generation, "" if a.routing is None else json.dumps(a.routing))
                for a in output]
        return pd.DataFrame(rows, columns=[c.name for c in self.predictions_schema.columns])

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        run = scored_run(instance.truth, predictions)
        return {key: metric(run) for key, metric in metrics.items()}


def scored_run(truth: Mapping[str, Truth], predictions: pd.DataFrame) -> ScoredRun:
    """Each answer graded against its question's target; `predictions` passed the task's schema (every question
    answered once per condition, none unknown)."""
    rows = pd.DataFrame({
        "condition": predictions["condition"], "id": predictions["id"],
        "domain": [truth[i].domain for i in predictions["id"]], "ood": [truth[i].ood for i in predictions["id"]],
        "reasoning": [truth[i].reasoning for i in predictions["id"]],
        "correct": [isinstance(g, str) and is_correct(g, truth[i].target)
                    for g, i in zip(predictions["generation"], predictions["id"], strict=True)],
        "routing": [json.loads(r) if isinstance(r, str) and r else None for r in predictions["routing"]]})
    return ScoredRun(rows)
