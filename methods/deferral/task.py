"""The contract `deferral.allocation`: route each test query to a set of entities (the fixed model and the
experts) and decide from their answers (Top-k L2D, Montreuil et al., arXiv 2504.12988).

A method sees the labelled train and validation parts with every entity's answers there, the test features
with the fixed model's outputs, and the entities' costs; it returns an `Allocation`. The task aggregates the
consulted answers (weighted vote, or weighted mean) into decisions. Predictions table (`predictions_schema`),
one row per (operating point, test sample): `point` (0 = the method as configured), `sample`, `decision`,
`model_answer` (what entity 0 answered) and one boolean `consult_<entity>` column per entity. Scoring reads that
table alone.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.deferral.aggregation import aggregate
from methods.deferral.base_model import fit_fixed_model
from methods.deferral.losses import expected_model_loss
from methods.deferral.metrics import OperatingPoint, ScoredAllocation
from methods.deferral.problem import MODEL, Allocation, AllocationInputs, AllocationTruth, DeferralProblem, Part
from methods.deferral.set_costs import set_members, truth_set_costs
from methods.deferral.splits import split_parts, split_spec


class DeferralAllocation(Task):
    """Learning to defer to one or several entities; a new split and new expert draws per seed."""

    predictions_schema = PredictionsSchema(
        (Column("point", "integer", description="0: the method as configured; 1, 2, ...: its other operating points"),
         Column("sample", "id", description="the test sample's id (a row number, or a bring-your-own file's id)"),
         Column("decision", "number", description="the aggregated answer: a class, or a regression value"),
         Column("model_answer", "number", description="what entity 0 (the fixed model) answered"),
         Column("consult_", "boolean", prefix=True, description="consult_<entity>: whether the sample consults it")),
        sample="sample", per=("point",))

    def test_samples(self, instance: Instance) -> list[str]:
        return instance.truth.sample.tolist()

    def check_split(self, split: Mapping[str, Any]) -> None:
        split_spec(split)

    def instance(self, data: DeferralProblem, split: Mapping[str, Any], seed: int) -> Instance:
        spec = split_spec(split)
        rng = np.random.default_rng(seed)
        strata = data.y if data.kind == "classification" else np.zeros(data.y.size, dtype=np.int64)
        model_rows, train, selector, val, test = split_parts(strata, spec, rng)
        for name, rows in (("model", model_rows), ("train", train), ("selector", selector), ("val", val),
                           ("test", test)):
            if rows.size == 0:
                raise DataError(f"dataset '{data.name}': the {name} part of the split is empty", field="split",
                                hint="Use more samples or larger fractions.")
        if data.kind == "classification" and np.unique(data.y[model_rows]).size < data.num_classes:
            raise DataError(f"dataset '{data.name}': the model part misses a class, so the fixed model cannot "
                            "give every class a probability", field="split", hint="Raise the model fraction.")
        fitted = np.concatenate([model_rows, train])
        mean, std = data.x[fitted].mean(axis=0), data.x[fitted].std(axis=0)
        x = (data.x - mean) / np.where(std > 0, std, 1.0)
        expert_answers = data.panel.answers(np.arange(data.y.size), data.y, rng)
        model = fit_fixed_model(data.kind, x[model_rows], data.y[model_rows], spec.model_components, seed)
        outputs = model.outputs(x)
        answers = np.column_stack([model.answers(outputs), expert_answers])
        costs = np.concatenate([[data.model_cost], data.panel.costs]).astype(np.float64)
        entities = (MODEL, *data.panel.names)
        posterior = None if data.posterior is None else data.posterior[test]
        expert_loss = data.panel.expected_loss(test, data.y[test], posterior)
        model_loss = expected_model_loss(data.kind, answers[test, 0], data.y[test], posterior)
        expected = np.column_stack([model_loss, expert_loss]) + costs[None, :]
        class_loss = None if posterior is None else np.stack(
            [data.panel.expected_loss(test, np.full(test.size, label), None) for label in range(data.num_classes)],
            axis=1)
        truth = AllocationTruth(data.kind, data.num_classes, entities, costs, data.sample_ids[test], data.y[test],
                                answers[test], expert_loss, posterior, class_loss, data.panel.draws, data.budgets)

        def part(rows: np.ndarray) -> Part:
            return Part(x[rows], data.y[rows], answers[rows], outputs[rows])

        set_costs = truth_set_costs(truth, answers[test, 0])
        best_sets = np.zeros(expected.shape, dtype=bool)
        for row, mask in enumerate(set_costs.argmin(axis=1)):
            best_sets[row, set_members(len(entities))[mask]] = True
        inputs = AllocationInputs(data.kind, data.num_classes, entities, costs, part(train), part(selector),
                                  part(val), x[test], outputs[test], expected, best_sets)
        return Instance(inputs=inputs, truth=truth)

    def tiny_instance(self, seed: int) -> Instance:
        """A generated four-class Gaussian mixture of 240 samples with three class specialists."""
        from methods.deferral.data import gaussian_mixture

        return self.instance(gaussian_mixture(num_samples=240, num_classes=4, dims=4, experts=3, seed=seed), {}, seed)

    def hide_test_labels(self, inputs: AllocationInputs, rng: np.random.Generator) -> AllocationInputs:
        """The exact expected test costs and best sets (the oracle's knowledge) replaced by noise."""
        noise = rng.random(inputs.test_expected_costs.shape)
        return replace(inputs, test_expected_costs=noise, test_best_sets=noise == noise.min(axis=1, keepdims=True))

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance:
        """Test samples drawn with replacement: the within-run bootstrap."""
        truth: AllocationTruth = instance.truth
        draw = rng.integers(0, truth.y.size, truth.y.size)
        posterior = None if truth.posterior is None else truth.posterior[draw]
        class_loss = None if truth.expert_class_loss is None else truth.expert_class_loss[draw]
        return Instance(instance.inputs, replace(truth, sample=truth.sample[draw], y=truth.y[draw],
                                                 answers=truth.answers[draw],
                                                 expert_expected_loss=truth.expert_expected_loss[draw],
                                                 posterior=posterior, expert_class_loss=class_loss))

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: AllocationTruth = instance.truth
        consulted, weights, model_answer = _checked(output, truth.y.size, len(truth.entities))
        answers = truth.answers.copy()
        if model_answer is not None:
            answers[:, 0] = model_answer
        tables = []
        for point, (mask, weight) in enumerate(zip(consulted, weights, strict=True)):
            decision = aggregate(truth.kind, answers, np.where(mask, weight, 0.0), truth.num_classes)
            columns = {"point": np.full(truth.y.size, point, dtype=np.int64), "sample": truth.sample,
                       "decision": decision, "model_answer": answers[:, 0]}
            columns |= {consult_column(name): mask[:, j] for j, name in enumerate(truth.entities)}
            tables.append(pd.DataFrame(columns))
        return pd.concat(tables, ignore_index=True)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_allocation(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}


def consult_column(entity: str) -> str:
    return f"consult_{entity}"


def scored_allocation(truth: AllocationTruth, predictions: pd.DataFrame) -> ScoredAllocation:
    """The operating points of a checked table (`predictions_schema`) aligned with `truth.sample`; a `DataError`
    names what only this task knows: a `consult_` column missing for an entity, a gap in the points' numbers, a
    sample that consults nobody."""
    consults = [consult_column(entity) for entity in truth.entities]
    missing = [column for column in consults if column not in predictions.columns]
    if missing:
        raise DataError(f"predictions lack column {missing[0]!r} (found: {', '.join(map(str, predictions.columns))})",
                        field=missing[0], hint="Give a consult_<entity> column for each of " + ", ".join(consults))
    numbers = sorted(int(p) for p in predictions["point"].unique())
    if not numbers or numbers != list(range(len(numbers))):  # an empty table has no point 0
        raise DataError(f"operating points must be numbered 0, 1, ... without gaps, got {numbers[:6]}", field="point")
    tables = [predictions[predictions["point"] == number].set_index("sample").loc[truth.sample] for number in numbers]
    points = []
    for number, rows in enumerate(tables):
        consulted = rows[consults].to_numpy(dtype=bool)
        if not consulted.any(axis=1).all():
            raise DataError(f"operating point {number} has a sample that consults no entity", field=consults[0])
        points.append(OperatingPoint(consulted, rows["decision"].to_numpy()))
    return ScoredAllocation(truth, tuple(points), tables[0]["model_answer"].to_numpy())


def _checked(output: Any, num_test: int, num_entities: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The allocation's arrays, a `ValueError` saying what is wrong with a malformed one."""
    if not isinstance(output, Allocation):
        raise ValueError(f"a deferral method returns an Allocation, got {type(output).__name__}")
    consulted = np.asarray(output.consulted, dtype=bool)
    weights = np.asarray(output.weights, dtype=np.float64)
    if consulted.ndim != 3 or consulted.shape[1:] != (num_test, num_entities) or weights.shape != consulted.shape:
        raise ValueError(f"an allocation is (points, {num_test}, {num_entities}) for consulted and weights, got "
                         f"{consulted.shape} and {weights.shape}")
    if consulted.shape[0] == 0:
        raise ValueError("an allocation needs at least one operating point")
    if not (consulted.any(axis=2)).all():
        raise ValueError("every test sample must consult at least one entity at every operating point")
    voting = np.where(consulted, weights, 0.0).sum(axis=2) > 0
    if (weights < 0).any() or not np.isfinite(weights).all() or not voting.all():
        raise ValueError("vote weights must be finite, non-negative and positive on some consulted entity of "
                         "each sample")
    answer = None if output.model_answer is None else np.asarray(output.model_answer)
    if answer is not None and answer.shape != (num_test,):
        raise ValueError(f"model_answer must have shape ({num_test},), got {answer.shape}")
    return consulted, weights, answer
