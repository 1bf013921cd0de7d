"""The contract `modular_lm.domain_qa`: answer each test question of the four-domain corpus (or replay a
user's generations) and score the answers per domain, with the routing and ablation analyses (MiCRo, arXiv
2506.13331, in miniature).

A method sees the test questions without their answers and the dataset's recipe of the seed's dense base; it
returns `Answer`s: for a mixture, the test set answered as trained (with per-layer expert counts of each
prompt's tokens), with each expert removed and with each expert steered. The predictions table (condition,
id, generation, routing) is re-scored by the same checkers as users' files (`scoring.py`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from methods.common.corpus import build_corpus
from methods.modular_lm.inputs import Truth
from methods.modular_lm.metrics import ScoredRun
from methods.modular_lm.scoring import is_correct

COLUMNS = ("condition", "id", "generation", "routing")


class DomainQA(Task):
    """Generated four-domain questions (the same test set for every seed; the seed trains the models) or a
    user's generations (`byo`)."""

    tiny_instance_is_slow = True  # it pre-trains a tiny base (a few seconds)

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
        source = generated({"config": config})
        recorded = {e.id: e.answer for e in build_corpus(source.corpus).test}
        return self.instance(replace(source, recorded=recorded), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, list):
            raise ValueError(f"a modular_lm method returns a list of Answer, got {type(output).__name__}")
        rows = [(a.condition, a.id, a.generation, "" if a.routing is None else json.dumps(a.routing))
                for a in output]
        return pd.DataFrame(rows, columns=list(COLUMNS))

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        run = scored_run(instance.truth, predictions)
        return {key: metric(run) for key, metric in metrics.items()}


def scored_run(truth: Mapping[str, Truth], predictions: pd.DataFrame) -> ScoredRun:
    """The predictions checked against the truth: every question answered once per condition, none unknown."""
    missing = [c for c in COLUMNS if c not in predictions.columns]
    if missing:
        raise ValueError(f"the predictions table lacks column(s) {', '.join(missing)}")
    unknown = set(predictions["id"]) - set(truth)
    if unknown:
        raise ValueError(f"{len(unknown)} answer(s) to unknown questions, e.g. '{sorted(unknown)[0]}'")
    for condition, group in predictions.groupby("condition"):
        if group["id"].duplicated().any() or len(group) != len(truth):
            raise ValueError(f"condition '{condition}' must answer each of the {len(truth)} questions once")
    rows = pd.DataFrame({
        "condition": predictions["condition"], "id": predictions["id"],
        "domain": [truth[i].domain for i in predictions["id"]], "ood": [truth[i].ood for i in predictions["id"]],
        "correct": [is_correct(str(g), truth[i].target) for g, i in zip(predictions["generation"], predictions["id"],
                                                                         strict=True)],
        "routing": [json.loads(r) if isinstance(r, str) and r else None for r in predictions["routing"]]})
    return ScoredRun(rows)
